// A live MJPEG stream (`multipart/x-mixed-replace`) from a source polled at a capped rate: the
// live view of stock ZoneMinder, whose only live source is shared memory. A poll that finds no
// new image sends nothing, so a 1 fps camera is not repeated at 5 fps. The stream stops as soon
// as the client goes away (no timer survives it), or after `idleMs` without a new image (zmc gone
// for good); the source is released exactly once either way.
import type { Response } from 'express';

import { MJPEG_BOUNDARY, clientGone, waitDrain } from './mjpeg.js';

export interface LiveJpegSource {
  /** The next new JPEG, or null when nothing new was captured since the last one. Throws when unavailable. */
  next(): Promise<{ jpeg: Buffer; timestampUs: number } | null>;
  close(): void;
}

export interface LiveMjpegOptions {
  /** Counted per monitor for /live/sources (liveMjpegViewers). */
  monitorId: number;
  /** Polls per second (the frame-rate cap). */
  fps: number;
  /** End the stream after this long without a new image. */
  idleMs: number;
}

let active = 0;
const perMonitor = new Map<number, number>();

/** Live MJPEG responses currently open (for tests and stats). */
export function liveMjpegStreams(): number {
  return active;
}

/** Open live MJPEG responses by monitor id, for GET /live/sources (these viewers use no stream socket). */
export function liveMjpegViewers(): ReadonlyMap<number, number> {
  return perMonitor;
}

/** Writes the stream; resolves when it ended or the client left. The first frame is already known to be available. */
export async function writeLiveMjpeg(res: Response, source: LiveJpegSource, options: LiveMjpegOptions): Promise<void> {
  active++;
  perMonitor.set(options.monitorId, (perMonitor.get(options.monitorId) ?? 0) + 1);
  // The client may have left during the caller's awaits (ACL, shared memory, first encode):
  // 'close' then fired before anyone listened, and a write would wait for 'drain' forever.
  let gone = clientGone(res);
  let wake: (() => void) | null = null;
  const onClose = () => {
    gone = true;
    wake?.();
  };
  res.on('close', onClose);
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });
  const drained = () => waitDrain(res, (w) => (wake = w));

  try {
    res.status(200);
    res.setHeader('Content-Type', `multipart/x-mixed-replace; boundary=${MJPEG_BOUNDARY}`);
    res.setHeader('Cache-Control', 'no-cache, no-store');
    res.setHeader('X-Accel-Buffering', 'no');
    if (res.req.method === 'HEAD' || gone) {
      res.end();
      return;
    }
    res.flushHeaders();
    const period = 1000 / options.fps;
    let due = Date.now();
    let lastNew = Date.now();
    let frame = 0;
    while (!gone) {
      const got = await source.next().catch(() => null); // a zmc restart mid-stream: keep polling
      if (gone) break;
      if (got) {
        lastNew = Date.now();
        frame++;
        res.write(
          `--${MJPEG_BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: ${got.jpeg.length}\r\nX-Frame-Number: ${frame}\r\nX-Timestamp: ${(got.timestampUs / 1e6).toFixed(3)}\r\n\r\n`,
        );
        res.write(got.jpeg);
        if (!res.write('\r\n')) await drained();
      } else if (Date.now() - lastNew > options.idleMs) {
        res.end(`--${MJPEG_BOUNDARY}--\r\n`);
        break;
      }
      due += period;
      const wait = due - Date.now();
      if (wait > 0) await pause(wait);
      else due = Date.now(); // fell behind (slow client or encoder): do not burst to catch up
    }
  } finally {
    res.off('close', onClose);
    source.close();
    active--;
    const left = (perMonitor.get(options.monitorId) ?? 1) - 1;
    if (left > 0) perMonitor.set(options.monitorId, left);
    else perMonitor.delete(options.monitorId);
  }
}
