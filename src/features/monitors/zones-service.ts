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
  areaPixelsToPercent,
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

/** `frame`: set when the stored area limits are pixel counts beside percent coordinates (limitsFrame). */
function toResponse(row: Zones, frame: FrameSize | null = null): ZoneResponse {
  const motion = motionToJson(row);
  if (frame) areaPixelsToPercent(motion, zonePixels(Number(row.Area), frame));
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
    ...motion,
  };
}

/** The pixels a percent zone covers: its Area is in hundredths of the frame squared (a full frame is 10000). */
function zonePixels(percentArea: number, frame: FrameSize): number {
  return Math.max(1, Math.round((percentArea * frame.width * frame.height) / 10000));
}

const zoneNotFound = (id: number) => new NotFoundError(`Zone ${id} not found`, [['id', String(id)]], 'MONITOR');

/** How long the installed ZoneMinder's version is trusted (Config ZM_DYN_CURR_VERSION). */
const VERSION_TTL_MS = 60_000;

export class ZonesService extends AclDbService {
  /** The last zone write queued per monitor (oneAtATime). */
  private readonly writing = new Map<number, Promise<unknown>>();
  private installedVersion: { at: number; value: Promise<string | null> } | null = null;

  /** The installed ZoneMinder (ZM_DYN_CURR_VERSION, the installed code's version), trusted a minute. */
  private installed(): Promise<string | null> {
    if (!this.installedVersion || Date.now() - this.installedVersion.at > VERSION_TTL_MS) {
      const value = this.prisma.config
        .findUnique({ where: { Name: 'ZM_DYN_CURR_VERSION' }, select: { Value: true } })
        .then((row) => row?.Value ?? null);
      this.installedVersion = { at: Date.now(), value };
      value.catch(() => (this.installedVersion = null));
    }
    return this.installedVersion.value;
  }

  private async installedBefore(version: string): Promise<boolean> {
    const installed = await this.installed();
    return isVersion(installed) && compareVersions(installed, version) < 0;
  }

  /** Whether the installed zma reads Zones.Coords as whole pixels whatever Units says: before 1.38.4. */
  private readsPixelsOnly(): Promise<boolean> {
    return this.installedBefore('1.38.4');
  }

  /**
   * Whether the installed zma reads the area limits as pixel counts even beside percent
   * coordinates: before 1.39.11. v3 speaks of them as 1.39 does (percent of the zone's area beside
   * percent coordinates), so they are converted both ways there (docs/zoneminder/coexistence.md).
   */
  private limitsInPixels(): Promise<boolean> {
    return this.installedBefore('1.39.11');
  }

  /** The frame to convert a percent zone's area limits by, or null when they need no conversion. */
  private async limitsFrame(monitor: number | FrameSize, units: string): Promise<FrameSize | null> {
    if (units !== 'Percent' || !(await this.limitsInPixels())) return null;
    // A frame the caller already read, else the monitor's (read only when a conversion is due).
    const frame = typeof monitor === 'number' ? await this.monitorFrame(monitor) : monitor;
    return frame.width && frame.height ? frame : null;
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
    const frame = await this.limitsFrame(await this.monitorFrame(monitorId), 'Percent');
    const where = { MonitorId: monitorId };
    return listPage(
      req,
      this.prisma.zones.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.zones.count({ where }),
      (row) => toResponse(row, row.Units === 'Percent' ? frame : null),
    );
  }

  async create(user: AuthUser, monitorId: number, body: CreateZoneRequest): Promise<ZoneResponse> {
    requireEditableMonitor(await this.acl.scope(user), monitorId);
    const frame = await this.monitorFrame(monitorId);
    const { units, polygon, toPixels } = await this.stored(body.coords, body.units ?? 'Percent', 'coords', frame);
    const motion = motionToData(body);
    const limitsFrame = await this.limitsFrame(frame, units);
    if (toPixels) areaPercentToPixels(motion, polygon.area);
    else if (limitsFrame) areaPercentToPixels(motion, zonePixels(polygon.area, limitsFrame));
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
    return toResponse(row, limitsFrame);
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
    const row = await this.zone(user, id, false);
    return toResponse(row, await this.limitsFrame(row.MonitorId, row.Units));
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
    const limitsFrame = await this.limitsFrame(current.MonitorId, units);
    if (placed?.toPixels) areaPercentToPixels(motion, placed.polygon.area);
    else if (limitsFrame) areaPercentToPixels(motion, zonePixels(polygon?.area ?? Number(current.Area), limitsFrame));
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
    return toResponse(row, limitsFrame);
  }

  async remove(user: AuthUser, id: number): Promise<void> {
    const zone = await this.zone(user, id, true);
    await this.oneAtATime(zone.MonitorId, () => this.prisma.zones.delete({ where: { Id: id } }));
  }
}
