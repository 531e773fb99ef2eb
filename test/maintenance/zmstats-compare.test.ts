// zmgate's stats pass against the real thing: Debian's zoneminder 1.36.33 `zmstats.pl` (installed
// on this machine) and zmgate's StatsJob run on two copies of the same 1.36 database. zmstats.pl
// 1.36.33 does three things per pass: it ages Events_Hour/Day/Week/Month (one DELETE per window;
// the bucket delete triggers decrement Event_Summaries), prunes Logs under ZM_LOG_DATABASE_LIMIT
// and Sessions under ZM_COOKIE_LIFETIME. It does not touch Storage.DiskSpace, Server_Stats or
// Monitor_Status. The bucket tables, Event_Summaries, Storage.DiskSpace, Logs and Sessions must
// come out equal, apart from the deliberate difference documented in
// docs/zoneminder/derived-tables.md (window counters of a monitor with no bucket rows).
//
// zmstats.pl is a daemon: it sleeps 30 s, runs a pass, sleeps ZM_STATS_UPDATE_INTERVAL and loops
// until TERM. The script runs unchanged; a small module loaded with `perl -M` replaces Perl's
// `sleep` so that the start delay returns at once and the sleep after the first pass ends the
// process (exit 0): exactly one pass, no waiting and no killing. Its configuration comes from a
// zm.conf of the test's own (test/helpers/zm-perl.ts).
import test from 'ava';
import { existsSync } from 'node:fs';
import { HostSampler } from '../../src/features/maintenance/host-sample.js';
import { StatsJob } from '../../src/features/maintenance/stats-job.js';
import { sql } from '../helpers/events.js';
import { capturedLogger, poolFor, setZmConfig } from '../helpers/maintenance.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { database136 } from '../helpers/zm136.js';
import { derivedTables, runZmPerl } from '../helpers/zm-perl.js';

const ZMSTATS = '/usr/bin/zmstats.pl';

/** Perl's sleep, replaced: the first call (the 30 s start delay) returns, the next one exits. */
const ONE_PASS = `package ZmgateOnePass;
my $calls = 0;
BEGIN {
  *CORE::GLOBAL::sleep = sub (;$) {
    $calls++;
    if ($calls > 1) { print STDOUT "zmgate-one-pass: pass done\\n"; exit(0); }
    return 0;
  };
}
1;
`;

/** The same events, drift, Logs and Sessions in `db`. */
async function seed(db: FreshDatabase): Promise<void> {
  for (const m of [1, 2, 3])
    await sql(db, "INSERT INTO Monitors (Id, Name, Function, EventPrefix) VALUES (?, ?, 'Modect', 'Event-')", [
      m,
      `Cam ${m}`,
    ]);
  // One event per window edge: the insert trigger puts each into all four buckets.
  const ages = [
    [1, '30 MINUTE'],
    [1, '2 HOUR'],
    [1, '5 HOUR'],
    [2, '2 DAY'],
    [1, '3 DAY'],
    [2, '10 DAY'],
    [1, '20 DAY'],
    [2, '40 DAY'],
    [2, '100 DAY'],
  ] as const;
  for (const [i, [monitor, age]] of ages.entries()) {
    const [{ Id }] = await sql(
      db,
      `INSERT INTO Events (MonitorId, StorageId, Name, StartDateTime, EndDateTime, Length, Frames, Scheme, StateId) VALUES (?, 1, 'e', NOW() - INTERVAL ${age}, NOW() - INTERVAL ${age} + INTERVAL 10 SECOND, 10, 1, 'Medium', 0) RETURNING Id`,
      [monitor],
    );
    // The update trigger carries the size into the buckets and the summaries.
    await sql(db, 'UPDATE Events SET DiskSpace = ? WHERE Id = ?', [100_000 * (i + 1), Id]);
  }
  // Drift: monitor 3 has window counters but no bucket rows.
  await sql(
    db,
    'INSERT INTO Event_Summaries (MonitorId, TotalEvents, HourEvents, DayEvents, WeekEvents, MonthEvents) VALUES (3, 5, 5, 5, 5, 5)',
  );
  await sql(db, 'UPDATE Storage SET DiskSpace = 123456789');
  // Logs a day apart, 11.5 days old to half a day old (distinct TimeKeys: zmstats breaks ties in
  // its own order; half days: no row near a cutoff however long the runs take).
  for (let i = 0; i < 12; i++)
    await sql(
      db,
      "INSERT INTO Logs (TimeKey, Component, Pid, Level, Code, Message, File, Line) VALUES (UNIX_TIMESTAMP(NOW() - INTERVAL ? HOUR), 'zmc_m1', 1, 0, 'INF', ?, NULL, 0)",
      [(12 - i) * 24 - 12, `line ${i}`],
    );
  await sql(
    db,
    "INSERT INTO Sessions (id, access, data) VALUES ('old', UNIX_TIMESTAMP() - 7200, ''), ('fresh', UNIX_TIMESTAMP() - 60, '')",
  );
  await setZmConfig(db, 'ZM_COOKIE_LIFETIME', '3600');
  await setZmConfig(db, 'ZM_LOG_DATABASE_LIMIT', '7 days');
}

async function derived(db: FreshDatabase): Promise<Record<string, unknown>> {
  const out = await derivedTables(db);
  out.Logs = (await sql(db, 'SELECT Message FROM Logs ORDER BY TimeKey')).map((r) => r.Message);
  out.Sessions = (await sql(db, 'SELECT id FROM Sessions ORDER BY id')).map((r) => r.id);
  return out;
}

function runZmstats(db: FreshDatabase): string {
  const r = runZmPerl(db, ZMSTATS, {
    perlArgs: ['-MZmgateOnePass'],
    modules: { ZmgateOnePass: ONE_PASS },
    timeoutMs: 120_000,
  });
  if (r.status !== 0 || !r.output.includes('zmgate-one-pass: pass done'))
    throw new Error(`zmstats.pl did not complete one pass (exit ${r.status}): ${r.output}`);
  return r.output;
}

/** The deliberate difference: monitor 3's stale window counters (zmstats keeps them, zmgate zeroes them). */
function withoutMonitor3(d: Record<string, unknown>): Record<string, unknown> {
  return {
    ...d,
    Event_Summaries: (d.Event_Summaries as Array<Record<string, number | null>>).filter((s) => s.MonitorId !== 3),
  };
}

test("zmstats.pl 1.36.33 and zmgate's stats pass leave the same derived tables, Logs and Sessions (interval and row-count limits)", async (t) => {
  t.true(existsSync(ZMSTATS), "Debian's zoneminder package must be installed (scripts/setup.sh)");
  const [a, b] = [await database136('cmp_zmstats'), await database136('cmp_zmgate_stats')];
  await seed(a);
  await seed(b);
  t.deepEqual(await derived(a), await derived(b), 'the two copies start equal');

  const pool = poolFor(b);
  t.teardown(() => pool.end());
  const { log } = capturedLogger();
  const job = new StatsJob({
    pool,
    log,
    enabled: true,
    intervalSeconds: 60,
    sampler: new HostSampler({ firstGapMs: 1 }),
    hostName: 'zmgate-test-host',
  });

  // Pass 1: ZM_LOG_DATABASE_LIMIT '7 days' (zmstats strips the plural s).
  t.log(runZmstats(a).trim().split('\n').slice(-3).join('\n'));
  const counts = await job.run();
  const [ra, rb] = [await derived(a), await derived(b)];
  t.deepEqual(withoutMonitor3(ra), withoutMonitor3(rb));
  t.like(
    (ra.Event_Summaries as Array<Record<string, number>>).find((s) => s.MonitorId === 3),
    {
      HourEvents: 5,
      MonthEvents: 5,
    },
  );
  t.like(
    (rb.Event_Summaries as Array<Record<string, number>>).find((s) => s.MonitorId === 3),
    {
      HourEvents: 0,
      MonthEvents: 0,
    },
  );
  // Something happened in each table compared: not equal because nothing ran.
  t.is((rb.Events_Hour as unknown[]).length, 1);
  t.is((rb.Events_Day as unknown[]).length, 3);
  t.is((rb.Events_Week as unknown[]).length, 5);
  t.is((rb.Events_Month as unknown[]).length, 7);
  t.like(
    (rb.Event_Summaries as Array<Record<string, number>>).find((s) => s.MonitorId === 1),
    {
      HourEvents: 1,
      DayEvents: 3,
      WeekEvents: 4,
      MonthEvents: 5,
      TotalEvents: 5,
    },
  );
  t.deepEqual(rb.Logs, ['line 5', 'line 6', 'line 7', 'line 8', 'line 9', 'line 10', 'line 11']);
  t.deepEqual(rb.Sessions, ['fresh']);
  t.deepEqual(rb.Storage, [[1, 123456789]]);
  t.like(counts, { logs_pruned: 5, sessions_pruned: 1 });
  t.false('server_stats_written' in counts, '1.36 has no Server_Stats table: the sample is not written there');

  // Pass 2: a row count.
  await setZmConfig(a, 'ZM_LOG_DATABASE_LIMIT', '4');
  await setZmConfig(b, 'ZM_LOG_DATABASE_LIMIT', '4');
  runZmstats(a);
  await job.run();
  const [sa, sb] = [await derived(a), await derived(b)];
  t.deepEqual(withoutMonitor3(sa), withoutMonitor3(sb));
  t.deepEqual(sb.Logs, ['line 8', 'line 9', 'line 10', 'line 11']);
});
