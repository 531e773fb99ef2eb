// Derived stills (a frame taken from a recording, a rotated JPEG) kept in memory, least recently
// used first out, under a byte budget. Keys name the source file's identity (path, size, mtime)
// and the transform, so a changed file is a new key and stale entries simply age out.
// Concurrent requests for the same key share one computation.
export class StillCache {
  private readonly entries = new Map<string, Buffer>();
  private readonly pending = new Map<string, Promise<Buffer>>();
  private bytes = 0;

  constructor(
    readonly budgetBytes: number,
    /** Larger results are returned but not kept. */
    readonly maxEntryBytes: number,
  ) {}

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  get(key: string): Buffer | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      // Re-insert: Map order is the recency order.
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  /** The cached value, or `make()`'s result (shared by concurrent callers, kept when small). */
  async getOrMake(key: string, make: () => Promise<Buffer>): Promise<Buffer> {
    const hit = this.get(key);
    if (hit) return hit;
    const running = this.pending.get(key);
    if (running) return running;
    const job = make().then(
      (value) => {
        this.pending.delete(key);
        this.put(key, value);
        return value;
      },
      (err: unknown) => {
        this.pending.delete(key);
        throw err;
      },
    );
    this.pending.set(key, job);
    return job;
  }

  put(key: string, value: Buffer): void {
    if (value.length > this.maxEntryBytes || value.length > this.budgetBytes) return;
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.length;
      this.entries.delete(key);
    }
    this.entries.set(key, value);
    this.bytes += value.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.entries.delete(k);
      this.bytes -= v.length;
    }
  }
}
