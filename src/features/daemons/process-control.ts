// One supervised daemon's process, for the supervisor (supervisor.ts, which keeps the records and
// their keep-alive): the record, its state as the routes show it, and the hands-on part.
// - Start = run ZM_PATH_BIN/name with the key's arguments, in its own process group.
// - A binary that is missing or not executable makes that daemon `failed`; nothing is retried
//   until it is started again.
// - Stop = TERM, then KILL after the grace; reload = HUP; log rotation = HUP.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';
import { join } from 'node:path';
import type { DaemonId } from './daemon-ids.js';
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

export interface Proc {
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

export interface ProcessControlOptions {
  binDir: string;
  journal: SupervisionJournal;
  /** TERM → KILL grace, milliseconds. */
  stopGraceMs: number;
  /** Environment of the daemons (default: the service's). */
  env?: NodeJS.ProcessEnv;
}

export function clearPending(p: Proc): void {
  if (p.pendingTimer) clearTimeout(p.pendingTimer);
  p.pendingTimer = undefined;
  p.pendingAt = undefined;
}

export function stateOf(p: Proc): ProcessState {
  if (p.failure) return 'failed';
  if (p.child) return p.termSentAt !== undefined ? (p.keepAlive ? 'restarting' : 'stopping') : 'running';
  if (p.pendingAt !== undefined) return 'restarting';
  return 'stopped';
}

export function toStatus(p: Proc): DaemonStatusResponse {
  const out: DaemonStatusResponse = {
    id: p.id.key,
    name: p.id.key,
    state: stateOf(p),
    restart_count: p.restartCount,
  };
  if (p.child && p.pid !== undefined) {
    out.pid = p.pid;
    out.uptime_seconds = Math.max(0, Math.floor((Date.now() - (p.started ?? Date.now())) / 1000));
  }
  if (p.monitorId !== undefined) out.monitor_id = p.monitorId;
  return out;
}

export class ProcessControl {
  constructor(private readonly options: ProcessControlOptions) {}

  /** The executable of a daemon name. */
  pathOf(name: string): string {
    return join(this.options.binDir, name);
  }

  /** Runs the daemon's binary; `onExit` hears that process's exit. */
  spawn(p: Proc, onExit: (child: ChildProcess, code: number | null, signal: NodeJS.Signals | null) => void): Outcome {
    clearPending(p);
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
    child.once('exit', (code, signal) => onExit(child, code, signal));
    this.options.journal.record({
      priority: 'info',
      action: 'start',
      message: `'${p.id.key}' starting, pid = ${p.pid}`,
      daemon: p.id.key,
      monitorId: p.monitorId,
      pid: p.pid,
    });
    return { kind: 'started', pid: p.pid, at: p.started };
  }

  /** TERM now, KILL after the grace; `final` = no keep-alive restart. A pending restart is dropped instead. */
  stop(p: Proc, final: boolean): Outcome {
    if (p.pendingAt !== undefined) {
      clearPending(p);
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
      return { kind: 'not-running', state: stateOf(p) };
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

  signal(p: Proc, signal: NodeJS.Signals): Outcome {
    if (!p.child || p.pid === undefined) return { kind: 'not-running', state: stateOf(p) };
    try {
      process.kill(p.pid, signal);
    } catch {
      return { kind: 'not-running', state: stateOf(p) };
    }
    return { kind: 'signalled', pid: p.pid, signal };
  }
}
