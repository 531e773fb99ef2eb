// ZoneMinder servers (the Servers table, multi-server setups). Every field of the reference
// ServerResponse is accepted on create and update, not only name/hostname/port/status. The CPU
// and memory columns are written by the stats job, not through this API.
import { ConflictError, notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Prisma, Servers } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

/** Servers.Status as stored. */
export type ServerStatus = 'Unknown' | 'NotRunning' | 'Running';

/**
 * 0 or 1.
 * @isInt
 * @minimum 0
 * @maximum 1
 */
export type ServerBit = number;

/** A 0/1 flag; JSON booleans are accepted too (the newest UI sends booleans). */
export type ServerFlag = ServerBit | boolean;
// Optional fields say `null | ServerFlag`, null first: tsoa coerces null to false for a boolean
// member tried first, which would turn "no change" into 0.

export interface ServerResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  name: string;
  hostname?: string | null;
  /**
   * @isInt
   * @minimum 0
   */
  port?: number | null;
  status: ServerStatus;
  protocol?: string | null;
  path_to_index?: string | null;
  path_to_zms?: string | null;
  path_to_api?: string | null;
  /** @isInt */
  zmaudit: number;
  /** @isInt */
  zmstats: number;
  /** @isInt */
  zmtrigger: number;
  /** @isInt */
  zmeventnotification: number;
  /**
   * @isInt
   * @minimum 0
   */
  state_id?: number | null;
  /** @isDouble */
  latitude?: number | null;
  /** @isDouble */
  longitude?: number | null;
}

/** Fields shared by create and update; absent keeps (or defaults), null clears a nullable column. */
export interface ServerFields {
  /**
   * Host name or address.
   * @maxLength 65535
   */
  hostname?: string | null;
  /**
   * TCP port of the web server.
   * @isInt
   * @minimum 0
   * @maximum 65535
   */
  port?: number | null;
  /** Default Unknown. */
  status?: ServerStatus | null;
  /**
   * http or https.
   * @maxLength 65535
   */
  protocol?: string | null;
  /**
   * Path of index.php on this server.
   * @maxLength 65535
   */
  path_to_index?: string | null;
  /**
   * Path of zms on this server.
   * @maxLength 65535
   */
  path_to_zms?: string | null;
  /**
   * Path of the API on this server.
   * @maxLength 65535
   */
  path_to_api?: string | null;
  /** Run zmaudit on this server (0/1 or a boolean). */
  zmaudit?: null | ServerFlag;
  /** Run zmstats on this server (0/1 or a boolean). */
  zmstats?: null | ServerFlag;
  /** Run zmtrigger on this server (0/1 or a boolean). */
  zmtrigger?: null | ServerFlag;
  /** Run zmeventnotification on this server (0/1 or a boolean). */
  zmeventnotification?: null | ServerFlag;
  /**
   * Run state the server is in; null clears it.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  state_id?: number | null;
  /**
   * Degrees north.
   * @isDouble
   * @minimum -90
   * @maximum 90
   */
  latitude?: number | null;
  /**
   * Degrees east.
   * @isDouble
   * @minimum -180
   * @maximum 180
   */
  longitude?: number | null;
}

export interface CreateServerRequest extends ServerFields {
  /**
   * Server name (ZM_SERVER_NAME on that host).
   * @minLength 1
   * @maxLength 64
   */
  name: string;
}

export interface UpdateServerRequest extends ServerFields {
  /**
   * Server name (ZM_SERVER_NAME on that host).
   * @minLength 1
   * @maxLength 64
   */
  name?: string | null;
}

function toResponse(row: Servers): ServerResponse {
  return {
    id: row.Id,
    name: row.Name,
    hostname: row.Hostname,
    port: row.Port,
    status: row.Status,
    protocol: row.Protocol,
    path_to_index: row.PathToIndex,
    path_to_zms: row.PathToZMS,
    path_to_api: row.PathToApi,
    zmaudit: row.zmaudit ? 1 : 0,
    zmstats: row.zmstats ? 1 : 0,
    zmtrigger: row.zmtrigger ? 1 : 0,
    zmeventnotification: row.zmeventnotification ? 1 : 0,
    state_id: row.State_Id,
    latitude: row.Latitude === null ? null : row.Latitude.toNumber(),
    longitude: row.Longitude === null ? null : row.Longitude.toNumber(),
  };
}

const flag = (v: number | boolean | null | undefined): boolean | undefined =>
  v == null ? undefined : v === true || v === 1;

function toData(body: CreateServerRequest | UpdateServerRequest): Prisma.ServersUpdateInput {
  return {
    Name: body.name ?? undefined,
    Hostname: body.hostname,
    Port: body.port,
    Status: body.status ?? undefined,
    Protocol: body.protocol,
    PathToIndex: body.path_to_index,
    PathToZMS: body.path_to_zms,
    PathToApi: body.path_to_api,
    zmaudit: flag(body.zmaudit),
    zmstats: flag(body.zmstats),
    zmtrigger: flag(body.zmtrigger),
    zmeventnotification: flag(body.zmeventnotification),
    State_Id: body.state_id,
    Latitude: body.latitude,
    Longitude: body.longitude,
  };
}

export class ServersService extends DbService {
  async list(page?: number, pageSize?: number): Promise<Page<ServerResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.servers.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.servers.count(),
      toResponse,
    );
  }

  async get(id: number): Promise<ServerResponse> {
    const row = await this.prisma.servers.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Server', id);
    return toResponse(row);
  }

  async create(body: CreateServerRequest): Promise<ServerResponse> {
    const row = await this.prisma.servers.create({ data: toData(body) as Prisma.ServersCreateInput });
    return toResponse(row);
  }

  async update(id: number, body: UpdateServerRequest): Promise<ServerResponse> {
    await this.get(id);
    const row = await this.prisma.servers.update({ where: { Id: id }, data: toData(body) });
    return toResponse(row);
  }

  /** A server that monitors or storage areas are assigned to is not deleted (409). */
  async remove(id: number): Promise<void> {
    await this.get(id);
    const [monitors, storage] = await Promise.all([
      this.prisma.monitors.count({ where: { ServerId: id } }),
      this.prisma.storage.count({ where: { ServerId: id } }),
    ]);
    if (monitors > 0 || storage > 0) {
      throw new ConflictError(`Server ${id} is in use by ${monitors} monitor(s) and ${storage} storage area(s)`, [
        ['id', String(id)],
        ['monitors', String(monitors)],
        ['storage', String(storage)],
      ]);
    }
    await this.prisma.servers.delete({ where: { Id: id } });
  }
}
