// The process supervisor of takeover mode: zmdc.pl's job (docs/zoneminder/daemons.md). It keeps
// one record per daemon, keyed "name arg1 arg2", and decides when its process runs; starting,
// stopping and signalling that process is process-control.ts.
// - Keep-alive back-off as zmdc's reaper: the first exit, or an exit after a run longer than
//   ZM_MAX_RESTART_DELAY, restarts at once and sets the delay to 5 s; a quicker exit waits the
//   delay, which then doubles up to ZM_MAX_RESTART_DELAY.
// - Exit causes: signal TERM or ALRM "exited", any other signal "crashed", a non-zero status
//   "exited abnormally", zero "exited normally".
// `secondMs` is the length of zmdc's second for back-off and run times, so tests can run a
// crash loop in a few seconds. `onChange` hears every start, exit and scheduled restart (the
// composition root forwards them to the push clients).
import type { ChildProcess } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { monitorIdOf, type DaemonId } from './daemon-ids.js';
import {
  clearPending,
  ProcessControl,
  toStatus,
  type DaemonStatusResponse,
  type Outcome,
  type Proc,
  type ProcessControlOptions,
} from './process-control.js';

/** A daemon started, exited (with zmdc's wording of the cause) or waits for its back-off restart. */
export type DaemonChange =
  | { state: 'started'; daemon: string; monitorId?: number; pid: number }
  | { state: 'exited'; daemon: string; monitorId?: number; cause: string }
  | { state: 'restarting'; daemon: string; monitorId?: number; inSecs: number };

export interface SupervisorOptions extends ProcessControlOptions {
  /** ZM_MAX_RESTART_DELAY in (zmdc) seconds, read at each exit. */
  maxRestartDelay: () => number;
  /** Milliseconds per zmdc second for back-off and run times (default 1000). */
  secondMs?: number;
  /** Told of each start, exit and scheduled restart; must not throw. */
  onChange?: (change: DaemonChange) => void;
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
  private readonly processes: ProcessControl;
  private readonly secondMs: number;
  private closed = false;

  constructor(private readonly options: SupervisorOptions) {
    this.processes = new ProcessControl(options);
    this.secondMs = options.secondMs ?? 1000;
  }

  /** The executable of a daemon name. */
  pathOf(name: string): string {
    return this.processes.pathOf(name);
  }

  keys(): string[] {
    return [...this.procs.keys()];
  }

  has(key: string): boolean {
    return this.procs.has(key);
  }

  status(key: string): DaemonStatusResponse | undefined {
    const p = this.procs.get(key);
    return p && toStatus(p);
  }

  list(): DaemonStatusResponse[] {
    return [...this.procs.values()]
      .map((p) => toStatus(p))
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
    return this.processes.stop(p, true);
  }

  /** Stop with keep-alive, so the exit handler starts it again; starts it when it is not running. */
  restart(id: DaemonId): Outcome {
    const p = this.procs.get(id.key);
    if (!p || !p.child) {
      if (p) clearPending(p);
      return this.start(id);
    }
    return this.processes.stop(p, false);
  }

  reload(key: string): Outcome {
    return this.signal(key, 'SIGHUP');
  }

  signal(key: string, signal: NodeJS.Signals): Outcome {
    const p = this.procs.get(key);
    if (!p) return { kind: 'unknown' };
    return this.processes.signal(p, signal);
  }

  /** Forgets a stopped daemon (the reconciler drops removed monitors this way). */
  forget(key: string): void {
    const p = this.procs.get(key);
    if (p && !p.child) {
      clearPending(p);
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
      this.processes.stop(p, true);
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
    const outcome = this.processes.spawn(p, (child, code, signal) => this.onExit(p, child, code, signal));
    if (outcome.kind === 'started')
      this.options.onChange?.({ state: 'started', daemon: p.id.key, monitorId: p.monitorId, pid: outcome.pid });
    return outcome;
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
