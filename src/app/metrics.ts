// The gauges read when Prometheus scrapes (docs/operations/metrics.md): each reads state the
// features already keep, so nothing here adds work between scrapes. Registered by the composition
// root only when metrics are on.
import type { DbGate } from '../db/bounded.js';
import { isCaptureAlive, SharedMemory } from '../native/index.js';
import type { Sample } from '../metrics.js';
import type { Services } from '../registry.js';
import { Maintenance } from '../features/maintenance/index.js';
import { PushService } from '../features/push/push-service.js';
import { RetentionService } from '../features/retention/retention-service.js';

const ALARMED = new Set(['Alarm', 'Alert']);

export function registerMetrics(services: Services, gate: DbGate | undefined): void {
  const { metrics, pool, live, config } = services;
  if (!metrics.enabled) return;

  // Database --------------------------------------------------------------------------------------
  metrics.gauge({
    name: 'zmgate_db_pool_connections',
    help: 'Connections of the driver pool (the hand-written queries: auth, polled lists), by state',
    labelNames: ['state'],
    read: () => [
      [{ state: 'active' }, pool.activeConnections()],
      [{ state: 'idle' }, pool.idleConnections()],
    ],
  });
  metrics.gauge({
    name: 'zmgate_db_pool_waiting',
    help: 'Statements waiting for a connection of the driver pool',
    read: () => [[{}, pool.taskQueueSize()]],
  });
  if (gate) {
    metrics.gauge({
      name: 'zmgate_db_gate_closed',
      help: '1 while the database is found not answering and statements fail at once (503), else 0',
      read: () => [[{}, gate.closed ? 1 : 0]],
    });
  }

  // Cameras: each monitor's capture daemon, through its shared memory -----------------------------
  const cameras = async (): Promise<Map<string, Sample[]>> => {
    const out = new Map<string, Sample[]>([
      ['up', []],
      ['fps', []],
      ['age', []],
      ['alarm', []],
    ]);
    const rows = (await pool.query('SELECT Id FROM Monitors ORDER BY Id')) as { Id: number }[];
    const now = Date.now();
    for (const { Id } of rows) {
      const labels = { monitor: Id };
      let shm: SharedMemory | null = null;
      try {
        shm = SharedMemory.open({ mapDir: config.zoneminder.path_map, monitorId: Id });
        const s = shm.read();
        const alive = isCaptureAlive(s, 45, now);
        out.get('up')!.push([labels, alive ? 1 : 0]);
        out.get('fps')!.push([labels, alive ? s.captureFps : 0]);
        if (s.lastWriteTime > 0) out.get('age')!.push([labels, Math.max(0, now / 1000 - s.lastWriteTime)]);
        out.get('alarm')!.push([labels, ALARMED.has(s.state) ? 1 : 0]);
      } catch {
        // No shared memory (zmc not running, or not readable by this user): not capturing.
        out.get('up')!.push([labels, 0]);
        out.get('fps')!.push([labels, 0]);
        out.get('alarm')!.push([labels, 0]);
      } finally {
        shm?.close();
      }
    }
    return out;
  };
  // One read of every monitor per scrape, shared by the four gauges.
  let scrape: { at: number; value: Promise<Map<string, Sample[]>> } | null = null;
  const camera = (key: string) => async () => {
    if (!scrape || Date.now() - scrape.at > 1000) scrape = { at: Date.now(), value: cameras() };
    return (await scrape.value).get(key) ?? [];
  };
  metrics.gauge({
    name: 'zmgate_camera_up',
    help: "1 when the monitor's capture daemon is running (valid shared memory, heartbeat under 45 s), else 0",
    labelNames: ['monitor'],
    read: camera('up'),
  });
  metrics.gauge({
    name: 'zmgate_camera_capture_fps',
    help: 'Capture rate the capture daemon reports (0 when it is not running)',
    labelNames: ['monitor'],
    read: camera('fps'),
  });
  metrics.gauge({
    name: 'zmgate_camera_last_frame_age_seconds',
    help: 'Seconds since the capture daemon wrote its newest image',
    labelNames: ['monitor'],
    read: camera('age'),
  });
  metrics.gauge({
    name: 'zmgate_camera_alarm',
    help: '1 while the monitor is in alarm (state Alarm or Alert), else 0',
    labelNames: ['monitor'],
    read: camera('alarm'),
  });

  // Live video ------------------------------------------------------------------------------------
  metrics.gauge({
    name: 'zmgate_live_viewers',
    help: "Viewers of each monitor's shared stream reader, by transport",
    labelNames: ['monitor', 'transport'],
    read: () =>
      live.sources().flatMap((source): Sample[] => {
        const feed = live.feed(source.monitor_id);
        if (!feed) return [];
        return Object.entries(feed.viewers).map(([transport, n]) => [{ monitor: source.monitor_id, transport }, n]);
      }),
  });
  metrics.gauge({
    name: 'zmgate_live_readers',
    help: 'Open stream-socket readers (one per monitor being watched)',
    read: () => [[{}, live.sources().length]],
  });
  metrics.gauge({
    name: 'zmgate_live_hls_sessions',
    help: 'Monitors with a live HLS packager running',
    read: () => [[{}, live.sessionIds().length]],
  });

  // Push ------------------------------------------------------------------------------------------
  if (config.push.enabled) {
    metrics.gauge({
      name: 'zmgate_push_clients',
      help: 'Connected socket.io push clients',
      read: () => [[{}, services.get(PushService).clientCount]],
    });
  }

  // Jobs ------------------------------------------------------------------------------------------
  const jobs = () => services.get(Maintenance).status();
  const seconds = (iso: string | null) => (iso ? Date.parse(iso) / 1000 : null);
  metrics.gauge({
    name: 'zmgate_job_last_run_timestamp_seconds',
    help: 'When the job’s last pass finished (Unix seconds), by job',
    labelNames: ['job'],
    read: async () => {
      const out: Sample[] = jobs().flatMap((j): Sample[] => {
        const at = seconds(j.last_run_finished_at);
        return at === null ? [] : [[{ job: j.name }, at]];
      });
      const pass = services.get(RetentionService).lastPass;
      if (pass) out.push([{ job: 'retention' }, Date.parse(pass.finished_at) / 1000]);
      return out;
    },
  });
  metrics.gauge({
    name: 'zmgate_job_last_duration_seconds',
    help: 'How long the job’s last pass took, by job',
    labelNames: ['job'],
    read: () => {
      const out: Sample[] = jobs().flatMap((j): Sample[] =>
        j.last_duration_ms === null ? [] : [[{ job: j.name }, j.last_duration_ms / 1000]],
      );
      const pass = services.get(RetentionService).lastPass;
      if (pass) out.push([{ job: 'retention' }, (Date.parse(pass.finished_at) - Date.parse(pass.started_at)) / 1000]);
      return out;
    },
  });
  metrics.gauge({
    name: 'zmgate_job_last_failed',
    help: '1 when the job’s last pass failed or was cut short, else 0, by job',
    labelNames: ['job'],
    read: () => {
      const out: Sample[] = jobs()
        .filter((j) => j.runs > 0)
        .map((j): Sample => [{ job: j.name }, j.last_error === null ? 0 : 1]);
      const pass = services.get(RetentionService).lastPass;
      if (pass) out.push([{ job: 'retention' }, pass.outcome === 'completed' ? 0 : 1]);
      return out;
    },
  });
  metrics.gauge({
    name: 'zmgate_job_last_count',
    help: 'What the job’s last pass did, by job and counter (the audit’s deletions, the retention pass’s deleted events and bytes freed, ...)',
    labelNames: ['job', 'count'],
    read: () => {
      const out: Sample[] = jobs().flatMap((j): Sample[] =>
        Object.entries(j.last_counts ?? {}).map(([count, n]): Sample => [{ job: j.name, count }, n]),
      );
      const pass = services.get(RetentionService).lastPass;
      if (pass) {
        out.push([{ job: 'retention', count: 'deleted' }, pass.deleted]);
        out.push([{ job: 'retention', count: 'bytes_freed' }, pass.bytes_freed]);
      }
      return out;
    },
  });
}
