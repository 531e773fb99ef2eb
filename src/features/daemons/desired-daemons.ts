// What `zmpkg.pl start` would start on this host, computed from the database
// (docs/zoneminder/daemons.md, "What runs"). Differences on purpose: no zmwatch.pl (the hang
// detector does its job) and no zmaudit/zmstats/zmtelemetry when zmgate's own maintenance job of
// that name is enabled. Each daemon carries a fingerprint of the row values it depends on, so
// the reconciler restarts a daemon whose monitor changed.
import { daemonId, type DaemonId } from './daemon-ids.js';
import type { AppConfig } from '../../config/types.js';
import type { DaemonQueries, MonitorDaemonRow, ServerFlags, ZmConfig } from './daemons-queries.js';

export interface DesiredDaemon {
  id: DaemonId;
  monitorId?: number;
  /** Changes when the daemon must be restarted to pick up its configuration. */
  fingerprint: string;
  /** zmc only: the capture mode the hang detector holds it to. */
  capturing?: 'Always' | 'Ondemand';
}

export interface DesiredInput {
  monitors: MonitorDaemonRow[];
  filters: number[];
  config: ZmConfig;
  /** This host's Servers row in a multi-server install; null for a single server. */
  server: ServerFlags | null;
  /** zmgate's maintenance jobs that replace a ZoneMinder daemon. */
  jobs: { stats: boolean; audit: boolean; telemetry: boolean };
  /** A 1.36 schema (Function, no Capturing column). */
  legacy: boolean;
}

/** Perl truthiness of a Config value. */
const on = (v: string | undefined) => v !== undefined && v !== '' && v !== '0';
/** A per-server switch: absent or NULL means not turned off. */
const serverAllows = (server: ServerFlags | null, flag: keyof ServerFlags) =>
  !server || server[flag] === null || server[flag] !== 0;

/** Local device paths zmdc accepts as an argument. */
const DEVICE = /^\/dev\/[\w/.-]+$/;

interface Modes {
  capturing: string;
  analysing: string;
}

/** ≥ 1.38 (Capturing column present): Capturing/Analysing; 1.36: from Function. */
function modesOf(m: MonitorDaemonRow): Modes | null {
  if (m.Capturing !== null) {
    if (m.Deleted) return null;
    return { capturing: m.Capturing, analysing: m.Analysing ?? 'None' };
  }
  const fn = m.Function ?? 'None';
  if (fn === 'None') return { capturing: 'None', analysing: 'None' };
  return { capturing: 'Always', analysing: fn === 'Modect' || fn === 'Mocord' ? 'Always' : 'None' };
}

export function desiredDaemons(input: DesiredInput): Map<string, DesiredDaemon> {
  const out = new Map<string, DesiredDaemon>();
  const add = (d: DesiredDaemon) => out.set(d.id.key, d);
  const { config } = input;

  for (const m of input.monitors) {
    if (input.server && m.ServerId !== input.server.Id) continue;
    const modes = modesOf(m);
    if (!modes || modes.capturing === 'None' || m.Type === 'WebSite') continue;
    const zmcArgs = m.Type === 'Local' ? ['-d', m.Device] : ['-m', String(m.Id)];
    if (m.Type === 'Local' && !DEVICE.test(m.Device)) continue;
    const fingerprint = JSON.stringify([
      m.Type,
      m.Device,
      m.Path,
      m.Function,
      m.Capturing,
      m.Analysing,
      m.Recording,
      m.Enabled,
    ]);
    const zmc = daemonId('zmc', zmcArgs);
    // Several Local monitors on one device share one zmc -d; the first row's fingerprint wins.
    if (!out.has(zmc.key)) {
      add({
        id: zmc,
        monitorId: m.Type === 'Local' ? undefined : m.Id,
        fingerprint,
        capturing: modes.capturing === 'Ondemand' ? 'Ondemand' : 'Always',
      });
    }
    if (on(config.ZM_OPT_CONTROL) && m.Controllable) {
      add({
        id: daemonId('zmcontrol.pl', ['--id', String(m.Id)]),
        monitorId: m.Id,
        fingerprint: JSON.stringify([m.Controllable]),
      });
      if (m.TrackMotion && modes.analysing !== 'None') {
        add({
          id: daemonId('zmtrack.pl', ['-m', String(m.Id)]),
          monitorId: m.Id,
          fingerprint: JSON.stringify([m.TrackMotion, modes.analysing]),
        });
      }
    }
  }

  for (const id of input.filters)
    add({ id: daemonId('zmfilter.pl', [`--filter_id=${id}`, '--daemon']), fingerprint: '' });
  // 1.36 runs one plain zmfilter.pl when no filter is in the background.
  if (input.filters.length === 0 && input.legacy) add({ id: daemonId('zmfilter.pl'), fingerprint: '' });

  if (on(config.ZM_RUN_AUDIT) && !input.jobs.audit && serverAllows(input.server, 'zmaudit'))
    add({ id: daemonId('zmaudit.pl', ['-c']), fingerprint: '' });
  if (on(config.ZM_OPT_TRIGGERS) && serverAllows(input.server, 'zmtrigger'))
    add({ id: daemonId('zmtrigger.pl'), fingerprint: '' });
  if (on(config.ZM_OPT_X10)) add({ id: daemonId('zmx10.pl', ['-c', 'start']), fingerprint: '' });
  if (on(config.ZM_CHECK_FOR_UPDATES)) add({ id: daemonId('zmupdate.pl', ['-c']), fingerprint: '' });
  if (on(config.ZM_TELEMETRY_DATA) && !input.jobs.telemetry) add({ id: daemonId('zmtelemetry.pl'), fingerprint: '' });
  if (on(config.ZM_OPT_USE_EVENTNOTIFICATION) && serverAllows(input.server, 'zmeventnotification'))
    add({ id: daemonId('zmeventnotification.pl'), fingerprint: '' });
  if (!input.jobs.stats && serverAllows(input.server, 'zmstats')) add({ id: daemonId('zmstats.pl'), fingerprint: '' });
  if (on(config.ZM_MIN_RTSP_PORT)) add({ id: daemonId('zm_rtsp_server'), fingerprint: '' });
  return out;
}

/**
 * Reads what desiredDaemons() needs and computes it: the monitors, the background filters,
 * ZoneMinder's options and this host's Servers row (`noServer` is called when
 * daemon.server_host names none; every monitor then runs as on a single server).
 */
export async function readDesired(
  queries: DaemonQueries,
  config: Pick<AppConfig, 'daemon' | 'maintenance'>,
  noServer: () => void,
): Promise<{ desired: Map<string, DesiredDaemon>; zm: ZmConfig; serverId: number | undefined }> {
  const cols = await queries.columns();
  const [monitors, filters, zm] = await Promise.all([
    queries.monitors(cols),
    queries.backgroundFilters(),
    queries.config(),
  ]);
  const host = config.daemon.server_host;
  const server = host ? await queries.server(host, cols) : null;
  if (host && !server) noServer();
  const m = config.maintenance;
  const desired = desiredDaemons({
    monitors,
    filters,
    config: zm,
    server,
    jobs: { stats: m.stats.enabled, audit: m.audit.enabled, telemetry: m.telemetry.enabled },
    legacy: !cols.has('Monitors.Capturing'),
  });
  return { desired, zm, serverId: server?.Id };
}
