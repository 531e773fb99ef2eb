// Object types (the Object_Types table, ZoneMinder 1.37.57+): detection labels and their
// human-readable names, used with events. Name is unique (409) and, like Human, nullable: a JSON
// null clears either. Ids are signed in this table and in the reference, so negative path ids
// are valid input (and simply not found).
import { notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Object_Types } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

export interface ObjectTypeResponse {
  /** Object_Types.Id. @isInt */
  id: number;
  /** Machine label, e.g. "person"; unique. */
  name?: string | null;
  /** Human-readable name. */
  human?: string | null;
}

export interface CreateObjectTypeRequest {
  /** Machine label, unique. @maxLength 32 */
  name?: string | null;
  /** Human-readable name. @maxLength 65535 */
  human?: string | null;
}

export interface UpdateObjectTypeRequest {
  /** Machine label, unique; null clears it. @maxLength 32 */
  name?: string | null;
  /** Human-readable name; null clears it. @maxLength 65535 */
  human?: string | null;
}

const toResponse = (row: Object_Types): ObjectTypeResponse => ({ id: row.Id, name: row.Name, human: row.Human });

export class ObjectTypesService extends DbService {
  async list(page?: number, pageSize?: number): Promise<Page<ObjectTypeResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.object_Types.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.object_Types.count(),
      toResponse,
    );
  }

  async get(id: number): Promise<ObjectTypeResponse> {
    const row = await this.prisma.object_Types.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Object type', id, 'FILE');
    return toResponse(row);
  }

  async create(body: CreateObjectTypeRequest): Promise<ObjectTypeResponse> {
    return toResponse(
      await this.prisma.object_Types.create({ data: { Name: body.name ?? null, Human: body.human ?? null } }),
    );
  }

  async update(id: number, body: UpdateObjectTypeRequest): Promise<ObjectTypeResponse> {
    await this.get(id);
    return toResponse(
      await this.prisma.object_Types.update({ where: { Id: id }, data: { Name: body.name, Human: body.human } }),
    );
  }

  async remove(id: number): Promise<void> {
    await this.get(id);
    await this.prisma.object_Types.delete({ where: { Id: id } });
  }
}
