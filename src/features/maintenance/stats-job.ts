// The stats job (replaces zmstats.pl; see docs/operations/maintenance.md): one timer that
//   - samples CPU (a delta between two /proc/stat reads) and memory into Server_Stats, trimmed
//     to one day, and mirrors the sample onto this host's Servers row in a multi-server install;
//   - evicts Monitor_Status rows whose heartbeat stopped (zmc refreshes them every few seconds);
//   - ages events out of Events_Hour/Day/Week/Month (the bucket delete triggers take them off
//     Event_Summaries) and resyncs the four window counters from the buckets;
//   - prunes Logs under ZM_LOG_DATABASE_LIMIT and Sessions under ZM_COOKIE_LIFETIME.
// Every delete is batched (batched.ts). Each step fails on its own: one failing step is logged
// and counted, the others still run.
import os from 'node:os';
import type { DbPool } from '../../db/pool.js';
import type { Logger } from '../../log.js';
import { deleteInBatches, deleteKeysInBatches, emptyBatchStats, type BatchStats } from './batched.js';
import { HostSampler } from './host-sample.js';
import type { JobCounts, MaintenanceJob } from './scheduler.js';
import { hasColumn, parseLogLimit, parseSeconds, readZmSettings } from './zm-settings.js';

/** Monitor_Status rows older than this are evicted, as zmstats does. */
export const MONITOR_STATUS_STALE_SECONDS = 60;
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
    const settings = await readZmSettings(this.o.pool, ['ZM_LOG_DATABASE_LIMIT', 'ZM_COOKIE_LIFETIME']).catch(
      (err: Error) => {
        errors.push(`settings: ${err.message}`);
        return new Map<string, string>();
      },
    );
    await step('logs', () => this.pruneLogs(settings.get('ZM_LOG_DATABASE_LIMIT'), counts, batches));
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
    const values = [
      s.cpuLoad,
      s.cpuUserPercent,
      s.cpuNicePercent,
      s.cpuSystemPercent,
      s.cpuIdlePercent,
      s.cpuUsagePercent,
      s.totalMem,
      s.freeMem,
      s.totalSwap,
      s.freeSwap,
    ];
    await this.o.pool.query(
      'INSERT INTO Server_Stats (ServerId, TimeStamp, CpuLoad, CpuUserPercent, CpuNicePercent, CpuSystemPercent, CpuIdlePercent, CpuUsagePercent, TotalMem, FreeMem, TotalSwap, FreeSwap) VALUES (?, NOW(), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [server?.Id ?? null, ...values],
    );
    counts.server_stats_written = 1;
    if (server) {
      await this.o.pool.query(
        "UPDATE Servers SET Status = 'Running', CpuLoad = ?, CpuUserPercent = ?, CpuNicePercent = ?, CpuSystemPercent = ?, CpuIdlePercent = ?, CpuUsagePercent = ?, TotalMem = ?, FreeMem = ?, TotalSwap = ?, FreeSwap = ? WHERE Id = ?",
        [...values, server.Id],
      );
      counts.servers_row_updated = 1;
    } else if (servers.length) {
      this.o.log.warn(
        { job: 'stats', host },
        'multi-server install but no Servers row is named after this host; the sample is not mirrored',
      );
    }
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

  private async pruneLogs(raw: string | undefined, counts: JobCounts, batches: BatchStats): Promise<void> {
    const limit = parseLogLimit(raw);
    if (limit.kind === 'invalid') {
      counts.logs_limit_invalid = 1;
      this.o.log.warn(
        { job: 'stats', ZM_LOG_DATABASE_LIMIT: limit.value.slice(0, 64) },
        'ZM_LOG_DATABASE_LIMIT is neither a row count nor an interval such as "7 day"; Logs are not pruned',
      );
      return;
    }
    if (limit.kind === 'none') return;
    if (limit.kind === 'rows') {
      const [{ n }] = await this.o.pool.query<Array<{ n: number }>>('SELECT COUNT(*) AS n FROM Logs');
      const excess = Number(n) - limit.rows;
      counts.logs_pruned =
        excess > 0
          ? await deleteInBatches(this.o.pool, 'DELETE FROM Logs ORDER BY TimeKey', [], {
              batch: this.o.batch,
              maxRows: excess,
              stats: batches,
            })
          : 0;
      return;
    }
    // The unit is one of a fixed list (parseLogLimit), the amount a number: safe to inline.
    const [{ cutoff }] = await this.o.pool.query<Array<{ cutoff: string }>>(
      `SELECT UNIX_TIMESTAMP(NOW() - INTERVAL ${limit.amount} ${limit.unit}) AS cutoff`,
    );
    counts.logs_pruned = await deleteInBatches(
      this.o.pool,
      'DELETE FROM Logs WHERE TimeKey < ? ORDER BY TimeKey',
      [cutoff],
      { batch: this.o.batch, stats: batches },
    );
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
