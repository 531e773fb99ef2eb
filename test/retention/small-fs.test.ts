// The free-space floor on real, small volumes: one tmpfs of 8 MiB per scheme (mounted by the test,
// so it needs root), filled with real event folders (an ffmpeg-made mp4 and JPEG stills), measured
// by statvfs itself. The pass must free exactly enough, oldest first: after it the floor holds,
// and without its last deletion it would not.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AppConfig } from '../../src/config/types.js';
import { processTimeZone, ZoneClock } from '../../src/db/zone-clock.js';
import type { PrismaClient } from '../../src/db/prisma.js';
import { dirBytes, RetentionPass } from '../../src/features/retention/retention-pass.js';
import { createLogger } from '../../src/log.js';
import { EventDeletion } from '../../src/features/events/event-deletion.js';
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
      const report = await new RetentionPass({
        prisma,
        config,
        defaultEventsDir: path.join(base, 'default'),
        log,
        clock: async () => clock,
        deletion: new EventDeletion(prisma, path.join(base, 'default'), log),
      }).run();
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
