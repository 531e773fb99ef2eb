// HLS VOD segments kept in memory under a byte budget, least recently used evicted first.
// Players fetch the same segments again (seeking back, several viewers of one event), and a
// segment costs a pread of its samples plus a mux; the budget bounds what that may hold.
// Concurrent misses of one key share a single production.

export interface SegmentCacheStats {
  budgetBytes: number;
  bytes: number;
  entries: number;
  hits: number;
  misses: number;
  evictions: number;
}

export class SegmentCache {
  private readonly entries = new Map<string, Buffer>(); // insertion order = LRU order
  private readonly pending = new Map<string, Promise<Buffer>>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  constructor(readonly budgetBytes: number) {
    if (!Number.isSafeInteger(budgetBytes) || budgetBytes < 0) throw new RangeError('budgetBytes must be an integer >= 0');
  }

  /** The cached value of `key`, else `produce()`'s (kept when it fits the budget). */
  async get(key: string, produce: () => Promise<Buffer>): Promise<Buffer> {
    const hit = this.entries.get(key);
    if (hit) {
      this.hits++;
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const running = this.pending.get(key);
    if (running) return running;
    this.misses++;
    const job = produce().then(
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

  stats(): SegmentCacheStats {
    return { budgetBytes: this.budgetBytes, bytes: this.bytes, entries: this.entries.size, hits: this.hits, misses: this.misses, evictions: this.evictions };
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  private put(key: string, value: Buffer): void {
    // A segment larger than a quarter of the budget would flush everything else: served, not kept.
    if (value.length > this.budgetBytes / 4) return;
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
}
