// A paced MJPEG stream (`multipart/x-mixed-replace`), the format <img> elements play: each part
// is one JPEG, sent when its time comes. Times are the frames' recorded offsets divided by the
// speed; a single gap is capped so a long pause in the recording does not look like a stall.
// The stream ends with the closing boundary after the last frame, or as soon as the client
// goes away (no timer or file read survives it).
import type { Response } from 'express';

export const MJPEG_BOUNDARY = 'zmgate-mjpeg-frame';

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

let paced = 0;

/** Paced MJPEG responses currently open (for tests and stats). */
export function pacedMjpegStreams(): number {
  return paced;
}

/** The client is gone (its 'close' may have fired before the stream listened for it). */
export function clientGone(res: Response): boolean {
  return res.destroyed || res.req.destroyed || res.writableEnded;
}

/**
 * Resolves on 'drain', or at once / on 'close' when the client is gone (a destroyed response
 * never drains). `setWake` receives the resolver, so the caller's close handler can end the wait.
 */
export function waitDrain(res: Response, setWake: (wake: (() => void) | null) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    if (clientGone(res)) {
      resolve();
      return;
    }
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      setWake(null);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
    setWake(done);
  });
}

/** Writes the whole stream (headers included); resolves when it ended or the client left. */
export async function writePacedMjpeg(res: Response, frames: PacedFrame[], options: PacingOptions): Promise<void> {
  paced++;
  try {
    await writeFrames(res, frames, options);
  } finally {
    paced--;
  }
}

async function writeFrames(res: Response, frames: PacedFrame[], options: PacingOptions): Promise<void> {
  res.status(200);
  res.setHeader('Content-Type', `multipart/x-mixed-replace; boundary=${MJPEG_BOUNDARY}`);
  res.setHeader('Cache-Control', 'no-cache, no-store');
  // Proxies must pass parts through as they come (nginx honours this header).
  res.setHeader('X-Accel-Buffering', 'no');
  // Gone during the caller's awaits (ACL, frame list): 'close' fired before anyone listened.
  let gone = clientGone(res);
  if (res.req.method === 'HEAD' || gone) {
    res.end();
    return;
  }
  res.flushHeaders();

  let wake: (() => void) | null = null;
  const onClose = () => {
    gone = true;
    wake?.();
  };
  res.on('close', onClose);
  const sleep = (ms: number) =>
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
    let due = Date.now();
    let previous: number | null = null;
    for (const f of frames) {
      if (gone) return;
      if (previous !== null) due += Math.min(((f.time - previous) * 1000) / options.speed, options.maxGapMs);
      previous = f.time;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      if (gone) return;
      const jpeg = await f.load().catch(() => null);
      if (gone) return;
      if (!jpeg) continue;
      const head = `--${MJPEG_BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\nX-Frame-Number: ${f.frame}\r\nX-Timestamp: ${f.time.toFixed(3)}\r\n\r\n`;
      res.write(head);
      res.write(jpeg);
      if (!res.write('\r\n')) await drained();
    }
    if (!gone) res.end(`--${MJPEG_BOUNDARY}--\r\n`);
  } finally {
    res.off('close', onClose);
  }
}
