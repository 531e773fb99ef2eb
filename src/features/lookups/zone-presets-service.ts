// Zone presets (ZonePresets): named motion-detection settings a zone editor can apply.
import { notFound } from '../../errors.js';
import type { Prisma, ZonePresets } from '../../generated/prisma/client.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import {
  motionToData,
  motionToJson,
  type ZoneMotionFields,
  type ZoneMotionSettings,
  type ZoneCheckMethod,
  type ZoneType,
  type ZoneUnitsValue,
} from '../monitors/zone-fields.js';
import { DbService } from '../db-service.js';

/** The reference fields (id, name, type, units, check_method) plus the preset's motion settings. */
export interface ZonePresetResponse extends ZoneMotionFields {
  /** @isInt @minimum 0 */
  id: number;
  name: string;
  type: string;
  units: string;
}

/** name, type, units and check_method are required, as by the reference (its CreateZonePresetRequest). */
export interface CreateZonePresetRequest extends ZoneMotionSettings {
  /** Preset name. @minLength 1 @maxLength 64 */
  name: string;
  /** Zone type. */
  type: ZoneType;
  /** Units of the area settings. */
  units: ZoneUnitsValue;
  /** How motion is measured. */
  check_method: ZoneCheckMethod;
}

export interface UpdateZonePresetRequest extends ZoneMotionSettings {
  /** Preset name. @minLength 1 @maxLength 64 */
  name?: string | null;
  /** Zone type. */
  type?: ZoneType | null;
  /** Units of the area settings. */
  units?: ZoneUnitsValue | null;
}

function toResponse(row: ZonePresets): ZonePresetResponse {
  return { id: row.Id, name: row.Name, type: row.Type, units: row.Units, ...motionToJson(row) };
}

export class ZonePresetsService extends DbService {
  async list(page?: number, pageSize?: number): Promise<Page<ZonePresetResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.zonePresets.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.zonePresets.count(),
      toResponse,
    );
  }

  async get(id: number): Promise<ZonePresetResponse> {
    const row = await this.prisma.zonePresets.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Zone preset', id, 'MESSAGE');
    return toResponse(row);
  }

  async create(body: CreateZonePresetRequest): Promise<ZonePresetResponse> {
    const row = await this.prisma.zonePresets.create({
      data: {
        ...(motionToData(body) as Prisma.ZonePresetsCreateInput),
        Name: body.name,
        Type: body.type,
        Units: body.units,
      },
    });
    return toResponse(row);
  }

  async update(id: number, body: UpdateZonePresetRequest): Promise<ZonePresetResponse> {
    await this.get(id);
    const row = await this.prisma.zonePresets.update({
      where: { Id: id },
      data: {
        ...(motionToData(body) as Prisma.ZonePresetsUpdateInput),
        ...(body.name != null && { Name: body.name }),
        ...(body.type != null && { Type: body.type }),
        ...(body.units != null && { Units: body.units }),
      },
    });
    return toResponse(row);
  }

  async remove(id: number): Promise<void> {
    await this.get(id);
    await this.prisma.zonePresets.delete({ where: { Id: id } });
  }
}
