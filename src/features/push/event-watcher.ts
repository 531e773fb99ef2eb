// Detects Events rows that zmc opens and closes (docs/zoneminder/events-lifecycle.md): one
// indexed query per period for every client together. zmc inserts the row when an event starts
// (EndDateTime NULL) and updates it when the event closes, so the poll asks for ids above the
// last one seen plus the ids of the events still open. Ids skipped by a later commit of an
// earlier auto-increment value are asked for again for a while, so no event is missed.
// A database failure pauses the detector; it resumes from the last id it saw (no gaps, no
// duplicates).
import type { ZoneClock } from '../../db/zone-clock.js';
import type { Logger } from '../../log.js';
import { nowIso, type EventMessage } from './messages.js';
import { isClosed, maxEventId, openEventIds, pollEvents, toPushEvent, type Queryable } from './push-queries.js';

export interface EventWatcherOptions {
  db: Queryable;
  clock: () => Promise<ZoneClock>;
  log: Logger;
  periodMs: number;
  publish: (message: EventMessage) => void;
}

/** New rows read per poll at most (a burst is read over the following polls). */
const NEW_PER_POLL = 200;
/** Open events followed at most; the oldest are dropped beyond it (their end goes unreported). */
const MAX_OPEN = 2000;
/** How long an id skipped over is asked for again, and how many at most. */
const GAP_MS = 15_000;
const MAX_GAPS = 1000;
/** Open events at start-up are looked for among this many of the newest ids. */
const STARTUP_WINDOW = 2000;
/** While the database is down, it is tried again at most this often. */
const RETRY_MS = 2000;

export class EventWatcher {
  readonly #o: EventWatcherOptions;
  #lastId: number | null = null;
  readonly #open = new Set<number>();
  readonly #gaps = new Map<number, number>(); // id → give up after (ms)
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;
  #paused = false;

  constructor(options: EventWatcherOptions) {
    this.#o = options;
  }

  /** The highest event id reported so far (null before the first successful poll). */
  get lastId(): number | null {
    return this.#lastId;
  }

  get paused(): boolean {
    return this.#paused;
  }

  start(): void {
    this.#schedule(0);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#tick(), ms);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    let next = this.#o.periodMs;
    try {
      await this.poll();
      if (this.#paused) this.#o.log.info({ last_event_id: this.#lastId }, 'push: event detector resumed');
      this.#paused = false;
    } catch (err) {
      if (!this.#paused)
        this.#o.log.warn(
          { err: { message: (err as Error).message } },
          'push: event detector paused (database unavailable)',
        );
      this.#paused = true;
      next = Math.max(next, RETRY_MS);
    }
    this.#schedule(next);
  }

  /** One detection round (exposed for tests). */
  async poll(): Promise<void> {
    const db = this.#o.db;
    if (this.#lastId === null) {
      const last = await maxEventId(db);
      const open = await openEventIds(db, Math.max(0, last - STARTUP_WINDOW));
      for (const id of open) this.#open.add(id);
      this.#lastId = last;
      return;
    }
    const now = Date.now();
    for (const [id, until] of this.#gaps) if (until < now) this.#gaps.delete(id);
    const watched = [...this.#open, ...this.#gaps.keys()].sort((a, b) => a - b);
    const rows = await pollEvents(db, this.#lastId, watched, NEW_PER_POLL);
    const clock = await this.#o.clock();
    const seen = new Set<number>();
    let last = this.#lastId;
    for (const row of rows) {
      const id = Number(row.Id);
      seen.add(id);
      const known = this.#open.has(id);
      const closed = isClosed(row);
      const event = toPushEvent(row, clock);
      const time = nowIso();
      if (!known) {
        this.#gaps.delete(id);
        this.#o.publish({ v: 1, type: 'event_start', event, time });
        if (!closed) this.#openAdd(id);
      }
      if (closed) {
        this.#open.delete(id);
        this.#o.publish({ v: 1, type: 'event_end', event, time });
      }
      if (id > last) {
        for (let gap = last + 1; gap < id && this.#gaps.size < MAX_GAPS; gap++) this.#gaps.set(gap, now + GAP_MS);
        last = id;
      }
    }
    // An open event whose row is gone was deleted: nothing more will come for it.
    for (const id of this.#open) if (id <= this.#lastId && !seen.has(id)) this.#open.delete(id);
    this.#lastId = last;
  }

  #openAdd(id: number): void {
    this.#open.add(id);
    if (this.#open.size > MAX_OPEN) this.#open.delete(this.#open.values().next().value as number);
  }
}
