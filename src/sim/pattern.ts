// The simulated camera's shared-memory picture: colour bars sliding sideways and a white square
// bouncing around, rgb24 with 32-byte aligned rows (as zmc's AVFrame slots). Drawn per frame
// from one precomputed row, so it costs a few memcpy per image, not per pixel.

const BARS: Array<[number, number, number]> = [
  [235, 235, 235],
  [235, 235, 16],
  [16, 235, 235],
  [16, 235, 16],
  [235, 16, 235],
  [235, 16, 16],
  [16, 16, 235],
  [40, 40, 40],
];

export class MovingPattern {
  readonly linesize: number;
  readonly #row: Buffer;
  readonly #frame: Buffer;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.linesize = Math.ceil((width * 3) / 32) * 32;
    // Two periods of bars side by side, so any sideways shift is a single copy out of it.
    this.#row = Buffer.alloc(width * 3 * 2);
    for (let x = 0; x < width * 2; x++) {
      const [r, g, b] = BARS[Math.floor(((x % width) * BARS.length) / width)]!;
      this.#row[x * 3] = r;
      this.#row[x * 3 + 1] = g;
      this.#row[x * 3 + 2] = b;
    }
    this.#frame = Buffer.alloc(this.linesize * height);
  }

  /** The picture at time `t` seconds (the returned buffer is reused by the next call). */
  draw(t: number): Buffer {
    const { width, height, linesize } = this;
    const shift = Math.floor(t * 60) % width;
    for (let y = 0; y < height; y++) this.#row.copy(this.#frame, y * linesize, shift * 3, (shift + width) * 3);
    const size = Math.max(8, Math.floor(Math.min(width, height) / 6));
    const bounce = (v: number, range: number) => {
      const p = v % (2 * range);
      return Math.floor(p < range ? p : 2 * range - p);
    };
    const x0 = bounce(t * 140, width - size);
    const y0 = bounce(t * 90, height - size);
    for (let y = y0; y < y0 + size; y++) this.#frame.fill(255, y * linesize + x0 * 3, y * linesize + (x0 + size) * 3);
    return this.#frame;
  }
}
