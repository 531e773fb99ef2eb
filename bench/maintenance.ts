// Measures the maintenance jobs on big inputs in a throwaway MariaDB:
//   - one audit database pass over N events (bench/_generate-events.ts: closed events with
//     sizes, on 50 monitors over 90 days; plus 1% of them unclosed, 1% Frames of deleted events,
//     and drifted Event_Summaries/Storage figures);
//   - one audit filesystem pass over a Medium tree of D event directories (10% orphans);
//   - one stats pass over L Logs rows with a row-count limit that prunes 90% of them, then the
//     same pruning by the previous method (repeated DELETE … ORDER BY TimeKey LIMIT) to compare.
// Prints seconds, peak RSS, statements per event and the longest single delete statement.
//
//   npx tsx bench/maintenance.ts [--events N] [--dirs D] [--logs L]
// The defaults are the acceptance sizes (1,000,000 events, 100,000 directories, 1,000,000 Logs
// rows; about a quarter of an hour on a shared 2-core box, most of it generating the data);
// smaller sizes for a quick look, e.g. --events 200000 --dirs 20000 --logs 200000.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPool, type DbPool } from '../src/db/pool.js';
import { createPrismaClient } from '../src/db/prisma.js';
import { startThrowawayMariaDb } from '../src/devdb/throwaway-mariadb.js';
import { AuditDb } from '../src/features/maintenance/audit-db.js';
import { AuditFilesystem } from '../src/features/maintenance/audit-fs.js';
import { HostSampler } from '../src/features/maintenance/host-sample.js';
import { StatsJob } from '../src/features/maintenance/stats-job.js';
import { deleteInBatches, emptyBatchStats } from '../src/features/maintenance/batched.js';
import { createLogger } from '../src/log.js';
import { EventDeletion } from '../src/zm/event-deletion.js';
import { generateEvents } from './_generate-events.js';
import { printTable, report } from './_results.js';
import { numberFlag } from './_args.js';

const EVENTS = numberFlag('events', 1_000_000);
const DIRS = numberFlag('dirs', 100_000);
const LOGS = numberFlag('logs', 1_000_000);

/** Counts the statements a pool runs and where their time went (by statement shape). */
function counted(pool: DbPool): { pool: DbPool; count: () => number; top: (label: string) => void } {
  let n = 0;
  const shapes = new Map<string, { n: number; ms: number; max: number }>();
  const wrapped = new Proxy(pool, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (prop === 'query' || prop === 'execute')
        return async (...a: unknown[]) => {
          n += 1;
          const shape = String(a[0])
            .replace(/\s+/g, ' ')
            .replace(/\?(, ?\?)+/g, '?…')
            .slice(0, 90);
          const t0 = performance.now();
          try {
            return await (v as (...x: unknown[]) => Promise<unknown>).apply(target, a);
          } finally {
            const ms = performance.now() - t0;
            const s = shapes.get(shape) ?? { n: 0, ms: 0, max: 0 };
            shapes.set(shape, { n: s.n + 1, ms: s.ms + ms, max: Math.max(s.max, ms) });
          }
        };
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const top = (label: string) => {
    const rows = [...shapes.entries()].sort((x, y) => y[1].ms - x[1].ms).slice(0, 6);
    console.log(`# ${label}: where the statement time went (top shapes)`);
    for (const [shape, s] of rows)
      console.log(`#   ${(s.ms / 1000).toFixed(1)} s in ${s.n} × (max ${s.max.toFixed(0)} ms): ${shape}`);
  };
  return { pool: wrapped as DbPool, count: () => n, top };
}

/**
 * A concurrent Logs writer (what zmc and the web UI do all day): one INSERT every 20 ms on its
 * own connection until stopped. Its slowest INSERT is the longest any writer waited on the pass.
 */
function logWriter(pool: DbPool): { stop: () => Promise<{ n: number; maxMs: number }> } {
  let running = true;
  let n = 0;
  let maxMs = 0;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      await pool.query(
        "INSERT INTO Logs (TimeKey, Component, Pid, Level, Code, Message, File, Line) VALUES (UNIX_TIMESTAMP(NOW(6)), 'zmc_probe', 2, 0, 'INF', 'probe', NULL, 0)",
      );
      maxMs = Math.max(maxMs, performance.now() - t0);
      n += 1;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { n, maxMs };
    },
  };
}

const rssMb = () => process.resourceUsage().maxRSS / 1024;

async function main(): Promise<void> {
  const db = await startThrowawayMariaDb({ startTimeoutMs: 60_000 });
  // The throwaway server starts with the tests' 8 MB redo log; a real install has MariaDB's
  // default 96 MB. With 8 MB, deleting a million rows is mostly checkpoint flushing.
  await db.exec('SET GLOBAL innodb_log_file_size = 100663296');
  const [{ v }] = (await db.query('SELECT @@innodb_log_file_size AS v', [])) as Array<{ v: number }>;
  console.log(`# innodb_log_file_size ${Number(v) / 1048576} MB`);
  const log = createLogger({ level: 'fatal' });
  const base = mkdtempSync(path.join(tmpdir(), 'zmbench-maint-'));
  try {
    const gen = await generateEvents(db, 'zm_maint', {
      events: EVENTS,
      bufferPoolBytes: 256 * 1024 * 1024,
      log: (l) => console.log(`# ${l}`),
    });
    await db.createUser('bench', 'bench-pass', gen.database);
    const cfg = {
      host: db.host,
      port: db.port,
      socket: null,
      username: 'bench',
      password: 'bench-pass',
      database_name: gen.database,
      pool_min: 0,
      pool_max: 4,
      connect_timeout_secs: 10,
      acquire_timeout_secs: 30,
      idle_timeout_secs: 60,
      query_timeout_secs: 60,
      migrate_on_start: false,
    };
    const raw = createPool(cfg);
    const prisma = createPrismaClient(cfg);
    const q = (s: string) => db.query(s, [], gen.database);
    await q(`UPDATE Storage SET Path = '${path.join(base, 'events')}'`);
    await q(`UPDATE Events SET EndDateTime = NULL WHERE Id % 100 = 7`);
    await q(
      `INSERT INTO Frames (EventId, FrameId, Type, TimeStamp, Delta, Score) SELECT Id, 1, 'Normal', StartDateTime, 0, 1 FROM Events`,
    );
    await q(
      `INSERT INTO Frames (EventId, FrameId, Type, TimeStamp, Delta, Score) SELECT ${EVENTS * 10} + seq, 1, 'Normal', NOW(), 0, 0 FROM seq_1_to_${Math.max(1, Math.floor(EVENTS / 100))}`,
    );
    await q('UPDATE Event_Summaries SET TotalEvents = TotalEvents + 3');
    await q('UPDATE Storage SET DiskSpace = 1');

    // How "the monitor has a newer event" was asked before (a correlated EXISTS per open event)
    // and how it is asked now (the newest id per monitor, once).
    const planOf = (rows: unknown) =>
      (rows as Array<Record<string, unknown>>)
        .map((p) => `${String(p.table)}: ${String(p.type)} on ${String(p.key)} (~${String(p.rows)} rows)`)
        .join('; ');
    const before = await q(
      'EXPLAIN SELECT e.Id, EXISTS (SELECT 1 FROM Events n WHERE n.MonitorId = e.MonitorId AND n.Id > e.Id) FROM Events e WHERE e.EndDateTime IS NULL',
    );
    const after = await q(
      'EXPLAIN SELECT MonitorId, MAX(Id) FROM Events WHERE MonitorId IN (1, 2, 3) GROUP BY MonitorId',
    );
    console.log(`# newer event, correlated EXISTS: ${planOf(before)}`);
    console.log(`# newer event, newest id per monitor: ${planOf(after)}`);

    // 1. Audit, database half.
    const a = counted(raw);
    const t1 = performance.now();
    const auditCounts = await new AuditDb({
      pool: a.pool,
      prisma,
      log,
      dirEvents: path.join(base, 'events'),
      dryRun: false,
      minAgeSeconds: 3600,
    }).run();
    const auditS = (performance.now() - t1) / 1000;
    const auditRss = rssMb();
    a.top('audit DB half');

    // 2. Audit, filesystem half: a Medium tree, 90% with rows (the newest events), 10% orphans.
    const root = path.join(base, 'events');
    const rows = await q(
      `SELECT Id, MonitorId, DATE_FORMAT(StartDateTime, '%Y-%m-%d') AS d FROM Events ORDER BY Id DESC LIMIT ${Math.floor(DIRS * 0.9)}`,
    );
    for (const r of rows as Array<{ Id: number; MonitorId: number; d: string }>) {
      const dir = path.join(root, String(r.MonitorId), r.d, String(r.Id));
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `${r.Id}-video.mp4`), 'x');
    }
    for (let i = 0; i < DIRS - rows.length; i++) {
      const dir = path.join(root, String((i % 50) + 1), '2020-01-01', String(EVENTS * 20 + i));
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, '00001-capture.jpg'), 'x');
    }
    const f = counted(raw);
    const fs = new AuditFilesystem({
      pool: f.pool,
      log,
      dirEvents: path.join(base, 'default'),
      dryRun: false,
      minAgeSeconds: 0,
      quarantineRetentionDays: 7,
      confirmationsRequired: 2,
      removeRowsWithoutMedia: false,
      deletion: new EventDeletion(prisma, root, log),
    });
    const t2 = performance.now();
    const fsCounts = await fs.run();
    const fsS = (performance.now() - t2) / 1000;
    const fsRss = rssMb();
    f.top('audit FS half');

    // 3. Stats: L Logs rows, limit keeps 10%.
    await q(
      `INSERT INTO Logs (TimeKey, Component, Pid, Level, Code, Message, File, Line) SELECT UNIX_TIMESTAMP() - ${LOGS} + seq, 'zmc_m1', 1, 0, 'INF', 'a log line of typical length for a capture daemon', NULL, 0 FROM seq_1_to_${LOGS}`,
    );
    await q(
      `INSERT INTO Config (Name, Value, Type, Category) VALUES ('ZM_LOG_DATABASE_LIMIT', '${Math.floor(LOGS / 10)}', 'string', 'system'), ('ZM_COOKIE_LIFETIME', '3600', 'string', 'system')`,
    );
    const st = counted(raw);
    const stats = new StatsJob({
      pool: st.pool,
      log,
      enabled: true,
      intervalSeconds: 60,
      sampler: new HostSampler({ firstGapMs: 100 }),
    });
    const plan = await q(
      `EXPLAIN SELECT Id AS k, TimeKey AS o FROM Logs WHERE (1 = 1) AND (TimeKey > 5 OR (TimeKey = 5 AND Id > 7)) ORDER BY TimeKey, Id LIMIT 1000`,
    );
    console.log(
      `# Logs cursor read plan: ${(plan as Array<Record<string, unknown>>).map((p) => `${String(p.type)} on ${String(p.key)} (${String(p.Extra)})`).join('; ')}`,
    );
    const w1 = logWriter(raw);
    const t3 = performance.now();
    const statsCounts = await stats.run();
    const statsS = (performance.now() - t3) / 1000;
    const probe1 = await w1.stop();
    st.top('stats');

    // The same Logs pruning the way it was done before (and the way zmstats.pl does it): a
    // repeated `DELETE … ORDER BY TimeKey LIMIT 1000` from the start of the index, on the same
    // number of rows, in the same run (the machine's load changes between runs).
    await q('TRUNCATE TABLE Logs');
    await q(
      `INSERT INTO Logs (TimeKey, Component, Pid, Level, Code, Message, File, Line) SELECT UNIX_TIMESTAMP() - ${LOGS} + seq, 'zmc_m1', 1, 0, 'INF', 'a log line of typical length for a capture daemon', NULL, 0 FROM seq_1_to_${LOGS}`,
    );
    const old = emptyBatchStats();
    const w2 = logWriter(raw);
    const t4 = performance.now();
    const oldPruned = await deleteInBatches(raw, 'DELETE FROM Logs ORDER BY TimeKey', [], {
      maxRows: LOGS - Math.floor(LOGS / 10),
      stats: old,
    });
    const oldS = (performance.now() - t4) / 1000;
    const probe2 = await w2.stop();

    console.log(
      `\n### Maintenance passes (${EVENTS.toLocaleString('en')} events, ${DIRS.toLocaleString('en')} directories, ${LOGS.toLocaleString('en')} Logs rows)\n`,
    );
    printTable([
      [
        'pass',
        'input',
        'seconds',
        'peak RSS MB',
        'statements',
        'per event',
        'longest delete ms',
        'writer waited ms',
        'what it did',
      ],
      [
        'audit DB half',
        `${EVENTS} events`,
        auditS.toFixed(1),
        auditRss.toFixed(0),
        String(a.count()),
        (a.count() / EVENTS).toFixed(4),
        '—',
        '—',
        `recovered ${auditCounts.unclosed_recovered}, frames removed ${auditCounts.frames_removed}, summaries ${auditCounts.summaries_updated}`,
      ],
      [
        'audit FS half',
        `${DIRS} dirs`,
        fsS.toFixed(1),
        fsRss.toFixed(0),
        String(f.count()),
        (f.count() / DIRS).toFixed(4),
        '—',
        '—',
        `dirs ${fsCounts.event_dirs}, orphans seen ${fsCounts.orphans_seen}`,
      ],
      [
        'stats',
        `${LOGS} Logs rows`,
        statsS.toFixed(1),
        rssMb().toFixed(0),
        String(statsCounts.delete_statements),
        '—',
        stats.lastLongestMs.toFixed(0),
        `${probe1.maxMs.toFixed(0)} (${probe1.n} inserts)`,
        `logs pruned ${statsCounts.logs_pruned}`,
      ],
      [
        'Logs, ORDER BY LIMIT',
        `${LOGS} Logs rows`,
        oldS.toFixed(1),
        '—',
        String(old.statements),
        '—',
        old.longestMs.toFixed(0),
        `${probe2.maxMs.toFixed(0)} (${probe2.n} inserts)`,
        `logs pruned ${oldPruned} (the previous method, for comparison)`,
      ],
    ]);
    report(
      { measure: `audit DB pass, ${EVENTS} events`, unit: 's', value: auditS, decimals: 1 },
      { measure: `audit FS pass, ${DIRS} dirs`, unit: 's', value: fsS, decimals: 1 },
      { measure: `stats pass, ${LOGS} Logs rows`, unit: 's', value: statsS, decimals: 1 },
      { measure: 'stats: longest delete statement', unit: 'ms', value: stats.lastLongestMs, decimals: 0 },
      { measure: 'stats: longest wait of a concurrent Logs INSERT', unit: 'ms', value: probe1.maxMs, decimals: 0 },
      { measure: `Logs by ORDER BY … LIMIT, ${LOGS} rows`, unit: 's', value: oldS, decimals: 1 },
      { measure: 'Logs by ORDER BY … LIMIT: longest delete', unit: 'ms', value: old.longestMs, decimals: 0 },
      { measure: 'Logs by ORDER BY … LIMIT: longest concurrent INSERT', unit: 'ms', value: probe2.maxMs, decimals: 0 },
    );
    await raw.end();
    await prisma.$disconnect();
  } finally {
    rmSync(base, { recursive: true, force: true });
    await db.stop();
  }
}

await main();
