// Recordings addressed by time: which events cover a range of one monitor or several, merged
// where they join, with the gaps (docs/recordings.md). The reads are recording-rows.ts, the
// arithmetic coverage.ts; here the range is checked, the caller's monitors are enforced as the
// event routes do, and ZoneMinder's wall clock becomes the API's UTC.
import type { AuthUser } from '../../auth/auth-service.js';
import { monitorNotFound, type MonitorAcl, canSee } from '../../auth/monitor-acl.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import type { DateTimeWrapper } from '../../api/wrappers.js';
import { parseFilterTime, wallClockSql, ZoneMinderClock, type ZoneClock } from '../../zm/event-time.js';
import type { Services } from '../../registry.js';
import { coverage, type Coverage } from './coverage.js';
import { RecordingRows, type MonitorRow } from './recording-rows.js';

/** One event inside the range. */
export interface RecordingSpan {
  /** @isLong */
  event_id: number;
  start: DateTimeWrapper;
  /** null while the event is being recorded. */
  end: DateTimeWrapper | null;
  /** The event has a video file (DefaultVideo); false: JPEG frames only, or nothing. */
  has_video: boolean;
  /** @isInt */
  frames: number;
  /** @isInt */
  alarm_frames: number;
  /** @isInt */
  max_score: number;
  /** @isInt */
  storage_id: number;
  /** The event is still being recorded. */
  in_progress: boolean;
}

/** Events that overlap or follow each other within a second, as one stretch of recording. */
export interface RecordingBlock {
  start: DateTimeWrapper;
  /** Where the stretch ends; while its last event is being recorded, now. */
  end: DateTimeWrapper;
  /** Its last event is still being recorded. */
  in_progress: boolean;
  event_ids: number[];
  /** Every event in it has a video file. */
  has_video: boolean;
  /** @isInt */
  frames: number;
  /** @isInt */
  alarm_frames: number;
  /** @isInt */
  max_score: number;
}

/** A stretch of the range with no recording (holes of a second or less are not gaps). */
export interface RecordingGap {
  start: DateTimeWrapper;
  end: DateTimeWrapper;
}

export interface MonitorRecordings {
  /** @isInt */
  monitor_id: number;
  /** The range asked for, as UTC. */
  from: DateTimeWrapper;
  to: DateTimeWrapper;
  /** Events overlapping the range in time order (empty with `merged_only=true`). */
  spans: RecordingSpan[];
  merged: RecordingBlock[];
  /** Holes inside the range, up to now (the future is not a gap). */
  gaps: RecordingGap[];
}

export interface RecordingsResponse {
  from: DateTimeWrapper;
  to: DateTimeWrapper;
  /** In the order the ids were asked for. */
  monitors: MonitorRecordings[];
}

export interface RecordingsQuery {
  from: string;
  to?: string;
  merged_only?: boolean;
}

/** Longest range one coverage answer covers, unless configured: a week. */
export const DEFAULT_MAX_RANGE_HOURS = 168;
/** Monitors in one multi-monitor answer. */
export const MAX_MONITORS = 100;

/** Wall-clock ms as the DATETIME literal the Events columns are compared with. */
const wallSql = (ms: number) => wallClockSql(new Date(ms));

/**
 * Wall-clock ms → the API's UTC text, for the thousands of times of one answer. The zone's offset
 * is looked up once per quarter hour of wall time: every real zone changes its offset on a
 * quarter-hour boundary, so the answer is what clock.toUtcString gives, at a fraction of the cost
 * (test/recordings/coverage.test.ts compares the two over a year of four zones).
 */
export function utcWriter(clock: ZoneClock): (ms: number) => string {
  const QUARTER = 900_000;
  const offsets = new Map<number, number>();
  return (ms) => {
    const bucket = Math.floor(ms / QUARTER);
    let offset = offsets.get(bucket);
    if (offset === undefined) {
      const start = bucket * QUARTER;
      offset = start - clock.fromWall(new Date(start)).getTime();
      offsets.set(bucket, offset);
    }
    return `${new Date(ms - offset).toISOString().slice(0, 19)}Z`;
  };
}

export class RecordingsService {
  static from(s: Services): RecordingsService {
    return new RecordingsService(
      new RecordingRows(s.pool),
      s.acl,
      s.get(ZoneMinderClock),
      s.config.recordings.max_range_hours,
    );
  }

  constructor(
    private readonly rows: RecordingRows,
    private readonly acl: MonitorAcl,
    private readonly clock: () => Promise<ZoneClock>,
    private readonly maxRangeHours = DEFAULT_MAX_RANGE_HOURS,
  ) {}

  /** GET /monitors/{id}/recordings */
  async forMonitor(user: AuthUser, id: number, query: RecordingsQuery): Promise<MonitorRecordings> {
    return (await this.forMonitors(user, [id], query)).monitors[0];
  }

  /** GET /recordings?monitor_ids= */
  async forMonitorList(user: AuthUser, monitorIds: string, query: RecordingsQuery): Promise<RecordingsResponse> {
    return this.forMonitors(user, parseIds(monitorIds), query);
  }

  private async forMonitors(user: AuthUser, ids: number[], query: RecordingsQuery): Promise<RecordingsResponse> {
    const [clock, scope] = await Promise.all([this.clock(), this.acl.scope(user)]);
    const range = this.range(query, clock);
    const exists = await this.rows.existing(ids);
    // A hidden monitor answers as a missing one.
    const absent = ids.find((id) => !exists.has(id) || !canSee(scope, id));
    if (absent !== undefined) throw monitorNotFound(absent);

    const rows = await this.rows.overlapping(ids, wallSql(range.from), wallSql(range.to));
    const open = [...new Set(rows.filter((r) => !r.EndDateTime).map((r) => r.MonitorId))];
    const newest = open.length ? await this.rows.newest(open) : new Map<number, number>();
    const utc = utcWriter(clock);
    const byMonitor = new Map<number, MonitorRow[]>();
    for (const r of rows) {
      const list = byMonitor.get(Number(r.MonitorId));
      if (list) list.push(r);
      else byMonitor.set(Number(r.MonitorId), [r]);
    }
    return {
      from: utc(range.from),
      to: utc(range.to),
      monitors: ids.map((id) => {
        const found = coverage(byMonitor.get(id) ?? [], range, newest.get(id) ?? null);
        return { monitor_id: id, from: utc(range.from), to: utc(range.to), ...toJson(found, utc, query.merged_only) };
      }),
    };
  }

  /**
   * The event recording monitor `id` at instant `at`, and how many seconds into it (the still
   * route). 404 when nothing was recorded then.
   */
  async instant(user: AuthUser, id: number, at: string | undefined): Promise<{ eventId: bigint; offset: number }> {
    const [clock, scope] = await Promise.all([this.clock(), this.acl.scope(user)]);
    const when = at === undefined ? undefined : parseFilterTime(at, clock)?.getTime();
    if (when === undefined) throw new InvalidInputError('Invalid input', [['at', 'is not an ISO 8601 date-time']]);
    if (!(await this.rows.existing([id])).has(id) || !canSee(scope, id)) throw monitorNotFound(id);
    const rows = await this.rows.overlapping([id], wallSql(when), wallSql(when + 1));
    const open = rows.some((r) => !r.EndDateTime);
    const newest = open ? ((await this.rows.newest([id])).get(id) ?? null) : null;
    const range = { from: when, to: when + 1, now: clock.now().getTime() };
    // Of overlapping events (rare), the one that started last.
    const span = coverage(rows, range, newest).spans.at(-1);
    if (!span)
      throw new NotFoundError(
        `Monitor ${id} recorded nothing at ${clock.toUtcString(new Date(when))}`,
        [['at', at!.slice(0, 64)]],
        'FILE',
      );
    return { eventId: BigInt(span.eventId), offset: Math.max(0, when - span.start) / 1000 };
  }

  /** The range in ZoneMinder wall-clock ms, checked: from < to, at most the configured length. */
  private range(query: RecordingsQuery, clock: ZoneClock): { from: number; to: number; now: number } {
    const now = clock.now().getTime();
    const from = parseFilterTime(query.from, clock)?.getTime();
    if (from === undefined) throw new InvalidInputError('Invalid input', [['from', 'is not an ISO 8601 date-time']]);
    const to = query.to === undefined ? now : parseFilterTime(query.to, clock)?.getTime();
    if (to === undefined) throw new InvalidInputError('Invalid input', [['to', 'is not an ISO 8601 date-time']]);
    if (to <= from) throw new InvalidInputError('Invalid input', [['to', 'must be after from']]);
    if (to - from > this.maxRangeHours * 3_600_000)
      throw new InvalidInputError('Invalid input', [
        ['to', `the range is longer than ${this.maxRangeHours} hours (recordings.max_range_hours)`],
      ]);
    return { from, to, now };
  }
}

function parseIds(text: string): number[] {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d{1,10}$/.test(p) || Number(p) > 2 ** 31 - 1))
    throw new InvalidInputError('Invalid input', [['monitor_ids', 'must be a comma-separated list of monitor ids']]);
  const ids = [...new Set(parts.map(Number))];
  if (ids.length > MAX_MONITORS)
    throw new InvalidInputError('Invalid input', [['monitor_ids', `at most ${MAX_MONITORS} monitors`]]);
  return ids;
}

function toJson(
  found: Coverage,
  utc: (ms: number) => string,
  mergedOnly = false,
): Pick<MonitorRecordings, 'spans' | 'merged' | 'gaps'> {
  return {
    spans: mergedOnly
      ? []
      : found.spans.map((s) => ({
          event_id: s.eventId,
          start: utc(s.start),
          end: s.recording ? null : utc(s.reach),
          has_video: s.hasVideo,
          frames: s.frames,
          alarm_frames: s.alarmFrames,
          max_score: s.maxScore,
          storage_id: s.storageId,
          in_progress: s.recording,
        })),
    merged: found.merged.map((m) => ({
      start: utc(m.start),
      end: utc(m.reach),
      in_progress: m.recording,
      event_ids: m.eventIds,
      has_video: m.hasVideo,
      frames: m.frames,
      alarm_frames: m.alarmFrames,
      max_score: m.maxScore,
    })),
    gaps: found.gaps.map((g) => ({ start: utc(g.start), end: utc(g.end) })),
  };
}
