// Per-zone alarm statistics of event frames (the Stats table), written by zmc while it records
// and removed with their events. Each row belongs to a monitor, so the monitor row ACL applies:
// rows of hidden monitors are filtered from lists and read as 404 by id; writing needs the
// monitor to be editable (403 when only visible). A row written here must describe something
// real, as zmc's do: the monitor must exist and be visible, the zone must be one of its zones and
// the event one of its events (400 naming the field otherwise).
import type { AuthUser } from '../../auth/auth-service.js';
import { canSee, requireEditableMonitor, type MonitorAcl, type MonitorScope } from '../../auth/monitor-acl.js';
import { InvalidInputError, notFound } from '../../errors.js';
import type { PrismaClient } from '../../db/prisma.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Prisma, Stats } from '../../generated/prisma/client.js';
import type { Services } from '../../registry.js';

export interface StatResponse {
  /** Stats.Id. @isInt @minimum 0 */
  id: number;
  /** The monitor. @isInt @minimum 0 */
  monitor_id: number;
  /** The zone of that monitor. @isInt @minimum 0 */
  zone_id: number;
  /** The event. @isLong @minimum 0 */
  event_id: number;
  /** Frame number within the event. @isInt @minimum 0 */
  frame_id: number;
  /** Pixel difference threshold, percent. @isInt @minimum 0 */
  pixel_diff: number;
  /** Alarmed pixels. @isInt @minimum 0 */
  alarm_pixels: number;
  /** Pixels left after filtering. @isInt @minimum 0 */
  filter_pixels: number;
  /** Pixels in blobs. @isInt @minimum 0 */
  blob_pixels: number;
  /** Number of blobs. @isInt @minimum 0 */
  blobs: number;
  /** Smallest blob, pixels. @isInt @minimum 0 */
  min_blob_size: number;
  /** Largest blob, pixels. @isInt @minimum 0 */
  max_blob_size: number;
  /** Alarm box left. @isInt @minimum 0 */
  min_x: number;
  /** Alarm box right. @isInt @minimum 0 */
  max_x: number;
  /** Alarm box top. @isInt @minimum 0 */
  min_y: number;
  /** Alarm box bottom. @isInt @minimum 0 */
  max_y: number;
  /** Zone score. @isInt @minimum 0 */
  score: number;
}

export interface CreateStatRequest {
  /** An existing monitor the caller may edit. @isInt @minimum 0 @maximum 2147483647 */
  monitor_id: number;
  /** A zone of that monitor. @isInt @minimum 0 @maximum 2147483647 */
  zone_id: number;
  /** An event of that monitor. @isLong @minimum 0 @maximum 9007199254740991 */
  event_id: number;
  /** Frame number within the event. @isInt @minimum 0 @maximum 2147483647 */
  frame_id: number;
  /** Pixel difference threshold, percent. @isInt @minimum 0 @maximum 255 */
  pixel_diff: number;
  /** Alarmed pixels. @isInt @minimum 0 @maximum 2147483647 */
  alarm_pixels: number;
  /** Pixels left after filtering. @isInt @minimum 0 @maximum 2147483647 */
  filter_pixels: number;
  /** Pixels in blobs. @isInt @minimum 0 @maximum 2147483647 */
  blob_pixels: number;
  /** Number of blobs. @isInt @minimum 0 @maximum 65535 */
  blobs: number;
  /** Smallest blob, pixels. @isInt @minimum 0 @maximum 2147483647 */
  min_blob_size: number;
  /** Largest blob, pixels. @isInt @minimum 0 @maximum 2147483647 */
  max_blob_size: number;
  /** Alarm box left. @isInt @minimum 0 @maximum 65535 */
  min_x: number;
  /** Alarm box right. @isInt @minimum 0 @maximum 65535 */
  max_x: number;
  /** Alarm box top. @isInt @minimum 0 @maximum 65535 */
  min_y: number;
  /** Alarm box bottom. @isInt @minimum 0 @maximum 65535 */
  max_y: number;
  /** Zone score. @isInt @minimum 0 @maximum 65535 */
  score: number;
}

/** Every field optional; null leaves a value unchanged (no column is nullable). */
export interface UpdateStatRequest {
  /** An existing monitor the caller may edit. @isInt @minimum 0 @maximum 2147483647 */
  monitor_id?: number | null;
  /** A zone of the (resulting) monitor. @isInt @minimum 0 @maximum 2147483647 */
  zone_id?: number | null;
  /** An event of the (resulting) monitor. @isLong @minimum 0 @maximum 9007199254740991 */
  event_id?: number | null;
  /** Frame number within the event. @isInt @minimum 0 @maximum 2147483647 */
  frame_id?: number | null;
  /** Pixel difference threshold, percent. @isInt @minimum 0 @maximum 255 */
  pixel_diff?: number | null;
  /** Alarmed pixels. @isInt @minimum 0 @maximum 2147483647 */
  alarm_pixels?: number | null;
  /** Pixels left after filtering. @isInt @minimum 0 @maximum 2147483647 */
  filter_pixels?: number | null;
  /** Pixels in blobs. @isInt @minimum 0 @maximum 2147483647 */
  blob_pixels?: number | null;
  /** Number of blobs. @isInt @minimum 0 @maximum 65535 */
  blobs?: number | null;
  /** Smallest blob, pixels. @isInt @minimum 0 @maximum 2147483647 */
  min_blob_size?: number | null;
  /** Largest blob, pixels. @isInt @minimum 0 @maximum 2147483647 */
  max_blob_size?: number | null;
  /** Alarm box left. @isInt @minimum 0 @maximum 65535 */
  min_x?: number | null;
  /** Alarm box right. @isInt @minimum 0 @maximum 65535 */
  max_x?: number | null;
  /** Alarm box top. @isInt @minimum 0 @maximum 65535 */
  min_y?: number | null;
  /** Alarm box bottom. @isInt @minimum 0 @maximum 65535 */
  max_y?: number | null;
  /** Zone score. @isInt @minimum 0 @maximum 65535 */
  score?: number | null;
}

/** JSON field → column; every one a plain unsigned integer except EventId (BIGINT). */
const COLUMNS = {
  monitor_id: 'MonitorId',
  zone_id: 'ZoneId',
  event_id: 'EventId',
  frame_id: 'FrameId',
  pixel_diff: 'PixelDiff',
  alarm_pixels: 'AlarmPixels',
  filter_pixels: 'FilterPixels',
  blob_pixels: 'BlobPixels',
  blobs: 'Blobs',
  min_blob_size: 'MinBlobSize',
  max_blob_size: 'MaxBlobSize',
  min_x: 'MinX',
  max_x: 'MaxX',
  min_y: 'MinY',
  max_y: 'MaxY',
  score: 'Score',
} as const satisfies Record<Exclude<keyof StatResponse, 'id'>, keyof Stats>;
type Field = keyof typeof COLUMNS;
const FIELDS = Object.keys(COLUMNS) as Field[];

function toResponse(row: Stats): StatResponse {
  const out = { id: row.Id } as StatResponse;
  for (const f of FIELDS) out[f] = Number(row[COLUMNS[f]]);
  return out;
}

/** The columns a body sets (null and absent fields are left alone). */
function toData(body: CreateStatRequest | UpdateStatRequest): Prisma.StatsUncheckedUpdateInput {
  const data: Record<string, number | bigint> = {};
  for (const f of FIELDS) {
    const v = body[f];
    if (v != null) data[COLUMNS[f]] = f === 'event_id' ? BigInt(v) : v;
  }
  return data;
}

export class StatsService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): StatsService {
    return new StatsService(s.prisma, s.acl);
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly acl: MonitorAcl,
  ) {}

  async list(user: AuthUser, page?: number, pageSize?: number): Promise<Page<StatResponse>> {
    const req = pageRequest(page, pageSize);
    const scope = await this.acl.scope(user);
    const where: Prisma.StatsWhereInput = scope.visible ? { MonitorId: { in: [...scope.visible] } } : {};
    return listPage(
      req,
      this.prisma.stats.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.stats.count({ where }),
      toResponse,
    );
  }

  /** The row, or 404 when it is missing or its monitor is hidden from the caller. */
  private async row(scope: MonitorScope, id: number): Promise<Stats> {
    const row = await this.prisma.stats.findUnique({ where: { Id: id } });
    if (!row || !canSee(scope, row.MonitorId)) throw notFound('Stat', id);
    return row;
  }

  async get(user: AuthUser, id: number): Promise<StatResponse> {
    return toResponse(await this.row(await this.acl.scope(user), id));
  }

  /** Monitor visible and existing (400), editable (403); zone and event of that monitor (400). */
  private async checkRefs(scope: MonitorScope, monitorId: number, zoneId: number, eventId: number): Promise<void> {
    const monitor = canSee(scope, monitorId)
      ? await this.prisma.monitors.findUnique({ where: { Id: monitorId }, select: { Id: true } })
      : null;
    if (!monitor)
      throw new InvalidInputError(`Monitor ${monitorId} does not exist`, [
        ['monitor_id', `no monitor with id ${monitorId}`],
      ]);
    requireEditableMonitor(scope, monitorId);
    const [zone, event] = await Promise.all([
      this.prisma.zones.findFirst({ where: { Id: zoneId, MonitorId: monitorId }, select: { Id: true } }),
      this.prisma.events.findFirst({ where: { Id: BigInt(eventId), MonitorId: monitorId }, select: { Id: true } }),
    ]);
    if (!zone) throw new InvalidInputError('Invalid input', [['zone_id', `no zone ${zoneId} on monitor ${monitorId}`]]);
    if (!event)
      throw new InvalidInputError('Invalid input', [['event_id', `no event ${eventId} of monitor ${monitorId}`]]);
  }

  async create(user: AuthUser, body: CreateStatRequest): Promise<StatResponse> {
    await this.checkRefs(await this.acl.scope(user), body.monitor_id, body.zone_id, body.event_id);
    return toResponse(await this.prisma.stats.create({ data: toData(body) as Prisma.StatsUncheckedCreateInput }));
  }

  async update(user: AuthUser, id: number, body: UpdateStatRequest): Promise<StatResponse> {
    const scope = await this.acl.scope(user);
    const current = await this.row(scope, id);
    requireEditableMonitor(scope, current.MonitorId);
    const monitorId = body.monitor_id ?? current.MonitorId;
    const zoneId = body.zone_id ?? current.ZoneId;
    const eventId = body.event_id ?? Number(current.EventId);
    if (body.monitor_id != null || body.zone_id != null || body.event_id != null)
      await this.checkRefs(scope, monitorId, zoneId, eventId);
    return toResponse(await this.prisma.stats.update({ where: { Id: id }, data: toData(body) }));
  }

  async remove(user: AuthUser, id: number): Promise<void> {
    const scope = await this.acl.scope(user);
    const current = await this.row(scope, id);
    requireEditableMonitor(scope, current.MonitorId);
    await this.prisma.stats.delete({ where: { Id: id } });
  }
}
