// The reads behind the desired daemon set and the hang detector: Monitors (with the columns the
// schema in front of us has), background Filters, this host's Servers row and the Config values
// zmpkg.pl and zmdc.pl consult.
import type { DbPool } from '../../db/pool.js';

export interface MonitorDaemonRow {
  Id: number;
  Type: string;
  Device: string;
  Path: string | null;
  Controllable: number;
  TrackMotion: number;
  Enabled: number;
  ServerId: number | null;
  /** 1.36 (and still present later). */
  Function: string | null;
  /** ≥ 1.38; null on 1.36. */
  Capturing: string | null;
  Analysing: string | null;
  Recording: string | null;
  Deleted: number | null;
}

export interface ServerFlags {
  Id: number;
  /** Per-server switches (null: the column is absent or NULL, i.e. not turned off). */
  zmaudit: number | null;
  zmtrigger: number | null;
  zmstats: number | null;
  zmeventnotification: number | null;
}

/** Config names the supervisor reads, with ZoneMinder's defaults. */
export const ZM_CONFIG_DEFAULTS = {
  ZM_OPT_CONTROL: '1',
  ZM_OPT_TRIGGERS: '0',
  ZM_OPT_X10: '0',
  ZM_RUN_AUDIT: '0',
  ZM_CHECK_FOR_UPDATES: '0',
  ZM_TELEMETRY_DATA: '0',
  ZM_OPT_USE_EVENTNOTIFICATION: '0',
  ZM_OPT_USE_ALARMSERVER: '0',
  ZM_MIN_RTSP_PORT: '',
  ZM_MAX_RESTART_DELAY: '30',
  ZM_WATCH_CHECK_INTERVAL: '10',
  ZM_WATCH_MAX_DELAY: '45',
  /** The installed ZoneMinder version (log rotation of zmc differs from 1.39.22 on). */
  ZM_DYN_CURR_VERSION: '',
} as const;
export type ZmConfigName = keyof typeof ZM_CONFIG_DEFAULTS;
export type ZmConfig = Record<ZmConfigName, string>;

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export class DaemonQueries {
  constructor(private readonly pool: DbPool) {}

  /** Which optional Monitors/Servers columns exist (they differ between 1.36 and ≥ 1.38). */
  async columns(): Promise<Set<string>> {
    const rows = await this.pool.query<Array<{ t: string; c: string }>>(
      `SELECT TABLE_NAME AS t, COLUMN_NAME AS c FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('Monitors', 'Servers')
          AND COLUMN_NAME IN ('Function', 'Capturing', 'Analysing', 'Recording', 'Deleted', 'zmaudit', 'zmtrigger', 'zmstats', 'zmeventnotification')`,
    );
    return new Set(rows.map((r) => `${r.t}.${r.c}`));
  }

  async monitors(cols: Set<string>): Promise<MonitorDaemonRow[]> {
    const opt = (c: string) => (cols.has(`Monitors.${c}`) ? `\`${c}\`` : `NULL AS \`${c}\``);
    const rows = await this.pool.query<Array<Record<string, unknown>>>(
      `SELECT Id, Type, Device, Path, Controllable, TrackMotion, Enabled, ServerId,
              ${['Function', 'Capturing', 'Analysing', 'Recording', 'Deleted'].map(opt).join(', ')}
         FROM Monitors ORDER BY Id`,
    );
    return rows.map((r) => ({
      Id: Number(r.Id),
      Type: String(r.Type),
      Device: String(r.Device ?? ''),
      Path: r.Path === null ? null : String(r.Path),
      Controllable: Number(r.Controllable ?? 0),
      TrackMotion: Number(r.TrackMotion ?? 0),
      Enabled: Number(r.Enabled ?? 0),
      ServerId: num(r.ServerId),
      Function: (r.Function as string | null) ?? null,
      Capturing: (r.Capturing as string | null) ?? null,
      Analysing: (r.Analysing as string | null) ?? null,
      Recording: (r.Recording as string | null) ?? null,
      Deleted: num(r.Deleted),
    }));
  }

  async backgroundFilters(): Promise<number[]> {
    const rows = await this.pool.query<Array<{ Id: number }>>(
      'SELECT Id FROM Filters WHERE Background = 1 ORDER BY Id',
    );
    return rows.map((r) => Number(r.Id));
  }

  /** This host's Servers row by name (multi-server installs), or null. */
  async server(name: string, cols: Set<string>): Promise<ServerFlags | null> {
    const opt = (c: string) => (cols.has(`Servers.${c}`) ? `\`${c}\`` : `NULL AS \`${c}\``);
    const rows = await this.pool.query<Array<Record<string, unknown>>>(
      `SELECT Id, ${['zmaudit', 'zmtrigger', 'zmstats', 'zmeventnotification'].map(opt).join(', ')} FROM Servers WHERE Name = ? LIMIT 1`,
      [name],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      Id: Number(r.Id),
      zmaudit: num(r.zmaudit),
      zmtrigger: num(r.zmtrigger),
      zmstats: num(r.zmstats),
      zmeventnotification: num(r.zmeventnotification),
    };
  }

  async config(): Promise<ZmConfig> {
    const names = Object.keys(ZM_CONFIG_DEFAULTS);
    const rows = await this.pool.query<Array<{ Name: string; Value: string }>>(
      `SELECT Name, Value FROM Config WHERE Name IN (${names.map(() => '?').join(', ')})`,
      names,
    );
    const out: ZmConfig = { ...ZM_CONFIG_DEFAULTS };
    for (const r of rows) out[r.Name as ZmConfigName] = r.Value ?? '';
    return out;
  }
}
