// Event_Summaries: ZoneMinder's pre-computed per-monitor counters (total, hour, day, week,
// month, archived, with their disk space), kept by zmc and the triggers. Every monitor the
// caller may see is listed (soft-deleted monitors excluded); a monitor with no summary row yet
// reads as zeros. Feature gate: Events (docs/contract/clients.md).
import type { AuthUser } from '../../auth/auth-service.js';
import { NotFoundError } from '../../errors.js';
import type { Event_Summaries } from '../../generated/prisma/client.js';
import { pageOf, pageRequest, type Page } from '../../api/pagination.js';
import { AclDbService } from '../db-service.js';

export interface EventSummaryResponse {
  /**
   * @isInt
   * @minimum 0
   */
  monitor_id: number;
  /** @isInt */
  total_events: number;
  /** @isLong */
  total_event_disk_space: number;
  /** @isInt */
  hour_events: number;
  /** @isLong */
  hour_event_disk_space: number;
  /** @isInt */
  day_events: number;
  /** @isLong */
  day_event_disk_space: number;
  /** @isInt */
  week_events: number;
  /** @isLong */
  week_event_disk_space: number;
  /** @isInt */
  month_events: number;
  /** @isLong */
  month_event_disk_space: number;
  /** @isInt */
  archived_events: number;
  /** @isLong */
  archived_event_disk_space: number;
}

export interface PaginatedEventSummariesResponse extends Page<EventSummaryResponse> {}

const num = (v: number | bigint | null | undefined): number => (v === null || v === undefined ? 0 : Number(v));

function toResponse(monitorId: number, row: Event_Summaries | null | undefined): EventSummaryResponse {
  return {
    monitor_id: monitorId,
    total_events: num(row?.TotalEvents),
    total_event_disk_space: num(row?.TotalEventDiskSpace),
    hour_events: num(row?.HourEvents),
    hour_event_disk_space: num(row?.HourEventDiskSpace),
    day_events: num(row?.DayEvents),
    day_event_disk_space: num(row?.DayEventDiskSpace),
    week_events: num(row?.WeekEvents),
    week_event_disk_space: num(row?.WeekEventDiskSpace),
    month_events: num(row?.MonthEvents),
    month_event_disk_space: num(row?.MonthEventDiskSpace),
    archived_events: num(row?.ArchivedEvents),
    archived_event_disk_space: num(row?.ArchivedEventDiskSpace),
  };
}

export class EventSummariesService extends AclDbService {
  async list(user: AuthUser, page?: number, pageSize?: number): Promise<PaginatedEventSummariesResponse> {
    const req = pageRequest(page, pageSize);
    const { visible } = await this.acl.scope(user);
    const where = { Deleted: false, ...(visible && { Id: { in: [...visible] } }) };
    const [monitors, total] = await Promise.all([
      this.prisma.monitors.findMany({
        where,
        select: { Id: true },
        orderBy: { Id: 'asc' },
        skip: req.skip,
        take: req.take,
      }),
      this.prisma.monitors.count({ where }),
    ]);
    const ids = monitors.map((m) => m.Id);
    const rows = ids.length ? await this.prisma.event_Summaries.findMany({ where: { MonitorId: { in: ids } } }) : [];
    const byMonitor = new Map(rows.map((r) => [r.MonitorId, r]));
    return pageOf(
      ids.map((id) => toResponse(id, byMonitor.get(id))),
      total,
      req,
    );
  }

  async get(user: AuthUser, monitorId: number): Promise<EventSummaryResponse> {
    const [{ visible }, monitor, row] = await Promise.all([
      this.acl.scope(user),
      this.prisma.monitors.findUnique({ where: { Id: monitorId }, select: { Deleted: true } }),
      this.prisma.event_Summaries.findUnique({ where: { MonitorId: monitorId } }),
    ]);
    if (!monitor || monitor.Deleted || (visible && !visible.has(monitorId))) {
      throw new NotFoundError(
        `Event summary of monitor ${monitorId} not found`,
        [['monitor_id', String(monitorId)]],
        'EVENT_SUMMARY',
      );
    }
    return toResponse(monitorId, row);
  }
}
