// Camera manufacturers (the Manufacturers table): a lookup for the monitor editor. Names are
// unique (409 on a duplicate). A manufacturer still named by models or monitors is not deleted
// (409): Models.ManufacturerId has no foreign key, so deleting would leave orphans silently.
import { ConflictError, notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Manufacturers } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

export interface ManufacturerResponse {
  /**
   * Manufacturers.Id.
   * @isInt
   * @minimum 0
   */
  id: number;
  /** Manufacturers.Name, unique. */
  name: string;
}

export interface CreateManufacturerRequest {
  /**
   * Unique name.
   * @minLength 1
   * @maxLength 64
   */
  name: string;
}

export interface UpdateManufacturerRequest {
  /**
   * Unique name; null leaves it unchanged.
   * @minLength 1
   * @maxLength 64
   */
  name?: string | null;
}

const toResponse = (row: Manufacturers): ManufacturerResponse => ({ id: row.Id, name: row.Name });

export class ManufacturersService extends DbService {
  async list(page?: number, pageSize?: number): Promise<Page<ManufacturerResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.manufacturers.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.manufacturers.count(),
      toResponse,
    );
  }

  async get(id: number): Promise<ManufacturerResponse> {
    const row = await this.prisma.manufacturers.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Manufacturer', id, 'MESSAGE');
    return toResponse(row);
  }

  async create(body: CreateManufacturerRequest): Promise<ManufacturerResponse> {
    return toResponse(await this.prisma.manufacturers.create({ data: { Name: body.name } }));
  }

  async update(id: number, body: UpdateManufacturerRequest): Promise<ManufacturerResponse> {
    const current = await this.get(id);
    if (body.name == null) return current;
    return toResponse(await this.prisma.manufacturers.update({ where: { Id: id }, data: { Name: body.name } }));
  }

  async remove(id: number): Promise<void> {
    await this.get(id);
    const [models, monitors] = await Promise.all([
      this.prisma.models.count({ where: { ManufacturerId: id } }),
      this.prisma.monitors.count({ where: { ManufacturerId: id } }),
    ]);
    if (models > 0 || monitors > 0) {
      throw new ConflictError(`Manufacturer ${id} is in use by ${models} model(s) and ${monitors} monitor(s)`, [
        ['id', String(id)],
        ['models', String(models)],
        ['monitors', String(monitors)],
      ]);
    }
    await this.prisma.manufacturers.delete({ where: { Id: id } });
  }
}
