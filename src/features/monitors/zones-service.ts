// Zones of a monitor. Area and NumCoords are derived from Coords on every write (nothing in
// ZoneMinder maintains Zones.Area); the Zones triggers keep Monitors.ZoneCount. A zone of a
// hidden monitor answers exactly like a missing zone.
import type { AuthUser } from '../../auth/auth-service.js';
import {
  canEdit,
  canSee,
  monitorNotFound,
  requireEditableMonitor,
  requireVisibleMonitor,
} from '../../auth/monitor-acl.js';
import { InvalidInputError, NotFoundError, PermissionDeniedError } from '../../errors.js';
import type { Prisma, Zones } from '../../generated/prisma/client.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import {
  areaPercentToPixels,
  motionToData,
  motionToJson,
  type ZoneMotionFields,
  type ZoneMotionSettings,
  type ZoneType,
  type ZoneUnitsValue,
} from './zone-fields.js';
import { parsePolygon, percentToPixels, type FrameSize, type Polygon, type ZoneUnits } from './zone-geometry.js';
import { compareVersions, isVersion } from '../../db/migrations/version.js';
import { AclDbService } from '../db-service.js';

export interface ZoneResponse extends ZoneMotionFields {
  /** @isInt @minimum 0 */
  id: number;
  /** @isInt @minimum 0 */
  monitor_id: number;
  name: string;
  type: string;
  /** `Percent` (coordinates 0–100) or `Pixels`. */
  units: string;
  /** "x,y x,y …" */
  coords: string;
  /** @isInt @minimum 0 */
  num_coords: number;
  /** Polygon area (shoelace) in the zone's units squared: a full frame is 10000 in Percent. @isInt @minimum 0 */
  area: number;
  /** @isInt @minimum 0 */
  alarm_rgb: number | null;
}

export interface CreateZoneRequest extends ZoneMotionSettings {
  /** Zone name. @minLength 1 @maxLength 64 */
  name: string;
  /** Polygon "x,y x,y …", at least 3 points; Area and NumCoords are derived from it. @maxLength 255 */
  coords: string;
  /** Ignored: derived from `coords`. @isInt @minimum 0 */
  num_coords?: number | null;
  /** Default Active. */
  type?: ZoneType | null;
  /** Default Percent. */
  units?: ZoneUnitsValue | null;
  /** Alarm colour. @isInt @minimum 0 @maximum 4294967295 */
  alarm_rgb?: number | null;
}

/** Partial update: older clients send `{name, polygon}`, newer ones the whole zone. */
export interface UpdateZoneRequest extends ZoneMotionSettings {
  /** Zone name. @minLength 1 @maxLength 64 */
  name?: string | null;
  /** Polygon "x,y x,y …" (older clients' name for `coords`). @maxLength 255 */
  polygon?: string | null;
  /** Polygon "x,y x,y …"; wins over `polygon` when both are sent. @maxLength 255 */
  coords?: string | null;
  /** Ignored: derived from the polygon. @isInt @minimum 0 */
  num_coords?: number | null;
  /** Zone type. */
  type?: ZoneType | null;
  /** Changing units needs the polygon in the new units. */
  units?: ZoneUnitsValue | null;
  /** Alarm colour. @isInt @minimum 0 @maximum 4294967295 */
  alarm_rgb?: number | null;
}

function toResponse(row: Zones): ZoneResponse {
  return {
    id: row.Id,
    monitor_id: row.MonitorId,
    name: row.Name,
    type: row.Type,
    units: row.Units,
    coords: row.Coords,
    num_coords: row.NumCoords,
    area: row.Area,
    alarm_rgb: row.AlarmRGB,
    ...motionToJson(row),
  };
}

const zoneNotFound = (id: number) => new NotFoundError(`Zone ${id} not found`, [['id', String(id)]]);

/** How long the installed ZoneMinder's version is trusted (Config ZM_DYN_CURR_VERSION). */
const VERSION_TTL_MS = 60_000;

export class ZonesService extends AclDbService {
  /** The last zone write queued per monitor (oneAtATime). */
  private readonly writing = new Map<number, Promise<unknown>>();
  private pixelDaemons: { at: number; value: Promise<boolean> } | null = null;

  /**
   * Whether the installed ZoneMinder's zma reads Zones.Coords as whole pixels whatever Units says:
   * before 1.38.4 (ZM_DYN_CURR_VERSION, the installed code's version).
   */
  private readsPixelsOnly(): Promise<boolean> {
    if (!this.pixelDaemons || Date.now() - this.pixelDaemons.at > VERSION_TTL_MS) {
      const value = this.prisma.config
        .findUnique({ where: { Name: 'ZM_DYN_CURR_VERSION' }, select: { Value: true } })
        .then((row) => {
          const version = row?.Value ?? null;
          return isVersion(version) && compareVersions(version, '1.38.4') < 0;
        });
      this.pixelDaemons = { at: Date.now(), value };
      value.catch(() => (this.pixelDaemons = null));
    }
    return this.pixelDaemons.value;
  }

  /**
   * The polygon as it is stored: in the units given, except that percent coordinates become whole
   * pixels of the monitor's frame when the installed zma reads only pixels (a percent polygon
   * would make it watch a 100×100-pixel corner and miss motion everywhere else).
   */
  private async stored(
    text: string,
    units: ZoneUnits,
    field: string,
    frame: FrameSize,
  ): Promise<{ units: ZoneUnits; polygon: Polygon; toPixels: boolean }> {
    const polygon = parsePolygon(text, units, field, frame);
    if (units !== 'Percent' || !(await this.readsPixelsOnly())) return { units, polygon, toPixels: false };
    if (!frame.width || !frame.height) {
      throw new InvalidInputError('Invalid input', [
        [field, 'the monitor has no Width/Height to place percent coordinates by; give them in Pixels'],
      ]);
    }
    const pixels = parsePolygon(percentToPixels(polygon.coords, frame), 'Pixels', field, frame);
    return { units: 'Pixels', polygon: pixels, toPixels: true };
  }

  private async monitorFrame(id: number): Promise<FrameSize> {
    const monitor = await this.prisma.monitors.findUnique({ where: { Id: id }, select: { Width: true, Height: true } });
    if (!monitor) throw monitorNotFound(id);
    return { width: monitor.Width, height: monitor.Height };
  }

  async listByMonitor(
    user: AuthUser,
    monitorId: number,
    page?: number,
    pageSize?: number,
  ): Promise<Page<ZoneResponse>> {
    const req = pageRequest(page, pageSize);
    requireVisibleMonitor(await this.acl.scope(user), monitorId);
    await this.monitorFrame(monitorId);
    const where = { MonitorId: monitorId };
    return listPage(
      req,
      this.prisma.zones.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.zones.count({ where }),
      toResponse,
    );
  }

  async create(user: AuthUser, monitorId: number, body: CreateZoneRequest): Promise<ZoneResponse> {
    requireEditableMonitor(await this.acl.scope(user), monitorId);
    const frame = await this.monitorFrame(monitorId);
    const { units, polygon, toPixels } = await this.stored(body.coords, body.units ?? 'Percent', 'coords', frame);
    const motion = motionToData(body);
    if (toPixels) areaPercentToPixels(motion, polygon.area);
    const row = await this.oneAtATime(monitorId, () =>
      this.prisma.zones.create({
        data: {
          ...(motion as Prisma.ZonesUncheckedCreateInput),
          MonitorId: monitorId,
          Name: body.name,
          Type: body.type ?? 'Active',
          Units: units,
          Coords: polygon.coords,
          NumCoords: polygon.numCoords,
          Area: polygon.area,
          ...(body.alarm_rgb !== undefined && { AlarmRGB: body.alarm_rgb }),
        },
      }),
    );
    return toResponse(row);
  }

  /**
   * The zone creations and deletions of one monitor, one after another. The Zones triggers
   * recount Monitors.ZoneCount inside the inserting transaction, whose snapshot misses a zone
   * another request is adding at the same moment: concurrent creations left it one short.
   */
  private oneAtATime<T>(monitorId: number, work: () => Promise<T>): Promise<T> {
    const next = (this.writing.get(monitorId) ?? Promise.resolve()).catch(() => undefined).then(work);
    this.writing.set(monitorId, next);
    void next
      .finally(() => {
        if (this.writing.get(monitorId) === next) this.writing.delete(monitorId);
      })
      .catch(() => undefined);
    return next;
  }

  /** The zone if its monitor is visible (and editable when `edit`); hidden reads as missing. */
  private async zone(user: AuthUser, id: number, edit: boolean): Promise<Zones> {
    const row = await this.prisma.zones.findUnique({ where: { Id: id } });
    const scope = await this.acl.scope(user);
    if (!row || !canSee(scope, row.MonitorId)) throw zoneNotFound(id);
    if (edit && !canEdit(scope, row.MonitorId)) {
      throw new PermissionDeniedError(`Monitor ${row.MonitorId} is view-only for this account`, [
        ['monitor_id', String(row.MonitorId)],
      ]);
    }
    return row;
  }

  async get(user: AuthUser, id: number): Promise<ZoneResponse> {
    return toResponse(await this.zone(user, id, false));
  }

  async update(user: AuthUser, id: number, body: UpdateZoneRequest): Promise<ZoneResponse> {
    const current = await this.zone(user, id, true);
    const text = body.coords ?? body.polygon;
    const field = body.coords != null ? 'coords' : 'polygon';
    const asked = (body.units ?? current.Units) as ZoneUnits;
    if (asked !== current.Units && text == null) {
      throw new InvalidInputError('Invalid input', [
        ['coords', `required when units change (the stored polygon is in ${current.Units})`],
      ]);
    }
    const placed =
      text != null ? await this.stored(text, asked, field, await this.monitorFrame(current.MonitorId)) : null;
    const units = placed?.units ?? asked;
    const polygon = placed?.polygon ?? null;
    const motion = motionToData(body);
    if (placed?.toPixels) areaPercentToPixels(motion, placed.polygon.area);
    const row = await this.prisma.zones.update({
      where: { Id: id },
      data: {
        ...(motion as Prisma.ZonesUncheckedUpdateInput),
        ...(body.name != null && { Name: body.name }),
        ...(body.type != null && { Type: body.type }),
        Units: units,
        ...(polygon && { Coords: polygon.coords, NumCoords: polygon.numCoords, Area: polygon.area }),
        ...(body.alarm_rgb !== undefined && { AlarmRGB: body.alarm_rgb }),
      },
    });
    return toResponse(row);
  }

  async remove(user: AuthUser, id: number): Promise<void> {
    const zone = await this.zone(user, id, true);
    await this.oneAtATime(zone.MonitorId, () => this.prisma.zones.delete({ where: { Id: id } }));
  }
}
