// ZoneMinder servers (the Servers table, multi-server setups). The columns, their conversions and
// the request/response types come from the field table (server-fields.ts): every field of the
// reference ServerResponse is accepted on create and update, not only name/hostname/port/status.
import { ConflictError, notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Prisma, Servers } from '../../generated/prisma/client.js';
import type { CreateServerRequest, ServerResponse, UpdateServerRequest } from '../../generated/dto/servers.js';
import { DbService } from '../db-service.js';
import { jsonToColumns, rowToJson } from '../field-table.js';
import { SERVER_FIELDS } from './server-fields.js';

// ServerResponse, CreateServerRequest and UpdateServerRequest are generated from server-fields.ts.
export type { CreateServerRequest, ServerResponse, UpdateServerRequest };

function toResponse(row: Servers): ServerResponse {
  return rowToJson(SERVER_FIELDS, row) as unknown as ServerResponse;
}

/** The columns a body sets: null clears a nullable column and leaves the others alone. */
function toData(body: CreateServerRequest | UpdateServerRequest): Prisma.ServersUpdateInput {
  return jsonToColumns(SERVER_FIELDS, body);
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
    if (!row) throw notFound('Server', id, 'MESSAGE');
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
