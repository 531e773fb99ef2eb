// What was recorded in a time range, from a monitor's Events rows: one span per event, the
// spans merged where events overlap or follow each other, and the gaps between them
// (docs/recordings.md). Pure: the rows come from recording-rows.ts, the times are
// ZoneMinder wall-clock milliseconds, and the caller turns them into the API's UTC text.

/** One Events row as recording-rows.ts reads it (wall-clock DATETIME text, as stored). */
export interface CoverageRow {
  Id: number;
  StorageId: number | null;
  StartDateTime: string | null;
  EndDateTime: string | null;
  /** DECIMAL(10,2) seconds, as text. */
  Length: string | null;
  Frames: number | null;
  AlarmFrames: number | null;
  MaxScore: number | null;
  DefaultVideo: string | null;
}

/** A half-open range [from, to) in wall-clock ms; `now` is ZoneMinder's wall clock now. */
export interface CoverageRange {
  from: number;
  to: number;
  now: number;
}

export interface Span {
  eventId: number;
  start: number;
  /** Where the event ends: EndDateTime; for one being recorded, now; for an abandoned one, its length. */
  reach: number;
  /** The monitor's newest event, not closed yet: still being recorded. */
  recording: boolean;
  hasVideo: boolean;
  frames: number;
  alarmFrames: number;
  maxScore: number;
  storageId: number;
}

export interface Merged {
  start: number;
  reach: number;
  recording: boolean;
  eventIds: number[];
  hasVideo: boolean;
  frames: number;
  alarmFrames: number;
  maxScore: number;
}

export interface Gap {
  start: number;
  end: number;
}

export interface Coverage {
  spans: Span[];
  merged: Merged[];
  gaps: Gap[];
}

/**
 * zmc writes StartDateTime and EndDateTime in whole seconds, so the next section of a continuous
 * recording may start up to a second after the previous one ended on paper. Holes up to this long
 * join spans and are not reported as gaps.
 */
export const JOIN_MS = 1000;

/** Stored DATETIME text → wall-clock ms (its digits read as UTC); null for zero or bad dates. */
export function wallMs(text: string | null): number | null {
  if (!text || text.startsWith('0000')) return null;
  const ms = Date.parse(`${text.replace(' ', 'T')}Z`);
  return Number.isNaN(ms) ? null : ms;
}

function toSpan(row: CoverageRow, start: number, newestId: number | null, now: number): Span {
  const end = wallMs(row.EndDateTime);
  const length = Math.max(0, Math.round(Number(row.Length ?? 0) * 1000));
  // The monitor's newest event, still open, is being recorded: it reaches to now. An older open
  // event was abandoned (zmc died before closing it; zmaudit closes it later): it reaches as far
  // as its recorded length.
  const recording = end === null && row.Id === newestId;
  const reach = end ?? (recording ? Math.max(now, start + length) : start + length);
  return {
    eventId: row.Id,
    start,
    reach: Math.max(start, reach),
    recording,
    hasVideo: !!row.DefaultVideo,
    frames: row.Frames ?? 0,
    alarmFrames: row.AlarmFrames ?? 0,
    maxScore: row.MaxScore ?? 0,
    storageId: row.StorageId ?? 0,
  };
}

/**
 * One monitor's rows in any order → spans overlapping [from, to) in time order (start, then
 * id), merged spans and the gaps inside [from, min(to, now)). `newestId`: the monitor's newest
 * event id (only read when a row is open).
 */
export function coverage(rows: CoverageRow[], range: CoverageRange, newestId: number | null = null): Coverage {
  const timed = rows
    .map((row) => ({ row, start: wallMs(row.StartDateTime) }))
    .filter((r): r is { row: CoverageRow; start: number } => r.start !== null)
    .sort((a, b) => a.start - b.start || a.row.Id - b.row.Id);
  const spans = timed
    .map(({ row, start }) => toSpan(row, start, newestId, range.now))
    .filter((s) => s.start < range.to && s.reach > range.from);

  const merged: Merged[] = [];
  for (const s of spans) {
    const last = merged.at(-1);
    if (last && s.start <= last.reach + JOIN_MS) {
      last.reach = Math.max(last.reach, s.reach);
      last.recording ||= s.recording;
      last.eventIds.push(s.eventId);
      last.hasVideo &&= s.hasVideo;
      last.frames += s.frames;
      last.alarmFrames += s.alarmFrames;
      last.maxScore = Math.max(last.maxScore, s.maxScore);
    } else {
      merged.push({
        start: s.start,
        reach: s.reach,
        recording: s.recording,
        eventIds: [s.eventId],
        hasVideo: s.hasVideo,
        frames: s.frames,
        alarmFrames: s.alarmFrames,
        maxScore: s.maxScore,
      });
    }
  }

  // Nothing after now is missing yet; it has not happened.
  const limit = Math.min(range.to, range.now);
  const gaps: Gap[] = [];
  let covered = range.from;
  for (const m of merged) {
    if (m.start > covered + JOIN_MS) gaps.push({ start: covered, end: Math.min(m.start, limit) });
    covered = Math.max(covered, m.reach);
  }
  if (limit > covered + JOIN_MS) gaps.push({ start: covered, end: limit });
  return { spans, merged, gaps: gaps.filter((g) => g.end > g.start) };
}
