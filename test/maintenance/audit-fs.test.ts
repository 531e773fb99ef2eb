// The audit's filesystem half on real directory trees in every scheme (ffmpeg-made media) and a
// throwaway MariaDB: orphans quarantined only after two passes and swept after the retention
// days (clock injected), unidentified directories untouched, refusals, the canary disabling the
// half, rows without media, and a dry run that changes nothing.
import test from 'ava';
import { existsSync, lstatSync, mkdirSync, readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AuditDb } from '../../src/features/maintenance/audit-db.js';
import { AuditFilesystem, QUARANTINE_DIR } from '../../src/features/maintenance/audit-fs.js';
import { AuditJob } from '../../src/features/maintenance/audit-job.js';
import { EventDeletion } from '../../src/zm/event-deletion.js';
import { eventPaths } from '../../src/zm/event-paths.js';
import { fromLocalDateTimeString } from '../../src/db/datetime.js';
import { insertEvent, insertStorage, prismaFor, sql } from '../helpers/events.js';
import { capturedLogger, databaseChecksum, poolFor } from '../helpers/maintenance.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { captures, insertMediaEvent, makeStorages, type StorageRoots } from '../helpers/playback.js';
import { zmDatabase } from '../helpers/zmdb.js';

const DAY = 86_400_000;

async function setup(prefix: string, options: { removeRowsWithoutMedia?: boolean; dryRun?: boolean } = {}) {
  const db = await zmDatabase(prefix);
  const pool = poolFor(db);
  const prisma = prismaFor(db);
  const roots = await makeStorages(db, prefix);
  mkdirSync(path.join(roots.defaultDir, '1'));
  const { log, records } = capturedLogger();
  let now = Date.now();
  const deletion = new EventDeletion(prisma, roots.defaultDir, log);
  const fs = new AuditFilesystem({
    pool,
    log,
    dirEvents: roots.defaultDir,
    dryRun: options.dryRun ?? false,
    minAgeSeconds: 0,
    quarantineRetentionDays: 7,
    confirmationsRequired: 2,
    removeRowsWithoutMedia: options.removeRowsWithoutMedia ?? false,
    deletion,
    now: () => new Date(now),
  });
  return {
    db,
    pool,
    roots,
    records,
    fs,
    log,
    deletion,
    prisma,
    advance: (ms: number) => (now += ms),
    close: async () => {
      await pool.end();
      await prisma.$disconnect();
    },
  };
}

const START = '2026-01-15 10:00:00';
const END = '2026-01-15 10:01:00';

/** An event whose row is then deleted: its directory (and Deep link) are left, an orphan. */
async function orphan(db: FreshDatabase, roots: StorageRoots, seed: Parameters<typeof insertMediaEvent>[2]) {
  const e = await insertMediaEvent(db, roots, { start: START, end: END, ...seed });
  await sql(db, 'DELETE FROM Events WHERE Id = ?', [e.id]);
  return e;
}

function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const st = lstatSync(p);
      out.push(`${path.relative(dir, p)} ${st.size} ${st.mtimeMs}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

test.serial(
  'orphans in every scheme are quarantined only on the second pass and swept after the retention days; rows, archived and unidentified directories are untouched',
  async (t) => {
    const f = await setup('auditfs_main');
    t.teardown(f.close);
    const kept = [
      await insertMediaEvent(f.db, f.roots, {
        monitorId: 1,
        scheme: 'Deep',
        start: START,
        end: END,
        files: captures([1, 2]),
      }),
      await insertMediaEvent(f.db, f.roots, {
        monitorId: 1,
        scheme: 'Medium',
        start: START,
        end: END,
        files: { '{id}-video.mp4': { fixture: 'h264.mp4' } },
      }),
      await insertMediaEvent(f.db, f.roots, {
        monitorId: 1,
        scheme: 'Shallow',
        start: START,
        end: END,
        files: { '{id}-video.mp4': { fixture: 'h264.mp4' } },
      }),
      await insertMediaEvent(f.db, f.roots, {
        monitorId: 2,
        scheme: 'Medium',
        start: START,
        end: END,
        archived: 1,
        files: captures([1]),
      }),
    ];
    const orphans = [
      await orphan(f.db, f.roots, { monitorId: 1, scheme: 'Deep', start: '2026-01-15 11:00:00', files: captures([1]) }),
      await orphan(f.db, f.roots, { monitorId: 1, scheme: 'Medium', files: captures([1, 2, 3]) }),
      await orphan(f.db, f.roots, {
        monitorId: 2,
        scheme: 'Shallow',
        files: { '{id}-video.mp4': { fixture: 'h264.mp4' } },
      }),
      // Deep without its link: identified by the video named with its id (1.39 style).
      await orphan(f.db, f.roots, {
        monitorId: 3,
        scheme: 'Deep',
        start: '2026-01-16 12:00:00',
        files: { '{id}-video.h264.mp4': { fixture: 'h264.mp4' } },
      }),
    ];
    unlinkSync(
      eventPaths(
        {
          id: orphans[3].id,
          monitorId: 3,
          startDateTime: fromLocalDateTimeString('2026-01-16 12:00:00'),
          scheme: 'Deep',
        },
        f.roots.byScheme.Deep.root,
      ).deepMarker!,
    );
    // Unidentified: a Deep leaf of stills whose link is gone, a stray folder with a file.
    const stills = await orphan(f.db, f.roots, {
      monitorId: 4,
      scheme: 'Deep',
      start: '2026-01-17 08:00:00',
      files: captures([1]),
    });
    unlinkSync(
      eventPaths(
        { id: stills.id, monitorId: 4, startDateTime: fromLocalDateTimeString('2026-01-17 08:00:00'), scheme: 'Deep' },
        f.roots.byScheme.Deep.root,
      ).deepMarker!,
    );
    const stray = path.join(f.roots.byScheme.Medium.root, '1', '2026-01-15', 'notes');
    mkdirSync(stray);
    writeFileSync(path.join(stray, 'readme.txt'), 'keep me');

    const first = await f.fs.run();
    t.like(first, {
      storage_refused: 0,
      orphans_seen: 4,
      quarantined: 0,
      unidentified: 2,
      misplaced: 0,
      canary_disagreed: 0,
    });
    t.is(first.event_dirs, 8);
    for (const o of orphans) t.true(existsSync(o.dir), 'not moved on the first sighting');

    f.advance(3600_000);
    const second = await f.fs.run();
    t.like(second, { orphans_seen: 4, quarantined: 4, swept: 0 });
    for (const o of orphans) t.false(existsSync(o.dir), `${o.dir} quarantined`);
    for (const k of kept) t.true(existsSync(k.dir), 'events with rows (archived too) stay');
    t.true(existsSync(stray) && existsSync(stills.dir), 'unidentified directories stay');
    const quarantined = Object.values(f.roots.byScheme).flatMap((s) =>
      existsSync(path.join(s.root, QUARANTINE_DIR))
        ? readdirSync(path.join(s.root, QUARANTINE_DIR)).map((n) => path.join(s.root, QUARANTINE_DIR, n))
        : [],
    );
    t.is(quarantined.length, 4);
    t.true(
      quarantined.some((q) => readdirSync(q).includes('00003-capture.jpg')),
      'moved whole, files inside',
    );
    // The Deep orphan's link went with it, and its empty parents; the monitor directory stays.
    const deep0 = eventPaths(
      {
        id: orphans[0].id,
        monitorId: 1,
        startDateTime: fromLocalDateTimeString('2026-01-15 11:00:00'),
        scheme: 'Deep',
      },
      f.roots.byScheme.Deep.root,
    );
    t.false(existsSync(deep0.deepMarker!));
    t.false(existsSync(path.dirname(deep0.eventDir)));
    t.true(existsSync(path.join(f.roots.byScheme.Deep.root, '3')));
    t.true(
      f.records.some((r) => r.msg === 'orphan event directory moved to quarantine' && r.event_id === orphans[1].id),
    );

    f.advance(6 * DAY);
    t.like(await f.fs.run(), { swept: 0, quarantined: 0, orphans_seen: 0 });
    t.is(quarantined.filter((q) => existsSync(q)).length, 4);
    f.advance(DAY + 1000);
    t.like(await f.fs.run(), { swept: 4 });
    t.is(quarantined.filter((q) => existsSync(q)).length, 0);
    for (const k of kept) t.true(existsSync(k.dir));
  },
);

test.serial(
  'a storage that is missing, not a directory or holds no monitor directory is refused: nothing there is touched',
  async (t) => {
    const f = await setup('auditfs_refuse');
    t.teardown(f.close);
    const missing = path.join(f.roots.base, 'unmounted');
    const file = path.join(f.roots.base, 'a-file');
    const empty = path.join(f.roots.base, 'empty');
    writeFileSync(file, 'x');
    mkdirSync(empty);
    await insertStorage(f.db, { id: 11, path: missing });
    await insertStorage(f.db, { id: 12, path: file });
    await insertStorage(f.db, { id: 13, path: empty });
    // An orphan-looking folder at the top of the empty storage (not a monitor directory).
    mkdirSync(path.join(empty, 'lost+found'));
    // The three storages above, and the Deep, Medium and Shallow roots of makeStorages (empty: no monitor directory).
    const counts = await f.fs.run();
    t.is(counts.storage_refused, 6);
    t.is(counts.event_dirs, 0);
    t.true(
      f.records.some(
        (r) =>
          r.msg === 'audit filesystem pass refused this storage' && r.storage === missing && /missing/.test(r.reason),
      ),
    );
    t.true(f.records.some((r) => r.storage === file && r.reason === 'not a directory'));
    t.true(f.records.some((r) => r.storage === empty && /no monitor directory/.test(r.reason)));
    t.true(existsSync(path.join(empty, 'lost+found')));
    t.false(existsSync(path.join(empty, QUARANTINE_DIR)));
  },
);

test.serial(
  'the canary: computed paths disagreeing with the disk stop all moves, and after two passes disable the half loudly',
  async (t) => {
    const f = await setup('auditfs_canary');
    t.teardown(f.close);
    // Rows say 10:00 on the 15th; zmc wrote the directories under another day (a time zone mix-up).
    for (let i = 0; i < 4; i++) {
      const e = await insertMediaEvent(f.db, f.roots, {
        monitorId: 1,
        scheme: 'Medium',
        start: '2026-01-15 23:30:00',
        end: '2026-01-15 23:31:00',
        frameRows: [[1, 0]],
        files: captures([1]),
      });
      const wrong = e.dir.replace('2026-01-15', '2026-01-16');
      mkdirSync(path.dirname(wrong), { recursive: true });
      renameSync(e.dir, wrong);
    }
    const o = await orphan(f.db, f.roots, { monitorId: 1, scheme: 'Medium', files: captures([1]) });
    const job = new AuditJob(
      true,
      async () => 900,
      new AuditDb({
        pool: f.pool,
        prisma: f.prisma,
        log: f.log,
        dirEvents: f.roots.defaultDir,
        dryRun: false,
        minAgeSeconds: 0,
        deletion: f.deletion,
      }),
      f.fs,
      f.log,
    );
    const first = await job.run();
    t.like(first, { fs_canary_disagreed: 1, fs_quarantined: 0 });
    t.is(job.filesystemStatus().disabled_reason, null);
    const second = await job.run();
    t.like(second, { fs_canary_disagreed: 1, fs_quarantined: 0 });
    t.regex(job.filesystemStatus().disabled_reason ?? '', /canary/);
    t.true(f.records.some((r) => r.level === 60 && /DISABLED/.test(r.msg)));
    const third = await job.run();
    t.is(third.fs_disabled, 1);
    t.false('fs_quarantined' in third);
    t.true(existsSync(o.dir), 'the orphan was never moved while the canary disagreed');
  },
);

test.serial('rows without media are reported, and deleted only with remove_rows_without_media', async (t) => {
  const f = await setup('auditfs_nomedia', { removeRowsWithoutMedia: true });
  t.teardown(f.close);
  const present = [];
  for (let i = 0; i < 3; i++)
    present.push(
      await insertMediaEvent(f.db, f.roots, {
        monitorId: 1,
        scheme: 'Shallow',
        start: START,
        end: END,
        files: captures([1]),
      }),
    );
  const gone = await insertEvent(f.db, { monitorId: 1, scheme: 'Shallow', storageId: 3, start: START, end: END });
  const archivedGone = await insertEvent(f.db, {
    monitorId: 1,
    scheme: 'Shallow',
    storageId: 3,
    start: START,
    end: END,
    archived: 1,
  });
  const counts = await f.fs.run();
  t.like(counts, { rows_without_media: 1, rows_without_media_deleted: 1 });
  t.is((await sql(f.db, 'SELECT Id FROM Events WHERE Id = ?', [gone])).length, 0);
  t.is((await sql(f.db, 'SELECT Id FROM Events WHERE Id = ?', [archivedGone])).length, 1);
  for (const p of present) t.true(existsSync(p.dir));

  const report = await setup('auditfs_nomedia_report');
  t.teardown(report.close);
  await insertMediaEvent(report.db, report.roots, {
    monitorId: 1,
    scheme: 'Shallow',
    start: START,
    end: END,
    files: captures([1]),
  });
  const kept = await insertEvent(report.db, { monitorId: 1, scheme: 'Shallow', storageId: 3, start: START, end: END });
  t.like(await report.fs.run(), { rows_without_media: 1, rows_without_media_deleted: 0 });
  t.is((await sql(report.db, 'SELECT Id FROM Events WHERE Id = ?', [kept])).length, 1);

  // Many older rows without media (the newest rows have theirs, so the canary agrees): the first
  // 20 by name, then one count, not a line per row.
  for (let i = 0; i < 24; i++)
    await insertEvent(report.db, { monitorId: 1, scheme: 'Shallow', storageId: 3, start: START, end: END });
  for (let i = 0; i < 20; i++)
    await insertMediaEvent(report.db, report.roots, {
      monitorId: 1,
      scheme: 'Shallow',
      start: START,
      end: END,
      files: captures([1]),
    });
  report.records.length = 0;
  t.like(await report.fs.run(), { rows_without_media: 25 });
  t.is(report.records.filter((r) => r.msg === 'event row without media (its directory is missing)').length, 20);
  t.true(report.records.some((r) => r.rows === 25 && /25 event rows without media/.test(r.msg)));
});

test.serial(
  'dry run: two passes over orphans and an old quarantine change nothing (rows and trees equal)',
  async (t) => {
    const f = await setup('auditfs_dry', { dryRun: true, removeRowsWithoutMedia: true });
    t.teardown(f.close);
    await insertMediaEvent(f.db, f.roots, {
      monitorId: 1,
      scheme: 'Medium',
      start: START,
      end: END,
      files: captures([1]),
    });
    await orphan(f.db, f.roots, { monitorId: 1, scheme: 'Medium', files: captures([1]) });
    await orphan(f.db, f.roots, { monitorId: 1, scheme: 'Deep', files: captures([1]) });
    await insertEvent(f.db, { monitorId: 1, scheme: 'Shallow', storageId: 3, start: START, end: END });
    mkdirSync(path.join(f.roots.byScheme.Shallow.root, '1'), { recursive: true });
    mkdirSync(path.join(f.roots.byScheme.Medium.root, QUARANTINE_DIR, '20200101T000000Z.1~2020-01-01~5'), {
      recursive: true,
    });
    const rows = await databaseChecksum(f.db);
    const before = tree(f.roots.base);
    await f.fs.run();
    f.advance(3600_000);
    const counts = await f.fs.run();
    t.like(counts, { quarantined: 2, swept: 1, rows_without_media: 1, rows_without_media_deleted: 0 });
    t.deepEqual(tree(f.roots.base), before);
    t.deepEqual(await databaseChecksum(f.db), rows);
  },
);
