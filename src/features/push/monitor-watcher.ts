// Follows every monitor's capture daemon through its shared memory (all layouts, 1.36–1.39; the
// fields are described in docs/zoneminder/events-lifecycle.md) and Monitor_Status: alarm
// start/end from SharedData.state, and monitor_status when capturing, heartbeat staleness,
// Monitor_Status.Status or the capture-rate threshold change. One reader per monitor is kept
// open and read every `alarmPollMs`; a read is a few hundred bytes copied by the addon, so 64
// monitors at 10 Hz cost little. The monitor list and Monitor_Status come from one query every
// `statusPollSecs`.
import type { Logger } from '../../log.js';
import { isCaptureAlive, SharedMemory, type SharedMemoryState } from '../../native/index.js';
import { notCapturingReason } from '../../zm/live-images.js';
import { nowIso, type AlarmMessage, type MonitorDbStatus, type MonitorStatusMessage } from './messages.js';
import { monitorStatuses, type Queryable } from './push-queries.js';

export interface MonitorWatcherOptions {
  db: Queryable;
  mapDir: string;
  log: Logger;
  alarmPollMs: number;
  statusPollSecs: number;
  fpsThreshold: number;
  publish: (message: AlarmMessage | MonitorStatusMessage) => void;
  /** Called when the set of monitors changed (rooms are re-evaluated). */
  onMonitors?: (ids: ReadonlySet<number>) => void;
  /**
   * False while nobody listens: the shared memory is then neither read nor kept mapped (default:
   * always true). The next scan starts from a fresh baseline.
   */
  active?: () => boolean;
}

/** A missing shared-memory file (zmc not running) is looked for again at most this often. */
const REOPEN_MS = 2000;

interface Watched {
  shm: SharedMemory | null;
  nextOpen: number;
  alarmed: boolean;
  /** The start message of the alarm in progress. */
  alarm: AlarmMessage | null;
  dbStatus: MonitorDbStatus | null;
  dbFps: number | null;
  /** The last status reported (null: not known yet, nothing reported). */
  status: Omit<MonitorStatusMessage, 'v' | 'type' | 'time' | 'monitor_id'> | null;
}

const ALARMED = new Set(['Alarm', 'Alert']);

export class MonitorWatcher {
  readonly #o: MonitorWatcherOptions;
  readonly #monitors = new Map<number, Watched>();
  #ids: ReadonlySet<number> = new Set();
  #loaded = false;
  #timers: NodeJS.Timeout[] = [];

  constructor(options: MonitorWatcherOptions) {
    this.#o = options;
  }

  /** The monitors that exist (from the last successful read of the Monitors table). */
  get ids(): ReadonlySet<number> {
    return this.#ids;
  }

  get loaded(): boolean {
    return this.#loaded;
  }

  /** The last reported status of a monitor, as a message (null when not known yet). */
  statusOf(id: number): MonitorStatusMessage | null {
    const w = this.#monitors.get(id);
    return w?.status ? { v: 1, type: 'monitor_status', monitor_id: id, ...w.status, time: nowIso() } : null;
  }

  /** The start message of the monitor's alarm in progress, or null when it is not alarmed. */
  alarmOf(id: number): AlarmMessage | null {
    return this.#monitors.get(id)?.alarm ?? null;
  }

  async start(): Promise<void> {
    await this.refresh().catch(() => undefined); // retried by the timer
    const status = setInterval(() => void this.refresh().catch(() => undefined), this.#o.statusPollSecs * 1000);
    const shm = setInterval(() => this.#tick(), this.#o.alarmPollMs);
    status.unref();
    shm.unref();
    this.#timers.push(status, shm);
  }

  stop(): void {
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    for (const w of this.#monitors.values()) w.shm?.close();
    this.#monitors.clear();
  }

  /** Re-reads Monitors + Monitor_Status. A failure keeps the last known list. */
  async refresh(): Promise<void> {
    let rows;
    try {
      rows = await monitorStatuses(this.#o.db);
    } catch (err) {
      this.#o.log.debug({ err: { message: (err as Error).message } }, 'push: monitor list unavailable');
      throw err;
    }
    const ids = new Set<number>();
    for (const row of rows) {
      const id = Number(row.Id);
      ids.add(id);
      let w = this.#monitors.get(id);
      if (!w) {
        w = { shm: null, nextOpen: 0, alarmed: false, alarm: null, dbStatus: null, dbFps: null, status: null };
        this.#monitors.set(id, w);
      }
      w.dbStatus = row.Status ?? null;
      w.dbFps = row.CaptureFPS === null || row.CaptureFPS === undefined ? null : Number(row.CaptureFPS);
    }
    for (const [id, w] of this.#monitors) {
      if (ids.has(id)) continue;
      w.shm?.close();
      this.#monitors.delete(id);
    }
    const changed = ids.size !== this.#ids.size || [...ids].some((id) => !this.#ids.has(id));
    this.#ids = ids;
    this.#loaded = true;
    if (changed) this.#o.onMonitors?.(ids);
    this.#tick(); // status from the fresh rows at once
  }

  #tick(): void {
    if (this.#o.active?.() ?? true) {
      this.scan();
      return;
    }
    for (const w of this.#monitors.values()) {
      w.shm?.close();
      Object.assign(w, { shm: null, nextOpen: 0, alarmed: false, alarm: null, status: null });
    }
  }

  /** One round over every monitor's shared memory (exposed for tests). */
  scan(): void {
    const now = Date.now();
    for (const [id, w] of this.#monitors) {
      const state = this.#read(id, w, now);
      this.#alarm(id, w, state);
      this.#status(id, w, state, now);
    }
  }

  #read(id: number, w: Watched, now: number): SharedMemoryState | null {
    if (!w.shm) {
      if (now < w.nextOpen) return null;
      w.nextOpen = now + REOPEN_MS;
      try {
        w.shm = SharedMemory.open({ mapDir: this.#o.mapDir, monitorId: id });
      } catch {
        return null; // not running, starting, or not readable: reported as not capturing
      }
    }
    try {
      return w.shm.read();
    } catch {
      w.shm.close();
      w.shm = null;
      w.nextOpen = now + REOPEN_MS;
      return null;
    }
  }

  #alarm(id: number, w: Watched, state: SharedMemoryState | null): void {
    const alarmed = state !== null && state.valid && ALARMED.has(state.state);
    if (alarmed === w.alarmed) return;
    w.alarmed = alarmed;
    // A forced alarm's score and cause are in TriggerData until the analysis writes its own.
    const forced = state?.trigger.state === 'on';
    const message: AlarmMessage = {
      v: 1,
      type: 'alarm',
      monitor_id: id,
      phase: alarmed ? 'start' : 'end',
      state: state?.valid ? state.state : 'Unknown',
      score: alarmed ? state!.alarm.score || (forced ? state!.trigger.score : 0) : 0,
      cause: (state?.alarm.cause || (forced ? state!.trigger.cause : '')) ?? '',
      time: nowIso(),
    };
    w.alarm = alarmed ? message : null;
    this.#o.publish(message);
  }

  #status(id: number, w: Watched, state: SharedMemoryState | null, now: number): void {
    const capturing = state !== null && notCapturingReason(state, now) === null;
    const heartbeatStale = state !== null && state.valid && !isCaptureAlive(state, 45, now);
    const fps = state?.valid ? state.captureFps : w.dbFps;
    const next = {
      capturing,
      heartbeat_stale: heartbeatStale,
      status: w.dbStatus,
      capture_fps: fps === null ? null : Math.round(fps * 100) / 100,
      fps_below_threshold: capturing && fps !== null && fps < this.#o.fpsThreshold,
    };
    const prev = w.status;
    w.status = next;
    // The first observation is the baseline; afterwards only a change is news (not every fps wobble).
    if (
      prev === null ||
      (prev.capturing === next.capturing &&
        prev.heartbeat_stale === next.heartbeat_stale &&
        prev.status === next.status &&
        prev.fps_below_threshold === next.fps_below_threshold)
    ) {
      return;
    }
    this.#o.publish({ v: 1, type: 'monitor_status', monitor_id: id, ...next, time: nowIso() });
  }
}
