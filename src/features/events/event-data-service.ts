// Event_Data (1.37.26+): free-form data attached to an event, a frame or a monitor (e.g. object
// detection results). Feature gate: Events, as docs/contract/clients.md lists event data under it.
// Row ACL: a row belongs to its MonitorId, or, when that is NULL, to its event's monitor.
import type { AuthUser } from '../../auth/auth-service.js';
import type { MonitorAcl } from '../../auth/monitor-acl.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import type { PrismaClient } from '../../db/prisma.js';
import type { Event_Data } from '../../generated/prisma/client.js';
import { pageOf, pageRequest, type Page, listPage } from '../../api/pagination.js';
import { EventVisibility } from '../../zm/event-visibility.js';
import { parseTimeInput, processZoneClock, ZoneMinderClock, type ZoneClock } from '../../zm/event-time.js';
import type { Services } from '../../registry.js';

export interface EventDataResponse {
  /**
   * @isLong
   * @minimum 0
   */
  id: number;
  /**
   * @isLong
   * @minimum 0
   */
  event_id?: number | null;
  /**
   * @isInt
   * @minimum 0
   */
  monitor_id?: number | null;
  /**
   * @isInt
   * @minimum 0
   */
  frame_id?: number | null;
  /** As UTC with `Z`, with milliseconds when non-zero, e.g. `2026-11-22T07:53:58.120Z`. */
  timestamp?: string | null;
  data?: string | null;
}

export interface PaginatedEventDataResponse extends Page<EventDataResponse> {}

export interface CreateEventDataRequest {
  /**
   * The event; must exist and be visible. Its monitor is used when monitor_id is absent.
   * @isLong
   * @minimum 0
   */
  event_id?: number | null;
  /**
   * The monitor; must exist and be visible.
   * @isInt
   * @minimum 0
   */
  monitor_id?: number | null;
  /**
   * Frame number within the event.
   * @isInt
   * @minimum 0
   * @maximum 4294967295
   */
  frame_id?: number | null;
  /** ISO 8601, milliseconds allowed: with `Z` or an offset an instant, without one ZoneMinder's local time. */
  timestamp: string;
  /**
   * The data (often JSON text).
   * @maxLength 65535
   */
  data?: string | null;
}

export interface UpdateEventDataRequest {
  /**
   * The data; null clears it.
   * @maxLength 65535
   */
  data?: string | null;
}

function toResponse(row: Event_Data, clock: ZoneClock): EventDataResponse {
  return {
    id: Number(row.Id),
    event_id: row.EventId === null ? null : Number(row.EventId),
    monitor_id: row.MonitorId,
    frame_id: row.FrameId,
    timestamp: clock.toUtcString(row.Timestamp, true),
    data: row.Data,
  };
}

const notFound = (id: number) => new NotFoundError(`Event data ${id} not found`, [['id', String(id)]], 'FILE');

export class EventDataService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): EventDataService {
    return new EventDataService(s.prisma, s.acl, s.get(ZoneMinderClock));
  }

  private readonly visibility: EventVisibility;

  constructor(
    private readonly prisma: PrismaClient,
    acl: MonitorAcl,
    private readonly clock: () => Promise<ZoneClock> = processZoneClock,
  ) {
    this.visibility = new EventVisibility(prisma, acl);
  }

  async list(
    user: AuthUser,
    eventId: number | undefined,
    page?: number,
    pageSize?: number,
  ): Promise<PaginatedEventDataResponse> {
    const req = pageRequest(page, pageSize);
    const [visible, clock] = await Promise.all([this.visibility.visible(user), this.clock()]);
    const toJson = (row: Event_Data) => toResponse(row, clock);
    if (visible && !visible.size) return pageOf([], 0, req);
    if (eventId !== undefined && visible && (await this.visibility.eventMonitor(user, eventId, visible)) === null) {
      return pageOf([], 0, req);
    }
    if (eventId === undefined && visible) {
      const { ids, total } = await this.visibility.idsPage(
        'd.Id',
        (monitors) =>
          `FROM Event_Data d LEFT JOIN Events e ON e.Id = d.EventId WHERE COALESCE(d.MonitorId, e.MonitorId) IN ${monitors}`,
        visible,
        req,
      );
      const rows = await this.prisma.event_Data.findMany({ where: { Id: { in: ids } }, orderBy: { Id: 'asc' } });
      return pageOf(rows.map(toJson), total, req);
    }
    const where = eventId === undefined ? {} : { EventId: BigInt(eventId) };
    return listPage(
      req,
      this.prisma.event_Data.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.event_Data.count({ where }),
      toJson,
    );
  }

  async get(user: AuthUser, id: number): Promise<EventDataResponse> {
    return toResponse(await this.visibleRow(user, id), await this.clock());
  }

  async create(user: AuthUser, body: CreateEventDataRequest): Promise<EventDataResponse> {
    const [visible, clock] = await Promise.all([this.visibility.visible(user), this.clock()]);
    let monitorId = body.monitor_id ?? null;
    if (body.event_id != null) {
      const eventMonitor = await this.visibility.eventMonitor(user, body.event_id, visible);
      if (eventMonitor === null) throw new InvalidInputError('Invalid input', [['event_id', 'no such event']]);
      monitorId ??= eventMonitor;
    }
    if (body.monitor_id != null && !(await this.visibility.monitorVisible(user, body.monitor_id, visible))) {
      throw new InvalidInputError('Invalid input', [['monitor_id', 'no such monitor']]);
    }
    if (visible && monitorId === null) {
      // A restricted caller could not see a row tied to no monitor.
      throw new InvalidInputError('Invalid input', [['event_id', 'event_id or monitor_id is required']]);
    }
    const row = await this.prisma.event_Data.create({
      data: {
        EventId: body.event_id == null ? null : BigInt(body.event_id),
        MonitorId: monitorId,
        FrameId: body.frame_id ?? null,
        Timestamp: parseTimeInput('timestamp', body.timestamp, clock, true),
        Data: body.data ?? null,
      },
    });
    return toResponse(row, clock);
  }

  async update(user: AuthUser, id: number, body: UpdateEventDataRequest): Promise<EventDataResponse> {
    await this.visibleRow(user, id);
    const row = await this.prisma.event_Data.update({
      where: { Id: BigInt(id) },
      data: body.data === undefined ? {} : { Data: body.data },
    });
    return toResponse(row, await this.clock());
  }

  async remove(user: AuthUser, id: number): Promise<void> {
    await this.visibleRow(user, id);
    await this.prisma.event_Data.delete({ where: { Id: BigInt(id) } });
  }

  private async visibleRow(user: AuthUser, id: number): Promise<Event_Data> {
    const row = await this.prisma.event_Data.findUnique({ where: { Id: BigInt(id) } });
    if (!row || !(await this.visibility.rowVisible(user, row.EventId, row.MonitorId))) throw notFound(id);
    return row;
  }
}
