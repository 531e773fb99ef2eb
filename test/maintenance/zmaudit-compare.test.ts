// zmgate's audit against the real thing: Debian's zoneminder 1.36.33 `zmaudit.pl` (installed on
// this machine) and zmgate's audit database half run on two copies of the same 1.36 database and
// event tree; the derived tables (Events_Hour/Day/Week/Month, Event_Summaries, Storage.DiskSpace)
// must come out equal, apart from the one deliberate difference documented in
// docs/zoneminder/derived-tables.md (window counters of a monitor with no bucket rows).
//
// zmaudit.pl reads /etc/zm/zm.conf through ZoneMinder::Config, a path compiled into the module;
// the test runs it with a copy of that module that reads a zm.conf of its own (test/helpers/
// zm-perl.ts), so the machine's configuration is neither read nor changed.
import test from 'ava';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AuditDb } from '../../src/features/maintenance/audit-db.js';
import { fromLocalDateTimeString } from '../../src/db/datetime.js';
import { eventPaths } from '../../src/zm/event-paths.js';
import { prismaFor, sql } from '../helpers/events.js';
import { capturedLogger, poolFor } from '../helpers/maintenance.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { fixture } from '../helpers/playback.js';
import { derivedTables, runZmPerl } from '../helpers/zm-perl.js';
import { database136 } from '../helpers/zm136.js';

const ZMAUDIT = '/usr/bin/zmaudit.pl';

/** The same events, frames and drift in `db`, with their directories under `root`. */
async function seed(db: FreshDatabase, root: string, video: string): Promise<void> {
  await sql(db, 'UPDATE Storage SET Path = ?, Scheme = ? WHERE Id = 1', [root, 'Medium']);
  for (const m of [1, 2, 3])
    await sql(db, "INSERT INTO Monitors (Id, Name, Function, EventPrefix) VALUES (?, ?, 'Modect', 'Event-')", [
      m,
      `Cam ${m}`,
    ]);
  const ages = [
    ['1', '30 MINUTE'],
    ['1', '5 HOUR'],
    ['1', '3 DAY'],
    ['2', '10 DAY'],
    ['2', '40 DAY'],
    ['1', '2 DAY'],
  ];
  for (const [i, [monitor, age]] of ages.entries()) {
    const [{ start }] = await sql(db, `SELECT DATE_FORMAT(NOW() - INTERVAL ${age}, '%Y-%m-%d %H:%i:%s') AS start`);
    const [{ Id }] = await sql(
      db,
      "INSERT INTO Events (MonitorId, StorageId, Name, StartDateTime, EndDateTime, Length, Frames, Scheme, StateId) VALUES (?, 1, 'e', ?, ? + INTERVAL 10 SECOND, 10, 1, 'Medium', 0) RETURNING Id",
      [monitor, start, start],
    );
    await sql(
      db,
      "INSERT INTO Frames (EventId, FrameId, Type, TimeStamp, Delta, Score) VALUES (?, 1, 'Normal', ?, 0, 0)",
      [Id, start],
    );
    const dir = eventPaths(
      { id: Id, monitorId: Number(monitor), startDateTime: fromLocalDateTimeString(start), scheme: 'Medium' },
      root,
    ).eventDir;
    mkdirSync(dir, { recursive: true });
    copyFileSync(video, path.join(dir, `${Id}-video.mp4`));
    writeFileSync(path.join(dir, 'snapshot.jpg'), Buffer.alloc(1000 + i));
    const bytes = statSync(path.join(dir, `${Id}-video.mp4`)).size + 1000 + i;
    await sql(db, 'UPDATE Events SET DiskSpace = ? WHERE Id = ?', [bytes, Id]);
    if (i === 2) await sql(db, 'UPDATE Events SET Archived = 1 WHERE Id = ?', [Id]);
  }
  // Drift: wrong totals, wrong storage figure, and monitor 3 with stale window counters.
  await sql(
    db,
    'UPDATE Event_Summaries SET TotalEvents = 99, TotalEventDiskSpace = 1, ArchivedEvents = 7, DayEvents = 42 WHERE MonitorId = 1',
  );
  await sql(
    db,
    'INSERT INTO Event_Summaries (MonitorId, TotalEvents, HourEvents, DayEvents, WeekEvents, MonthEvents) VALUES (3, 5, 5, 5, 5, 5) ON DUPLICATE KEY UPDATE TotalEvents = 5, HourEvents = 5, DayEvents = 5, WeekEvents = 5, MonthEvents = 5',
  );
  await sql(db, 'UPDATE Storage SET DiskSpace = 1');
}

async function derived(db: FreshDatabase): Promise<Record<string, unknown>> {
  const out = await derivedTables(db);
  out.Events = (await sql(db, 'SELECT Id, Archived, DiskSpace FROM Events ORDER BY Id')).map((r) => [
    Number(r.Id),
    r.Archived,
    Number(r.DiskSpace),
  ]);
  return out;
}

/** Runs zmaudit.pl once against `db`, with a zm.conf of its own. */
function runZmaudit(db: FreshDatabase, root: string): string {
  const r = runZmPerl(db, ZMAUDIT, { args: ['--force'], eventsDir: root });
  if (r.status !== 0) throw new Error(`zmaudit.pl failed (exit ${r.status}): ${r.output}`);
  return r.output;
}

test("zmaudit.pl 1.36.33 and zmgate's audit leave the same derived tables (one documented difference)", async (t) => {
  t.true(existsSync(ZMAUDIT), "Debian's zoneminder package must be installed (scripts/setup.sh)");
  const video = await fixture('h264.mp4');
  const base = mkdtempSync(path.join(tmpdir(), 'zmgate-zmaudit-cmp-'));
  const [a, b] = [await database136('cmp_zmaudit'), await database136('cmp_zmgate')];
  await seed(a, path.join(base, 'a'), video);
  await seed(b, path.join(base, 'b'), video);
  t.deepEqual(await derived(a), await derived(b), 'the two copies start equal');

  const output = runZmaudit(a, path.join(base, 'a'));
  t.log(
    output
      .split('\n')
      .filter((l) => l.trim())
      .slice(-5)
      .join('\n'),
  );
  const pool = poolFor(b);
  const prisma = prismaFor(b);
  t.teardown(async () => {
    await pool.end();
    await prisma.$disconnect();
  });
  const { log } = capturedLogger();
  await new AuditDb({ pool, prisma, log, dirEvents: path.join(base, 'b'), dryRun: false, minAgeSeconds: 86400 }).run();

  const [ra, rb] = [await derived(a), await derived(b)];
  const summariesA = ra.Event_Summaries as Array<Record<string, number | null>>;
  const summariesB = rb.Event_Summaries as Array<Record<string, number | null>>;
  // The deliberate difference: monitor 3 has no bucket rows; zmaudit keeps its stale window counts.
  const m3a = summariesA.find((s) => s.MonitorId === 3)!;
  const m3b = summariesB.find((s) => s.MonitorId === 3)!;
  t.like(m3a, { HourEvents: 5, DayEvents: 5, WeekEvents: 5, MonthEvents: 5, TotalEvents: 0 });
  t.like(m3b, { HourEvents: 0, DayEvents: 0, WeekEvents: 0, MonthEvents: 0, TotalEvents: 0 });
  t.deepEqual(
    { ...ra, Event_Summaries: summariesA.filter((s) => s.MonitorId !== 3) },
    { ...rb, Event_Summaries: summariesB.filter((s) => s.MonitorId !== 3) },
  );
  // Both repaired the drift (no one aged the buckets here: all four of monitor 1's events are in Events_Day).
  t.like(
    summariesB.find((s) => s.MonitorId === 1),
    { TotalEvents: 4, ArchivedEvents: 1, DayEvents: 4 },
  );
  t.not((rb.Storage as Array<[number, number | null]>)[0][1], 1);
});
