// Staggered starts of takeover mode: daemons the reconciliation wants are started one at a time,
// at least daemon.start_stagger_ms apart, so a restart of the service (or of ZoneMinder) never
// starts every capture daemon in the same instant. A queued daemon is started only if it is
// still wanted when its turn comes.
import type { DesiredDaemon } from './desired-daemons.js';
import type { SupervisionJournal } from './journal.js';

export interface StartQueueOptions {
  staggerMs: number;
  journal: Pick<SupervisionJournal, 'record'>;
  /** Whether the daemon may still start when its turn comes (still wanted, not stopped by an operator). */
  mayStart: (d: DesiredDaemon) => boolean;
  start: (d: DesiredDaemon) => void;
  /** Shut down or closed: nothing starts. */
  halted: () => boolean;
}

export class StartQueue {
  readonly #o: StartQueueOptions;
  readonly #queue: DesiredDaemon[] = [];
  #draining = false;
  #lastStart = 0;

  constructor(options: StartQueueOptions) {
    this.#o = options;
  }

  /** Queues a wanted daemon (once) and starts draining. */
  add(d: DesiredDaemon, reason: string): void {
    if (this.#queue.some((q) => q.id.key === d.id.key)) return;
    this.#queue.push(d);
    this.#o.journal.record({
      priority: 'info',
      action: 'reconcile',
      message: `'${d.id.key}' is wanted (${reason}); starting it`,
      daemon: d.id.key,
      monitorId: d.monitorId,
    });
    void this.#drain();
  }

  clear(): void {
    this.#queue.length = 0;
  }

  /** Starts queued daemons one at a time, at least staggerMs apart. */
  async #drain(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    try {
      while (this.#queue.length && !this.#o.halted()) {
        const wait = this.#lastStart + this.#o.staggerMs - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const d = this.#queue.shift();
        if (!d || this.#o.halted()) break;
        if (!this.#o.mayStart(d)) continue;
        this.#o.start(d);
        this.#lastStart = Date.now();
      }
    } finally {
      this.#draining = false;
    }
  }
}
