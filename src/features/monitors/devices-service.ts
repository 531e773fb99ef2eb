// Devices (X10 and similar switchable devices): the Devices table.
import { notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Devices } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

export type DeviceType = 'X10';

export interface DeviceResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  name: string;
  type: DeviceType;
  key_string: string;
}

export interface CreateDeviceRequest {
  /** @maxLength 255 */
  name: string;
  type: DeviceType;
  /** @maxLength 32 */
  key_string: string;
}

export interface UpdateDeviceRequest {
  /** @maxLength 255 */
  name?: string | null;
  type?: DeviceType | null;
  /** @maxLength 32 */
  key_string?: string | null;
}

function toResponse(row: Devices): DeviceResponse {
  return { id: row.Id, name: row.Name, type: row.Type, key_string: row.KeyString };
}

export class DevicesService extends DbService {
  async list(page?: number, pageSize?: number): Promise<Page<DeviceResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.devices.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.devices.count(),
      toResponse,
    );
  }

  async get(id: number): Promise<DeviceResponse> {
    const row = await this.prisma.devices.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Device', id, 'MESSAGE');
    return toResponse(row);
  }

  async create(body: CreateDeviceRequest): Promise<DeviceResponse> {
    const row = await this.prisma.devices.create({
      data: { Name: body.name, Type: body.type, KeyString: body.key_string },
    });
    return toResponse(row);
  }

  async update(id: number, body: UpdateDeviceRequest): Promise<DeviceResponse> {
    await this.get(id);
    const row = await this.prisma.devices.update({
      where: { Id: id },
      data: {
        ...(body.name != null && { Name: body.name }),
        ...(body.type != null && { Type: body.type }),
        ...(body.key_string != null && { KeyString: body.key_string }),
      },
    });
    return toResponse(row);
  }

  async remove(id: number): Promise<void> {
    await this.get(id);
    await this.prisma.devices.delete({ where: { Id: id } });
  }
}
