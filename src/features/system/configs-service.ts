// ZoneMinder options (the Config table), addressed by Name. Rows are created by ZoneMinder's
// own installer (zmupdate.pl), so the API reads and updates them but never creates or deletes.
import { InvalidInputError, NotFoundError, PermissionDeniedError } from '../../errors.js';
import { strictPageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Config } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

export interface ConfigResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  name: string;
  /** The stored value; "********" for private entries. */
  value: string;
  /** ZoneMinder's option type: boolean, integer, decimal, hexadecimal, string, text, password. */
  type: string;
  category: string;
  /**
   * 1 when the entry cannot be changed through the API.
   * @isInt
   * @minimum 0
   */
  readonly: number;
  /**
   * 1 when the value is secret (masked here).
   * @isInt
   */
  private: number;
  /** @isInt */
  system: number;
  default_value?: string | null;
  help?: string | null;
  hint?: string | null;
  prompt?: string | null;
  pattern?: string | null;
  format?: string | null;
}

export interface CategoryCountResponse {
  category: string;
  /**
   * @isLong
   * @minimum 0
   */
  count: number;
}

/**
 * A configuration value as text.
 * @maxLength 65535
 */
export type ConfigValue = string;

export interface UpdateConfigRequest {
  /**
   * The new value. Booleans are stored as "1"/"0" (yes/no, true/false, on/off are accepted);
   * integer, decimal and hexadecimal options must hold such a number. A JSON number is taken as
   * its text.
   */
  value: ConfigValue | number;
}

/** What a private value reads as. Writing it back unchanged keeps the secret. */
export const MASK = '********';

const isSecret = (row: Config) => row.Private || row.Type === 'password';

function toResponse(row: Config): ConfigResponse {
  return {
    id: row.Id,
    name: row.Name,
    value: isSecret(row) ? MASK : row.Value,
    type: row.Type,
    category: row.Category,
    readonly: row.Readonly,
    private: row.Private ? 1 : 0,
    system: row.System ? 1 : 0,
    default_value: row.DefaultValue,
    help: row.Help,
    hint: row.Hint,
    prompt: row.Prompt,
    pattern: row.Pattern,
    format: row.Format,
  };
}

const TRUE = new Set(['1', 'yes', 'y', 'true', 'on']);
const FALSE = new Set(['0', 'no', 'n', 'false', 'off']);

/**
 * Checks (and for booleans normalises) a value against the option's Type, as ZoneMinder's
 * ConfigData types define them. `Pattern` holds Perl regular expressions and is left to
 * ZoneMinder: a translation would risk refusing values ZoneMinder itself accepts. Integer and
 * decimal options may be empty, as several are by default (ZM_MIN_RTSP_PORT, …).
 */
export function normaliseValue(type: string, value: string): string {
  const bad = (what: string) =>
    new InvalidInputError('Invalid input', [['value', `must be ${what} for a ${type} option`]]);
  const v = value.trim();
  switch (type) {
    case 'boolean':
      if (TRUE.has(v.toLowerCase())) return '1';
      if (FALSE.has(v.toLowerCase())) return '0';
      throw bad('1 or 0');
    case 'integer':
      if (v === '' || /^-?\d+$/.test(v)) return v;
      throw bad('an integer');
    case 'decimal':
      if (v === '' || /^-?\d+(\.\d+)?$/.test(v)) return v;
      throw bad('a decimal number');
    case 'hexadecimal':
      if (/^(0x)?[0-9a-f]{1,8}$/i.test(v)) return v;
      throw bad('a hexadecimal number of up to 8 digits');
    default:
      return value;
  }
}

/**
 * Prisma passes `contains` to LIKE without escaping on MySQL, so `%` and `_` would be wildcards;
 * a search is a plain substring. Backslash is MariaDB's default LIKE escape character.
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export class ConfigsService extends DbService {
  /** `category` matches Category exactly; `search` is a substring of Name. */
  async list(query: {
    page?: number;
    page_size?: number;
    category?: string;
    search?: string;
  }): Promise<Page<ConfigResponse>> {
    const req = strictPageRequest(query.page, query.page_size);
    const where = {
      ...(query.category !== undefined && { Category: query.category }),
      ...(query.search !== undefined && query.search !== '' && { Name: { contains: escapeLike(query.search) } }),
    };
    return listPage(
      req,
      this.prisma.config.findMany({ where, orderBy: [{ Id: 'asc' }, { Name: 'asc' }], skip: req.skip, take: req.take }),
      this.prisma.config.count({ where }),
      toResponse,
    );
  }

  async categories(): Promise<CategoryCountResponse[]> {
    const groups = await this.prisma.config.groupBy({
      by: ['Category'],
      _count: { _all: true },
      orderBy: { Category: 'asc' },
    });
    return groups.map((g) => ({ category: g.Category, count: g._count._all }));
  }

  private async row(name: string): Promise<Config> {
    const row = await this.prisma.config.findUnique({ where: { Name: name } });
    // CONFIG_NOT_FOUND_ERROR (code 5) is the kind v3 clients know; they fall back to defaults.
    if (!row) throw new NotFoundError(`Config ${name} not found`, [['name', name]], 'CONFIG');
    return row;
  }

  async get(name: string): Promise<ConfigResponse> {
    return toResponse(await this.row(name));
  }

  async update(name: string, body: UpdateConfigRequest): Promise<ConfigResponse> {
    const row = await this.row(name);
    if (row.Readonly) throw new PermissionDeniedError(`Config ${row.Name} is read-only`, [['name', row.Name]]);
    // A client that saves a whole form sends the mask back: that is "unchanged", not a new secret.
    const text = String(body.value);
    if (isSecret(row) && text === MASK) return toResponse(row);
    const value = normaliseValue(row.Type, text);
    const updated = await this.prisma.config.update({ where: { Name: row.Name }, data: { Value: value } });
    return toResponse(updated);
  }
}
