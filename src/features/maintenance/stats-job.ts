// The stats job (replaces zmstats.pl; see docs/operations/maintenance.md): one timer that
//   - samples CPU (a delta between two /proc/stat reads) and memory into Server_Stats, trimmed
//     to one day, and mirrors the sample onto this host's Servers row in a multi-server install;
//   - evicts Monitor_Status rows whose heartbeat stopped (zmc refreshes them every few seconds);
//   - ages events out of Events_Hour/Day/Week/Month (the bucket delete triggers take them off
//     Event_Summaries) and resyncs the four window counters from the buckets;
//   - prunes Logs under ZM_LOG_DATABASE_LIMIT (audit-level rows under ZM_LOG_AUDIT_DATABASE_LIMIT
//     where it exists) and Sessions under ZM_COOKIE_LIFETIME.
// Every delete is batched (batched.ts). Each step fails on its own: one failing step is logged
// and counted, the others still run.
import os from 'node:os';
import type { DbPool } from '../../db/pool.js';
import type { Logger } from '../../log.js';
import {
  deleteInBatches,
  deleteKeysInBatches,
  deleteOldestInBatches,
  emptyBatchStats,
  type BatchStats,
} from './batched.js';
import { HostSampler } from './host-sample.js';
import type { JobCounts, MaintenanceJob } from './scheduler.js';
import { hasColumn, hasTable, parseLogLimit, parseSeconds, readZmSettings } from './zm-settings.js';

/** Monitor_Status rows older than this are evicted, as zmstats does. */
export const MONITOR_STATUS_STALE_SECONDS = 60;
/** ZoneMinder's audit log level (1.39: administrative changes), kept under its own limit. */
export const AUDIT_LEVEL = -5;
export const BUCKETS = [
  ['Events_Hour', 'Hour', '1 HOUR'],
  ['Events_Day', 'Day', '1 DAY'],
  ['Events_Week', 'Week', '1 WEEK'],
  ['Events_Month', 'Month', '1 MONTH'],
] as const;

export interface StatsJobOptions {
  pool: DbPool;
  log: Logger;
  enabled: boolean;
  intervalSeconds: number;
  sampler?: HostSampler;
  /** This host's name as its Servers row has it (ZM_SERVER_NAME is the host name by default). */
  hostName?: string;
  batch?: number;
}

export class StatsJob implements MaintenanceJob {
  readonly name = 'stats' as const;
  readonly legacyDaemon = 'zmstats.pl';
  readonly enabled: boolean;
  private readonly sampler: HostSampler;
  /** The longest delete statement of the last pass (bench). */
  lastLongestMs = 0;

  constructor(private readonly o: StatsJobOptions) {
    this.enabled = o.enabled;
    this.sampler = o.sampler ?? new HostSampler();
  }

  intervalSeconds(): number {
    return this.o.intervalSeconds;
  }

  async run(): Promise<JobCounts> {
    const counts: JobCounts = {};
    const batches = emptyBatchStats();
    const errors: string[] = [];
    const step = async (name: string, fn: () => Promise<void>) => {
      try {
        await fn();
      } catch (err) {
        counts.errors = (counts.errors ?? 0) + 1;
        errors.push(`${name}: ${(err as Error).message}`);
        this.o.log.error(
          {
            job: 'stats',
            step: name,
            err: { message: (err as Error).message, code: (err as NodeJS.ErrnoException).code },
          },
          'stats step failed',
        );
      }
    };
    await step('sample', () => this.sample(counts, batches));
    await step('monitor_status', async () => {
      // 1.36's Monitor_Status has no UpdatedOn (and zmstats 1.36 evicts nothing).
      if (!(await hasColumn(this.o.pool, 'Monitor_Status', 'UpdatedOn'))) return;
      counts.monitor_status_evicted = await deleteInBatches(
        this.o.pool,
        'DELETE FROM Monitor_Status WHERE UpdatedOn < NOW() - INTERVAL ? SECOND',
        [MONITOR_STATUS_STALE_SECONDS],
        { batch: this.o.batch, stats: batches },
      );
    });
    await step('buckets', () => this.ageBuckets(counts, batches));
    const settings = await readZmSettings(this.o.pool, [
      'ZM_LOG_DATABASE_LIMIT',
      'ZM_LOG_AUDIT_DATABASE_LIMIT',
      'ZM_COOKIE_LIFETIME',
    ]).catch((err: Error) => {
      errors.push(`settings: ${err.message}`);
      return new Map<string, string>();
    });
    await step('logs', () => this.pruneLogs(settings, counts, batches));
    await step('sessions', () => this.pruneSessions(settings.get('ZM_COOKIE_LIFETIME'), counts, batches));
    counts.delete_statements = batches.statements;
    this.lastLongestMs = batches.longestMs;
    if (errors.length) throw Object.assign(new Error(errors.join('; ')), { counts });
    return counts;
  }

  private async sample(counts: JobCounts, batches: BatchStats): Promise<void> {
    const s = await this.sampler.sample();
    const servers = await this.o.pool.query<Array<{ Id: number; Name: string | null; Hostname: string | null }>>(
      'SELECT Id, Name, Hostname FROM Servers',
    );
    const host = this.o.hostName ?? os.hostname();
    // Multi-server: only when Servers has rows; this host's row by name (or host name).
    const server = servers.length
      ? (servers.find((r) => r.Name === host) ?? servers.find((r) => r.Hostname === host) ?? null)
      : null;
    const cpu = {
      CpuLoad: s.cpuLoad,
      CpuUserPercent: s.cpuUserPercent,
      CpuNicePercent: s.cpuNicePercent,
      CpuSystemPercent: s.cpuSystemPercent,
      CpuIdlePercent: s.cpuIdlePercent,
      CpuUsagePercent: s.cpuUsagePercent,
      TotalMem: s.totalMem,
      FreeMem: s.freeMem,
      TotalSwap: s.totalSwap,
      FreeSwap: s.freeSwap,
    };
    // ZoneMinder 1.36 has no Server_Stats table (and no CPU percentages on Servers).
    const hasServerStats = await hasTable(this.o.pool, 'Server_Stats');
    if (hasServerStats) {
      const cols = Object.keys(cpu);
      await this.o.pool.query(
        `INSERT INTO Server_Stats (ServerId, TimeStamp, ${cols.join(', ')}) VALUES (?, NOW(), ${cols.map(() => '?').join(', ')})`,
        [server?.Id ?? null, ...Object.values(cpu)],
      );
      counts.server_stats_written = 1;
    }
    if (server) {
      const withPercent = await hasColumn(this.o.pool, 'Servers', 'CpuUsagePercent');
      const set = Object.entries(cpu).filter(([c]) => withPercent || !c.endsWith('Percent'));
      await this.o.pool.query(
        `UPDATE Servers SET Status = 'Running', ${set.map(([c]) => `${c} = ?`).join(', ')} WHERE Id = ?`,
        [...set.map(([, v]) => v), server.Id],
      );
      counts.servers_row_updated = 1;
    } else if (servers.length) {
      this.o.log.warn(
        { job: 'stats', host },
        'multi-server install but no Servers row is named after this host; the sample is not mirrored',
      );
    }
    if (!hasServerStats) return;
    counts.server_stats_trimmed = await deleteInBatches(
      this.o.pool,
      'DELETE FROM Server_Stats WHERE TimeStamp < NOW() - INTERVAL 1 DAY',
      [],
      { batch: this.o.batch, stats: batches },
    );
  }

  /**
   * Deletes bucket rows older than their window (the delete triggers decrement the counters),
   * then sets each monitor's window counters to what the buckets hold, so counters that drifted
   * (a trigger missing, a crash) are repaired. Lock order stays Events -> buckets -> summaries.
   */
  private async ageBuckets(counts: JobCounts, batches: BatchStats): Promise<void> {
    let aged = 0;
    for (const [table, , window] of BUCKETS) {
      aged += await deleteKeysInBatches(
        this.o.pool,
        table,
        'EventId',
        `StartDateTime < NOW() - INTERVAL ${window}`,
        [],
        { batch: this.o.batch, stats: batches },
      );
    }
    counts.bucket_rows_aged = aged;
    counts.summaries_resynced = await resyncWindowCounters(this.o.pool);
  }

  /**
   * ZM_LOG_DATABASE_LIMIT prunes Logs. Where ZoneMinder has ZM_LOG_AUDIT_DATABASE_LIMIT (1.39),
   * audit-level rows (Level -5) are kept out of that limit and pruned under their own; an empty
   * audit limit keeps them forever. Without that option (1.36), one limit covers every row.
   */
  private async pruneLogs(settings: Map<string, string>, counts: JobCounts, batches: BatchStats): Promise<void> {
    const split = settings.has('ZM_LOG_AUDIT_DATABASE_LIMIT');
    const general = await this.pruneLogLevel(
      'ZM_LOG_DATABASE_LIMIT',
      settings.get('ZM_LOG_DATABASE_LIMIT'),
      split ? `Level <> ${AUDIT_LEVEL}` : '1 = 1',
      counts,
      batches,
    );
    if (general !== null) counts.logs_pruned = general;
    if (!split) return;
    const audit = await this.pruneLogLevel(
      'ZM_LOG_AUDIT_DATABASE_LIMIT',
      settings.get('ZM_LOG_AUDIT_DATABASE_LIMIT'),
      `Level = ${AUDIT_LEVEL}`,
      counts,
      batches,
    );
    if (audit !== null) counts.audit_logs_pruned = audit;
  }

  /** Prunes the Logs rows matching `which` under one limit; the rows deleted, null when off. */
  private async pruneLogLevel(
    option: 'ZM_LOG_DATABASE_LIMIT' | 'ZM_LOG_AUDIT_DATABASE_LIMIT',
    raw: string | undefined,
    which: string,
    counts: JobCounts,
    batches: BatchStats,
  ): Promise<number | null> {
    const limit = parseLogLimit(raw);
    if (limit.kind === 'invalid') {
      counts[option === 'ZM_LOG_DATABASE_LIMIT' ? 'logs_limit_invalid' : 'audit_logs_limit_invalid'] = 1;
      this.o.log.warn(
        { job: 'stats', [option]: limit.value.slice(0, 64) },
        `${option} is neither a row count nor an interval such as "7 day"; these Logs rows are not pruned`,
      );
      return null;
    }
    if (limit.kind === 'none') return null;
    const logs = { table: 'Logs', order: 'TimeKey', id: 'Id' };
    const options = { batch: this.o.batch, stats: batches };
    if (limit.kind === 'rows') {
      const [{ n }] = await this.o.pool.query<Array<{ n: number }>>(`SELECT COUNT(*) AS n FROM Logs WHERE ${which}`);
      const excess = Number(n) - limit.rows;
      return excess > 0 ? deleteOldestInBatches(this.o.pool, logs, which, [], { ...options, maxRows: excess }) : 0;
    }
    // The unit is one of a fixed list (parseLogLimit), the amount a number: safe to inline.
    const [{ cutoff }] = await this.o.pool.query<Array<{ cutoff: string }>>(
      `SELECT UNIX_TIMESTAMP(NOW() - INTERVAL ${limit.amount} ${limit.unit}) AS cutoff`,
    );
    return deleteOldestInBatches(this.o.pool, logs, `${which} AND TimeKey < ?`, [cutoff], options);
  }

  private async pruneSessions(raw: string | undefined, counts: JobCounts, batches: BatchStats): Promise<void> {
    const lifetime = parseSeconds(raw);
    if (lifetime === null) {
      counts.sessions_limit_invalid = 1;
      this.o.log.warn(
        { job: 'stats', ZM_COOKIE_LIFETIME: (raw ?? '').slice(0, 64) },
        'ZM_COOKIE_LIFETIME is not a number of seconds; Sessions are not pruned',
      );
      return;
    }
    counts.sessions_pruned = await deleteInBatches(
      this.o.pool,
      'DELETE FROM Sessions WHERE access < UNIX_TIMESTAMP() - ?',
      [lifetime],
      { batch: this.o.batch, stats: batches },
    );
  }
}

/**
 * Sets Hour/Day/Week/Month counters and disk space of every Event_Summaries row to what the
 * bucket tables hold (0 for a monitor with no bucket rows). Returns the rows changed.
 */
export async function resyncWindowCounters(pool: DbPool, dryRun = false): Promise<number> {
  const now = new Map<number, Record<string, number>>();
  for (const [table, name] of BUCKETS) {
    const rows = await pool.query<Array<{ MonitorId: number; n: number; space: string | null }>>(
      `SELECT MonitorId, COUNT(*) AS n, SUM(COALESCE(DiskSpace, 0)) AS space FROM ${table} GROUP BY MonitorId`,
    );
    for (const r of rows) {
      const entry = now.get(r.MonitorId) ?? {};
      entry[`${name}Events`] = Number(r.n);
      entry[`${name}EventDiskSpace`] = Number(r.space ?? 0);
      now.set(r.MonitorId, entry);
    }
  }
  const summaries = await pool.query<Array<Record<string, number | string | null>>>(
    'SELECT MonitorId, HourEvents, HourEventDiskSpace, DayEvents, DayEventDiskSpace, WeekEvents, WeekEventDiskSpace, MonthEvents, MonthEventDiskSpace FROM Event_Summaries',
  );
  let changed = 0;
  for (const row of summaries) {
    const want = now.get(Number(row.MonitorId)) ?? {};
    const cols = BUCKETS.flatMap(([, name]) => [`${name}Events`, `${name}EventDiskSpace`]);
    const diff = cols.filter((c) => (row[c] === null ? null : Number(row[c])) !== (want[c] ?? 0));
    if (!diff.length) continue;
    changed += 1;
    if (dryRun) continue;
    await pool.query(`UPDATE Event_Summaries SET ${diff.map((c) => `${c} = ?`).join(', ')} WHERE MonitorId = ?`, [
      ...diff.map((c) => want[c] ?? 0),
      row.MonitorId,
    ]);
  }
  return changed;
}
