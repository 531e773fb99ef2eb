// /stream/video.mp4 of a recording that is not fragmented MP4: Mp4File.remux() served as a
// ByteSource. The layout (src/media/remux-layout.ts) gives the exact size up front, so the
// response has a Content-Length, answers byte ranges (the <video> element seeks with them) and
// sends its first byte as soon as the first fragment touching the range is muxed: nothing is
// built ahead of the client. One fragment is read ahead while the previous one is sent.
import { Readable } from 'node:stream';
import type { ByteSource } from './byte-source.js';
import type { RemuxLayout } from './remux-layout.js';

export interface RemuxPieces {
  init(): Buffer;
  fragment(index: number): Promise<Buffer>;
  /** A produced fragment had another size than the layout says (the response is cut short). */
  mismatch(index: number, expected: number, actual: number): void;
  /** The source is done with the recording (read finished or abandoned, or close()). */
  release(): void;
}

/** Index of the last fragment starting at or before `offset` (-1: inside the init segment). */
function fragmentAt(layout: RemuxLayout, offset: number): number {
  let lo = 0;
  let hi = layout.offsets.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (layout.offsets[mid] <= offset) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

export class RemuxSource implements ByteSource {
  readonly contentType = 'video/mp4';
  private done = false;

  constructor(
    private readonly layout: RemuxLayout,
    private readonly pieces: RemuxPieces,
    readonly etag: string,
    readonly lastModified: Date,
  ) {}

  get size(): number {
    return this.layout.total;
  }

  read(start: number, end: number): Readable {
    if (this.done) throw new Error('RemuxSource.read called twice');
    this.done = true;
    const stream = Readable.from(this.chunks(start, end), { objectMode: false, highWaterMark: 1 << 20 });
    // Also when destroyed before the generator ever ran (its finally would not).
    stream.once('close', () => this.pieces.release());
    return stream;
  }

  close(): void {
    if (this.done) return;
    this.done = true;
    this.pieces.release();
  }

  private async *chunks(start: number, end: number): AsyncGenerator<Buffer> {
    const { layout, pieces } = this;
    try {
      let i = fragmentAt(layout, start);
      if (i === -1) {
        const init = pieces.init();
        if (init.length !== layout.initSize) {
          pieces.mismatch(-1, layout.initSize, init.length);
          throw new Error('remux layout mismatch');
        }
        yield init.subarray(start, Math.min(end + 1, init.length));
        i = 0;
      }
      let next = i < layout.sizes.length && layout.offsets[i] <= end ? pieces.fragment(i) : undefined;
      while (next) {
        const current = next;
        const at = layout.offsets[i];
        // Read ahead: the next fragment is muxed on the pool while this one is written.
        next = i + 1 < layout.sizes.length && layout.offsets[i + 1] <= end ? pieces.fragment(i + 1) : undefined;
        next?.catch(() => undefined); // surfaced when awaited
        const data = await current;
        if (data.length !== layout.sizes[i]) {
          pieces.mismatch(i, layout.sizes[i], data.length);
          throw new Error('remux layout mismatch');
        }
        yield data.subarray(Math.max(0, start - at), Math.min(data.length, end + 1 - at));
        i++;
      }
    } finally {
      pieces.release();
    }
  }
}
