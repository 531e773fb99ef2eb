// A paced MJPEG stream (`multipart/x-mixed-replace`), the format <img> elements play: each part
// is one JPEG, sent when its time comes. Times are the frames' recorded offsets divided by the
// speed; a single gap is capped so a long pause in the recording does not look like a stall.
// A frame due while the client is behind (its queue over the bound) is skipped, not read; a
// client that stays behind is disconnected (mjpeg-response.ts). The stream ends with the closing
// boundary after the last frame, or as soon as the client goes away (no timer or file read
// survives it).
import type { Response } from 'express';
import type { Logger } from '../log.js';
import { MjpegResponse, type MjpegQueueBound } from './mjpeg-response.js';

export { MJPEG_BOUNDARY } from './mjpeg-response.js';

export interface PacedFrame {
  /** Frame number, sent as the part header X-Frame-Number. */
  frame: number;
  /** Seconds from the event start. */
  time: number;
  /** The JPEG; null skips the frame (its file vanished). */
  load(): Promise<Buffer | null>;
}

export interface PacingOptions {
  /** 1 = recorded speed; 2 = twice as fast. */
  speed: number;
  /** Longest wait between two parts, in ms of stream time. */
  maxGapMs: number;
  /** What names the stream in a log line (the event id). */
  fields?: Record<string, unknown>;
}

/** The paced MJPEG responses of one app (a playback part), counted for tests and stats. */
export class PacedMjpegStreams {
  private open = 0;

  /** `bound`: each client's send queue (streaming.mjpeg); `log`: where a stalled client is reported. */
  constructor(
    private readonly bound: MjpegQueueBound,
    private readonly log: Logger,
  ) {}

  /** Paced MJPEG responses currently open. */
  count(): number {
    return this.open;
  }

  /** Writes the whole stream (headers included); resolves when it ended or the client left. */
  async write(res: Response, frames: PacedFrame[], options: PacingOptions): Promise<void> {
    this.open++;
    try {
      await writeFrames(
        new MjpegResponse(res, this.bound, { log: this.log, fields: options.fields ?? {} }),
        frames,
        options,
      );
    } finally {
      this.open--;
    }
  }
}

async function writeFrames(out: MjpegResponse, frames: PacedFrame[], options: PacingOptions): Promise<void> {
  try {
    if (!out.start()) return;
    let due = Date.now();
    let previous: number | null = null;
    for (const f of frames) {
      if (out.gone) return;
      if (previous !== null) due += Math.min(((f.time - previous) * 1000) / options.speed, options.maxGapMs);
      previous = f.time;
      const wait = due - Date.now();
      if (wait > 0) await out.pause(wait);
      const room = out.room();
      if (room === 'stalled') return;
      if (room === 'skip') continue;
      const jpeg = await f.load().catch(() => null);
      if (out.gone) return;
      if (jpeg) out.part(jpeg, f.frame, f.time);
    }
    out.finish();
  } finally {
    out.dispose();
  }
}
