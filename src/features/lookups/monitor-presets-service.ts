// Monitor presets (the MonitorPresets table): camera templates the monitor editor copies from.
// Type is emitted as stored (cURL, VNC, …); on input the older variants Curl/Vnc are accepted
// too (docs/contract/clients.md). The model, when given, must exist (400). Nullable columns are cleared
// by a JSON null; NOT NULL columns (name, type, controllable, default_rate, default_scale) keep
// their value when sent null.
import { InvalidInputError, notFound } from '../../errors.js';
import type { MonitorPresets, MonitorPresets_Type, Prisma } from '../../generated/prisma/client.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import { enumToPrisma } from '../monitors/monitor-fields.js';
import { DbService } from '../db-service.js';

/** MonitorPresets.Type as stored. */
export type MonitorPresetType =
  'Local' | 'Remote' | 'File' | 'Ffmpeg' | 'Libvlc' | 'cURL' | 'WebSite' | 'NVSocket' | 'VNC';
/** Accepted on input: the stored values and the older variant spellings. */
export type MonitorPresetTypeInput = MonitorPresetType | 'Curl' | 'Vnc';

export interface MonitorPresetResponse {
  /** MonitorPresets.Id. @isInt @minimum 0 */
  id: number;
  /** The camera model this preset is for. @isInt @minimum 0 */
  model_id?: number | null;
  /** Display name. */
  name: string;
  /** Source type, as stored. */
  type: MonitorPresetType;
  /** Local device path. */
  device?: string | null;
  /** Local channel. @isInt @minimum 0 */
  channel?: number | null;
  /** Local video format. @isLong @minimum 0 */
  format?: number | null;
  /** Remote protocol (http, rtsp, …). */
  protocol?: string | null;
  /** Remote method. */
  method?: string | null;
  /** Remote host. */
  host?: string | null;
  /** Remote port, as text. */
  port?: string | null;
  /** Remote path or URL. */
  path?: string | null;
  /** Remote sub-path. */
  sub_path?: string | null;
  /** Width in pixels. @isInt @minimum 0 */
  width?: number | null;
  /** Height in pixels. @isInt @minimum 0 */
  height?: number | null;
  /** Palette code. @isLong @minimum 0 */
  palette?: number | null;
  /** Frame rate cap. */
  max_fps?: number | null;
  /** 1 when the camera has PTZ control. @isInt @minimum 0 */
  controllable: number;
  /** Control profile reference, as stored (text). */
  control_id?: string | null;
  /** Control device. */
  control_device?: string | null;
  /** Control address. */
  control_address?: string | null;
  /** Default playback rate in percent. @isInt @minimum 0 */
  default_rate: number;
  /** Default scale, as text. */
  default_scale: string;
}

interface MonitorPresetFields {
  /** The camera model; must exist; null clears it. @isInt @minimum 0 @maximum 2147483647 */
  model_id?: number | null;
  /** Local device path; null clears it. @maxLength 255 */
  device?: string | null;
  /** Local channel; null clears it. @isInt @minimum 0 @maximum 255 */
  channel?: number | null;
  /** Local video format; null clears it. @isLong @minimum 0 @maximum 4294967295 */
  format?: number | null;
  /** Remote protocol; null clears it. @maxLength 16 */
  protocol?: string | null;
  /** Remote method; null clears it. @maxLength 16 */
  method?: string | null;
  /** Remote host; null clears it. @maxLength 64 */
  host?: string | null;
  /** Remote port; null clears it. @maxLength 8 */
  port?: string | null;
  /** Remote path or URL; null clears it. @maxLength 255 */
  path?: string | null;
  /** Remote sub-path; null clears it. @maxLength 64 */
  sub_path?: string | null;
  /** Width in pixels; null clears it. @isInt @minimum 0 @maximum 65535 */
  width?: number | null;
  /** Height in pixels; null clears it. @isInt @minimum 0 @maximum 65535 */
  height?: number | null;
  /** Palette code; null clears it. @isLong @minimum 0 @maximum 4294967295 */
  palette?: number | null;
  /** Frame rate cap, up to 3 decimals; null clears it. @minimum 0 @maximum 99.999 */
  max_fps?: number | null;
  /** 1 when the camera has PTZ control (default 0). @isInt @minimum 0 @maximum 1 */
  controllable?: number | null;
  /** Control profile reference; null clears it. @maxLength 16 */
  control_id?: string | null;
  /** Control device; null clears it. @maxLength 255 */
  control_device?: string | null;
  /** Control address; null clears it. @maxLength 255 */
  control_address?: string | null;
  /** Default playback rate in percent (default 100). @isInt @minimum 0 @maximum 65535 */
  default_rate?: number | null;
  /** Default scale (default "0"). @maxLength 16 */
  default_scale?: string | null;
}

export interface CreateMonitorPresetRequest extends MonitorPresetFields {
  /** Display name. @maxLength 64 */
  name: string;
  /** Source type (Curl and Vnc are accepted for cURL and VNC). */
  type: MonitorPresetTypeInput;
}

export interface UpdateMonitorPresetRequest extends MonitorPresetFields {
  /** Display name. @maxLength 64 */
  name?: string | null;
  /** Source type (Curl and Vnc are accepted for cURL and VNC). */
  type?: MonitorPresetTypeInput | null;
}

function toResponse(row: MonitorPresets): MonitorPresetResponse {
  return {
    id: row.Id,
    model_id: row.ModelId,
    name: row.Name,
    type: row.Type,
    device: row.Device,
    channel: row.Channel,
    format: row.Format,
    protocol: row.Protocol,
    method: row.Method,
    host: row.Host,
    port: row.Port,
    path: row.Path,
    sub_path: row.SubPath,
    width: row.Width,
    height: row.Height,
    palette: row.Palette,
    max_fps: row.MaxFPS === null ? null : row.MaxFPS.toNumber(),
    controllable: row.Controllable,
    control_id: row.ControlId,
    control_device: row.ControlDevice,
    control_address: row.ControlAddress,
    default_rate: row.DefaultRate,
    default_scale: row.DefaultScale,
  };
}

/** undefined leaves a column alone; null clears a nullable one; NOT NULL columns ignore null. */
function toData(
  body: CreateMonitorPresetRequest | UpdateMonitorPresetRequest,
): Prisma.MonitorPresetsUncheckedUpdateInput {
  return {
    ModelId: body.model_id,
    Name: body.name ?? undefined,
    Type: body.type == null ? undefined : (enumToPrisma('Type', body.type) as MonitorPresets_Type),
    Device: body.device,
    Channel: body.channel,
    Format: body.format,
    Protocol: body.protocol,
    Method: body.method,
    Host: body.host,
    Port: body.port,
    Path: body.path,
    SubPath: body.sub_path,
    Width: body.width,
    Height: body.height,
    Palette: body.palette,
    MaxFPS: body.max_fps, // decimal(5,3): MariaDB rounds to 3 places
    Controllable: body.controllable ?? undefined,
    ControlId: body.control_id,
    ControlDevice: body.control_device,
    ControlAddress: body.control_address,
    DefaultRate: body.default_rate ?? undefined,
    DefaultScale: body.default_scale ?? undefined,
  };
}

export class MonitorPresetsService extends DbService {
  async list(page?: number, pageSize?: number): Promise<Page<MonitorPresetResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.monitorPresets.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.monitorPresets.count(),
      toResponse,
    );
  }

  async get(id: number): Promise<MonitorPresetResponse> {
    const row = await this.prisma.monitorPresets.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Monitor preset', id, 'MESSAGE');
    return toResponse(row);
  }

  private async checkModel(id: number | null | undefined): Promise<void> {
    if (id == null) return;
    if (!(await this.prisma.models.findUnique({ where: { Id: id }, select: { Id: true } }))) {
      throw new InvalidInputError(`Model ${id} does not exist`, [['model_id', `no model with id ${id}`]]);
    }
  }

  async create(body: CreateMonitorPresetRequest): Promise<MonitorPresetResponse> {
    await this.checkModel(body.model_id);
    const row = await this.prisma.monitorPresets.create({
      data: toData(body) as Prisma.MonitorPresetsUncheckedCreateInput,
    });
    return toResponse(row);
  }

  async update(id: number, body: UpdateMonitorPresetRequest): Promise<MonitorPresetResponse> {
    await this.get(id);
    await this.checkModel(body.model_id);
    return toResponse(await this.prisma.monitorPresets.update({ where: { Id: id }, data: toData(body) }));
  }

  async remove(id: number): Promise<void> {
    await this.get(id);
    await this.prisma.monitorPresets.delete({ where: { Id: id } });
  }
}
