// zmwatch.pl's job: a capture daemon that is running but no longer alive is restarted, with the
// reason logged. Every ZM_WATCH_CHECK_INTERVAL seconds, for each `zmc -m N` that has run longer
// than ZM_WATCH_MAX_DELAY (so start-up is never mistaken for a hang), its shared memory must be
// valid, its heartbeat younger than ZM_WATCH_MAX_DELAY and, when capturing Always, its last
// image too (docs/zoneminder/daemons.md, "Hang detection").
import { SharedMemory, ZmNativeError } from '../../native/index.js';
import type { DesiredDaemon } from './desired-daemons.js';
import type { SupervisionJournal } from './journal.js';
import type { Supervisor } from './supervisor.js';

export interface WatchedCapture {
  key: string;
  monitorId: number;
  capturing: 'Always' | 'Ondemand';
  /** ms since the epoch. */
  startedAt: number;
}

/** Why a capture daemon counts as hung, or null when it is alive. */
export function hangReason(mapDir: string, c: WatchedCapture, maxDelaySecs: number, nowMs = Date.now()): string | null {
  if (nowMs - c.startedAt < maxDelaySecs * 1000) return null;
  let shm: SharedMemory | undefined;
  try {
    shm = SharedMemory.open({ mapDir, monitorId: c.monitorId });
    const s = shm.read();
    if (!s.valid) return 'shared memory not valid';
    const now = nowMs / 1000;
    const heartbeat = now - s.heartbeatTime;
    if (heartbeat > maxDelaySecs)
      return `heartbeat ${Math.round(heartbeat)} s old (ZM_WATCH_MAX_DELAY ${maxDelaySecs} s)`;
    if (c.capturing === 'Always') {
      if (!s.lastWriteTime) return `no image since start-up ${Math.round(now - c.startedAt / 1000)} s ago`;
      const image = now - s.lastWriteTime;
      if (image > maxDelaySecs) return `last image ${Math.round(image)} s old (ZM_WATCH_MAX_DELAY ${maxDelaySecs} s)`;
    }
    return null;
  } catch (err) {
    const code = err instanceof ZmNativeError ? err.code : '';
    if (code === 'ERR_ZM_SHM_MISSING') return 'no shared memory';
    if (code === 'ERR_ZM_SHM_INVALID') return 'shared memory not valid';
    if (code === 'ERR_ZM_SHM_LAYOUT') return 'shared memory of an unknown layout';
    // Permission and other read problems are ours, not the daemon's: no restart.
    return null;
  } finally {
    shm?.close();
  }
}

/**
 * One zmwatch pass over the wanted capture daemons: each running one found hung is restarted,
 * with the reason in the journal.
 */
export function watchPass(
  desired: Iterable<DesiredDaemon>,
  supervisor: Pick<Supervisor, 'startedAt' | 'status' | 'restart'>,
  journal: Pick<SupervisionJournal, 'record'>,
  mapDir: string,
  maxDelaySecs: number,
): void {
  for (const d of desired) {
    if (d.id.name !== 'zmc' || d.monitorId === undefined || !d.capturing) continue;
    const startedAt = supervisor.startedAt(d.id.key);
    if (startedAt === undefined || supervisor.status(d.id.key)?.state !== 'running') continue;
    const reason = hangReason(
      mapDir,
      { key: d.id.key, monitorId: d.monitorId, capturing: d.capturing, startedAt },
      maxDelaySecs,
    );
    if (!reason) continue;
    journal.record({
      priority: 'warning',
      action: 'hang',
      message: `'${d.id.key}' is not capturing: ${reason}; restarting it`,
      daemon: d.id.key,
      monitorId: d.monitorId,
      extra: { reason },
    });
    supervisor.restart(d.id);
  }
}
