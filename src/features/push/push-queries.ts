// The SQL of the push detectors. Every query is by primary key (Events.Id, Monitors.Id,
// Monitor_Status.MonitorId), so its cost does not grow with the size of the Events table.
// Explicit columns that exist from ZoneMinder 1.36 to 1.39 (docs/push.md).
import { fromLocalDateTimeString } from '../../db/datetime.js';
import type { ZoneClock } from '../../db/zone-clock.js';
import { thumbnailUrl, type MonitorDbStatus, type PushEvent } from './messages.js';

export interface Queryable {
  query(sql: string, values?: unknown[]): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- driver rows, shaped by each query
}

export interface EventRow {
  Id: number;
  MonitorId: number;
  Name: string;
  Cause: string | null;
  StartDateTime: string | null;
  EndDateTime: string | null;
  Length: string | number | null;
  Frames: number | null;
  AlarmFrames: number | null;
  MaxScore: number | null;
}

const EVENT_SELECT =
  'SELECT Id, MonitorId, Name, Cause, StartDateTime, EndDateTime, Length, Frames, AlarmFrames, MaxScore FROM Events';

export async function maxEventId(db: Queryable): Promise<number> {
  const [row] = await db.query('SELECT COALESCE(MAX(Id), 0) AS id FROM Events');
  return Number(row?.id ?? 0);
}

/** Events still open (no EndDateTime) among the newest ids: a primary-key range, never a scan. */
export async function openEventIds(db: Queryable, fromId: number): Promise<number[]> {
  const rows: Array<{ Id: number }> = await db.query('SELECT Id FROM Events WHERE Id > ? AND EndDateTime IS NULL', [
    fromId,
  ]);
  return rows.map((r) => Number(r.Id));
}

/**
 * One poll: the rows after `afterId` plus the rows of `watched` (open events, and ids skipped
 * by an out-of-order commit), in id order. `watched` ids are all ≤ afterId, so they come first
 * and the limit never cuts them off.
 */
export async function pollEvents(
  db: Queryable,
  afterId: number,
  watched: number[],
  newLimit: number,
): Promise<EventRow[]> {
  const inList = watched.length ? ` OR Id IN (${watched.map(() => '?').join(',')})` : '';
  return db.query(`${EVENT_SELECT} WHERE Id > ?${inList} ORDER BY Id LIMIT ?`, [
    afterId,
    ...watched,
    watched.length + newLimit,
  ]);
}

/** Events after `sinceId` up to `untilId` on the given monitors (null: all), oldest first. */
export async function eventsSince(
  db: Queryable,
  sinceId: number,
  untilId: number,
  monitors: number[] | null,
  limit: number,
): Promise<EventRow[]> {
  if (monitors !== null && monitors.length === 0) return [];
  const on = monitors === null ? '' : ` AND MonitorId IN (${monitors.map(() => '?').join(',')})`;
  return db.query(`${EVENT_SELECT} WHERE Id > ? AND Id <= ?${on} ORDER BY Id LIMIT ?`, [
    sinceId,
    untilId,
    ...(monitors ?? []),
    limit,
  ]);
}

export interface MonitorStatusRow {
  Id: number;
  Status: MonitorDbStatus | null;
  CaptureFPS: string | number | null;
}

/** Every monitor with its Monitor_Status row (absent: nulls). */
export async function monitorStatuses(db: Queryable): Promise<MonitorStatusRow[]> {
  return db.query(
    'SELECT m.Id, s.Status, s.CaptureFPS FROM Monitors m LEFT JOIN Monitor_Status s ON s.MonitorId = m.Id ORDER BY m.Id',
  );
}

/** A stored wall-clock time as the REST API emits it; zero dates and garbage are null. */
function utc(value: string | null, clock: ZoneClock): string | null {
  if (!value) return null;
  try {
    return clock.toUtcString(fromLocalDateTimeString(value));
  } catch {
    return null;
  }
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export function toPushEvent(row: EventRow, clock: ZoneClock): PushEvent {
  const id = Number(row.Id);
  return {
    id,
    monitor_id: Number(row.MonitorId),
    name: row.Name,
    cause: row.Cause,
    start_date_time: utc(row.StartDateTime, clock),
    end_date_time: utc(row.EndDateTime, clock),
    length: row.Length === null ? null : Number(row.Length).toFixed(2),
    frames: num(row.Frames),
    alarm_frames: num(row.AlarmFrames),
    max_score: num(row.MaxScore),
    thumbnail_url: thumbnailUrl(id),
  };
}

export function isClosed(row: EventRow): boolean {
  return row.EndDateTime !== null && !row.EndDateTime.startsWith('0000');
}
