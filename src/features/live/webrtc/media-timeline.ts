// One media timeline per viewer, shared by its audio and video tracks so they stay in sync.
// Source timestamps (zmc's µs pts, one clock for audio and video) are carried over unchanged
// while they run on; a break (new generation, reconnect, a jump of the source clock) re-anchors
// the timeline on the wall clock, so RTP timestamps never run backwards and the gap a restart
// left is the gap the browser sees.

/** A source clock jump larger than this (either way) is a break, not jitter or reordering. */
const MAX_BACK_US = 1_000_000;
const MAX_AHEAD_US = 10_000_000;

export class MediaTimeline {
  #offsetUs: number | null = null;
  #generation = -1;
  #lastMediaUs = 0;
  #lastWallMs = 0;
  #break = false;
  readonly now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.now = now;
  }

  /** The next placed frame starts a new run (after a generation bump or a reconnect). */
  markBreak(): void {
    this.#break = true;
  }

  /** Media time (µs since the viewer's first frame) of a source timestamp. */
  place(ptsUs: number, generation: number): number {
    const wall = this.now();
    let media: number;
    if (this.#offsetUs === null) {
      media = 0;
      this.#offsetUs = -ptsUs;
    } else {
      media = ptsUs + this.#offsetUs;
      const jumped = media < this.#lastMediaUs - MAX_BACK_US || media > this.#lastMediaUs + MAX_AHEAD_US;
      if (this.#break || generation !== this.#generation || jumped) {
        // Continue from where we were, by the wall-clock time that passed (at least 1 ms).
        media = this.#lastMediaUs + Math.max(1000, Math.round((wall - this.#lastWallMs) * 1000));
        this.#offsetUs = media - ptsUs;
      }
    }
    this.#break = false;
    this.#generation = generation;
    if (media >= this.#lastMediaUs) {
      this.#lastMediaUs = media;
      this.#lastWallMs = wall;
    }
    return media;
  }
}

/** An RTP timestamp: `start` plus media time at `clockRate`, modulo 2^32. */
export function rtpTimestamp(start: number, mediaUs: number, clockRate: number): number {
  const ticks = Math.round(mediaUs * (clockRate / 1e6)); // no overflow however long the session
  return (((start + ticks) % 2 ** 32) + 2 ** 32) % 2 ** 32;
}
