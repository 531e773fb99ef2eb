// The REST side of daemon supervision: daemon listing and actions, the /system routes and
// PATCH /monitors/{id}/state. Thin over DaemonManager; in passive mode (no manager) every
// supervision route is a 503 "daemon manager not available".
import type { ClusterServerStatus } from '../../infra/cluster/cluster-lists.js';
import { InvalidInputError, NotFoundError, ServiceUnavailableError } from '../../errors.js';
import { badArgument, daemonId, parseDaemonKey, type DaemonId } from './daemon-ids.js';
import { type DaemonManager, Daemons } from './daemon-manager.js';
import type { DaemonStatusResponse, Outcome } from './process-control.js';
import type { Services } from '../../registry.js';

export type { DaemonStatusResponse } from './process-control.js';

export interface DaemonListResponse {
  daemons: DaemonStatusResponse[];
  /** `scope=cluster` only: every host asked, and whether its daemons are in the list. */
  servers?: ClusterServerStatus[];
}

export interface DaemonActionResponse {
  success: boolean;
  message: string;
}

export interface StartDaemonRequest {
  /** Arguments appended to those in the id; each must match zmdc's pattern `^-{0,2}[\w/?&=.-]+$`. */
  args?: string[] | null;
}

export function requireManager(manager: DaemonManager | null): DaemonManager {
  if (!manager)
    throw new ServiceUnavailableError('Daemon manager not available', [
      ['daemon.enabled', 'false (passive mode: zoneminder.service runs the daemons)'],
    ]);
  return manager;
}

function parseId(id: string): DaemonId {
  const parsed = parseDaemonKey(id);
  if (!parsed)
    throw new NotFoundError(`Daemon ${id.slice(0, 80)} not found`, [['daemon_id', id.slice(0, 80)]], 'CONFIG');
  return parsed;
}

/** An id the supervisor knows, or 404. */
function known(manager: DaemonManager, id: string): DaemonId {
  const parsed = parseId(id);
  if (!manager.status(parsed.key))
    throw new NotFoundError(`Daemon ${parsed.key} not found`, [['daemon_id', parsed.key]], 'CONFIG');
  return parsed;
}

const notRunning = (key: string, o: Outcome): DaemonActionResponse => ({
  success: false,
  message: `Daemon ${key} is not running (state: ${o.kind === 'not-running' ? o.state : 'stopped'})`,
});

export class DaemonsService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): DaemonsService {
    return new DaemonsService(s.get(Daemons));
  }

  constructor(private readonly manager: DaemonManager | null) {}

  list(): DaemonListResponse {
    return { daemons: requireManager(this.manager).list() };
  }

  get(id: string): DaemonStatusResponse {
    const m = requireManager(this.manager);
    return m.status(known(m, id).key)!;
  }

  start(id: string, body?: StartDaemonRequest | null): DaemonActionResponse {
    const m = requireManager(this.manager);
    const base = parseId(id);
    const extra = body?.args ?? [];
    const bad = badArgument(extra);
    if (bad !== null)
      throw new InvalidInputError('Invalid input', [
        ['args', `"${bad.slice(0, 40)}" does not match ^-{0,2}[\\w/?&=.-]+$`],
      ]);
    const target = daemonId(base.name, [...base.args, ...extra]);
    const o = m.start(target);
    switch (o.kind) {
      case 'started':
        return { success: true, message: `Started ${target.key} (PID ${o.pid})` };
      case 'already-running':
        return { success: true, message: `Daemon ${target.key} is already running (PID ${o.pid})` };
      case 'was-terminating':
        return { success: true, message: `Daemon ${target.key} was stopping (PID ${o.pid}); it will be started again` };
      case 'failed':
        return { success: false, message: o.message };
      default:
        return { success: false, message: `Daemon ${target.key} could not be started` };
    }
  }

  stop(id: string): DaemonActionResponse {
    const m = requireManager(this.manager);
    const { key } = known(m, id);
    const o = m.stop(key);
    if (o.kind === 'stop-sent')
      return { success: true, message: `Sent stop signal to ${key} (PID ${o.pid}), waiting for graceful shutdown` };
    if (o.kind === 'pending-removed') return { success: true, message: `Cancelled the pending restart of ${key}` };
    return notRunning(key, o);
  }

  restart(id: string): DaemonActionResponse {
    const m = requireManager(this.manager);
    const target = known(m, id);
    const o = m.restart(target);
    if (o.kind === 'stop-sent')
      return { success: true, message: `Restarting ${target.key}: sent stop signal to PID ${o.pid}` };
    if (o.kind === 'started') return { success: true, message: `Started ${target.key} (PID ${o.pid})` };
    if (o.kind === 'failed') return { success: false, message: o.message };
    return { success: false, message: `Daemon ${target.key} could not be restarted` };
  }

  reload(id: string): DaemonActionResponse {
    const m = requireManager(this.manager);
    const { key } = known(m, id);
    const o = m.reload(key);
    if (o.kind === 'signalled')
      return { success: true, message: `Sent reload signal (SIGHUP) to ${key} (PID ${o.pid})` };
    return notRunning(key, o);
  }

  /** PATCH /monitors/{id}/state: start/stop/restart the monitor's zmc; a failure is an error response. */
  monitorAction(monitor: { id: number; type: string; device: string }, action: 'start' | 'stop' | 'restart'): void {
    if (!this.manager) {
      throw new ServiceUnavailableError(
        'Daemon manager not available: starting and stopping monitors needs takeover mode',
        [
          ['monitor_id', String(monitor.id)],
          ['state', action],
        ],
      );
    }
    const id =
      monitor.type === 'Local' ? daemonId('zmc', ['-d', monitor.device]) : daemonId('zmc', ['-m', String(monitor.id)]);
    const o =
      action === 'start'
        ? this.manager.start(id)
        : action === 'stop'
          ? this.manager.stop(id.key)
          : this.manager.restart(id);
    if (o.kind === 'failed') {
      throw new ServiceUnavailableError(
        `The capture daemon of monitor ${monitor.id} could not be started: ${o.message}`,
        [
          ['monitor_id', String(monitor.id)],
          ['daemon', id.key],
        ],
      );
    }
  }
}
