// The telemetry job (replaces zmtelemetry.pl; see docs/operations/maintenance.md). Posts
// ZoneMinder's anonymous usage report to ZM_TELEMETRY_SERVER_ENDPOINT when ZM_TELEMETRY_DATA is 1
// and the interval since ZM_TELEMETRY_LAST_UPLOAD has passed. Differences from the Perl agent:
// no geolocation lookup (the five location fields are the literal "Unknown"), no monitor names,
// camera paths scrubbed, and a failed upload is retried sooner than the full interval.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import type { DbPool } from '../../db/pool.js';
import type { Logger } from '../../log.js';
import type { JobCounts, MaintenanceJob } from './scheduler.js';
import { parseIntervalProduct, readZmSettings } from './zm-settings.js';

const SETTINGS = [
  'ZM_TELEMETRY_DATA',
  'ZM_TELEMETRY_INTERVAL',
  'ZM_TELEMETRY_UUID',
  'ZM_TELEMETRY_LAST_UPLOAD',
  'ZM_TELEMETRY_SERVER_ENDPOINT',
  'ZM_DYN_CURR_VERSION',
  'ZM_DYN_DB_VERSION',
  'ZM_OPT_USE_EVENTNOTIFICATION',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UNKNOWN = 'Unknown';
/** The first retry after a failed upload; doubles up to the interval. */
const RETRY_SECONDS = 3600;

export interface TelemetryJobOptions {
  pool: DbPool;
  log: Logger;
  enabled: boolean;
  /** Used when ZM_TELEMETRY_INTERVAL cannot be parsed. */
  intervalSeconds: number;
  timeoutMs?: number;
  now?: () => Date;
}

/**
 * A camera path reduced to its scheme and path shape: credentials, host, port, query and
 * fragment dropped, digit runs (channel numbers, ids) turned into 0. A path that is not a URL is
 * dropped (null), except a local device path.
 */
export function scrubPath(raw: string | null | undefined, type: string | null | undefined): string | null {
  const value = (raw ?? '').trim();
  if (!value) return null;
  if (type === 'Local' && value.startsWith('/dev/')) return value.replace(/\d+/g, '0');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (!/^[a-z][a-z0-9+.-]*:$/i.test(url.protocol)) return null;
  const shape = decodeURIComponent(url.pathname)
    .replace(/\d+/g, '0')
    .replace(/[^A-Za-z0-9/_.-]/g, '_');
  return `${url.protocol}//${url.host ? 'host' : ''}${shape}`;
}

function distro(): { distro: string; version: string } {
  try {
    const text = readFileSync('/etc/os-release', 'utf8');
    const get = (k: string) => new RegExp(`^${k}="?([^"\\n]*)"?`, 'm').exec(text)?.[1];
    return { distro: get('NAME') ?? 'Unknown Linux Distro', version: get('VERSION_ID') ?? 'Unknown Linux Version' };
  } catch {
    return { distro: 'Unknown Linux Distro', version: 'Unknown Linux Version' };
  }
}

export class TelemetryJob implements MaintenanceJob {
  readonly name = 'telemetry' as const;
  readonly legacyDaemon = 'zmtelemetry.pl';
  readonly enabled: boolean;
  private failures = 0;
  private readonly now: () => Date;

  constructor(private readonly o: TelemetryJobOptions) {
    this.enabled = o.enabled;
    this.now = o.now ?? (() => new Date());
  }

  /** The interval from ZM_TELEMETRY_INTERVAL, or the configured one (with a warning). */
  private interval(settings: Map<string, string>): number {
    const raw = settings.get('ZM_TELEMETRY_INTERVAL');
    const parsed = parseIntervalProduct(raw);
    if (parsed === null) {
      this.o.log.warn(
        { job: 'telemetry', ZM_TELEMETRY_INTERVAL: (raw ?? '').slice(0, 64), used_seconds: this.o.intervalSeconds },
        'ZM_TELEMETRY_INTERVAL is not a number or a product of numbers; using maintenance.telemetry.interval_seconds',
      );
      return this.o.intervalSeconds;
    }
    return parsed;
  }

  /** Seconds until the next report is due (sooner after a failure). */
  async intervalSeconds(): Promise<number> {
    const settings = await readZmSettings(this.o.pool, SETTINGS);
    const interval = this.interval(settings);
    if (this.failures) return Math.min(interval, RETRY_SECONDS * 2 ** (this.failures - 1));
    const last = Number(settings.get('ZM_TELEMETRY_LAST_UPLOAD') || 0);
    return Math.max(60, last + interval - Math.floor(this.now().getTime() / 1000));
  }

  async run(): Promise<JobCounts> {
    const settings = await readZmSettings(this.o.pool, SETTINGS);
    if (settings.get('ZM_TELEMETRY_DATA') !== '1') {
      this.o.log.debug({ job: 'telemetry' }, 'ZM_TELEMETRY_DATA is not 1: no report');
      return { skipped_opted_out: 1 };
    }
    const nowS = Math.floor(this.now().getTime() / 1000);
    const last = Number(settings.get('ZM_TELEMETRY_LAST_UPLOAD') || 0);
    if (!this.failures && last && nowS - last < this.interval(settings)) return { skipped_not_due: 1 };
    const endpoint = settings.get('ZM_TELEMETRY_SERVER_ENDPOINT') ?? '';
    const report = await this.collect(settings);
    try {
      await this.post(endpoint, report);
    } catch (err) {
      this.failures += 1;
      throw Object.assign(new Error(`telemetry upload failed: ${(err as Error).message}`), { counts: { failed: 1 } });
    }
    this.failures = 0;
    await this.o.pool.query("UPDATE Config SET Value = ? WHERE Name = 'ZM_TELEMETRY_LAST_UPLOAD'", [String(nowS)]);
    this.o.log.info({ job: 'telemetry', monitors: report.monitor_count }, 'telemetry report uploaded');
    return { uploaded: 1, monitors: Number(report.monitor_count) };
  }

  /** The report, with zmtelemetry.pl's field names. */
  async collect(settings: Map<string, string>): Promise<Record<string, unknown>> {
    const [{ n: monitorCount }] = await this.o.pool.query<Array<{ n: number }>>('SELECT COUNT(*) AS n FROM Monitors');
    const [{ n: eventCount }] = await this.o.pool.query<Array<{ n: number }>>('SELECT COUNT(*) AS n FROM Events');
    const monitors = await this.o.pool.query<Array<Record<string, unknown>>>('SELECT * FROM Monitors ORDER BY Id');
    const { distro: name, version } = distro();
    return {
      uuid: await this.uuid(settings),
      city: UNKNOWN,
      region: UNKNOWN,
      country: UNKNOWN,
      latitude: UNKNOWN,
      longitude: UNKNOWN,
      timestamp: this.now().toISOString(),
      monitor_count: Number(monitorCount),
      event_count: Number(eventCount),
      architecture: os.arch(),
      kernel: os.release(),
      distro: name,
      version,
      // ZoneMinder's version, as its database records it.
      zm_version: settings.get('ZM_DYN_CURR_VERSION') || settings.get('ZM_DYN_DB_VERSION') || UNKNOWN,
      system_memory: os.totalmem(),
      processor_count: os.cpus().length,
      use_event_server: settings.get('ZM_OPT_USE_EVENTNOTIFICATION') ?? '0',
      monitors: monitors.map((m) => ({
        Id: m.Id,
        Type: m.Type,
        ...('Function' in m ? { Function: m.Function } : {}),
        ...('Capturing' in m ? { Capturing: m.Capturing, Analysing: m.Analysing, Recording: m.Recording } : {}),
        Width: m.Width,
        Height: m.Height,
        Colours: m.Colours,
        MaxFPS: m.MaxFPS,
        AlarmMaxFPS: m.AlarmMaxFPS,
        ...(scrubPath(m.Path as string, m.Type as string)
          ? { Path: scrubPath(m.Path as string, m.Type as string) }
          : {}),
      })),
    };
  }

  /** ZM_TELEMETRY_UUID, created (and stored) when missing or invalid. */
  private async uuid(settings: Map<string, string>): Promise<string> {
    const current = settings.get('ZM_TELEMETRY_UUID') ?? '';
    if (UUID.test(current) && current !== '00000000-0000-0000-0000-000000000000') return current;
    const uuid = crypto.randomUUID();
    const res = await this.o.pool.query<{ affectedRows: number }>(
      "UPDATE Config SET Value = ? WHERE Name = 'ZM_TELEMETRY_UUID'",
      [uuid],
    );
    if (!res.affectedRows) {
      await this.o.pool.query(
        "INSERT INTO Config (Name, Value, Type, Category, Readonly) VALUES ('ZM_TELEMETRY_UUID', ?, 'string', 'system', 1)",
        [uuid],
      );
    }
    this.o.log.info({ job: 'telemetry' }, 'created ZM_TELEMETRY_UUID');
    return uuid;
  }

  private async post(endpoint: string, report: Record<string, unknown>): Promise<void> {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw new Error('ZM_TELEMETRY_SERVER_ENDPOINT is not a URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new Error('ZM_TELEMETRY_SERVER_ENDPOINT is not an http(s) URL');
    // The 1.36 endpoint carries credentials in the URL; fetch wants them as a header.
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      connection: 'close',
    };
    if (url.username) {
      headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
      url.username = '';
      url.password = '';
    }
    // zmtelemetry.pl sends the JSON document with this content type; the receiver expects it.
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(report),
      signal: AbortSignal.timeout(this.o.timeoutMs ?? 30_000),
      redirect: 'error',
    });
    await res.arrayBuffer().catch(() => undefined);
    if (!res.ok) throw new Error(`the endpoint answered ${res.status}`);
  }
}
