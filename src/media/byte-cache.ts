// Buffers kept in memory under a byte budget, least recently used evicted first (Map insertion
// order is the recency order). Concurrent misses of one key share a single computation, and a
// result larger than `maxEntryBytes` is returned but not kept, so one huge entry cannot flush
// everything else. Used for derived stills (still-cache.ts) and HLS VOD segments (segment-cache.ts).

export interface ByteCacheStats {
  budgetBytes: number;
  bytes: number;
  entries: number;
  hits: number;
  misses: number;
  evictions: number;
}

export class ByteCache {
  private readonly entries = new Map<string, Buffer>();
  private readonly pending = new Map<string, Promise<Buffer>>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  constructor(
    readonly budgetBytes: number,
    /** Larger results are returned but not kept. */
    readonly maxEntryBytes: number = budgetBytes,
  ) {
    if (!Number.isSafeInteger(budgetBytes) || budgetBytes < 0)
      throw new RangeError('budgetBytes must be an integer >= 0');
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  stats(): ByteCacheStats {
    return {
      budgetBytes: this.budgetBytes,
      bytes: this.bytes,
      entries: this.entries.size,
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
    };
  }

  get(key: string): Buffer | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.hits++;
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  /** The cached value of `key`, else `make()`'s (shared by concurrent callers, kept when it fits). */
  async getOrMake(key: string, make: () => Promise<Buffer>): Promise<Buffer> {
    const hit = this.get(key);
    if (hit) return hit;
    const running = this.pending.get(key);
    if (running) return running;
    this.misses++;
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
      this.evictions++;
    }
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
