// The free-space floor on real, small volumes: one tmpfs of 8 MiB per scheme (mounted by the test,
// so it needs root), filled with real event folders (an ffmpeg-made mp4 and JPEG stills), measured
// by statvfs itself. The pass must free exactly enough, oldest first: after it the floor holds,
// and without its last deletion it would not.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AppConfig } from '../../src/config/types.js';
import { processTimeZone, ZoneClock } from '../../src/db/zone-clock.js';
import type { PrismaClient } from '../../src/db/prisma.js';
import { dirBytes, RetentionPass } from '../../src/features/retention/retention-pass.js';
import { createLogger } from '../../src/log.js';
import { EventDeletion } from '../../src/zm/event-deletion.js';
import { insertStorage, prismaFor, sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { realMedia, seedTreeEvent, wallDaysBefore, type SeededEvent } from '../helpers/retention.js';
import { zmDatabase } from '../helpers/zmdb.js';

const SCHEMES = ['Deep', 'Medium', 'Shallow'] as const;
const base = mkdtempSync(path.join(tmpdir(), 'zmgate-retfs-'));
const mounted: string[] = [];

function tryMount(dir: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0755', 'tmpfs', dir], { stdio: 'ignore' });
    mounted.push(dir);
    return true;
  } catch {
    return false;
  }
}

const isRoot = process.getuid?.() === 0;
const probe = path.join(base, 'probe');
mkdirSync(probe);
const canMount = isRoot && tryMount(probe);
const volumeTest = canMount ? test.serial : test.skip;
if (!canMount)
  console.log(`# small-fs: SKIPPED — mounting a tmpfs needs root (uid ${process.getuid?.()}) and CAP_SYS_ADMIN`);

let db: FreshDatabase;
let prisma: PrismaClient;
const clock = new ZoneClock(processTimeZone());
const log = createLogger({ level: 'fatal' });

const runPass = (config: AppConfig['retention']) =>
  new RetentionPass({
    prisma,
    config,
    defaultEventsDir: path.join(base, 'default'),
    log,
    clock: async () => clock,
    deletion: new EventDeletion(prisma, path.join(base, 'default'), log),
  }).run();

test.before(async () => {
  if (!canMount) return;
  db = await zmDatabase('retfs');
  prisma = prismaFor(db);
});
test.after.always(async () => {
  await prisma?.$disconnect();
  for (const dir of mounted.reverse()) {
    try {
      execFileSync('umount', [dir], { stdio: 'ignore' });
    } catch {
      // left mounted: reported by the next mount attempt
    }
  }
});

for (const [index, scheme] of SCHEMES.entries()) {
  volumeTest(
    `${scheme}: on a real 8 MiB volume the floor is reached by deleting exactly enough, oldest first`,
    async (t) => {
      const root = path.join(base, scheme.toLowerCase());
      mkdirSync(root);
      t.true(tryMount(root), 'tmpfs mounted');
      const storageId = index + 1;
      await insertStorage(db, { id: storageId, path: root, scheme });
      const media = await realMedia();
      const now = clock.now();
      const events: SeededEvent[] = [];
      // Two monitors interleaved; oldest first by start time.
      for (let i = 0; i < 24; i++) {
        const start = wallDaysBefore(now, 30 - i);
        events.push(
          await seedTreeEvent(db, root, {
            monitorId: 10 * storageId + (i % 2),
            storageId,
            start,
            end: start,
            scheme,
            media: { real: media, stills: 6 },
            diskSpace: null,
          }),
        );
      }
      const per = await dirBytes(events[0].eventDir);
      t.true(per > media.mp4.length, 'a real folder of media');
      const free0 = Number(statfsSync(root).bavail) * Number(statfsSync(root).bsize);
      const floor = free0 + Math.round(3.5 * per);
      const config: AppConfig['retention'] = {
        enabled: true,
        interval_seconds: 300,
        free_space_floor: '',
        max_age: '',
        quota: '',
        overrides: [{ storage: String(storageId), free_space_floor: String(floor) }],
      };
      const report = await runPass(config);
      const mine = report.deletions.filter((d) => d.storage_id === storageId);
      const s = statfsSync(root);
      const freeAfter = Number(s.bavail) * Number(s.bsize);
      t.true(freeAfter >= floor, `floor holds: free ${freeAfter} >= ${floor}`);
      const last = mine[mine.length - 1];
      t.true((last.free_bytes_before ?? Infinity) < floor, 'the last deletion was still needed');
      t.deepEqual(
        mine.map((d) => d.event_id),
        events.slice(0, mine.length).map((e) => e.id),
        'oldest first',
      );
      t.true(mine.length >= 3 && mine.length <= 5, `${mine.length} deletions for 3.5 folders`);
      for (const e of events.slice(0, mine.length)) {
        t.false(existsSync(e.eventDir));
        if (e.deepMarker) t.false(existsSync(e.deepMarker));
      }
      for (const e of events.slice(mine.length)) t.true(existsSync(e.eventDir));
      const rows = await sql(db, 'SELECT COUNT(*) AS n FROM Events WHERE StorageId = ?', [storageId]);
      t.is(Number(rows[0].n), events.length - mine.length);
    },
  );
}

volumeTest(
  'a volume at 0 bytes available: the pass frees it down to the floor, oldest first, archived kept, and goes on to the next Storage',
  async (t) => {
    const full = path.join(base, 'full');
    const next = path.join(base, 'next');
    for (const dir of [full, next]) {
      mkdirSync(dir);
      t.true(tryMount(dir), 'tmpfs mounted');
    }
    await insertStorage(db, { id: 11, path: full, scheme: 'Medium' });
    await insertStorage(db, { id: 12, path: next, scheme: 'Medium' });
    const media = await realMedia();
    const now = clock.now();
    const seed = async (root: string, storageId: number, monitorId: number, count: number) => {
      const events: SeededEvent[] = [];
      for (let i = 0; i < count; i++) {
        const start = wallDaysBefore(now, 30 - i);
        events.push(
          await seedTreeEvent(db, root, {
            monitorId,
            storageId,
            start,
            end: start,
            scheme: 'Medium',
            media: { real: media, stills: 6 },
            diskSpace: null,
          }),
        );
      }
      return events;
    };
    const events = await seed(full, 11, 110, 12);
    const others = await seed(next, 12, 120, 6);
    // The oldest event on the full volume is archived: never deleted.
    await sql(db, 'UPDATE Events SET Archived = 1 WHERE Id = ?', [events[0].id]);
    // zmc fills the volume to nothing available.
    const filler = path.join(full, 'zmc-filler');
    const chunk = Buffer.alloc(64 * 1024, 7);
    const fd = openSync(filler, 'w');
    try {
      for (;;) writeSync(fd, chunk);
    } catch (err) {
      t.is((err as NodeJS.ErrnoException).code, 'ENOSPC');
    } finally {
      closeSync(fd);
    }
    const available = (dir: string) => Number(statfsSync(dir).bavail) * Number(statfsSync(dir).bsize);
    t.is(available(full), 0, 'the volume is full');
    const per = await dirBytes(events[1].eventDir);
    const floor = Math.round(3.5 * per);
    const config: AppConfig['retention'] = {
      enabled: true,
      interval_seconds: 300,
      free_space_floor: '',
      max_age: '',
      quota: '',
      overrides: [
        { storage: '11', free_space_floor: String(floor) },
        { storage: '12', free_space_floor: String(available(next) + Math.round(1.5 * per)) },
      ],
    };
    const report = await runPass(config);
    t.is(report.outcome, 'completed', String(report.error));
    const onFull = report.deletions.filter((d) => d.storage_id === 11).map((d) => d.event_id);
    t.true(available(full) >= floor, `the floor holds: ${available(full)} >= ${floor}`);
    t.deepEqual(
      onFull,
      events.slice(1, 1 + onFull.length).map((e) => e.id),
      'oldest first, the archived one kept',
    );
    t.true(existsSync(events[0].eventDir), 'the archived event is kept');
    t.true(onFull.length >= 3, `${onFull.length} deletions`);
    // The next Storage was processed too.
    const onNext = report.deletions.filter((d) => d.storage_id === 12).map((d) => d.event_id);
    t.deepEqual(
      onNext,
      others.slice(0, onNext.length).map((e) => e.id),
    );
    t.true(onNext.length >= 2);
    // Nothing left behind: no notes, no moved-aside folders.
    t.deepEqual(
      readdirSync(full).filter((n) => n.startsWith('.zmgate-trash') || n.startsWith('.zmgate-retention@')),
      [],
    );
    const notes = path.join(full, '.zmgate-retention');
    t.deepEqual(existsSync(notes) ? readdirSync(notes) : [], []);
  },
);
