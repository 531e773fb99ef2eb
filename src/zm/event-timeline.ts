// When each frame of an event was recorded, in seconds from its start. zmc writes a Frames row
// only for some frames (the first, alarm frames, score peaks and a Bulk row every
// ZM_BULK_FRAME_INTERVAL idle frames), while SaveJPEGs keeps a JPEG of every frame; frames
// without a row are placed by linear interpolation between the nearest rows around them, and
// beyond the last row at the event's average frame interval.
export interface FrameRow {
  frameId: number;
  /** Seconds since the event start (Frames.Delta). */
  delta: number;
}

/** Frame interval used when neither the rows nor the event say: 10 fps. */
export const DEFAULT_INTERVAL = 0.1;

/** The average interval the rows span, else Length/Frames, else DEFAULT_INTERVAL. */
export function averageInterval(rows: FrameRow[], lengthSeconds: number, frames: number): number {
  if (rows.length >= 2) {
    const first = rows[0];
    const last = rows[rows.length - 1];
    const span = (last.delta - first.delta) / (last.frameId - first.frameId);
    if (Number.isFinite(span) && span > 0) return span;
  }
  return lengthSeconds > 0 && frames > 0 ? lengthSeconds / frames : DEFAULT_INTERVAL;
}

/**
 * Offsets (seconds) of the frames `numbers` (ascending), non-decreasing. `rows` may be in any
 * order and hold frames that have no JPEG.
 */
export function frameTimes(numbers: number[], rawRows: FrameRow[], interval: number): number[] {
  const byId = new Map<number, number>();
  for (const r of rawRows) if (Number.isFinite(r.delta)) byId.set(r.frameId, Math.max(0, r.delta));
  const rows = [...byId].map(([frameId, delta]) => ({ frameId, delta })).sort((a, b) => a.frameId - b.frameId);
  const times: number[] = [];
  let k = 0; // rows[k] is the first row with frameId >= n (numbers ascend)
  for (const n of numbers) {
    while (k < rows.length && rows[k].frameId < n) k++;
    const upper = rows[k];
    const lower = upper?.frameId === n ? upper : rows[k - 1];
    let t: number;
    if (lower && lower.frameId === n) t = lower.delta;
    else if (lower && upper)
      t = lower.delta + ((upper.delta - lower.delta) * (n - lower.frameId)) / (upper.frameId - lower.frameId);
    else if (lower) t = lower.delta + (n - lower.frameId) * interval;
    else if (upper) t = Math.max(0, upper.delta - (upper.frameId - n) * interval);
    else t = Math.max(0, (n - (numbers[0] ?? n)) * interval);
    times.push(Math.max(t, times.length ? times[times.length - 1] : 0));
  }
  return times;
}
