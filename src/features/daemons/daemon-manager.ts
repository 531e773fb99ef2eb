// Takeover mode in one object: the supervisor, the loops that keep the running daemons in step
// with Monitors/Filters/Config and watch them for hangs (reconciler.ts), the start-up cleanup, the
// zmdc.sock shim, and the operator's actions (REST, shim, monitor state, system startup and
// shutdown). Exists only when daemon.enabled is true; in passive mode the routes answer 503.
import type { AppConfig } from '../../config/types.js';
import type { DbPool } from '../../db/pool.js';
import type { Logger } from '../../log.js';
import { daemonId, DAEMON_NAMES, type DaemonId } from './daemon-ids.js';
import { SupervisionJournal } from './journal.js';
import type { DaemonStatusResponse, Outcome } from './process-control.js';
import { Reconciler, toInt } from './reconciler.js';
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
  private readonly reconciler: Reconciler;
  private closed = false;
  private shim?: ZmdcShim;
  private readonly changeListeners = new Set<(change: DaemonChange) => void>();

  constructor(private readonly options: DaemonManagerOptions) {
    const { config, log } = options;
    this.journal = new SupervisionJournal(log, config.daemon.journal_socket);
    this.supervisor = new Supervisor({
      binDir: config.daemon.bin_dir,
      journal: this.journal,
      maxRestartDelay: () => toInt(this.reconciler.zm.ZM_MAX_RESTART_DELAY, 30),
      stopGraceMs: config.daemon.stop_grace_secs * 1000,
      secondMs: options.secondMs,
      onChange: (change) => this.emitChange(change),
    });
    this.reconciler = new Reconciler({
      config,
      log,
      pool: options.pool,
      supervisor: this.supervisor,
      journal: this.journal,
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
    await this.reconciler.readFirst();
    const monitorIds = [...this.reconciler.wanted.values()]
      .filter((d) => d.id.name === 'zmc' && d.monitorId !== undefined)
      .map((d) => d.monitorId!);
    clearStaleSharedMemory(this.options.config.zoneminder.path_map, monitorIds);
    this.reconciler.begin();
    if (this.options.config.daemon.shim_enabled) {
      this.shim = new ZmdcShim(this, this.options.config, this.options.log, this.reconciler.serverId);
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
    this.reconciler.close();
    await this.shim?.close();
    await this.reconciler.settled();
    await this.supervisor.close();
  }

  // ---- operator actions (REST, shim, monitor state) -----------------------------------------

  list(): DaemonStatusResponse[] {
    return this.supervisor.list();
  }

  status(key: string): DaemonStatusResponse | undefined {
    return this.supervisor.status(key);
  }

  start(id: DaemonId): Outcome {
    this.reconciler.startedByOperator(id.key);
    return this.supervisor.start(id);
  }

  stop(key: string): Outcome {
    const outcome = this.supervisor.stop(key);
    if (outcome.kind !== 'unknown') this.reconciler.stoppedByOperator(key);
    return outcome;
  }

  restart(id: DaemonId): Outcome {
    this.reconciler.startedByOperator(id.key);
    return this.supervisor.restart(id);
  }

  reload(key: string): Outcome {
    return this.supervisor.reload(key);
  }

  /** zmdc's logrot: HUP to every running daemon; zmc from 1.39.22 on gets WINCH (it rotates without dropping the camera). */
  logrot(): { signalled: number; failed: number } {
    let signalled = 0;
    let failed = 0;
    const winch = versionAtLeast(this.reconciler.zm.ZM_DYN_CURR_VERSION, [1, 39, 22]);
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
    this.reconciler.hold();
    const result = await this.supervisor.stopAll();
    for (const key of this.supervisor.keys()) this.supervisor.forget(key);
    this.reconciler.disown();
    this.journal.record({
      priority: 'notice',
      action: 'shutdown',
      message: `system shutdown: ${result.stopped} daemons stopped`,
    });
    return result;
  }

  /** Starts everything that is wanted now and resumes reconciliation. */
  async startup(): Promise<{ started: number; failed: Array<{ key: string; message: string }> }> {
    const desired = await this.reconciler.resume();
    let started = 0;
    const failed: Array<{ key: string; message: string }> = [];
    for (const [key, d] of desired) {
      if (this.supervisor.status(key)?.pid !== undefined) continue;
      this.reconciler.own(d);
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
    for (const d of this.reconciler.wanted.values()) if (d.id.name === 'zmc' && d.monitorId === monitorId) return d.id;
    return daemonId('zmc', ['-m', String(monitorId)]);
  }

  /** Exposed for the shim's `status` of pending entries. */
  isHeld(): boolean {
    return this.reconciler.isHeld();
  }
}
