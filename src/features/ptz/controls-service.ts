// Camera control profiles (the Controls table): what a PTZ protocol can do, as about 90 0/1
// flags and numeric ranges. Field names are the snake_case of the column names
// (CanAutoFocus → can_auto_focus), so one list drives the mapping both ways.
import { ConflictError, notFound } from '../../errors.js';
import type { PrismaClient } from '../../db/prisma.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Controls, Prisma } from '../../generated/prisma/client.js';
import type { Services } from '../../registry.js';

/** Controls.Type as stored (ZoneMinder's monitor source types). */
export type ControlType = 'Local' | 'Remote' | 'File' | 'Ffmpeg' | 'Libvlc' | 'cURL' | 'WebSite' | 'NVSocket' | 'VNC';
/** Accepted on input: the stored values and the older variant spellings clients send. */
export type ControlTypeInput = ControlType | 'Curl' | 'Vnc';

/**
 * A capability flag, 0 or 1.
 * @isInt
 * @minimum 0
 * @maximum 1
 */
export type ControlFlag = number;

/**
 * A small count (tinyint unsigned).
 * @isInt
 * @minimum 0
 * @maximum 255
 */
export type ControlCount = number;

/**
 * A non-negative range, step or speed (int unsigned, int32 on the wire).
 * @isInt
 * @minimum 0
 * @maximum 2147483647
 */
export type ControlUInt = number;

/**
 * A signed pan/tilt range, step or speed (int32).
 * @isInt
 * @minimum -2147483648
 * @maximum 2147483647
 */
export type ControlInt = number;

export interface ControlResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  name: string;
  type: ControlType;
  protocol?: string | null;
  can_wake: ControlFlag;
  can_sleep: ControlFlag;
  can_reset: ControlFlag;
  can_reboot: ControlFlag;
  can_zoom: ControlFlag;
  can_auto_zoom: ControlFlag;
  can_zoom_abs: ControlFlag;
  can_zoom_rel: ControlFlag;
  can_zoom_con: ControlFlag;
  min_zoom_range?: ControlUInt | null;
  max_zoom_range?: ControlUInt | null;
  min_zoom_step?: ControlUInt | null;
  max_zoom_step?: ControlUInt | null;
  has_zoom_speed: ControlFlag;
  min_zoom_speed?: ControlUInt | null;
  max_zoom_speed?: ControlUInt | null;
  can_focus: ControlFlag;
  can_auto_focus: ControlFlag;
  can_focus_abs: ControlFlag;
  can_focus_rel: ControlFlag;
  can_focus_con: ControlFlag;
  min_focus_range?: ControlUInt | null;
  max_focus_range?: ControlUInt | null;
  min_focus_step?: ControlUInt | null;
  max_focus_step?: ControlUInt | null;
  has_focus_speed: ControlFlag;
  min_focus_speed?: ControlUInt | null;
  max_focus_speed?: ControlUInt | null;
  can_iris: ControlFlag;
  can_auto_iris: ControlFlag;
  can_iris_abs: ControlFlag;
  can_iris_rel: ControlFlag;
  can_iris_con: ControlFlag;
  min_iris_range?: ControlUInt | null;
  max_iris_range?: ControlUInt | null;
  min_iris_step?: ControlUInt | null;
  max_iris_step?: ControlUInt | null;
  has_iris_speed: ControlFlag;
  min_iris_speed?: ControlUInt | null;
  max_iris_speed?: ControlUInt | null;
  can_gain: ControlFlag;
  can_auto_gain: ControlFlag;
  can_gain_abs: ControlFlag;
  can_gain_rel: ControlFlag;
  can_gain_con: ControlFlag;
  min_gain_range?: ControlUInt | null;
  max_gain_range?: ControlUInt | null;
  min_gain_step?: ControlUInt | null;
  max_gain_step?: ControlUInt | null;
  has_gain_speed: ControlFlag;
  min_gain_speed?: ControlUInt | null;
  max_gain_speed?: ControlUInt | null;
  can_white: ControlFlag;
  can_auto_white: ControlFlag;
  can_white_abs: ControlFlag;
  can_white_rel: ControlFlag;
  can_white_con: ControlFlag;
  min_white_range?: ControlUInt | null;
  max_white_range?: ControlUInt | null;
  min_white_step?: ControlUInt | null;
  max_white_step?: ControlUInt | null;
  has_white_speed: ControlFlag;
  min_white_speed?: ControlUInt | null;
  max_white_speed?: ControlUInt | null;
  has_presets: ControlFlag;
  num_presets: ControlCount;
  has_home_preset: ControlFlag;
  can_set_presets: ControlFlag;
  can_move: ControlFlag;
  can_move_diag: ControlFlag;
  can_move_map: ControlFlag;
  can_move_abs: ControlFlag;
  can_move_rel: ControlFlag;
  can_move_con: ControlFlag;
  can_pan: ControlFlag;
  min_pan_range?: ControlInt | null;
  max_pan_range?: ControlInt | null;
  min_pan_step?: ControlInt | null;
  max_pan_step?: ControlInt | null;
  has_pan_speed: ControlFlag;
  min_pan_speed?: ControlInt | null;
  max_pan_speed?: ControlInt | null;
  has_turbo_pan: ControlFlag;
  turbo_pan_speed?: ControlInt | null;
  can_tilt: ControlFlag;
  min_tilt_range?: ControlInt | null;
  max_tilt_range?: ControlInt | null;
  min_tilt_step?: ControlInt | null;
  max_tilt_step?: ControlInt | null;
  has_tilt_speed: ControlFlag;
  min_tilt_speed?: ControlInt | null;
  max_tilt_speed?: ControlInt | null;
  has_turbo_tilt: ControlFlag;
  turbo_tilt_speed?: ControlInt | null;
  can_auto_scan: ControlFlag;
  num_scan_paths: ControlCount;
}

/** The numeric fields every create and update may carry; absent keeps (or defaults), null clears a range. */
export interface ControlFields {
  can_wake?: ControlFlag | null;
  can_sleep?: ControlFlag | null;
  can_reset?: ControlFlag | null;
  can_reboot?: ControlFlag | null;
  can_zoom?: ControlFlag | null;
  can_auto_zoom?: ControlFlag | null;
  can_zoom_abs?: ControlFlag | null;
  can_zoom_rel?: ControlFlag | null;
  can_zoom_con?: ControlFlag | null;
  min_zoom_range?: ControlUInt | null;
  max_zoom_range?: ControlUInt | null;
  min_zoom_step?: ControlUInt | null;
  max_zoom_step?: ControlUInt | null;
  has_zoom_speed?: ControlFlag | null;
  min_zoom_speed?: ControlUInt | null;
  max_zoom_speed?: ControlUInt | null;
  can_focus?: ControlFlag | null;
  can_auto_focus?: ControlFlag | null;
  can_focus_abs?: ControlFlag | null;
  can_focus_rel?: ControlFlag | null;
  can_focus_con?: ControlFlag | null;
  min_focus_range?: ControlUInt | null;
  max_focus_range?: ControlUInt | null;
  min_focus_step?: ControlUInt | null;
  max_focus_step?: ControlUInt | null;
  has_focus_speed?: ControlFlag | null;
  min_focus_speed?: ControlUInt | null;
  max_focus_speed?: ControlUInt | null;
  can_iris?: ControlFlag | null;
  can_auto_iris?: ControlFlag | null;
  can_iris_abs?: ControlFlag | null;
  can_iris_rel?: ControlFlag | null;
  can_iris_con?: ControlFlag | null;
  min_iris_range?: ControlUInt | null;
  max_iris_range?: ControlUInt | null;
  min_iris_step?: ControlUInt | null;
  max_iris_step?: ControlUInt | null;
  has_iris_speed?: ControlFlag | null;
  min_iris_speed?: ControlUInt | null;
  max_iris_speed?: ControlUInt | null;
  can_gain?: ControlFlag | null;
  can_auto_gain?: ControlFlag | null;
  can_gain_abs?: ControlFlag | null;
  can_gain_rel?: ControlFlag | null;
  can_gain_con?: ControlFlag | null;
  min_gain_range?: ControlUInt | null;
  max_gain_range?: ControlUInt | null;
  min_gain_step?: ControlUInt | null;
  max_gain_step?: ControlUInt | null;
  has_gain_speed?: ControlFlag | null;
  min_gain_speed?: ControlUInt | null;
  max_gain_speed?: ControlUInt | null;
  can_white?: ControlFlag | null;
  can_auto_white?: ControlFlag | null;
  can_white_abs?: ControlFlag | null;
  can_white_rel?: ControlFlag | null;
  can_white_con?: ControlFlag | null;
  min_white_range?: ControlUInt | null;
  max_white_range?: ControlUInt | null;
  min_white_step?: ControlUInt | null;
  max_white_step?: ControlUInt | null;
  has_white_speed?: ControlFlag | null;
  min_white_speed?: ControlUInt | null;
  max_white_speed?: ControlUInt | null;
  has_presets?: ControlFlag | null;
  num_presets?: ControlCount | null;
  has_home_preset?: ControlFlag | null;
  can_set_presets?: ControlFlag | null;
  can_move?: ControlFlag | null;
  can_move_diag?: ControlFlag | null;
  can_move_map?: ControlFlag | null;
  can_move_abs?: ControlFlag | null;
  can_move_rel?: ControlFlag | null;
  can_move_con?: ControlFlag | null;
  can_pan?: ControlFlag | null;
  min_pan_range?: ControlInt | null;
  max_pan_range?: ControlInt | null;
  min_pan_step?: ControlInt | null;
  max_pan_step?: ControlInt | null;
  has_pan_speed?: ControlFlag | null;
  min_pan_speed?: ControlInt | null;
  max_pan_speed?: ControlInt | null;
  has_turbo_pan?: ControlFlag | null;
  turbo_pan_speed?: ControlInt | null;
  can_tilt?: ControlFlag | null;
  min_tilt_range?: ControlInt | null;
  max_tilt_range?: ControlInt | null;
  min_tilt_step?: ControlInt | null;
  max_tilt_step?: ControlInt | null;
  has_tilt_speed?: ControlFlag | null;
  min_tilt_speed?: ControlInt | null;
  max_tilt_speed?: ControlInt | null;
  has_turbo_tilt?: ControlFlag | null;
  turbo_tilt_speed?: ControlInt | null;
  can_auto_scan?: ControlFlag | null;
  num_scan_paths?: ControlCount | null;
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

/** NOT NULL columns (flags, counts): null on input means "no change". */
const REQUIRED_NUMBERS = [
  'can_wake',
  'can_sleep',
  'can_reset',
  'can_reboot',
  'can_zoom',
  'can_auto_zoom',
  'can_zoom_abs',
  'can_zoom_rel',
  'can_zoom_con',
  'has_zoom_speed',
  'can_focus',
  'can_auto_focus',
  'can_focus_abs',
  'can_focus_rel',
  'can_focus_con',
  'has_focus_speed',
  'can_iris',
  'can_auto_iris',
  'can_iris_abs',
  'can_iris_rel',
  'can_iris_con',
  'has_iris_speed',
  'can_gain',
  'can_auto_gain',
  'can_gain_abs',
  'can_gain_rel',
  'can_gain_con',
  'has_gain_speed',
  'can_white',
  'can_auto_white',
  'can_white_abs',
  'can_white_rel',
  'can_white_con',
  'has_white_speed',
  'has_presets',
  'num_presets',
  'has_home_preset',
  'can_set_presets',
  'can_move',
  'can_move_diag',
  'can_move_map',
  'can_move_abs',
  'can_move_rel',
  'can_move_con',
  'can_pan',
  'has_pan_speed',
  'has_turbo_pan',
  'can_tilt',
  'has_tilt_speed',
  'has_turbo_tilt',
  'can_auto_scan',
  'num_scan_paths',
] as const;
/** Nullable columns (ranges, steps, speeds): null on input clears them. */
const NULLABLE_NUMBERS = [
  'min_zoom_range',
  'max_zoom_range',
  'min_zoom_step',
  'max_zoom_step',
  'min_zoom_speed',
  'max_zoom_speed',
  'min_focus_range',
  'max_focus_range',
  'min_focus_step',
  'max_focus_step',
  'min_focus_speed',
  'max_focus_speed',
  'min_iris_range',
  'max_iris_range',
  'min_iris_step',
  'max_iris_step',
  'min_iris_speed',
  'max_iris_speed',
  'min_gain_range',
  'max_gain_range',
  'min_gain_step',
  'max_gain_step',
  'min_gain_speed',
  'max_gain_speed',
  'min_white_range',
  'max_white_range',
  'min_white_step',
  'max_white_step',
  'min_white_speed',
  'max_white_speed',
  'min_pan_range',
  'max_pan_range',
  'min_pan_step',
  'max_pan_step',
  'min_pan_speed',
  'max_pan_speed',
  'turbo_pan_speed',
  'min_tilt_range',
  'max_tilt_range',
  'min_tilt_step',
  'max_tilt_step',
  'min_tilt_speed',
  'max_tilt_speed',
  'turbo_tilt_speed',
] as const;
type NumericField = (typeof REQUIRED_NUMBERS)[number] | (typeof NULLABLE_NUMBERS)[number];

/** can_auto_focus → CanAutoFocus */
const column = (field: string) => field.replace(/(?:^|_)([a-z])/g, (_m, c: string) => c.toUpperCase());

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
  const out: Record<string, unknown> = { id: row.Id, name: row.Name, type: row.Type, protocol: row.Protocol };
  const cells = row as unknown as Record<string, number | null>;
  for (const f of [...REQUIRED_NUMBERS, ...NULLABLE_NUMBERS]) out[f] = cells[column(f)];
  return out as unknown as ControlResponse;
}

/** The Prisma data for the fields present in `body`. */
function toData(body: CreateControlRequest | UpdateControlRequest): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (body.name != null) data.Name = body.name;
  if (body.type != null) data.Type = TYPE_SPELLINGS[body.type];
  if (body.protocol !== undefined) data.Protocol = body.protocol;
  const fields = body as Partial<Record<NumericField, number | null>>;
  for (const f of REQUIRED_NUMBERS) if (fields[f] != null) data[column(f)] = fields[f];
  for (const f of NULLABLE_NUMBERS) if (fields[f] !== undefined) data[column(f)] = fields[f];
  return data;
}

export class ControlsService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): ControlsService {
    return new ControlsService(s.prisma);
  }

  constructor(private readonly prisma: PrismaClient) {}

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
    if (!row) throw notFound('Control', id);
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
