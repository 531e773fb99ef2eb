// A read cache whose answers are never older than a fixed bound, for list reads that clients
// poll (the monitor list, event pages and their totals).
//
// The guarantee: a value handed to a request was loaded by a query that STARTED at most
// `maxAgeMs` before the request asked (a load that starts after the ask is fresher still). So a
// change committed by anyone, ZoneMinder's own daemons and UI included, is seen by every request
// made more than `maxAgeMs` after the commit. Changes made through this API are seen at once:
// its write paths call invalidate() before they answer, which drops every value and every load
// in flight that started before it.
//
// While a key is read often, a value past `refreshAfterMs` is answered at once and reloaded in
// the background, so steady polling never waits for a query; an idle key costs nothing. One load
// per key runs at a time, shared by every request that may use it.
export interface FreshCacheOptions {
  maxAgeMs: number;
  /** Age at which a read value is reloaded in the background; default maxAgeMs / 2. */
  refreshAfterMs?: number;
  /** Keys kept; the least recently loaded go first. */
  maxEntries: number;
  now?: () => number;
}

interface Entry<V> {
  value?: V;
  /** When the load of `value` started. */
  loadedFrom: number;
  pending?: Promise<V>;
  pendingFrom: number;
}

export class FreshCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly maxAgeMs: number;
  private readonly refreshAfterMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  /** Bumped by invalidate(); loads started in an older epoch are never used. */
  private epoch = 0;

  constructor(options: FreshCacheOptions) {
    this.maxAgeMs = options.maxAgeMs;
    this.refreshAfterMs = options.refreshAfterMs ?? options.maxAgeMs / 2;
    this.maxEntries = options.maxEntries;
    this.now = options.now ?? (() => performance.now());
  }

  get(key: string, load: () => Promise<V>): Promise<V> {
    const asked = this.now();
    const entry = this.entries.get(key);
    if (entry) {
      if (entry.value !== undefined && asked - entry.loadedFrom <= this.maxAgeMs) {
        if (asked - entry.loadedFrom >= this.refreshAfterMs && !entry.pending) {
          // Background reload; a failure keeps the current value until it expires.
          this.start(key, entry, load).catch(() => {});
        }
        return Promise.resolve(entry.value);
      }
      if (entry.pending && asked - entry.pendingFrom <= this.maxAgeMs) return entry.pending;
    }
    const e = entry ?? { loadedFrom: -Infinity, pendingFrom: -Infinity };
    if (!entry) this.insert(key, e);
    return this.start(key, e, load);
  }

  /** Forgets every value and every load in flight (after a write through the API). */
  invalidate(): void {
    this.epoch++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private start(key: string, entry: Entry<V>, load: () => Promise<V>): Promise<V> {
    const epoch = this.epoch;
    const from = this.now();
    const pending = load();
    entry.pending = pending;
    entry.pendingFrom = from;
    const settle = () => {
      if (entry.pending === pending) entry.pending = undefined;
    };
    pending.then(
      (value) => {
        settle();
        if (epoch !== this.epoch || from < entry.loadedFrom) return;
        entry.value = value;
        entry.loadedFrom = from;
        // Re-inserted: the map's order is the order of the last loads.
        if (this.entries.get(key) === entry) {
          this.entries.delete(key);
          this.entries.set(key, entry);
        }
      },
      () => {
        settle();
        if (entry.value === undefined && this.entries.get(key) === entry && !entry.pending) this.entries.delete(key);
      },
    );
    return pending;
  }

  private insert(key: string, entry: Entry<V>): void {
    this.entries.set(key, entry);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}
