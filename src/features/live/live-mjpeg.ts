// A live MJPEG stream (`multipart/x-mixed-replace`) from a source polled at a capped rate: the
// live view of stock ZoneMinder, whose only live source is shared memory. A poll that finds no
// new image sends nothing, so a 1 fps camera is not repeated at 5 fps. A viewer that falls behind
// is not polled for (no encode is wasted) until its queue is within the bound, then gets the newest
// image; one that stays behind is disconnected (mjpeg-response.ts). The stream stops as soon as
// the client goes away (no timer survives it), or after `idleMs` without a new image (zmc gone for
// good); the source is released exactly once either way.
import type { Response } from 'express';
import type { Logger } from '../../log.js';
import { MjpegResponse, type MjpegQueueBound } from '../../media/mjpeg-response.js';

export interface LiveJpegSource {
  /** The next new JPEG, or null when nothing new was captured since the last one. Throws when unavailable. */
  next(): Promise<{ jpeg: Buffer; timestampUs: number } | null>;
  close(): void;
}

export interface LiveMjpegOptions {
  /** Counted per monitor for /live/sources (LiveMjpegStreams.viewers). */
  monitorId: number;
  /** Polls per second (the frame-rate cap). */
  fps: number;
  /** End the stream after this long without a new image. */
  idleMs: number;
  /** The viewer's send queue bound (streaming.mjpeg). */
  bound: MjpegQueueBound;
  /** Where a stalled viewer is reported. */
  log: Logger;
  /** Counts the bytes sent (the live bytes metric). */
  sent?: (bytes: number) => void;
}

/** The app's open live MJPEG responses (one instance per app, from the registry). */
export class LiveMjpegStreams {
  static from(): LiveMjpegStreams {
    return new LiveMjpegStreams();
  }

  private active = 0;
  private readonly perMonitor = new Map<number, number>();

  /** Live MJPEG responses currently open (for tests and stats). */
  count(): number {
    return this.active;
  }

  /** Open live MJPEG responses by monitor id, for GET /live/sources (these viewers use no stream socket). */
  viewers(): ReadonlyMap<number, number> {
    return this.perMonitor;
  }

  /** Writes the stream; resolves when it ended or the client left. The first frame is already known to be available. */
  async write(res: Response, source: LiveJpegSource, options: LiveMjpegOptions): Promise<void> {
    const perMonitor = this.perMonitor;
    this.active++;
    perMonitor.set(options.monitorId, (perMonitor.get(options.monitorId) ?? 0) + 1);
    const out = new MjpegResponse(res, options.bound, {
      log: options.log,
      fields: { monitor_id: options.monitorId, stream: 'live' },
    });
    try {
      if (!out.start()) return;
      const period = 1000 / options.fps;
      let due = Date.now();
      let lastNew = Date.now();
      let frame = 0;
      while (!out.gone) {
        const room = out.room();
        if (room === 'stalled') break;
        // 'skip': the viewer is behind, nothing is read for it (the stall bound decides, not the idle one).
        if (room === 'send') {
          const got = await source.next().catch(() => null); // a zmc restart mid-stream: keep polling
          if (out.gone) break;
          if (got) {
            lastNew = Date.now();
            const bytes = out.part(got.jpeg, ++frame, got.timestampUs / 1e6);
            options.sent?.(bytes);
          } else if (Date.now() - lastNew > options.idleMs) {
            out.finish();
            break;
          }
        }
        due += period;
        const wait = due - Date.now();
        if (wait > 0) await out.pause(wait);
        else due = Date.now(); // fell behind (slow client or encoder): do not burst to catch up
      }
    } finally {
      out.dispose();
      source.close();
      this.active--;
      const left = (perMonitor.get(options.monitorId) ?? 1) - 1;
      if (left > 0) perMonitor.set(options.monitorId, left);
      else perMonitor.delete(options.monitorId);
    }
  }
}
