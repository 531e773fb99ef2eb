// The stats job against a throwaway MariaDB: the CPU/memory sample (a delta between two
// /proc/stat reads), Server_Stats trimming, the Servers mirror, Monitor_Status eviction, bucket
// ageing with Event_Summaries resync, Logs and Sessions pruning, and failures per step.
import test from 'ava';
import { HostSampler, cpuPercent, parseMeminfo, parseProcStat } from '../../src/features/maintenance/host-sample.js';
import { AUDIT_LEVEL, StatsJob } from '../../src/features/maintenance/stats-job.js';
import { parseIntervalProduct, parseLogLimit } from '../../src/features/maintenance/zm-settings.js';
import { insertEvent, insertMonitor, sql, summary } from '../helpers/events.js';
import { capturedLogger, poolFor, setZmConfig } from '../helpers/maintenance.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { zmDatabase } from '../helpers/zmdb.js';
import { database136 } from '../helpers/zm136.js';

const MEMINFO =
  'MemTotal:        8000000 kB\nMemFree:          100000 kB\nMemAvailable:    3000000 kB\nSwapTotal:       1000000 kB\nSwapFree:         250000 kB\n';
// Two reads 1000 jiffies apart: user +200, nice +50, system +100 (+irq 25, softirq 25), idle +500, iowait +100.
const STAT_A = 'cpu  1000 100 500 10000 200 50 50 0 0 0\ncpu0 1 2 3 4\n';
const STAT_B = 'cpu  1200 150 600 10500 300 75 75 0 0 0\ncpu0 1 2 3 4\n';

function sampler(reads: string[]): HostSampler {
  let i = 0;
  return new HostSampler({
    procStat: async () => reads[Math.min(i++, reads.length - 1)],
    meminfo: async () => MEMINFO,
    loadavg: () => 1.25,
    firstGapMs: 1,
  });
}

async function setup(prefix: string, options: { reads?: string[]; hostName?: string; batch?: number } = {}) {
  const db = await zmDatabase(prefix);
  const pool = poolFor(db);
  const { log, records } = capturedLogger();
  await setZmConfig(db, 'ZM_COOKIE_LIFETIME', '3600');
  await setZmConfig(db, 'ZM_LOG_DATABASE_LIMIT', '');
  const job = new StatsJob({
    pool,
    log,
    enabled: true,
    intervalSeconds: 60,
    sampler: sampler(options.reads ?? [STAT_A, STAT_B]),
    hostName: options.hostName ?? 'this-host',
    batch: options.batch ?? 7,
  });
  return { db, pool, job, records };
}

test('parsers: /proc/stat delta, meminfo, log limits and interval products', (t) => {
  const pct = cpuPercent(parseProcStat(STAT_A), parseProcStat(STAT_B));
  t.deepEqual(pct, {
    cpuUserPercent: 20,
    cpuNicePercent: 5,
    cpuSystemPercent: 15,
    cpuIdlePercent: 60,
    cpuUsagePercent: 40,
  });
  t.deepEqual(parseMeminfo(MEMINFO), {
    totalMem: 8_192_000_000,
    freeMem: 3_072_000_000,
    totalSwap: 1_024_000_000,
    freeSwap: 256_000_000,
  });
  t.deepEqual(parseLogLimit('7 day'), { kind: 'interval', amount: 7, unit: 'DAY' });
  t.deepEqual(parseLogLimit('2 Weeks'), { kind: 'interval', amount: 2, unit: 'WEEK' });
  t.deepEqual(parseLogLimit('10000'), { kind: 'rows', rows: 10000 });
  t.deepEqual(parseLogLimit(''), { kind: 'none' });
  t.deepEqual(parseLogLimit('0'), { kind: 'none' });
  t.is(parseLogLimit('7 fortnight').kind, 'invalid');
  t.is(parseLogLimit('1 day; DROP TABLE Logs').kind, 'invalid');
  t.is(parseIntervalProduct('14*24*60*60'), 1_209_600);
  t.is(parseIntervalProduct(' 86400 '), 86_400);
  t.is(parseIntervalProduct('14*24*60*60; system("x")'), null);
  t.is(parseIntervalProduct(''), null);
});

test('a sample lands in Server_Stats with CPU from the delta and memory; a day-old sample is trimmed; single server: no Servers row touched', async (t) => {
  const { db, pool, job } = await setup('stats_sample');
  t.teardown(() => pool.end());
  await sql(
    db,
    'INSERT INTO Server_Stats (ServerId, TimeStamp, CpuLoad) VALUES (NULL, NOW() - INTERVAL 25 HOUR, 9), (NULL, NOW() - INTERVAL 2 HOUR, 8)',
  );
  const counts = await job.run();
  t.is(counts.server_stats_written, 1);
  t.is(counts.server_stats_trimmed, 1);
  const rows = await sql(db, 'SELECT * FROM Server_Stats ORDER BY TimeStamp');
  t.is(rows.length, 2);
  const s = rows[1];
  t.is(s.ServerId, null);
  t.deepEqual(
    [
      Number(s.CpuLoad),
      Number(s.CpuUserPercent),
      Number(s.CpuNicePercent),
      Number(s.CpuSystemPercent),
      Number(s.CpuIdlePercent),
      Number(s.CpuUsagePercent),
    ],
    [1.3, 20, 5, 15, 60, 40],
  );
  t.deepEqual(
    [Number(s.TotalMem), Number(s.FreeMem), Number(s.TotalSwap), Number(s.FreeSwap)],
    [8_192_000_000, 3_072_000_000, 1_024_000_000, 256_000_000],
  );
});

test('multi-server: the sample is mirrored onto the Servers row named after this host only', async (t) => {
  const { db, pool, job } = await setup('stats_servers', { hostName: 'nvr-b' });
  t.teardown(() => pool.end());
  await sql(
    db,
    "INSERT INTO Servers (Id, Name, Hostname, Status) VALUES (1, 'nvr-a', 'a.local', 'Unknown'), (2, 'nvr-b', 'b.local', 'Unknown')",
  );
  const counts = await job.run();
  t.is(counts.servers_row_updated, 1);
  const [a, b] = await sql(db, 'SELECT Id, Status, CpuUsagePercent, FreeMem FROM Servers ORDER BY Id');
  t.is(a.Status, 'Unknown');
  t.is(a.CpuUsagePercent, null);
  t.is(b.Status, 'Running');
  t.is(Number(b.CpuUsagePercent), 40);
  t.is(Number(b.FreeMem), 3_072_000_000);
  const [stat] = await sql(db, 'SELECT ServerId FROM Server_Stats');
  t.is(Number(stat.ServerId), 2);
});

test('1.36 schema: no Server_Stats table, Servers without CPU percentages: load and memory mirrored, the pass succeeds', async (t) => {
  const db = await database136('stats_136');
  const pool = poolFor(db);
  t.teardown(() => pool.end());
  const { log } = capturedLogger();
  const job = new StatsJob({
    pool,
    log,
    enabled: true,
    intervalSeconds: 60,
    sampler: sampler([STAT_A, STAT_B]),
    hostName: 'nvr-b',
  });
  await sql(db, "INSERT INTO Servers (Id, Name, Hostname, Status) VALUES (2, 'nvr-b', 'b.local', 'Unknown')");
  const counts = await job.run();
  t.is(counts.servers_row_updated, 1);
  t.false('server_stats_written' in counts);
  t.false('errors' in counts);
  const [b] = await sql(db, 'SELECT Status, CpuLoad, FreeMem FROM Servers');
  t.deepEqual([b.Status, Number(b.CpuLoad), Number(b.FreeMem)], ['Running', 1.3, 3_072_000_000]);
});

test('the second pass measures CPU between the two passes (no extra read)', async (t) => {
  const STAT_C = 'cpu  1200 150 600 11500 300 75 75 0 0 0\n'; // all idle since STAT_B
  const { db, pool, job } = await setup('stats_cpu2', { reads: [STAT_A, STAT_B, STAT_C] });
  t.teardown(() => pool.end());
  await job.run();
  await job.run();
  const rows = await sql(db, 'SELECT CpuIdlePercent, CpuUsagePercent FROM Server_Stats ORDER BY Id');
  t.deepEqual(
    rows.map((r) => [Number(r.CpuIdlePercent), Number(r.CpuUsagePercent)]),
    [
      [60, 40],
      [100, 0],
    ],
  );
});

test('stale Monitor_Status rows are evicted, live ones kept', async (t) => {
  const { db, pool, job } = await setup('stats_monstatus');
  t.teardown(() => pool.end());
  await insertMonitor(db, 1);
  await insertMonitor(db, 2);
  await sql(
    db,
    "INSERT INTO Monitor_Status (MonitorId, Status, UpdatedOn) VALUES (1, 'Connected', NOW() - INTERVAL 5 MINUTE), (2, 'Connected', NOW())",
  );
  const counts = await job.run();
  t.is(counts.monitor_status_evicted, 1);
  t.deepEqual(
    (await sql(db, 'SELECT MonitorId FROM Monitor_Status')).map((r) => r.MonitorId),
    [2],
  );
});

test('bucket rows age out of their windows and the window counters are resynced (drift repaired)', async (t) => {
  const { db, pool, job } = await setup('stats_buckets');
  t.teardown(() => pool.end());
  await insertMonitor(db, 1);
  await insertMonitor(db, 2);
  // Event ages: 10 min, 2 h, 3 days, 10 days, 40 days. Each event starts in every window (as zmc inserts them).
  const ages = ['10 MINUTE', '2 HOUR', '3 DAY', '10 DAY', '40 DAY'];
  for (const [i, age] of ages.entries()) {
    const [{ start }] = await sql(db, `SELECT DATE_FORMAT(NOW() - INTERVAL ${age}, '%Y-%m-%d %H:%i:%s') AS start`);
    const id = await insertEvent(db, { monitorId: 1, start, end: start, diskSpace: 100 * (i + 1) });
    for (const b of ['Hour', 'Day', 'Week', 'Month'])
      await sql(db, `INSERT INTO Events_${b} (EventId, MonitorId, StartDateTime, DiskSpace) VALUES (?, 1, ?, ?)`, [
        id,
        start,
        100 * (i + 1),
      ]);
  }
  // Counters as the triggers/zmc would have kept them, plus drift on monitor 2 (no bucket rows at all).
  await sql(
    db,
    'INSERT INTO Event_Summaries (MonitorId, HourEvents, HourEventDiskSpace, DayEvents, DayEventDiskSpace, WeekEvents, WeekEventDiskSpace, MonthEvents, MonthEventDiskSpace) VALUES (1, 5, 1500, 5, 1500, 5, 1500, 5, 1500), (2, 3, 30, 3, 30, 3, 30, 3, 30)',
  );
  const counts = await job.run();
  t.is(counts.bucket_rows_aged, 4 + 3 + 2 + 1);
  const s1 = await summary(db, 1);
  t.like(s1, {
    HourEvents: 1,
    HourEventDiskSpace: 100,
    DayEvents: 2,
    DayEventDiskSpace: 300,
    WeekEvents: 3,
    WeekEventDiskSpace: 600,
    MonthEvents: 4,
    MonthEventDiskSpace: 1000,
  });
  t.like(await summary(db, 2), { HourEvents: 0, DayEvents: 0, WeekEvents: 0, MonthEvents: 0, MonthEventDiskSpace: 0 });
  t.is(Number((await sql(db, 'SELECT COUNT(*) AS n FROM Events_Month'))[0].n), 4);
});

async function insertLogs(db: FreshDatabase, ages: number[], level = 0, prefix = 'message') {
  for (const [i, age] of ages.entries()) {
    await sql(
      db,
      'INSERT INTO Logs (TimeKey, Component, Pid, Level, Code, Message, File, Line) VALUES (UNIX_TIMESTAMP(NOW() - INTERVAL ? SECOND), ?, 1, ?, ?, ?, NULL, 0)',
      [
        age,
        level === AUDIT_LEVEL ? 'web_php' : 'zmc_m1',
        level,
        level === AUDIT_LEVEL ? 'AUD' : 'INF',
        `${prefix} ${i}`,
      ],
    );
  }
}

const messages = async (db: FreshDatabase) =>
  (await sql(db, 'SELECT Message FROM Logs ORDER BY TimeKey, Id')).map((r) => r.Message as string);

test('Logs: a row-count limit keeps exactly the newest rows, in batches', async (t) => {
  const { db, pool, job } = await setup('stats_logs_rows');
  t.teardown(() => pool.end());
  await insertLogs(
    db,
    Array.from({ length: 40 }, (_, i) => 40 - i),
  ); // message 39 is the newest
  await setZmConfig(db, 'ZM_LOG_DATABASE_LIMIT', '15');
  const counts = await job.run();
  t.is(counts.logs_pruned, 25);
  const left = await sql(db, 'SELECT Message FROM Logs ORDER BY TimeKey');
  t.is(left.length, 15);
  t.is(left[0].Message, 'message 25');
  t.true(counts.delete_statements >= 4, 'batches of 7 rows');
});

test('Logs: an interval limit ("7 days", plural accepted) removes the older rows', async (t) => {
  const { db, pool, job } = await setup('stats_logs_interval');
  t.teardown(() => pool.end());
  await insertLogs(db, [10 * 86400, 8 * 86400, 6 * 86400, 60]);
  await setZmConfig(db, 'ZM_LOG_DATABASE_LIMIT', '7 days');
  const counts = await job.run();
  t.is(counts.logs_pruned, 2);
  t.deepEqual(
    (await sql(db, 'SELECT Message FROM Logs ORDER BY TimeKey')).map((r) => r.Message),
    ['message 2', 'message 3'],
  );
});

test('Logs: an unparseable limit disables that pruning and says why; the rest of the pass runs', async (t) => {
  const { db, pool, job, records } = await setup('stats_logs_bad');
  t.teardown(() => pool.end());
  await insertLogs(db, [100 * 86400, 60]);
  await setZmConfig(db, 'ZM_LOG_DATABASE_LIMIT', '7 fortnights');
  const counts = await job.run();
  t.is(counts.logs_limit_invalid, 1);
  t.false('logs_pruned' in counts);
  t.is(Number((await sql(db, 'SELECT COUNT(*) AS n FROM Logs'))[0].n), 2);
  t.true(
    records.some(
      (r) => r.level === 40 && /ZM_LOG_DATABASE_LIMIT/.test(r.msg) && r.ZM_LOG_DATABASE_LIMIT === '7 fortnights',
    ),
  );
  t.is(counts.server_stats_written, 1);
});

test('Logs with ZM_LOG_AUDIT_DATABASE_LIMIT (1.39): audit rows are outside the general limit and pruned under their own interval', async (t) => {
  const { db, pool, job } = await setup('stats_logs_audit_interval');
  t.teardown(() => pool.end());
  // Ordinary rows 10..1 days old; audit rows 400, 200 and 1.5 days old.
  await insertLogs(
    db,
    Array.from({ length: 10 }, (_, i) => (10 - i) * 86400),
  );
  await insertLogs(db, [400 * 86400, 200 * 86400, 1.5 * 86400], AUDIT_LEVEL, 'audit');
  await setZmConfig(db, 'ZM_LOG_DATABASE_LIMIT', '3');
  await setZmConfig(db, 'ZM_LOG_AUDIT_DATABASE_LIMIT', '1 year');
  const counts = await job.run();
  t.is(counts.logs_pruned, 7, 'the row count covers the 10 ordinary rows only');
  t.is(counts.audit_logs_pruned, 1);
  t.deepEqual(await messages(db), ['audit 1', 'message 7', 'message 8', 'audit 2', 'message 9']);
});

test('Logs with ZM_LOG_AUDIT_DATABASE_LIMIT: a row count keeps the newest audit rows; empty keeps them all', async (t) => {
  const { db, pool, job } = await setup('stats_logs_audit_rows');
  t.teardown(() => pool.end());
  await insertLogs(db, [30 * 86400, 20 * 86400, 10 * 86400], 0);
  await insertLogs(db, [900 * 86400, 500 * 86400, 25 * 86400, 5 * 86400], AUDIT_LEVEL, 'audit');
  await setZmConfig(db, 'ZM_LOG_DATABASE_LIMIT', '7 day');
  await setZmConfig(db, 'ZM_LOG_AUDIT_DATABASE_LIMIT', '2');
  let counts = await job.run();
  t.is(counts.logs_pruned, 3, 'the interval prunes every ordinary row older than 7 days, no audit row');
  t.is(counts.audit_logs_pruned, 2);
  t.deepEqual(await messages(db), ['audit 2', 'audit 3']);

  await insertLogs(db, [800 * 86400], AUDIT_LEVEL, 'kept');
  await setZmConfig(db, 'ZM_LOG_AUDIT_DATABASE_LIMIT', '');
  counts = await job.run();
  t.false('audit_logs_pruned' in counts, 'empty: audit rows are kept indefinitely');
  t.deepEqual(await messages(db), ['kept 0', 'audit 2', 'audit 3']);
});

test('Logs without ZM_LOG_AUDIT_DATABASE_LIMIT (1.36): the one limit covers every level; a bad audit limit only stops audit pruning', async (t) => {
  const { db, pool, job, records } = await setup('stats_logs_audit_none');
  t.teardown(() => pool.end());
  await insertLogs(db, [9 * 86400], AUDIT_LEVEL, 'old');
  await insertLogs(db, [8 * 86400, 60]);
  await setZmConfig(db, 'ZM_LOG_DATABASE_LIMIT', '7 day');
  let counts = await job.run();
  t.is(counts.logs_pruned, 2);
  t.false('audit_logs_pruned' in counts);
  t.deepEqual(await messages(db), ['message 1']);

  await insertLogs(db, [9 * 86400], AUDIT_LEVEL, 'old');
  await insertLogs(db, [8 * 86400]);
  await setZmConfig(db, 'ZM_LOG_AUDIT_DATABASE_LIMIT', '1 aeon');
  counts = await job.run();
  t.is(counts.logs_pruned, 1);
  t.is(counts.audit_logs_limit_invalid, 1);
  t.deepEqual(await messages(db), ['old 0', 'message 1']);
  t.true(
    records.some(
      (r) => r.level === 40 && /ZM_LOG_AUDIT_DATABASE_LIMIT/.test(r.msg) && r.ZM_LOG_AUDIT_DATABASE_LIMIT === '1 aeon',
    ),
  );
});

test('Sessions older than ZM_COOKIE_LIFETIME are pruned', async (t) => {
  const { db, pool, job } = await setup('stats_sessions');
  t.teardown(() => pool.end());
  await sql(
    db,
    "INSERT INTO Sessions (id, access, data) VALUES ('old', UNIX_TIMESTAMP() - 7200, ''), ('new', UNIX_TIMESTAMP() - 60, '')",
  );
  const counts = await job.run();
  t.is(counts.sessions_pruned, 1);
  t.deepEqual(
    (await sql(db, 'SELECT id FROM Sessions')).map((r) => r.id),
    ['new'],
  );
});

test('a database error in one step is reported with its cause; the other steps still run', async (t) => {
  const { db, pool, job } = await setup('stats_fault');
  t.teardown(() => pool.end());
  await insertMonitor(db, 1);
  await sql(
    db,
    "INSERT INTO Monitor_Status (MonitorId, Status, UpdatedOn) VALUES (1, 'Connected', NOW() - INTERVAL 5 MINUTE)",
  );
  await sql(db, 'DROP TABLE Sessions');
  const err = await t.throwsAsync(job.run());
  t.regex(err!.message, /sessions: .*Sessions/);
  t.like((err as unknown as { counts: Record<string, number> }).counts, {
    errors: 1,
    server_stats_written: 1,
    monitor_status_evicted: 1,
  });
});
