// Camera control profiles (the Controls table): what a PTZ protocol can do, as about 90 0/1
// flags and numeric ranges, described once in control-fields.ts (the mapping both ways and the
// generated ControlCapabilities/ControlFields).
import { ConflictError, notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Controls, Prisma } from '../../generated/prisma/client.js';
import type { ControlCapabilities, ControlFields } from '../../generated/dto/controls.js';
import { jsonToColumns, rowToJson } from '../field-table.js';
import { CONTROL_FIELDS } from './control-fields.js';
import { DbService } from '../db-service.js';

/** Controls.Type as stored (ZoneMinder's monitor source types). */
export type ControlType = 'Local' | 'Remote' | 'File' | 'Ffmpeg' | 'Libvlc' | 'cURL' | 'WebSite' | 'NVSocket' | 'VNC';
/** Accepted on input: the stored values and the older variant spellings clients send. */
export type ControlTypeInput = ControlType | 'Curl' | 'Vnc';

export interface ControlResponse extends ControlCapabilities {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  name: string;
  type: ControlType;
  protocol?: string | null;
}

export interface CreateControlRequest extends ControlFields {
  /**
   * Profile name.
   * @minLength 1
   * @maxLength 64
   */
  name: string;
  type: ControlTypeInput;
  /**
   * The control script's protocol module, e.g. onvif.
   * @maxLength 64
   */
  protocol?: string | null;
}

export interface UpdateControlRequest extends ControlFields {
  /**
   * Profile name.
   * @minLength 1
   * @maxLength 64
   */
  name?: string | null;
  type?: ControlTypeInput | null;
  /**
   * The control script's protocol module; null clears it.
   * @maxLength 64
   */
  protocol?: string | null;
}

const TYPE_SPELLINGS: Record<ControlTypeInput, ControlType> = {
  Local: 'Local',
  Remote: 'Remote',
  File: 'File',
  Ffmpeg: 'Ffmpeg',
  Libvlc: 'Libvlc',
  cURL: 'cURL',
  Curl: 'cURL',
  WebSite: 'WebSite',
  NVSocket: 'NVSocket',
  VNC: 'VNC',
  Vnc: 'VNC',
};

function toResponse(row: Controls): ControlResponse {
  const out = { id: row.Id, name: row.Name, type: row.Type, protocol: row.Protocol };
  return { ...out, ...rowToJson(CONTROL_FIELDS, row) } as ControlResponse;
}

/** The Prisma data for the fields present in `body`. */
function toData(body: CreateControlRequest | UpdateControlRequest): Record<string, unknown> {
  const data = jsonToColumns(CONTROL_FIELDS, body);
  if (body.name != null) data.Name = body.name;
  if (body.type != null) data.Type = TYPE_SPELLINGS[body.type];
  if (body.protocol !== undefined) data.Protocol = body.protocol;
  return data;
}

export class ControlsService extends DbService {
  async list(page?: number, pageSize?: number): Promise<Page<ControlResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.controls.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.controls.count(),
      toResponse,
    );
  }

  async get(id: number): Promise<ControlResponse> {
    const row = await this.prisma.controls.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Control', id, 'MESSAGE');
    return toResponse(row);
  }

  async create(body: CreateControlRequest): Promise<ControlResponse> {
    const row = await this.prisma.controls.create({ data: toData(body) as Prisma.ControlsCreateInput });
    return toResponse(row);
  }

  async update(id: number, body: UpdateControlRequest): Promise<ControlResponse> {
    await this.get(id);
    const row = await this.prisma.controls.update({
      where: { Id: id },
      data: toData(body) as Prisma.ControlsUpdateInput,
    });
    return toResponse(row);
  }

  /** A profile that monitors still use is not deleted (409): they would lose their PTZ driver. */
  async remove(id: number): Promise<void> {
    await this.get(id);
    const users = await this.prisma.monitors.count({ where: { ControlId: id } });
    if (users > 0) {
      throw new ConflictError(`Control ${id} is used by ${users} monitor(s)`, [
        ['id', String(id)],
        ['monitors', String(users)],
      ]);
    }
    await this.prisma.controls.delete({ where: { Id: id } });
  }
}
