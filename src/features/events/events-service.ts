// Events: list (filters, sort, row ACL), get, create, patch, delete, and the two count routes.
// Time handling is in event-time.ts, the list SQL in event-list-query.ts, deletion in
// event-deletion.ts (shared with retention).
import { Decimal } from '@prisma/client-runtime-utils';
import type { AuthUser } from '../../auth/auth-service.js';
import type { MonitorAcl } from '../../auth/monitor-acl.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import type { PrismaClient } from '../../db/prisma.js';
import { pageOf, strictPageRequest, type Page } from '../../api/pagination.js';
import type { NaiveDateTimeWrapper } from '../../api/wrappers.js';
import { coalescedCount } from '../../db/coalesced-count.js';
import { EventRows } from './event-rows.js';
import { EventDeletion } from '../../zm/event-deletion.js';
import { ReadCaches } from '../../infra/read-cache/read-caches.js';
import { withJsonText } from '../../infra/read-cache/json-text.js';
import {
  storedOrientation,
  toEventResponse,
  type EventResponse,
  type EventRow,
  type TagSummary,
} from './event-json.js';
import { eventListSql, type EventListFilters } from './event-list-query.js';
import { parseEventTime, parseTimeInput, wallClockSql, ZoneMinderClock, type ZoneClock } from '../../zm/event-time.js';
import type { Services } from '../../registry.js';
import type { EventCreateRequest, EventUpdateRequest } from '../../generated/dto/events.js';
import { jsonToColumns } from '../field-table.js';
import { EVENT_UPDATE_FIELDS } from './event-fields.js';

export type { EventResponse, TagSummary } from './event-json.js';

export interface PaginatedEventsResponse extends Page<EventResponse> {}

// EventCreateRequest and EventUpdateRequest are generated from event-fields.ts.
export type { EventCreateRequest, EventUpdateRequest };

export interface EventCountResponse {
  /**
   * @isLong
   * @minimum 0
   */
  count: number;
  /** Start of the hour (ZoneMinder local hour) as UTC with `Z`. */
  date: NaiveDateTimeWrapper;
}

export interface EventCountsResponse {
  counts: EventCountResponse[];
  /**
   * @isLong
   */
  hours: number;
}

export interface MonitorEventCount {
  /**
   * @isInt
   * @minimum 0
   */
  monitor_id: number;
  /**
   * @isLong
   * @minimum 0
   */
  count: number;
}

export interface EventCountsByMonitorResponse {
  counts: MonitorEventCount[];
  /**
   * @isLong
   */
  hours: number;
}

export interface EventListQuery extends EventListFilters {
  page?: number;
  page_size?: number;
}

/** Longest window of the count routes: ten years. */
export const MAX_COUNT_HOURS = 87_600;
const MAX_LENGTH = new Decimal('99999999.99');

const notFound = (id: bigint | number) =>
  new NotFoundError(`Event ${id} not found`, [['event_id', String(id)]], 'MESSAGE');

export class EventsService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): EventsService {
    return new EventsService(
      s.prisma,
      s.acl,
      s.get(ZoneMinderClock),
      new EventDeletion(s.prisma, s.config.zoneminder.dir_events, s.log),
      new EventRows(s.pool, s.columns),
      s.get(ReadCaches),
    );
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly acl: MonitorAcl,
    private readonly clock: () => Promise<ZoneClock>,
    private readonly deletion: EventDeletion,
    /** The list's read path (the driver, not Prisma); event-rows.ts. */
    private readonly rows: EventRows,
    private readonly caches: ReadCaches = new ReadCaches(),
  ) {}

  /**
   * A page and its total, each at most EVENTS_MAX_AGE_MS old and emptied by API writes
   * (read-caches.ts; docs/api-caches.md). The cache keys hold the whole WHERE clause with its
   * values, the caller's monitor scope included, so a page is only ever shared by callers who
   * may see exactly the same rows.
   */
  async list(user: AuthUser, query: EventListQuery): Promise<PaginatedEventsResponse> {
    const req = strictPageRequest(query.page, query.page_size);
    const [clock, scope] = await Promise.all([this.clock(), this.acl.scope(user)]);
    const sql = eventListSql(query, scope.visible, clock);
    if (sql.empty) return pageOf([], 0, req);
    // Beyond any possible row; also keeps the OFFSET a safe integer.
    const skip = Math.min(req.skip, Number.MAX_SAFE_INTEGER);
    const caches = this.caches;
    const filter = `${sql.where}\0${JSON.stringify(sql.params)}`;
    const page = await caches.eventPages.get(`${filter}\0${sql.orderBy}\0${req.page}\0${req.pageSize}`, async () => {
      const rows$ = this.rows.page(sql.where, sql.params, sql.orderBy, req.take, skip);
      // Shared by every page of the same filter, and with concurrent requests (coalesced-count.ts).
      const total$ = caches.eventTotals.get(filter, () =>
        coalescedCount(this.prisma).count(filter, () => this.rows.count(sql.where, sql.params)),
      );
      const [rows, total] = await Promise.all([rows$, total$]);
      const tags = await this.rows.tags(rows.map((r) => r.Id));
      const items = rows.map((r) => toEventResponse(r, clock, tags.get(String(r.Id))));
      return withJsonText(pageOf(items, total, req));
    });
    return page as PaginatedEventsResponse;
  }

  async get(user: AuthUser, id: number): Promise<EventResponse> {
    const [clock, row] = await Promise.all([this.clock(), this.visibleRow(user, BigInt(id))]);
    const tags = await this.tagsOf([row.Id]);
    return toEventResponse(row, clock, tags.get(String(row.Id)));
  }

  async create(user: AuthUser, body: EventCreateRequest): Promise<EventResponse> {
    const [clock, scope] = await Promise.all([this.clock(), this.acl.scope(user)]);
    const monitor = await this.prisma.monitors.findUnique({ where: { Id: body.monitor_id }, select: { Id: true } });
    if (!monitor || (scope.visible && !scope.visible.has(body.monitor_id))) {
      throw new InvalidInputError('Invalid input', [['monitor_id', 'no such monitor']]);
    }
    const storage = body.storage_id ? await this.prisma.storage.findUnique({ where: { Id: body.storage_id } }) : null;
    if (body.storage_id && !storage) throw new InvalidInputError('Invalid input', [['storage_id', 'no such storage']]);
    if (
      body.secondary_storage_id &&
      !(await this.prisma.storage.findUnique({ where: { Id: body.secondary_storage_id }, select: { Id: true } }))
    ) {
      throw new InvalidInputError('Invalid input', [['secondary_storage_id', 'no such storage']]);
    }
    const length = parseLength(body.length);
    const start =
      body.start_date_time == null ? clock.now() : parseTimeInput('start_date_time', body.start_date_time, clock);
    start.setUTCMilliseconds(0); // DATETIME(0), as zmc writes it
    const end = body.end_date_time == null ? null : parseTimeInput('end_date_time', body.end_date_time, clock);
    if (end && end.getTime() < start.getTime())
      throw new InvalidInputError('Invalid input', [['end_date_time', 'is before start_date_time']]);
    end?.setUTCMilliseconds(0);
    const activeState = await this.prisma.states.findFirst({ where: { IsActive: 1 }, select: { Id: true } });

    const id = await this.prisma.$transaction(async (tx) => {
      const event = await tx.events.create({
        data: {
          MonitorId: body.monitor_id,
          StorageId: body.storage_id,
          SecondaryStorageId: body.secondary_storage_id ?? 0,
          Name: body.name,
          Cause: body.cause ?? null,
          Notes: body.notes ?? null,
          StartDateTime: start,
          EndDateTime: end,
          Width: body.width,
          Height: body.height,
          Length: length,
          Frames: 0,
          AlarmFrames: 0,
          Orientation: storedOrientation(body.orientation),
          Scheme: storage?.Scheme ?? 'Medium',
          StateId: activeState?.Id ?? 0,
        },
        select: { Id: true },
      });
      // Before 1.37.77 ZoneMinder's own event_insert_trigger fills the buckets and counters.
      if (await this.insertTrigger(tx)) return event.Id;
      // What zmc does when an event starts (1.37.77+): one row in each bucket whose window
      // holds the start, and the monitor's Event_Summaries counters. Lock order: Events, buckets,
      // Event_Summaries.
      const inBucket: Record<string, number> = {};
      for (const [bucket, interval] of [
        ['Hour', '1 HOUR'],
        ['Day', '1 DAY'],
        ['Week', '1 WEEK'],
        ['Month', '1 MONTH'],
      ]) {
        inBucket[bucket] = await tx.$executeRawUnsafe(
          `INSERT INTO Events_${bucket} (EventId, MonitorId, StartDateTime, DiskSpace) SELECT ?, ?, ?, NULL FROM DUAL WHERE ? >= DATE_SUB(NOW(), INTERVAL ${interval})`,
          event.Id,
          body.monitor_id,
          wallClockSql(start),
          wallClockSql(start),
        );
      }
      await tx.$executeRawUnsafe(
        `INSERT INTO Event_Summaries (MonitorId, TotalEvents, HourEvents, DayEvents, WeekEvents, MonthEvents) VALUES (?, 1, ?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE TotalEvents = COALESCE(TotalEvents, 0) + 1, HourEvents = COALESCE(HourEvents, 0) + VALUES(HourEvents),
           DayEvents = COALESCE(DayEvents, 0) + VALUES(DayEvents), WeekEvents = COALESCE(WeekEvents, 0) + VALUES(WeekEvents),
           MonthEvents = COALESCE(MonthEvents, 0) + VALUES(MonthEvents)`,
        body.monitor_id,
        inBucket.Hour,
        inBucket.Day,
        inBucket.Week,
        inBucket.Month,
      );
      return event.Id;
    });
    return this.get(user, Number(id));
  }

  private hasInsertTrigger: Promise<boolean> | null = null;

  /** Whether the database still has ZoneMinder's event_insert_trigger (before 1.37.77), read once. */
  private insertTrigger(tx: Pick<PrismaClient, '$queryRawUnsafe'>): Promise<boolean> {
    this.hasInsertTrigger ??= tx
      .$queryRawUnsafe<Array<{ n: number | bigint }>>(
        "SELECT COUNT(*) AS n FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() AND TRIGGER_NAME = 'event_insert_trigger'",
      )
      .then(([row]) => Number(row?.n ?? 0) > 0)
      .catch((err: unknown) => {
        this.hasInsertTrigger = null;
        throw err;
      });
    return this.hasInsertTrigger;
  }

  async update(user: AuthUser, id: number, body: EventUpdateRequest): Promise<EventResponse> {
    const row = await this.visibleRow(user, BigInt(id));
    // null clears Cause and Notes and leaves the rest; the flags arrive as booleans, Orientation
    // in any spelling of OrientationInput.
    await this.prisma.events.update({
      where: { Id: BigInt(row.Id) },
      data: jsonToColumns(EVENT_UPDATE_FIELDS, body),
    });
    return this.get(user, id);
  }

  async remove(user: AuthUser, id: number): Promise<void> {
    const row = await this.visibleRow(user, BigInt(id));
    await this.deletion.delete(BigInt(row.Id), { reason: 'api', actor: user.username });
  }

  async counts(user: AuthUser, hours: number): Promise<EventCountsResponse> {
    const [clock, scope] = await Promise.all([this.clock(), this.acl.scope(user)]);
    const since = sinceFor(hours, clock);
    if (scope.visible && scope.visible.size === 0) return { counts: [], hours };
    const visible = scope.visible ? [...scope.visible] : [];
    const rows = await this.prisma.$queryRawUnsafe<Array<{ bucket: string; n: bigint | number }>>(
      `SELECT DATE_FORMAT(StartDateTime, '%Y-%m-%d %H:00:00') AS bucket, COUNT(*) AS n FROM Events
       WHERE StartDateTime >= ?${visible.length ? ` AND MonitorId IN (${visible.map(() => '?').join(', ')})` : ''}
       GROUP BY bucket ORDER BY bucket`,
      since,
      ...visible,
    );
    return {
      hours,
      counts: rows.map((r) => ({
        count: Number(r.n),
        date: clock.toUtcString(parseEventTime(r.bucket, clock)) ?? r.bucket,
      })),
    };
  }

  async countsByMonitor(user: AuthUser, hours: number): Promise<EventCountsByMonitorResponse> {
    const [clock, scope] = await Promise.all([this.clock(), this.acl.scope(user)]);
    const since = sinceFor(hours, clock);
    if (scope.visible && scope.visible.size === 0) return { counts: [], hours };
    const visible = scope.visible ? [...scope.visible] : null;
    const [rows, monitors] = await Promise.all([
      this.prisma.$queryRawUnsafe<Array<{ MonitorId: bigint | number; n: bigint | number }>>(
        `SELECT MonitorId, COUNT(*) AS n FROM Events WHERE StartDateTime >= ?${visible ? ` AND MonitorId IN (${visible.map(() => '?').join(', ')})` : ''} GROUP BY MonitorId`,
        since,
        ...(visible ?? []),
      ),
      this.prisma.monitors.findMany({
        where: { Deleted: false, ...(visible && { Id: { in: visible } }) },
        select: { Id: true },
      }),
    ]);
    // Every visible monitor is listed, with 0 when it had no event in the window.
    const counts = new Map<number, number>(monitors.map((m) => [m.Id, 0]));
    for (const r of rows) counts.set(Number(r.MonitorId), Number(r.n));
    return {
      hours,
      counts: [...counts].sort(([a], [b]) => a - b).map(([monitor_id, count]) => ({ monitor_id, count })),
    };
  }

  /** The event row, or 404 when it is missing or its monitor is hidden from the caller. */
  private async visibleRow(user: AuthUser, id: bigint): Promise<EventRow> {
    const [row, scope] = await Promise.all([this.rows.byId(id), this.acl.scope(user)]);
    if (!row || (scope.visible && !scope.visible.has(Number(row.MonitorId)))) throw notFound(id);
    return row;
  }

  private tagsOf(ids: Array<number | bigint>): Promise<Map<string, TagSummary[]>> {
    return this.rows.tags(ids);
  }
}

/** The tags of each event (keyed by the event id as a string), for EventResponse.tags. */
export async function eventTagsOf(
  prisma: PrismaClient,
  ids: Array<number | bigint>,
): Promise<Map<string, TagSummary[]>> {
  const byEvent = new Map<string, TagSummary[]>();
  if (!ids.length) return byEvent;
  const rows = await prisma.$queryRawUnsafe<Array<{ EventId: bigint | number; Id: bigint | number; Name: string }>>(
    `SELECT et.EventId, t.Id, t.Name FROM Events_Tags et JOIN Tags t ON t.Id = et.TagId WHERE et.EventId IN (${ids.map(() => '?').join(', ')}) ORDER BY t.Name, t.Id`,
    ...ids,
  );
  for (const r of rows) {
    const key = String(r.EventId);
    byEvent.set(key, [...(byEvent.get(key) ?? []), { id: Number(r.Id), name: r.Name }]);
  }
  return byEvent;
}

function parseLength(text: string): Decimal {
  if (!/^\d{1,8}(\.\d{1,2})?$/.test(text.trim())) {
    throw new InvalidInputError('Invalid input', [
      ['length', 'must be a decimal string of seconds, 0 to 99999999.99, at most two places'],
    ]);
  }
  const value = new Decimal(text.trim());
  if (value.gt(MAX_LENGTH)) throw new InvalidInputError('Invalid input', [['length', 'must be at most 99999999.99']]);
  return value;
}

/** The window start of the count routes, as ZoneMinder's wall clock. */
function sinceFor(hours: number, clock: ZoneClock): string {
  if (!Number.isInteger(hours) || hours < 1 || hours > MAX_COUNT_HOURS) {
    throw new InvalidInputError('Invalid input', [['hours', `must be an integer 1..${MAX_COUNT_HOURS}`]]);
  }
  return wallClockSql(clock.toWall(new Date(Date.now() - hours * 3_600_000)));
}
