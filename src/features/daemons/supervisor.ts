// The process supervisor of takeover mode: zmdc.pl's job (docs/zoneminder/daemons.md).
// - A daemon is keyed "name arg1 arg2" and runs ZM_PATH_BIN/name with its arguments.
// - Keep-alive back-off as zmdc's reaper: the first exit, or an exit after a run longer than
//   ZM_MAX_RESTART_DELAY, restarts at once and sets the delay to 5 s; a quicker exit waits the
//   delay, which then doubles up to ZM_MAX_RESTART_DELAY.
// - Exit causes: signal TERM or ALRM "exited", any other signal "crashed", a non-zero status
//   "exited abnormally", zero "exited normally".
// - Stop = TERM, then KILL after the grace; reload = HUP; log rotation = HUP.
// - A binary that is missing or not executable makes that daemon `failed`; nothing is retried
//   until it is started again.
// `secondMs` is the length of zmdc's second for back-off and run times, so tests can run a
// crash loop in a few seconds. `onChange` hears every start, exit and scheduled restart (the
// composition root forwards them to the push clients).
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { join } from 'node:path';
import { monitorIdOf, type DaemonId } from './daemon-ids.js';
import type { SupervisionJournal } from './journal.js';

export type ProcessState = 'stopped' | 'starting' | 'running' | 'stopping' | 'failed' | 'restarting';

export interface DaemonStatusResponse {
  /** zmdc's key, e.g. `zmc -m 7`. */
  id: string;
  /** Equals id. */
  name: string;
  state: ProcessState;
  /** Present while a process runs. @isInt @minimum 0 */
  pid?: number;
  /** Present while a process runs. @isLong @minimum 0 */
  uptime_seconds?: number;
  /** Restarts after exits (back-off restarts, restarts by request). @isInt @minimum 0 */
  restart_count: number;
  /** The monitor a zmc, zmcontrol.pl or zmtrack.pl serves. @isInt @minimum 0 */
  monitor_id?: number;
  /** `GET /daemons?scope=cluster` only: Servers.Id of the host running it. @isInt @minimum 0 */
  server_id?: number;
  /** `GET /daemons?scope=cluster` only: that host's Servers.Name. */
  server_name?: string;
}

/** A daemon started, exited (with zmdc's wording of the cause) or waits for its back-off restart. */
export type DaemonChange =
  | { state: 'started'; daemon: string; monitorId?: number; pid: number }
  | { state: 'exited'; daemon: string; monitorId?: number; cause: string }
  | { state: 'restarting'; daemon: string; monitorId?: number; inSecs: number };

export interface SupervisorOptions {
  binDir: string;
  journal: SupervisionJournal;
  /** ZM_MAX_RESTART_DELAY in (zmdc) seconds, read at each exit. */
  maxRestartDelay: () => number;
  /** TERM → KILL grace, milliseconds. */
  stopGraceMs: number;
  /** Milliseconds per zmdc second for back-off and run times (default 1000). */
  secondMs?: number;
  /** Environment of the daemons (default: the service's). */
  env?: NodeJS.ProcessEnv;
  /** Told of each start, exit and scheduled restart; must not throw. */
  onChange?: (change: DaemonChange) => void;
}

/** What an action did; the REST routes and the zmdc shim word it each their own way. */
export type Outcome =
  | { kind: 'started'; pid: number; at: number }
  | { kind: 'already-running'; pid: number; since: number }
  /** A start while a stop was under way: the stop becomes a restart. */
  | { kind: 'was-terminating'; pid: number; termSentAt: number }
  | { kind: 'failed'; message: string }
  | { kind: 'stop-sent'; pid: number; at: number }
  /** Stopping a daemon that was waiting for its back-off restart. */
  | { kind: 'pending-removed'; at: number }
  | { kind: 'not-running'; state: ProcessState }
  | { kind: 'unknown' }
  | { kind: 'signalled'; pid: number; signal: NodeJS.Signals };

interface Proc {
  id: DaemonId;
  monitorId?: number;
  child?: ChildProcess;
  pid?: number;
  /** ms since the epoch. */
  started?: number;
  keepAlive: boolean;
  /** zmdc's delay in (zmdc) seconds; 0 = not set. */
  delay: number;
  /** When the pending restart is due (ms), with its timer. */
  pendingAt?: number;
  pendingTimer?: NodeJS.Timeout;
  termSentAt?: number;
  killTimer?: NodeJS.Timeout;
  restartCount: number;
  failure?: string;
  exited: Array<() => void>;
}

const SIGNAL_NUMBERS = osConstants.signals as Record<string, number>;

/** zmdc's wording of an exit. */
export function describeExit(
  code: number | null,
  signal: NodeJS.Signals | null,
): { text: string; cause: 'exited' | 'crashed' | 'exited abnormally' | 'exited normally' } {
  if (signal) {
    const n = SIGNAL_NUMBERS[signal] ?? 0;
    const cause = signal === 'SIGTERM' || signal === 'SIGALRM' ? 'exited' : 'crashed';
    return { text: `${cause}, signal ${n}`, cause };
  }
  if (code) return { text: `exited abnormally, exit status ${code}`, cause: 'exited abnormally' };
  return { text: 'exited normally', cause: 'exited normally' };
}

export class Supervisor {
  private readonly procs = new Map<string, Proc>();
  private readonly secondMs: number;
  private closed = false;

  constructor(private readonly options: SupervisorOptions) {
    this.secondMs = options.secondMs ?? 1000;
  }

  /** The executable of a daemon name. */
  pathOf(name: string): string {
    return join(this.options.binDir, name);
  }

  keys(): string[] {
    return [...this.procs.keys()];
  }

  has(key: string): boolean {
    return this.procs.has(key);
  }

  status(key: string): DaemonStatusResponse | undefined {
    const p = this.procs.get(key);
    return p && this.toStatus(p);
  }

  list(): DaemonStatusResponse[] {
    return [...this.procs.values()]
      .map((p) => this.toStatus(p))
      .sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }));
  }

  /** zmdc's `check` answer: running, stopped, pending or unknown. */
  check(key: string): 'running' | 'stopped' | 'pending' | 'unknown' {
    const p = this.procs.get(key);
    if (!p) return 'unknown';
    if (p.pendingAt !== undefined) return 'pending';
    // zmdc forgets a daemon once it is stopped for good.
    return p.child ? 'running' : 'unknown';
  }

  /** Running and pending processes, for zmdc's `status`. */
  snapshot(): Array<{ key: string; pid?: number; started?: number; pendingAt?: number }> {
    return [...this.procs.values()].map((p) => ({
      key: p.id.key,
      pid: p.child ? p.pid : undefined,
      started: p.started,
      pendingAt: p.pendingAt,
    }));
  }

  start(id: DaemonId): Outcome {
    if (this.closed) return { kind: 'failed', message: 'the supervisor is shutting down' };
    let p = this.procs.get(id.key);
    if (p?.child) {
      if (p.termSentAt !== undefined) {
        // As zmdc: a start during a stop turns it into a restart, at once.
        p.keepAlive = true;
        p.delay = 0;
        return { kind: 'was-terminating', pid: p.pid!, termSentAt: p.termSentAt };
      }
      return { kind: 'already-running', pid: p.pid!, since: p.started! };
    }
    if (!p) {
      p = { id, monitorId: monitorIdOf(id), keepAlive: true, delay: 0, restartCount: 0, exited: [] };
      this.procs.set(id.key, p);
    }
    p.keepAlive = true;
    return this.spawn(p);
  }

  /** Stop for good (no restart). */
  stop(key: string): Outcome {
    const p = this.procs.get(key);
    if (!p) return { kind: 'unknown' };
    return this.sendStop(p, true);
  }

  /** Stop with keep-alive, so the exit handler starts it again; starts it when it is not running. */
  restart(id: DaemonId): Outcome {
    const p = this.procs.get(id.key);
    if (!p || !p.child) {
      if (p) this.clearPending(p);
      return this.start(id);
    }
    return this.sendStop(p, false);
  }

  reload(key: string): Outcome {
    return this.signal(key, 'SIGHUP');
  }

  signal(key: string, signal: NodeJS.Signals): Outcome {
    const p = this.procs.get(key);
    if (!p) return { kind: 'unknown' };
    if (!p.child || p.pid === undefined) return { kind: 'not-running', state: this.stateOf(p) };
    try {
      process.kill(p.pid, signal);
    } catch {
      return { kind: 'not-running', state: this.stateOf(p) };
    }
    return { kind: 'signalled', pid: p.pid, signal };
  }

  /** Forgets a stopped daemon (the reconciler drops removed monitors this way). */
  forget(key: string): void {
    const p = this.procs.get(key);
    if (p && !p.child) {
      this.clearPending(p);
      this.procs.delete(key);
    }
  }

  /** Resolves when the daemon has no process any more. */
  whenExited(key: string): Promise<void> {
    const p = this.procs.get(key);
    if (!p?.child) return Promise.resolve();
    return new Promise((resolve) => p.exited.push(resolve));
  }

  /** Stops every daemon (TERM, KILL after the grace) and waits for them. Returns how many were stopped. */
  async stopAll(): Promise<{ stopped: number; of: number }> {
    const running = [...this.procs.values()];
    let stopped = 0;
    const waits: Promise<void>[] = [];
    for (const p of running) {
      const had = Boolean(p.child);
      this.sendStop(p, true);
      if (had) {
        stopped++;
        waits.push(this.whenExited(p.id.key));
      }
    }
    await Promise.all(waits);
    return { stopped, of: running.length };
  }

  /** SIGTERM of the service: stop everything and refuse new starts. */
  async close(): Promise<void> {
    this.closed = true;
    await this.stopAll();
  }

  private spawn(p: Proc): Outcome {
    this.clearPending(p);
    p.failure = undefined;
    const path = this.pathOf(p.id.name);
    try {
      accessSync(path, fsConstants.X_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // The client sees no path; the journal has it.
      p.failure =
        code === 'ENOENT'
          ? `Daemon executable ${p.id.name} not found`
          : `Daemon executable ${p.id.name} is not executable (${code})`;
      p.keepAlive = false;
      this.options.journal.record({
        priority: 'err',
        action: 'start-failed',
        message: `'${p.id.key}' cannot start: ${path}: ${code}`,
        daemon: p.id.key,
        monitorId: p.monitorId,
      });
      return { kind: 'failed', message: p.failure };
    }
    // Own process group: a terminal's ^C does not reach the daemons; stops go through us.
    const child = spawn(path, p.id.args, { stdio: 'ignore', detached: true, env: this.options.env ?? process.env });
    if (child.pid === undefined) {
      // spawn() reports its error asynchronously; the pid is missing in that case.
      p.failure = `Daemon ${p.id.name} could not be started`;
      p.keepAlive = false;
      child.once('error', (err) =>
        this.options.journal.record({
          priority: 'err',
          action: 'start-failed',
          message: `'${p.id.key}' cannot start: ${err.message}`,
          daemon: p.id.key,
          monitorId: p.monitorId,
        }),
      );
      return { kind: 'failed', message: p.failure };
    }
    child.on('error', () => {
      // Signals to an exited child: the exit event follows and does the bookkeeping.
    });
    p.child = child;
    p.pid = child.pid;
    p.started = Date.now();
    p.termSentAt = undefined;
    child.once('exit', (code, signal) => this.onExit(p, child, code, signal));
    this.options.journal.record({
      priority: 'info',
      action: 'start',
      message: `'${p.id.key}' starting, pid = ${p.pid}`,
      daemon: p.id.key,
      monitorId: p.monitorId,
      pid: p.pid,
    });
    this.options.onChange?.({ state: 'started', daemon: p.id.key, monitorId: p.monitorId, pid: p.pid });
    return { kind: 'started', pid: p.pid, at: p.started };
  }

  private sendStop(p: Proc, final: boolean): Outcome {
    if (p.pendingAt !== undefined) {
      this.clearPending(p);
      if (final) p.keepAlive = false;
      this.options.journal.record({
        priority: 'info',
        action: 'stop',
        message: `'${p.id.key}' removed from the pending restarts`,
        daemon: p.id.key,
        monitorId: p.monitorId,
      });
      return { kind: 'pending-removed', at: Date.now() };
    }
    if (!p.child || p.pid === undefined) {
      p.keepAlive = !final && p.keepAlive;
      return { kind: 'not-running', state: this.stateOf(p) };
    }
    p.keepAlive = !final;
    const pid = p.pid;
    if (p.termSentAt === undefined) {
      p.termSentAt = Date.now();
      const grace = this.options.stopGraceMs;
      p.killTimer = setTimeout(() => {
        if (p.child && p.pid === pid) {
          this.options.journal.record({
            priority: 'warning',
            action: 'kill',
            message: `'${p.id.key}' has not stopped after ${grace / 1000} seconds. Sending KILL to pid ${pid}`,
            daemon: p.id.key,
            monitorId: p.monitorId,
            pid,
          });
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }, grace);
      p.killTimer.unref();
    }
    this.options.journal.record({
      priority: 'info',
      action: 'stop',
      message: `'${p.id.key}' sending stop to pid ${pid}`,
      daemon: p.id.key,
      monitorId: p.monitorId,
      pid,
    });
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // exited meanwhile; the exit handler runs
    }
    return { kind: 'stop-sent', pid, at: p.termSentAt };
  }

  private onExit(p: Proc, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (p.child !== child) return;
    const stopped = Date.now();
    const runtime = (stopped - (p.started ?? stopped)) / this.secondMs;
    const pid = p.pid;
    p.child = undefined;
    p.termSentAt = undefined;
    if (p.killTimer) clearTimeout(p.killTimer);
    p.killTimer = undefined;
    const exit = describeExit(code, signal);
    this.options.journal.record({
      priority: exit.cause === 'exited normally' || exit.cause === 'exited' ? 'info' : 'err',
      action: 'exit',
      message: `'${p.id.key}' ${exit.text}`,
      daemon: p.id.key,
      monitorId: p.monitorId,
      pid,
      extra: { cause: exit.cause, exit_code: code ?? '', signal: signal ?? '' },
    });
    this.options.onChange?.({ state: 'exited', daemon: p.id.key, monitorId: p.monitorId, cause: exit.text });
    for (const resolve of p.exited.splice(0)) resolve();
    // A final stop keeps the entry as `stopped` (the REST status shows it); forget() drops it.
    if (!p.keepAlive || this.closed) return;
    const max = this.options.maxRestartDelay();
    let wait: number;
    if (!p.delay || runtime > max) {
      wait = 0;
      p.delay = 5;
    } else {
      wait = p.delay;
      p.delay = Math.min(p.delay * 2, max);
    }
    p.restartCount++;
    p.pendingAt = stopped + wait * this.secondMs;
    this.options.journal.record({
      priority: 'notice',
      action: 'restart',
      message: wait === 0 ? `'${p.id.key}' restarting now` : `'${p.id.key}' restarting in ${wait} seconds`,
      daemon: p.id.key,
      monitorId: p.monitorId,
      extra: { delay_seconds: wait },
    });
    this.options.onChange?.({ state: 'restarting', daemon: p.id.key, monitorId: p.monitorId, inSecs: wait });
    p.pendingTimer = setTimeout(() => {
      p.pendingTimer = undefined;
      if (this.procs.get(p.id.key) === p && p.pendingAt !== undefined && !this.closed) this.spawn(p);
    }, wait * this.secondMs);
  }

  private clearPending(p: Proc): void {
    if (p.pendingTimer) clearTimeout(p.pendingTimer);
    p.pendingTimer = undefined;
    p.pendingAt = undefined;
  }

  private stateOf(p: Proc): ProcessState {
    if (p.failure) return 'failed';
    if (p.child) return p.termSentAt !== undefined ? (p.keepAlive ? 'restarting' : 'stopping') : 'running';
    if (p.pendingAt !== undefined) return 'restarting';
    return 'stopped';
  }

  private toStatus(p: Proc): DaemonStatusResponse {
    const out: DaemonStatusResponse = {
      id: p.id.key,
      name: p.id.key,
      state: this.stateOf(p),
      restart_count: p.restartCount,
    };
    if (p.child && p.pid !== undefined) {
      out.pid = p.pid;
      out.uptime_seconds = Math.max(0, Math.floor((Date.now() - (p.started ?? Date.now())) / 1000));
    }
    if (p.monitorId !== undefined) out.monitor_id = p.monitorId;
    return out;
  }

  /** The daemon's failure message, if it failed. */
  failureOf(key: string): string | undefined {
    return this.procs.get(key)?.failure;
  }

  /** When the process started (ms), if running. */
  startedAt(key: string): number | undefined {
    const p = this.procs.get(key);
    return p?.child ? p.started : undefined;
  }
}
