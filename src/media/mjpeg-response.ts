// One `multipart/x-mixed-replace` response, the format <img> elements play as a stream: the
// headers, one part per JPEG, waits that end early when the client leaves, and the closing
// boundary. Shared by the paced event MJPEG (mjpeg.ts) and the live one (live-mjpeg.ts).
//
// A bounded send queue (streaming.mjpeg): a part is written only while the bytes waiting for the
// client's socket are within `maxQueueBytes`; above it parts are skipped (the writers' next part
// is then the newest). A client still over the bound after `stallMs` (it stopped reading) is
// disconnected and logged once, so a stalled viewer never pins its buffers for long.
import type { Response } from 'express';
import type { Logger } from '../log.js';

export const MJPEG_BOUNDARY = 'zmgate-mjpeg-frame';

/** The client is gone (its 'close' may have fired before the stream listened for it). */
function clientGone(res: Response): boolean {
  return res.destroyed || res.req.destroyed || res.writableEnded;
}

/** How far behind a viewer may fall: streaming.mjpeg.max_queue_bytes and stall_timeout_seconds. */
export interface MjpegQueueBound {
  maxQueueBytes: number;
  stallMs: number;
}

/** The bound from the settings. */
export function mjpegQueueBound(mjpeg: { max_queue_bytes: number; stall_timeout_seconds: number }): MjpegQueueBound {
  return { maxQueueBytes: mjpeg.max_queue_bytes, stallMs: mjpeg.stall_timeout_seconds * 1000 };
}

/** Where a stalled viewer is reported: the log, and what names the stream in its line. */
export interface MjpegReport {
  log: Logger;
  fields: Record<string, unknown>;
}

export class MjpegResponse {
  readonly #res: Response;
  readonly #bound: MjpegQueueBound;
  readonly #report: MjpegReport;
  /** Since when the queue has been over the bound (null: within it). */
  #overSince: number | null = null;
  #skipped = 0;
  // The client may have left during the caller's awaits (ACL, shared memory, first encode):
  // 'close' then fired before anyone listened, and the stream would run on for nobody.
  #gone: boolean;
  #wake: (() => void) | null = null;
  readonly #onClose = () => {
    this.#gone = true;
    this.#wake?.();
  };

  constructor(res: Response, bound: MjpegQueueBound, report: MjpegReport) {
    this.#res = res;
    this.#bound = bound;
    this.#report = report;
    this.#gone = clientGone(res);
    res.on('close', this.#onClose);
  }

  get gone(): boolean {
    return this.#gone;
  }

  /** Sends the headers. False when there is nothing to stream (HEAD, or the client left): the response is ended. */
  start(): boolean {
    const res = this.#res;
    res.status(200);
    res.setHeader('Content-Type', `multipart/x-mixed-replace; boundary=${MJPEG_BOUNDARY}`);
    res.setHeader('Cache-Control', 'no-cache, no-store');
    // Proxies must pass parts through as they come (nginx honours this header).
    res.setHeader('X-Accel-Buffering', 'no');
    if (res.req.method === 'HEAD' || this.#gone) {
      res.end();
      return false;
    }
    res.flushHeaders();
    return true;
  }

  /** Waits `ms`, or less when the client leaves. */
  pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }

  /**
   * Whether the next part may be written: 'send' when the client's queue is within the bound;
   * 'skip' while it is over it (drop this part); 'stalled' once it has been over it for
   * `stallMs`: the response is then destroyed and one warning logged.
   */
  room(): 'send' | 'skip' | 'stalled' {
    if (this.#gone) return 'stalled';
    const res = this.#res;
    // The response's own buffer plus its socket's: what the client has not taken yet.
    const queued = res.writableLength;
    if (queued <= this.#bound.maxQueueBytes) {
      this.#overSince = null;
      return 'send';
    }
    const now = Date.now();
    this.#overSince ??= now;
    this.#skipped++;
    if (now - this.#overSince < this.#bound.stallMs) return 'skip';
    this.#report.log.warn(
      {
        ...this.#report.fields,
        client: res.req.socket.remoteAddress,
        queued_bytes: queued,
        skipped_parts: this.#skipped,
        stalled_secs: Math.round((now - this.#overSince) / 1000),
      },
      'MJPEG: the viewer stopped reading; disconnected',
    );
    this.#gone = true;
    res.destroy();
    return 'stalled';
  }

  /**
   * Writes one JPEG part (ask room() first; the queue is bounded there, not by waiting for drain).
   * Returns the bytes written.
   */
  part(jpeg: Buffer, frameNumber: number, seconds: number): number {
    const res = this.#res;
    const head = `--${MJPEG_BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\nX-Frame-Number: ${frameNumber}\r\nX-Timestamp: ${seconds.toFixed(3)}\r\n\r\n`;
    res.write(head);
    res.write(jpeg);
    res.write('\r\n');
    return head.length + jpeg.length + 2; // the head is ASCII
  }

  /** The closing boundary (nothing when the client has left). */
  finish(): void {
    if (!this.#gone) this.#res.end(`--${MJPEG_BOUNDARY}--\r\n`);
  }

  /** Stops listening to the response; call once when the stream is over. */
  dispose(): void {
    this.#res.off('close', this.#onClose);
  }
}
