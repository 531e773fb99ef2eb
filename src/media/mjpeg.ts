// A paced MJPEG stream (`multipart/x-mixed-replace`), the format <img> elements play: each part
// is one JPEG, sent when its time comes. Times are the frames' recorded offsets divided by the
// speed; a single gap is capped so a long pause in the recording does not look like a stall.
// The stream ends with the closing boundary after the last frame, or as soon as the client
// goes away (no timer or file read survives it).
import type { Response } from 'express';
import { MjpegResponse } from './mjpeg-response.js';

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
}

/** The paced MJPEG responses of one app (a playback part), counted for tests and stats. */
export class PacedMjpegStreams {
  private open = 0;

  /** Paced MJPEG responses currently open. */
  count(): number {
    return this.open;
  }

  /** Writes the whole stream (headers included); resolves when it ended or the client left. */
  async write(res: Response, frames: PacedFrame[], options: PacingOptions): Promise<void> {
    this.open++;
    try {
      await writeFrames(res, frames, options);
    } finally {
      this.open--;
    }
  }
}

async function writeFrames(res: Response, frames: PacedFrame[], options: PacingOptions): Promise<void> {
  const out = new MjpegResponse(res);
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
      if (out.gone) return;
      const jpeg = await f.load().catch(() => null);
      if (out.gone) return;
      if (jpeg) await out.part(jpeg, f.frame, f.time);
    }
    out.finish();
  } finally {
    out.dispose();
  }
}
