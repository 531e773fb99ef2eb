// Storage areas (the Storage table): where events are written. DoDelete defaults to 1 and is
// settable on create and update (0: deleting an event removes its rows but leaves its files).
import { ConflictError, InvalidInputError, notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Prisma, Storage } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

/** Storage.Type as stored. */
export type StorageType = 'local' | 's3fs';
/** Accepted on input: the stored values and the older variant spellings. */
export type StorageTypeInput = StorageType | 'Local' | 'S3fs';
/** Storage.Scheme: the event directory layout. */
export type StorageScheme = 'Deep' | 'Medium' | 'Shallow';

/**
 * 0 or 1.
 * @isInt
 * @minimum 0
 * @maximum 1
 */
export type StorageBit = number;

/** A 0/1 flag; JSON booleans are accepted too. */
export type StorageFlag = StorageBit | boolean;
// Optional fields say `null | StorageFlag`, null first: tsoa coerces null to false for a boolean
// member tried first, which would turn "no change" into 0.

export interface StorageResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  name: string;
  path: string;
  type: StorageType;
  /** @isInt */
  enabled: number;
  scheme: StorageScheme;
  /**
   * @isInt
   * @minimum 0
   */
  server_id?: number | null;
  url?: string | null;
  /**
   * Bytes used by events, as ZoneMinder last computed it.
   * @isLong
   */
  disk_space?: number | null;
  /** @isInt */
  do_delete: number;
}

export interface StorageFields {
  /** Event layout (default Medium). */
  scheme?: StorageScheme | null;
  /**
   * Owning server in multi-server setups; null clears it.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  server_id?: number | null;
  /**
   * s3fs bucket URL; null clears it.
   * @maxLength 255
   */
  url?: string | null;
  /** 1 (default): deleting an event removes its files too; 0 leaves them. */
  do_delete?: null | StorageFlag;
}

export interface CreateStorageRequest extends StorageFields {
  /**
   * Display name.
   * @minLength 1
   * @maxLength 64
   */
  name: string;
  /**
   * Absolute path of the storage root.
   * @maxLength 64
   * @pattern ^/
   */
  path: string;
  type: StorageTypeInput;
  /** 1: the storage is in use; null means the default (1). */
  enabled: null | StorageFlag;
}

export interface UpdateStorageRequest extends StorageFields {
  /**
   * Display name.
   * @minLength 1
   * @maxLength 64
   */
  name?: string | null;
  /**
   * Absolute path of the storage root.
   * @maxLength 64
   * @pattern ^/
   */
  path?: string | null;
  type?: StorageTypeInput | null;
  enabled?: null | StorageFlag;
}

const TYPES: Record<StorageTypeInput, StorageType> = { local: 'local', Local: 'local', s3fs: 's3fs', S3fs: 's3fs' };

function toResponse(row: Storage): StorageResponse {
  return {
    id: row.Id,
    name: row.Name,
    path: row.Path,
    type: row.Type,
    enabled: row.Enabled ? 1 : 0,
    scheme: row.Scheme,
    server_id: row.ServerId,
    url: row.Url,
    disk_space: row.DiskSpace === null ? null : Number(row.DiskSpace),
    do_delete: row.DoDelete ? 1 : 0,
  };
}

/** Retention and event deletion remove directories under this root: no `..` may escape it. */
function checkedPath(path: string | null | undefined): string | undefined {
  if (path == null) return undefined;
  if (path.split('/').includes('..'))
    throw new InvalidInputError('Invalid input', [['path', 'must not contain .. segments']]);
  return path;
}

const flag = (v: number | boolean | null | undefined): boolean | undefined =>
  v == null ? undefined : v === true || v === 1;

function toData(body: CreateStorageRequest | UpdateStorageRequest): Prisma.StorageUpdateInput {
  return {
    Name: body.name ?? undefined,
    Path: checkedPath(body.path),
    Type: body.type == null ? undefined : TYPES[body.type],
    Enabled: flag(body.enabled),
    Scheme: body.scheme ?? undefined,
    ServerId: body.server_id,
    Url: body.url,
    DoDelete: flag(body.do_delete),
  };
}

export class StorageService extends DbService {
  async list(page?: number, pageSize?: number): Promise<Page<StorageResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.storage.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.storage.count(),
      toResponse,
    );
  }

  async get(id: number): Promise<StorageResponse> {
    const row = await this.prisma.storage.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Storage', id, 'MESSAGE');
    return toResponse(row);
  }

  async create(body: CreateStorageRequest): Promise<StorageResponse> {
    const row = await this.prisma.storage.create({ data: toData(body) as Prisma.StorageCreateInput });
    return toResponse(row);
  }

  async update(id: number, body: UpdateStorageRequest): Promise<StorageResponse> {
    await this.get(id);
    const row = await this.prisma.storage.update({ where: { Id: id }, data: toData(body) });
    return toResponse(row);
  }

  /** An area that monitors write to or events live in is not deleted (409): they would lose their path. */
  async remove(id: number): Promise<void> {
    await this.get(id);
    const [monitors, events] = await Promise.all([
      this.prisma.monitors.count({ where: { StorageId: id } }),
      this.prisma.events.count({ where: { OR: [{ StorageId: id }, { SecondaryStorageId: id }] } }),
    ]);
    if (monitors > 0 || events > 0) {
      throw new ConflictError(`Storage ${id} is in use by ${monitors} monitor(s) and ${events} event(s)`, [
        ['id', String(id)],
        ['monitors', String(monitors)],
        ['events', String(events)],
      ]);
    }
    await this.prisma.storage.delete({ where: { Id: id } });
  }
}
