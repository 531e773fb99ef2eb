// ZoneMinder's database log (the Logs table): list with filters, get, and delete with the same
// filters.
//
// Levels are ZoneMinder's: PANIC -4, FATAL -3, ERROR -2, WARNING -1, INFO 0, DEBUG 1..9 (more
// severe = lower). `min_level` keeps that level and everything more severe.
//
// Delete guard: DELETE /logs removes what its filters match, and refuses to run without any
// filter unless `all=true` is given. So a stray or truncated request (no query string, or only
// parameters this route does not know, such as `per_page`) can never wipe the log; clearing
// everything is one explicit opt-in. Rows go in batches, so zmc and the other daemons that keep
// writing log rows are never blocked behind one huge delete.
import { Decimal } from '@prisma/client-runtime-utils';
import { InvalidInputError, notFound } from '../../errors.js';
import type { Logs } from '../../generated/prisma/client.js';
import type { MessageResponse } from '../../api/envelopes.js';
import { pageOf, strictPageRequest, type Page } from '../../api/pagination.js';
import { DbService } from '../db-service.js';

export interface LogResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  /** Unix time with microseconds, as a decimal string (ZoneMinder's TimeKey), e.g. "1768471200.123456". */
  time_key: string;
  component: string;
  /**
   * @isInt
   * @minimum 0
   */
  server_id?: number | null;
  /**
   * @isInt
   */
  pid?: number | null;
  /**
   * PANIC -4, FATAL -3, ERROR -2, WARNING -1, INFO 0, DEBUG 1..9.
   * @isInt
   */
  level: number;
  /** PNC, FAT, ERR, WAR, INF or DB1..DB9. */
  code: string;
  message: string;
  file?: string | null;
  /**
   * @isInt
   * @minimum 0
   */
  line?: number | null;
}

export interface LogFilters {
  component?: string;
  min_level?: string;
  level?: number;
  search?: string;
  start?: number;
  end?: number;
  server_id?: number;
}

export interface LogListQuery extends LogFilters {
  page?: number;
  page_size?: number;
  sort?: string;
}

/** min_level names (and ZoneMinder's codes) → the highest Level value kept. */
const MIN_LEVELS: Record<string, number> = {
  panic: -4,
  pnc: -4,
  fatal: -3,
  fat: -3,
  error: -2,
  err: -2,
  warning: -1,
  warn: -1,
  war: -1,
  info: 0,
  inf: 0,
  debug: 9,
  dbg: 9,
};

const DELETE_BATCH = 5000;

function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

interface LogWhere {
  sql: string;
  params: unknown[];
  /** How many filters were given (0: the whole table). */
  filters: number;
}

/** The WHERE clause of the filters; column names are literals here, every value a placeholder. */
function logWhere(f: LogFilters): LogWhere {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    conditions.push(sql);
    params.push(...values);
  };
  if (f.component !== undefined && f.component !== '') add('Component = ?', f.component);
  if (f.min_level !== undefined && f.min_level !== '') {
    const max = MIN_LEVELS[f.min_level.trim().toLowerCase()];
    if (max === undefined)
      throw new InvalidInputError('Invalid input', [
        ['min_level', 'must be one of panic, fatal, error, warning, info, debug'],
      ]);
    add('Level <= ?', max);
  }
  if (f.level !== undefined) add('Level = ?', f.level);
  if (f.search !== undefined && f.search !== '') {
    if (f.search.length > 1024)
      throw new InvalidInputError('Invalid input', [['search', 'must be at most 1024 characters']]);
    add('LOWER(Message) LIKE ?', containsPattern(f.search));
  }
  for (const [name, value] of [
    ['start', f.start],
    ['end', f.end],
  ] as const) {
    if (value !== undefined && !Number.isFinite(value))
      throw new InvalidInputError('Invalid input', [[name, 'must be a number of seconds since 1970']]);
  }
  if (f.start !== undefined && f.end !== undefined && f.start > f.end)
    throw new InvalidInputError('Invalid input', [['end', 'is before start']]);
  if (f.start !== undefined) add('TimeKey >= ?', f.start);
  if (f.end !== undefined) add('TimeKey <= ?', f.end);
  if (f.server_id !== undefined) add('ServerId = ?', f.server_id);
  return { sql: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', params, filters: conditions.length };
}

function toResponse(row: Logs): LogResponse {
  return {
    id: row.Id,
    time_key: new Decimal(row.TimeKey as Decimal.Value).toFixed(6),
    component: row.Component,
    server_id: row.ServerId,
    pid: row.Pid,
    level: row.Level,
    code: row.Code,
    message: row.Message,
    file: row.File,
    line: row.Line,
  };
}

export class LogsService extends DbService {
  async list(query: LogListQuery): Promise<Page<LogResponse>> {
    const req = strictPageRequest(query.page, query.page_size);
    const sort = (query.sort ?? 'desc').toLowerCase();
    if (sort !== 'asc' && sort !== 'desc')
      throw new InvalidInputError('Invalid input', [['sort', 'must be asc or desc']]);
    const dir = sort === 'asc' ? 'ASC' : 'DESC';
    const where = logWhere(query);
    const [rows, counted] = await Promise.all([
      this.prisma.$queryRawUnsafe<Logs[]>(
        `SELECT Id, TimeKey, Component, ServerId, Pid, Level, Code, Message, File, Line FROM Logs ${where.sql} ORDER BY TimeKey ${dir}, Id ${dir} LIMIT ? OFFSET ?`,
        ...where.params,
        req.take,
        Math.min(req.skip, Number.MAX_SAFE_INTEGER),
      ),
      this.prisma.$queryRawUnsafe<Array<{ n: bigint | number }>>(
        `SELECT COUNT(*) AS n FROM Logs ${where.sql}`,
        ...where.params,
      ),
    ]);
    // Raw rows: unsigned INTs arrive as bigint, DECIMAL as Decimal.
    const items = rows.map((r) =>
      toResponse({
        ...r,
        Id: Number(r.Id),
        ServerId: r.ServerId === null ? null : Number(r.ServerId),
        Pid: r.Pid === null ? null : Number(r.Pid),
        Level: Number(r.Level),
        Line: r.Line === null ? null : Number(r.Line),
      }),
    );
    return pageOf(items, Number(counted[0]?.n ?? 0), req);
  }

  async get(id: number): Promise<LogResponse> {
    const row = await this.prisma.logs.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Log entry', id, 'MESSAGE');
    return toResponse(row);
  }

  /** Deletes the entries the filters match; without any filter only with `all` (see header). */
  async clear(filters: LogFilters, all?: boolean): Promise<MessageResponse> {
    const where = logWhere(filters);
    if (where.filters === 0 && all !== true) {
      throw new InvalidInputError('Refusing to delete every log entry without a filter', [
        [
          'all',
          'give a filter (component, min_level, level, search, start, end, server_id), or all=true to delete every entry',
        ],
      ]);
    }
    let deleted = 0;
    for (;;) {
      const n = await this.prisma.$executeRawUnsafe(
        `DELETE FROM Logs ${where.sql} LIMIT ${DELETE_BATCH}`,
        ...where.params,
      );
      deleted += n;
      if (n < DELETE_BATCH) break;
    }
    return { message: `Deleted ${deleted} log ${deleted === 1 ? 'entry' : 'entries'}` };
  }
}
