// The read caches of one app instance, and their staleness bounds (docs/api-caches.md).
//
// - monitors: every Monitors row, answered as MonitorResponse, at most 1 s old; each request
//   filters it by the caller's current row ACL, so a restricted user never gets a row outside
//   their scope, whoever filled the cache.
// - eventTotals / eventPages: the totals and pages of GET /events, at most 2 s old; the key
//   holds the whole WHERE clause with its values, the caller's monitor scope included.
// Every write through the API empties all of them before it answers (invalidate()).
import { FreshCache } from './fresh-cache.js';

export const MONITORS_MAX_AGE_MS = 1000;
export const EVENTS_MAX_AGE_MS = 2000;

export class ReadCaches {
  /** One set per app, from the registry (Services.get). */
  static from(): ReadCaches {
    return new ReadCaches();
  }

  readonly monitors = new FreshCache<MonitorSnapshot>({ maxAgeMs: MONITORS_MAX_AGE_MS, maxEntries: 1 });
  readonly eventTotals = new FreshCache<number>({ maxAgeMs: EVENTS_MAX_AGE_MS, maxEntries: 500 });
  readonly eventPages = new FreshCache<object>({ maxAgeMs: EVENTS_MAX_AGE_MS, maxEntries: 200 });

  invalidate(): void {
    this.monitors.invalidate();
    this.eventTotals.invalidate();
    this.eventPages.invalidate();
  }
}

/** All monitors as responses (ordered by id), and the pages already cut from them. */
export interface MonitorSnapshot {
  rows: ReadonlyArray<{ id: number }>;
  /** Pages by scope and range, built on first use; bounded by MAX_PAGES. */
  pages: Map<string, object>;
}

export const MAX_SNAPSHOT_PAGES = 100;
