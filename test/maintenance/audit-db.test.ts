// The audit's database half on real directory trees (ffmpeg-made media, every scheme) and a
// throwaway MariaDB: orphan Frames/Stats rows, unclosed events recovered from their frames (and
// left alone while the capture daemon lives), empty events deleted with their directory through
// the event deletion path, DiskSpace from the files, Event_Summaries and Storage.DiskSpace, and
// a dry run that writes nothing. Serial: the deletion path guards event ids process-wide, and
// every test's database numbers its events from 1.
import test from 'ava';
import { existsSync, linkSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AuditDb } from '../../src/features/maintenance/audit-db.js';
import type { PrismaClient } from '../../src/db/prisma.js';
import type { DbPool } from '../../src/db/pool.js';
import { insertEvent, insertMonitor, prismaFor, sql, summary } from '../helpers/events.js';
import { capturedLogger, databaseChecksum, poolFor } from '../helpers/maintenance.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { captures, insertMediaEvent, makeStorages, type StorageRoots } from '../helpers/playback.js';
import { zmDatabase } from '../helpers/zmdb.js';

interface Fixture {
  db: FreshDatabase;
  pool: DbPool;
  prisma: PrismaClient;
  roots: StorageRoots;
  audit(options?: { dryRun?: boolean; minAgeSeconds?: number }): AuditDb;
  records: Array<Record<string, any>>;
}

async function setup(prefix: string): Promise<Fixture> {
  const db = await zmDatabase(prefix);
  const pool = poolFor(db);
  const prisma = prismaFor(db);
  const roots = await makeStorages(db, prefix);
  const { log, records } = capturedLogger();
  return {
    db,
    pool,
    prisma,
    roots,
    records,
    audit: (o = {}) =>
      new AuditDb({
        pool,
        prisma,
        log,
        dirEvents: roots.defaultDir,
        dryRun: o.dryRun ?? false,
        minAgeSeconds: o.minAgeSeconds ?? 600,
      }),
  };
}

/** A local wall-clock time `interval` ago, as the database has it. */
async function ago(db: FreshDatabase, interval: string): Promise<string> {
  const [{ t }] = await sql(db, `SELECT DATE_FORMAT(NOW() - INTERVAL ${interval}, '%Y-%m-%d %H:%i:%s') AS t`);
  return t as string;
}

/** Frames rows: [FrameId, Type, Score, seconds after start]. */
async function frames(
  db: FreshDatabase,
  eventId: number,
  start: string,
  rows: Array<[number, string, number, number]>,
) {
  for (const [fid, type, score, offset] of rows) {
    await sql(
      db,
      'INSERT INTO Frames (EventId, FrameId, Type, TimeStamp, Delta, Score) VALUES (?, ?, ?, ? + INTERVAL ? SECOND, ?, ?)',
      [eventId, fid, type, start, offset, offset, score],
    );
  }
}

const teardown = (f: Fixture) => async () => {
  await f.pool.end();
  await f.prisma.$disconnect();
};

test.serial(
  'unclosed events whose capture daemon stopped are closed with totals from their frames; live, recent and archived ones are left',
  async (t) => {
    const f = await setup('audit_unclosed');
    t.teardown(teardown(f));
    const start = await ago(f.db, '2 HOUR');
    // Monitor 1: superseded by a newer event (zmc started another one).
    const superseded = (
      await insertMediaEvent(f.db, f.roots, {
        monitorId: 1,
        scheme: 'Deep',
        start,
        end: null,
        name: 'New Event',
        frames: null,
        files: { ...captures([1, 2, 3]) },
      })
    ).id;
    await frames(f.db, superseded, start, [
      [1, 'Normal', 0, 0],
      [2, 'Alarm', 30, 1.5],
      [3, 'Alarm', 70, 2],
      [100, 'Bulk', 0, 40],
      [150, 'Alarm', 11, 61],
    ]);
    await insertEvent(f.db, { monitorId: 1, start: await ago(f.db, '30 MINUTE'), end: await ago(f.db, '29 MINUTE') });
    // Monitor 2: zmc still alive (fresh heartbeat), no newer event: left open.
    await insertMonitor(f.db, 2);
    const live = await insertEvent(f.db, { monitorId: 2, start, end: null, name: 'New Event' });
    await frames(f.db, live, start, [[1, 'Normal', 0, 0]]);
    await sql(f.db, "INSERT INTO Monitor_Status (MonitorId, Status, UpdatedOn) VALUES (2, 'Connected', NOW())");
    // Monitor 3: heartbeat stale, renamed by a user: the name is kept. Shallow scheme.
    const stale = (
      await insertMediaEvent(f.db, f.roots, {
        monitorId: 3,
        scheme: 'Shallow',
        start,
        end: null,
        name: 'Front door',
        notes: 'Motion: All',
        files: captures([1]),
      })
    ).id;
    await frames(f.db, stale, start, [
      [1, 'Normal', 0, 0],
      [2, 'Normal', 0, 0.5],
    ]);
    await sql(
      f.db,
      "INSERT INTO Monitor_Status (MonitorId, Status, UpdatedOn) VALUES (3, 'Connected', NOW() - INTERVAL 10 MINUTE)",
    );
    // Monitor 4: frames written a minute ago: still recording as far as anyone can tell.
    await insertMonitor(f.db, 4);
    const recent = await insertEvent(f.db, { monitorId: 4, start, end: null });
    await frames(f.db, recent, await ago(f.db, '1 MINUTE'), [[1, 'Normal', 0, 0]]);
    // Monitor 5: archived: never touched.
    await insertMonitor(f.db, 5);
    const archived = await insertEvent(f.db, { monitorId: 5, start, end: null, archived: 1 });
    // Monitor 6: no frame at all, no heartbeat: closed at its start, with zero totals.
    await insertMonitor(f.db, 6);
    const frameless = await insertEvent(f.db, { monitorId: 6, start, end: null, name: 'New Event' });

    const counts = await f.audit().run();
    t.is(counts.unclosed_recovered, 3);
    t.is(counts.unclosed_left_live, 1);

    const [expected] = await sql(
      f.db,
      `SELECT DATE_FORMAT(MAX(TimeStamp), '%Y-%m-%d %H:%i:%s.%f') AS endTime, MAX(FrameId) AS frames, SUM(Score > 0) AS alarm, SUM(Score) AS tot, MAX(Score) AS max FROM Frames WHERE EventId = ?`,
      [superseded],
    );
    const [e] = await sql(
      f.db,
      "SELECT Name, Notes, DATE_FORMAT(EndDateTime, '%Y-%m-%d %H:%i:%s.%f') AS endTime, Length, Frames, AlarmFrames, TotScore, AvgScore, MaxScore, MaxScoreFrameId FROM Events WHERE Id = ?",
      [superseded],
    );
    t.is(e.endTime, expected.endTime);
    t.is(Number(e.Length), 61);
    t.is(Number(e.Frames), Number(expected.frames));
    t.is(Number(e.Frames), 150);
    t.is(Number(e.AlarmFrames), Number(expected.alarm));
    t.is(Number(e.TotScore), Number(expected.tot));
    t.is(Number(e.MaxScore), 70);
    t.is(Number(e.MaxScoreFrameId), 3);
    t.is(Number(e.AvgScore), Math.floor(111 / 3));
    t.is(e.Name, `Event-${superseded}(r)`);
    t.is(e.Notes, 'Recovered.');
    const [s] = await sql(
      f.db,
      'SELECT Name, Notes, Frames, EndDateTime IS NOT NULL AS closed FROM Events WHERE Id = ?',
      [stale],
    );
    t.deepEqual([s.Name, s.Notes, Number(s.Frames), Number(s.closed)], ['Front door', 'Motion: All Recovered.', 2, 1]);
    for (const id of [live, recent, archived]) {
      const [row] = await sql(f.db, 'SELECT EndDateTime FROM Events WHERE Id = ?', [id]);
      t.is(row.EndDateTime, null, `event ${id} stays open`);
    }
    const [z] = await sql(
      f.db,
      'SELECT Name, EndDateTime = StartDateTime AS atStart, Length, Frames, AlarmFrames, TotScore, AvgScore, MaxScore, MaxScoreFrameId FROM Events WHERE Id = ?',
      [frameless],
    );
    t.deepEqual(
      { ...z, Length: Number(z.Length) },
      {
        Name: `Event-${frameless}(r)`,
        atStart: 1,
        Length: 0,
        Frames: 0,
        AlarmFrames: 0,
        TotScore: 0,
        AvgScore: 0,
        MaxScore: 0,
        MaxScoreFrameId: null,
      },
      'recovered, and not deleted as empty in the same pass',
    );
    // Recovered events keep their media; the closed event got its DiskSpace from the files.
    const [{ DiskSpace }] = await sql(f.db, 'SELECT DiskSpace FROM Events WHERE Id = ?', [superseded]);
    t.true(Number(DiskSpace) > 0);
  },
);

test.serial(
  'empty events older than min_age are deleted with their directory; a recording, an archived or a young event is kept; orphan Frames/Stats go',
  async (t) => {
    const f = await setup('audit_empty');
    t.teardown(teardown(f));
    const old = await ago(f.db, '3 HOUR');
    const oldEnd = await ago(f.db, '2 HOUR');
    const deleted = await insertMediaEvent(f.db, f.roots, {
      monitorId: 1,
      scheme: 'Medium',
      start: old,
      end: oldEnd,
      files: { 'snapshot.jpg': { fixture: 'snapshot.jpg' } },
    });
    const deepDeleted = await insertMediaEvent(f.db, f.roots, {
      monitorId: 1,
      scheme: 'Deep',
      start: await ago(f.db, '181 MINUTE'),
      end: oldEnd,
    });
    const withVideo = await insertMediaEvent(f.db, f.roots, {
      monitorId: 1,
      scheme: 'Shallow',
      start: old,
      end: oldEnd,
      files: { '{id}-video.mp4': { fixture: 'h264.mp4' } },
    });
    const archived = await insertMediaEvent(f.db, f.roots, {
      monitorId: 1,
      scheme: 'Medium',
      start: old,
      end: oldEnd,
      archived: 1,
    });
    const young = await insertMediaEvent(f.db, f.roots, {
      monitorId: 1,
      scheme: 'Medium',
      start: await ago(f.db, '2 MINUTE'),
      end: await ago(f.db, '1 MINUTE'),
    });
    const withFrames = await insertMediaEvent(f.db, f.roots, {
      monitorId: 1,
      scheme: 'Medium',
      start: old,
      end: oldEnd,
      frameRows: [[1, 0]],
    });
    await sql(
      f.db,
      "INSERT INTO Frames (EventId, FrameId, Type, Score, Delta) VALUES (999999, 1, 'Normal', 0, 0), (999999, 2, 'Normal', 0, 0), (999998, 1, 'Normal', 0, 0)",
    );
    await sql(f.db, 'INSERT INTO Stats (MonitorId, ZoneId, EventId, FrameId) VALUES (1, 1, 999999, 1)');
    // Event data has no foreign key (nor do zmgate's side tables beside 1.36): its orphans go too.
    await sql(f.db, "INSERT INTO Event_Data (EventId, MonitorId, Data) VALUES (999999, 1, 'x'), (999999, 1, 'y')");

    const counts = await f.audit().run();
    t.like(counts, {
      empty_deleted: 2,
      empty_kept_with_media: 1,
      frames_orphan_events: 2,
      frames_removed: 3,
      stats_orphan_events: 1,
      stats_removed: 1,
      event_data_orphan_events: 1,
      event_data_removed: 2,
    });
    for (const e of [deleted, deepDeleted]) {
      t.is((await sql(f.db, 'SELECT Id FROM Events WHERE Id = ?', [e.id])).length, 0);
      t.false(existsSync(e.dir), `${e.dir} removed`);
    }
    t.false(existsSync(path.dirname(deepDeleted.dir)), 'Deep parents left empty are removed too');
    for (const e of [withVideo, archived, young, withFrames]) {
      t.is((await sql(f.db, 'SELECT Id FROM Events WHERE Id = ?', [e.id])).length, 1);
      t.true(existsSync(e.dir));
    }
    t.is(Number((await sql(f.db, 'SELECT COUNT(*) AS n FROM Frames WHERE EventId >= 999998'))[0].n), 0);
    t.true(
      f.records.some(
        (r) => r.msg === 'event deleted' && r.reason === 'audit: empty event (no frames)' && r.event_id === deleted.id,
      ),
    );
  },
);

test.serial(
  'DiskSpace is filled from the files (hard links once); Event_Summaries and Storage.DiskSpace are recomputed',
  async (t) => {
    const f = await setup('audit_space');
    t.teardown(teardown(f));
    const start = await ago(f.db, '2 DAY');
    const end = await ago(f.db, '2 DAY - INTERVAL 1 MINUTE');
    const a = await insertMediaEvent(f.db, f.roots, {
      monitorId: 1,
      scheme: 'Medium',
      start,
      end,
      diskSpace: null,
      frameRows: [[1, 0]],
      files: { '{id}-video.mp4': { fixture: 'h264.mp4' } },
    });
    linkSync(path.join(a.dir, `${a.id}-video.mp4`), path.join(a.dir, `${a.id}-video.h264.mp4`));
    writeFileSync(path.join(a.dir, 'snapshot.jpg'), Buffer.alloc(1000));
    const expectedA = statSync(path.join(a.dir, `${a.id}-video.mp4`)).size + 1000;
    const b = await insertMediaEvent(f.db, f.roots, {
      monitorId: 1,
      scheme: 'Deep',
      start,
      end,
      diskSpace: 5000,
      archived: 1,
      frameRows: [[1, 0]],
    });
    const c = await insertMediaEvent(f.db, f.roots, {
      monitorId: 2,
      scheme: 'Shallow',
      start,
      end,
      diskSpace: 700,
      frameRows: [[1, 0]],
    });
    // Only the Day/Week/Month windows hold these events (2 days old).
    for (const e of [a, b, c]) {
      const [{ MonitorId, DiskSpace }] = await sql(f.db, 'SELECT MonitorId, DiskSpace FROM Events WHERE Id = ?', [
        e.id,
      ]);
      for (const w of ['Week', 'Month'])
        await sql(f.db, `INSERT INTO Events_${w} (EventId, MonitorId, StartDateTime, DiskSpace) VALUES (?, ?, ?, ?)`, [
          e.id,
          MonitorId,
          start,
          DiskSpace,
        ]);
    }
    // Drifted counters and storage figures.
    await sql(
      f.db,
      'INSERT INTO Event_Summaries (MonitorId, TotalEvents, TotalEventDiskSpace, HourEvents, DayEvents, WeekEvents, MonthEvents, ArchivedEvents, ArchivedEventDiskSpace) VALUES (1, 9, 9, 9, 9, 9, 9, 9, 9), (2, 0, 0, 0, 0, 0, 0, 0, 0)',
    );
    await sql(f.db, 'UPDATE Storage SET DiskSpace = 123456789');

    const counts = await f.audit().run();
    t.is(counts.diskspace_filled, 1);
    const [{ DiskSpace }] = await sql(f.db, 'SELECT DiskSpace FROM Events WHERE Id = ?', [a.id]);
    t.is(Number(DiskSpace), expectedA);
    t.like(await summary(f.db, 1), {
      TotalEvents: 2,
      TotalEventDiskSpace: expectedA + 5000,
      ArchivedEvents: 1,
      ArchivedEventDiskSpace: 5000,
      HourEvents: 0,
      DayEvents: 0,
      WeekEvents: 2,
      WeekEventDiskSpace: expectedA + 5000,
      MonthEvents: 2,
    });
    t.like(await summary(f.db, 2), {
      TotalEvents: 1,
      TotalEventDiskSpace: 700,
      ArchivedEvents: 0,
      ArchivedEventDiskSpace: null,
      WeekEvents: 1,
      WeekEventDiskSpace: 700,
    });
    const storage = Object.fromEntries(
      (await sql(f.db, 'SELECT Id, DiskSpace FROM Storage')).map((r) => [
        r.Id,
        r.DiskSpace === null ? null : Number(r.DiskSpace),
      ]),
    );
    t.deepEqual(storage, { 1: 5000, 2: expectedA, 3: 700 });
    // A second pass finds nothing left to do.
    const again = await f.audit().run();
    t.like(again, {
      diskspace_filled: 0,
      summaries_updated: 0,
      storage_updated: 0,
      unclosed_recovered: 0,
      empty_deleted: 0,
    });
  },
);

/** Every path under `dir` with its size and mtime. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const st = statSync(p, { throwIfNoEntry: false });
      out.push(
        `${path.relative(dir, p)} ${e.isDirectory() ? 'd' : e.isSymbolicLink() ? 'l' : 'f'} ${st?.size ?? '-'} ${st?.mtimeMs ?? '-'}`,
      );
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

test.serial(
  'dry run: every step has something to do, and nothing at all is written (row checksums and trees equal)',
  async (t) => {
    const f = await setup('audit_dry');
    t.teardown(teardown(f));
    const start = await ago(f.db, '3 HOUR');
    const end = await ago(f.db, '2 HOUR');
    const unclosed = await insertMediaEvent(f.db, f.roots, {
      monitorId: 1,
      scheme: 'Deep',
      start,
      end: null,
      files: captures([1]),
    });
    await frames(f.db, unclosed.id, start, [[1, 'Alarm', 20, 0]]);
    await insertEvent(f.db, { monitorId: 1, start: end, end });
    await insertMediaEvent(f.db, f.roots, {
      monitorId: 1,
      scheme: 'Medium',
      start,
      end,
      files: { 'snapshot.jpg': { fixture: 'snapshot.jpg' } },
    });
    await insertMediaEvent(f.db, f.roots, {
      monitorId: 2,
      scheme: 'Shallow',
      start,
      end,
      diskSpace: null,
      frameRows: [[1, 0]],
      files: { '{id}-video.mp4': { fixture: 'h264.mp4' } },
    });
    await sql(f.db, "INSERT INTO Frames (EventId, FrameId, Type, Score, Delta) VALUES (999999, 1, 'Normal', 0, 0)");
    await sql(f.db, 'INSERT INTO Event_Summaries (MonitorId, TotalEvents) VALUES (1, 42), (2, 42)');
    await sql(f.db, 'UPDATE Storage SET DiskSpace = 1');

    const rowsBefore = await databaseChecksum(f.db);
    const treeBefore = tree(f.roots.base);
    const counts = await f.audit({ dryRun: true }).run();
    // Empty: the snapshot-only event and the superseding one (no frames, no directory); DiskSpace: the
    // snapshot-only event and the Shallow one.
    t.like(counts, { dry_run: 1, frames_removed: 1, unclosed_recovered: 1, empty_deleted: 2, diskspace_filled: 2 });
    t.true(counts.summaries_updated >= 2);
    t.true(counts.storage_updated >= 1);
    t.deepEqual(await databaseChecksum(f.db), rowsBefore);
    t.deepEqual(tree(f.roots.base), treeBefore);
    t.true(f.records.some((r) => /dry run/.test(r.msg)));
  },
);

test.serial(
  'the database going away mid-pass: the pass stops at once with its counts so far, not one error line per event',
  async (t) => {
    const f = await setup('audit_outage');
    t.teardown(teardown(f));
    const start = await ago(f.db, '3 HOUR');
    const end = await ago(f.db, '2 HOUR');
    for (let i = 0; i < 40; i++) await insertEvent(f.db, { monitorId: 1, start, end });
    // The deletion path meets an outage after three deletions (a database that stopped answering).
    const { log, records } = capturedLogger();
    const { EventDeletion } = await import('../../src/zm/event-deletion.js');
    const { DatabaseUnavailableError } = await import('../../src/errors.js');
    let done = 0;
    const deletion = new EventDeletion(f.prisma, f.roots.defaultDir, log);
    const real = deletion.delete.bind(deletion);
    deletion.delete = async (...args: Parameters<typeof real>) => {
      if (done >= 3) throw new DatabaseUnavailableError();
      done++;
      return real(...args);
    };
    const audit = new AuditDb({
      pool: f.pool,
      prisma: f.prisma,
      log,
      dirEvents: f.roots.defaultDir,
      dryRun: false,
      minAgeSeconds: 600,
      deletion,
    });
    const err = await t.throwsAsync(audit.run());
    t.like((err as Error & { counts: Record<string, number> }).counts, { empty_deleted: 3 });
    t.deepEqual(
      records.filter((r) => r.msg === 'empty event not deleted'),
      [],
      'no line per remaining event',
    );
    t.is(Number((await sql(f.db, 'SELECT COUNT(*) AS n FROM Events'))[0].n), 37);
  },
);
