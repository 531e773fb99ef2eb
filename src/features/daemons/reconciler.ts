// The loops of takeover mode, for the daemon manager (daemon-manager.ts, which takes the
// operator's actions): the reconciliation that keeps the running daemons in step with
// Monitors/Filters/Config, and zmwatch's pass (hang-detector.ts) over the same wanted daemons.
//
// Reconciliation rules:
// - a wanted daemon that is not running is started (starts are staggered: no thundering herd);
// - a daemon this manager started that is no longer wanted is stopped and forgotten;
// - a daemon whose configuration fingerprint changed is restarted;
// - a daemon an operator stopped (REST, shim, PATCH /monitors/{id}/state) stays stopped until it
//   is started again or its configuration changes;
// - after POST /system/shutdown (or the shim's `shutdown`) nothing is started until startup.
import type { AppConfig } from '../../config/types.js';
import type { DbPool } from '../../db/pool.js';
import type { Logger } from '../../log.js';
import { DaemonQueries, ZM_CONFIG_DEFAULTS, type ZmConfig } from './daemons-queries.js';
import { readDesired, type DesiredDaemon } from './desired-daemons.js';
import { watchPass } from './hang-detector.js';
import type { SupervisionJournal } from './journal.js';
import { StartQueue } from './start-queue.js';
import type { Supervisor } from './supervisor.js';

export interface ReconcilerOptions {
  config: AppConfig;
  log: Logger;
  pool: DbPool;
  supervisor: Supervisor;
  journal: SupervisionJournal;
}

/** A ZoneMinder option as a positive number, else the fallback. */
export const toInt = (v: string, fallback: number) => {
  const n = Number.parseFloat(v);
  return Number.isFinite(n) && n > 0 ? n : fallback;
};

export class Reconciler {
  private readonly supervisor: Supervisor;
  private readonly journal: SupervisionJournal;
  private readonly queries: DaemonQueries;
  private zmConfig: ZmConfig = { ...ZM_CONFIG_DEFAULTS };
  private desired = new Map<string, DesiredDaemon>();
  private readonly owned = new Map<string, string>(); // key → fingerprint
  private readonly operatorStopped = new Set<string>();
  private readonly starts: StartQueue;
  private held = false;
  private closed = false;
  private reconcileTimer?: NodeJS.Timeout;
  private watchTimer?: NodeJS.Timeout;
  private reconciling?: Promise<void>;
  private serverWarned = false;
  private hostServerId?: number;

  constructor(private readonly options: ReconcilerOptions) {
    this.supervisor = options.supervisor;
    this.journal = options.journal;
    this.queries = new DaemonQueries(options.pool);
    this.starts = new StartQueue({
      staggerMs: options.config.daemon.start_stagger_ms,
      journal: this.journal,
      mayStart: (d) => this.desired.has(d.id.key) && !this.operatorStopped.has(d.id.key),
      start: (d) => {
        this.owned.set(d.id.key, d.fingerprint);
        this.supervisor.start(d.id);
      },
      halted: () => this.closed || this.held,
    });
  }

  /** ZoneMinder's options as of the last read. */
  get zm(): ZmConfig {
    return this.zmConfig;
  }

  /** This host's Servers.Id in a multi-server install (the shim is then zmdc<Id>.sock). */
  get serverId(): number | undefined {
    return this.hostServerId;
  }

  /** What should run, as of the last read. */
  get wanted(): ReadonlyMap<string, DesiredDaemon> {
    return this.desired;
  }

  isHeld(): boolean {
    return this.held;
  }

  /** Start-up's read of what is wanted; a failure is logged and left to the loop. */
  async readFirst(): Promise<void> {
    try {
      this.desired = await this.computeDesired();
    } catch (err) {
      this.options.log.error(
        { err: { message: (err as Error).message } },
        'daemon supervision: cannot read the monitors; retrying in the reconcile loop',
      );
    }
  }

  /** Starts what is wanted, then both loops. */
  begin(): void {
    this.applyDesired('start-up');
    this.scheduleReconcile();
    this.scheduleWatch();
  }

  /** Ends both loops and the queued starts; settled() waits for a pass under way. */
  close(): void {
    this.closed = true;
    clearTimeout(this.reconcileTimer);
    clearTimeout(this.watchTimer);
    this.starts.clear();
  }

  async settled(): Promise<void> {
    await this.reconciling?.catch(() => undefined);
  }

  // ---- the operator's actions, as the loop must know them (daemon-manager.ts) ---------------

  startedByOperator(key: string): void {
    this.operatorStopped.delete(key);
  }

  stoppedByOperator(key: string): void {
    this.operatorStopped.add(key);
  }

  /** Shutdown, before the daemons stop: nothing starts until resume(). */
  hold(): void {
    this.held = true;
    this.starts.clear();
  }

  /** Shutdown, once the daemons stopped: none is the loop's any more, no operator's stop holds. */
  disown(): void {
    this.owned.clear();
    this.operatorStopped.clear();
  }

  /** Startup: reconciliation resumes; returns what is wanted now. */
  async resume(): Promise<ReadonlyMap<string, DesiredDaemon>> {
    this.held = false;
    this.operatorStopped.clear();
    this.desired = await this.computeDesired();
    return this.desired;
  }

  /** A daemon startup started: the loop stops it when it is no longer wanted. */
  own(d: DesiredDaemon): void {
    this.owned.set(d.id.key, d.fingerprint);
  }

  // ---- reconciliation --------------------------------------------------------------------

  /** What should run now, from the database (desired-daemons.ts); keeps ZoneMinder's options and this host's id. */
  private async computeDesired(): Promise<Map<string, DesiredDaemon>> {
    const read = await readDesired(this.queries, this.options.config, () => {
      if (this.serverWarned) return;
      this.serverWarned = true;
      this.options.log.warn(
        { server_host: this.options.config.daemon.server_host },
        'daemon.server_host names no Servers row; starting every monitor as on a single server',
      );
    });
    this.zmConfig = read.zm;
    this.hostServerId = read.serverId;
    return read.desired;
  }

  /** One pass now; the loop calls it every interval. */
  reconcile(): Promise<void> {
    this.reconciling ??= (async () => {
      try {
        this.desired = await this.computeDesired();
        this.applyDesired('reconcile');
      } catch (err) {
        this.options.log.warn({ err: { message: (err as Error).message } }, 'daemon reconciliation failed; retrying');
      } finally {
        this.reconciling = undefined;
      }
    })();
    return this.reconciling;
  }

  private scheduleReconcile(): void {
    if (this.closed) return;
    this.reconcileTimer = setTimeout(() => {
      void this.reconcile().finally(() => this.scheduleReconcile());
    }, this.options.config.daemon.reconcile_interval_secs * 1000);
    this.reconcileTimer.unref();
  }

  private applyDesired(reason: string): void {
    if (this.held || this.closed) return;
    for (const [key] of this.owned) {
      if (this.desired.has(key)) continue;
      this.owned.delete(key);
      this.operatorStopped.delete(key);
      this.journal.record({
        priority: 'notice',
        action: 'reconcile',
        message: `'${key}' is no longer wanted (${reason}); stopping it`,
        daemon: key,
      });
      this.supervisor.stop(key);
      void this.supervisor.whenExited(key).then(() => {
        if (!this.desired.has(key)) this.supervisor.forget(key);
      });
    }
    for (const [key, d] of this.desired) {
      const known = this.owned.get(key);
      if (known !== undefined && known !== d.fingerprint) {
        this.owned.set(key, d.fingerprint);
        this.operatorStopped.delete(key);
        this.journal.record({
          priority: 'notice',
          action: 'reconcile',
          message: `'${key}' configuration changed; restarting it`,
          daemon: key,
          monitorId: d.monitorId,
        });
        this.supervisor.restart(d.id);
        continue;
      }
      if (this.operatorStopped.has(key)) continue;
      const state = this.supervisor.status(key)?.state;
      // Failed daemons (missing binary) wait for an operator's start; others run or restart by themselves.
      if (state === undefined || (state === 'stopped' && known === undefined)) this.starts.add(d, reason);
      else if (known === undefined) this.owned.set(key, d.fingerprint);
    }
  }

  // ---- hang detection --------------------------------------------------------------------

  private scheduleWatch(): void {
    if (this.closed) return;
    this.watchTimer = setTimeout(
      () => {
        try {
          this.watch();
        } finally {
          this.scheduleWatch();
        }
      },
      toInt(this.zm.ZM_WATCH_CHECK_INTERVAL, 10) * 1000,
    );
    this.watchTimer.unref();
  }

  /** One zmwatch pass (hang-detector.ts). */
  watch(): void {
    if (this.held || this.closed) return;
    watchPass(
      this.desired.values(),
      this.supervisor,
      this.journal,
      this.options.config.zoneminder.path_map,
      toInt(this.zm.ZM_WATCH_MAX_DELAY, 45),
    );
  }
}
