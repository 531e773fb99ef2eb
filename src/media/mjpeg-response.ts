// One `multipart/x-mixed-replace` response, the format <img> elements play as a stream: the
// headers, one part per JPEG, waits that end early when the client leaves, and the closing
// boundary. Shared by the paced event MJPEG (mjpeg.ts) and the live one (live-mjpeg.ts).
import type { Response } from 'express';

export const MJPEG_BOUNDARY = 'zmgate-mjpeg-frame';

/** The client is gone (its 'close' may have fired before the stream listened for it). */
function clientGone(res: Response): boolean {
  return res.destroyed || res.req.destroyed || res.writableEnded;
}

export class MjpegResponse {
  readonly #res: Response;
  // The client may have left during the caller's awaits (ACL, shared memory, first encode):
  // 'close' then fired before anyone listened, and a write would wait for 'drain' forever.
  #gone: boolean;
  #wake: (() => void) | null = null;
  readonly #onClose = () => {
    this.#gone = true;
    this.#wake?.();
  };

  constructor(res: Response) {
    this.#res = res;
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

  /** Writes one JPEG part; waits for the socket to drain when it is full (or the client leaves). */
  async part(jpeg: Buffer, frameNumber: number, seconds: number): Promise<void> {
    const res = this.#res;
    res.write(
      `--${MJPEG_BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\nX-Frame-Number: ${frameNumber}\r\nX-Timestamp: ${seconds.toFixed(3)}\r\n\r\n`,
    );
    res.write(jpeg);
    if (!res.write('\r\n')) await this.#drained();
  }

  /** The closing boundary (nothing when the client has left). */
  finish(): void {
    if (!this.#gone) this.#res.end(`--${MJPEG_BOUNDARY}--\r\n`);
  }

  /** Stops listening to the response; call once when the stream is over. */
  dispose(): void {
    this.#res.off('close', this.#onClose);
  }

  // A destroyed response never drains: resolve at once, or on 'close'.
  #drained(): Promise<void> {
    const res = this.#res;
    return new Promise<void>((resolve) => {
      if (this.#gone || clientGone(res)) {
        resolve();
        return;
      }
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        this.#wake = null;
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
      this.#wake = done;
    });
  }
}
