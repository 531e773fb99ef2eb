// Takeover mode in one object: the supervisor, the reconciliation loop that keeps the running
// daemons in step with Monitors/Filters/Config, the hang detector, the start-up cleanup and the
// zmdc.sock shim. Exists only when daemon.enabled is true; in passive mode the routes answer 503.
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
import { daemonId, DAEMON_NAMES, type DaemonId } from './daemon-ids.js';
import { DaemonQueries, ZM_CONFIG_DEFAULTS, type ZmConfig } from './daemons-queries.js';
import { readDesired, type DesiredDaemon } from './desired-daemons.js';
import { watchPass } from './hang-detector.js';
import { SupervisionJournal } from './journal.js';
import type { DaemonStatusResponse, Outcome } from './process-control.js';
import { StartQueue } from './start-queue.js';
import { clearStaleSharedMemory, killLeftovers } from './startup-cleanup.js';
import { Supervisor, type DaemonChange } from './supervisor.js';
import { ZmdcShim } from './zmdc-shim.js';
import type { Services } from '../../registry.js';

export interface DaemonManagerOptions {
  config: AppConfig;
  log: Logger;
  pool: DbPool;
  /** Milliseconds per zmdc second for back-off (tests shrink it; default 1000). */
  secondMs?: number;
}

const toInt = (v: string, fallback: number) => {
  const n = Number.parseFloat(v);
  return Number.isFinite(n) && n > 0 ? n : fallback;
};

/** Whether a dotted version string is at least `min` (an unknown version is not). */
export function versionAtLeast(version: string, min: number[]): boolean {
  const v = version.split('.').map((n) => Number.parseInt(n, 10));
  if (v.some((n) => !Number.isFinite(n))) return false;
  for (let i = 0; i < min.length; i++) {
    if ((v[i] ?? 0) !== min[i]) return (v[i] ?? 0) > min[i];
  }
  return true;
}

/** Takeover mode's supervisor in the app's registry: null in passive mode (daemon.enabled = false). */
export const Daemons = {
  from: (s: Services): DaemonManager | null =>
    s.config.daemon.enabled ? new DaemonManager({ config: s.config, log: s.log, pool: s.pool }) : null,
};

export class DaemonManager {
  readonly supervisor: Supervisor;
  readonly journal: SupervisionJournal;
  private readonly queries: DaemonQueries;
  private zm: ZmConfig = { ...ZM_CONFIG_DEFAULTS };
  private desired = new Map<string, DesiredDaemon>();
  private readonly owned = new Map<string, string>(); // key → fingerprint
  private readonly operatorStopped = new Set<string>();
  private readonly starts: StartQueue;
  private held = false;
  private closed = false;
  private reconcileTimer?: NodeJS.Timeout;
  private watchTimer?: NodeJS.Timeout;
  private reconciling?: Promise<void>;
  private shim?: ZmdcShim;
  private serverWarned = false;
  /** This host's Servers.Id in a multi-server install (the shim is then zmdc<Id>.sock). */
  private serverId?: number;
  private readonly changeListeners = new Set<(change: DaemonChange) => void>();

  constructor(private readonly options: DaemonManagerOptions) {
    const { config, log } = options;
    this.journal = new SupervisionJournal(log, config.daemon.journal_socket);
    this.queries = new DaemonQueries(options.pool);
    this.supervisor = new Supervisor({
      binDir: config.daemon.bin_dir,
      journal: this.journal,
      maxRestartDelay: () => toInt(this.zm.ZM_MAX_RESTART_DELAY, 30),
      stopGraceMs: config.daemon.stop_grace_secs * 1000,
      secondMs: options.secondMs,
      onChange: (change) => this.emitChange(change),
    });
    this.starts = new StartQueue({
      staggerMs: config.daemon.start_stagger_ms,
      journal: this.journal,
      mayStart: (d) => this.desired.has(d.id.key) && !this.operatorStopped.has(d.id.key),
      start: (d) => {
        this.owned.set(d.id.key, d.fingerprint);
        this.supervisor.start(d.id);
      },
      halted: () => this.closed || this.held,
    });
  }

  /**
   * Hears every daemon start, exit and scheduled restart (the composition root connects this to
   * the push service). Returns the function that removes the listener.
   */
  onChange(listener: (change: DaemonChange) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private emitChange(change: DaemonChange): void {
    for (const listener of this.changeListeners) {
      try {
        listener(change);
      } catch (err) {
        this.options.log.warn({ err: { message: (err as Error).message } }, 'daemon change listener failed');
      }
    }
  }

  /** The paths of every daemon this host could run (what the start-up kill looks for). */
  daemonPaths(): string[] {
    return DAEMON_NAMES.map((n) => this.supervisor.pathOf(n));
  }

  /** Start-up: kill leftovers, clear stale shared memory, start what is wanted, then the loops and the shim. */
  async run(): Promise<void> {
    await killLeftovers(this.daemonPaths(), this.journal, this.options.config.daemon.stop_grace_secs * 1000);
    try {
      this.desired = await this.computeDesired();
    } catch (err) {
      this.options.log.error(
        { err: { message: (err as Error).message } },
        'daemon supervision: cannot read the monitors; retrying in the reconcile loop',
      );
    }
    const monitorIds = [...this.desired.values()]
      .filter((d) => d.id.name === 'zmc' && d.monitorId !== undefined)
      .map((d) => d.monitorId!);
    clearStaleSharedMemory(this.options.config.zoneminder.path_map, monitorIds);
    this.applyDesired('start-up');
    this.scheduleReconcile();
    this.scheduleWatch();
    if (this.options.config.daemon.shim_enabled) {
      this.shim = new ZmdcShim(this, this.options.config, this.options.log, this.serverId);
      await this.shim
        .listen()
        .catch((err: Error) =>
          this.options.log.warn(
            { err: { message: err.message } },
            'zmdc.sock shim not bound; ZoneMinder tools cannot reach the supervisor',
          ),
        );
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconcileTimer);
    clearTimeout(this.watchTimer);
    this.starts.clear();
    await this.shim?.close();
    await this.reconciling?.catch(() => undefined);
    await this.supervisor.close();
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
    this.zm = read.zm;
    this.serverId = read.serverId;
    return read.desired;
  }

  /** One pass now (tests and the state route call it; the loop calls it every interval). */
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

  // ---- operator actions (REST, shim, monitor state) -----------------------------------------

  list(): DaemonStatusResponse[] {
    return this.supervisor.list();
  }

  status(key: string): DaemonStatusResponse | undefined {
    return this.supervisor.status(key);
  }

  start(id: DaemonId): Outcome {
    this.operatorStopped.delete(id.key);
    return this.supervisor.start(id);
  }

  stop(key: string): Outcome {
    const outcome = this.supervisor.stop(key);
    if (outcome.kind !== 'unknown') this.operatorStopped.add(key);
    return outcome;
  }

  restart(id: DaemonId): Outcome {
    this.operatorStopped.delete(id.key);
    return this.supervisor.restart(id);
  }

  reload(key: string): Outcome {
    return this.supervisor.reload(key);
  }

  /** zmdc's logrot: HUP to every running daemon; zmc from 1.39.22 on gets WINCH (it rotates without dropping the camera). */
  logrot(): { signalled: number; failed: number } {
    let signalled = 0;
    let failed = 0;
    const winch = versionAtLeast(this.zm.ZM_DYN_CURR_VERSION, [1, 39, 22]);
    for (const s of this.supervisor.list()) {
      if (s.pid === undefined) continue;
      const signal = winch && s.id.startsWith('zmc ') ? 'SIGWINCH' : 'SIGHUP';
      if (this.supervisor.signal(s.id, signal).kind === 'signalled') signalled++;
      else failed++;
    }
    return { signalled, failed };
  }

  /** Stops everything and holds the reconciler until startup(). */
  async shutdown(): Promise<{ stopped: number; of: number }> {
    this.held = true;
    this.starts.clear();
    const result = await this.supervisor.stopAll();
    for (const key of this.supervisor.keys()) this.supervisor.forget(key);
    this.owned.clear();
    this.operatorStopped.clear();
    this.journal.record({
      priority: 'notice',
      action: 'shutdown',
      message: `system shutdown: ${result.stopped} daemons stopped`,
    });
    return result;
  }

  /** Starts everything that is wanted now and resumes reconciliation. */
  async startup(): Promise<{ started: number; failed: Array<{ key: string; message: string }> }> {
    this.held = false;
    this.operatorStopped.clear();
    this.desired = await this.computeDesired();
    let started = 0;
    const failed: Array<{ key: string; message: string }> = [];
    for (const [key, d] of this.desired) {
      if (this.supervisor.status(key)?.pid !== undefined) continue;
      this.owned.set(key, d.fingerprint);
      const outcome = this.supervisor.start(d.id);
      if (outcome.kind === 'started') started++;
      else if (outcome.kind === 'failed') failed.push({ key, message: outcome.message });
      const pause = this.options.config.daemon.start_stagger_ms;
      if (pause) await new Promise((r) => setTimeout(r, pause));
    }
    this.journal.record({
      priority: 'notice',
      action: 'startup',
      message: `system startup: ${started} daemons started, ${failed.length} failed`,
    });
    return { started, failed };
  }

  /** The zmc of a monitor: `zmc -m N`, or `zmc -d <device>` for Local monitors. */
  captureDaemonOf(monitorId: number): DaemonId {
    for (const d of this.desired.values()) if (d.id.name === 'zmc' && d.monitorId === monitorId) return d.id;
    return daemonId('zmc', ['-m', String(monitorId)]);
  }

  /** Exposed for the shim's `status` of pending entries. */
  isHeld(): boolean {
    return this.held;
  }
}
