// Camera models (the Models table), each optionally under a manufacturer. The manufacturer must
// exist (400 otherwise: Models.ManufacturerId has no foreign key to catch it); a name is unique
// per manufacturer (409). A model still used by monitors or monitor presets is not deleted (409).
import { ConflictError, InvalidInputError, notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Models, Prisma } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

export interface ModelResponse {
  /**
   * Models.Id.
   * @isInt
   * @minimum 0
   */
  id: number;
  /** Models.Name, unique per manufacturer. */
  name: string;
  /**
   * The manufacturer, or null.
   * @isInt
   */
  manufacturer_id?: number | null;
}

export interface CreateModelRequest {
  /**
   * Name, unique per manufacturer.
   * @minLength 1
   * @maxLength 64
   */
  name: string;
  /**
   * An existing manufacturer, or null for none.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  manufacturer_id?: number | null;
}

export interface UpdateModelRequest {
  /**
   * Name, unique per manufacturer; null leaves it unchanged.
   * @minLength 1
   * @maxLength 64
   */
  name?: string | null;
  /**
   * An existing manufacturer; null detaches the model.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  manufacturer_id?: number | null;
}

const toResponse = (row: Models): ModelResponse => ({
  id: row.Id,
  name: row.Name,
  manufacturer_id: row.ManufacturerId,
});

export class ModelsService extends DbService {
  async list(manufacturerId: number | undefined, page?: number, pageSize?: number): Promise<Page<ModelResponse>> {
    const req = pageRequest(page, pageSize);
    const where: Prisma.ModelsWhereInput = manufacturerId === undefined ? {} : { ManufacturerId: manufacturerId };
    return listPage(
      req,
      this.prisma.models.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.models.count({ where }),
      toResponse,
    );
  }

  async get(id: number): Promise<ModelResponse> {
    const row = await this.prisma.models.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Model', id, 'MESSAGE');
    return toResponse(row);
  }

  private async checkManufacturer(id: number | null | undefined): Promise<void> {
    if (id == null) return;
    if (!(await this.prisma.manufacturers.findUnique({ where: { Id: id }, select: { Id: true } }))) {
      throw new InvalidInputError(`Manufacturer ${id} does not exist`, [
        ['manufacturer_id', `no manufacturer with id ${id}`],
      ]);
    }
  }

  async create(body: CreateModelRequest): Promise<ModelResponse> {
    await this.checkManufacturer(body.manufacturer_id);
    const row = await this.prisma.models.create({
      data: { Name: body.name, ManufacturerId: body.manufacturer_id ?? null },
    });
    return toResponse(row);
  }

  async update(id: number, body: UpdateModelRequest): Promise<ModelResponse> {
    await this.get(id);
    await this.checkManufacturer(body.manufacturer_id);
    const row = await this.prisma.models.update({
      where: { Id: id },
      data: { Name: body.name ?? undefined, ManufacturerId: body.manufacturer_id },
    });
    return toResponse(row);
  }

  async remove(id: number): Promise<void> {
    await this.get(id);
    const [monitors, presets] = await Promise.all([
      this.prisma.monitors.count({ where: { ModelId: id } }),
      this.prisma.monitorPresets.count({ where: { ModelId: id } }),
    ]);
    if (monitors > 0 || presets > 0) {
      throw new ConflictError(`Model ${id} is in use by ${monitors} monitor(s) and ${presets} monitor preset(s)`, [
        ['id', String(id)],
        ['monitors', String(monitors)],
        ['monitor_presets', String(presets)],
      ]);
    }
    await this.prisma.models.delete({ where: { Id: id } });
  }
}
