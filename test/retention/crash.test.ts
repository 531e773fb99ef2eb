// A pass killed (SIGKILL) in the middle of a deletion, then the next pass: rows and folders agree
// again, nothing is lost, and nothing outside the storage is touched.
import test from 'ava';
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { AppConfig } from '../../src/config/types.js';
import { processTimeZone, ZoneClock } from '../../src/db/zone-clock.js';
import type { PrismaClient } from '../../src/db/prisma.js';
import { RetentionPass } from '../../src/features/retention/retention-pass.js';
import { createLogger } from '../../src/log.js';
import { EventDeletion, TRASH_PREFIX } from '../../src/zm/event-deletion.js';
import { insertStorage, prismaFor, sql } from '../helpers/events.js';
import { dbConfigFor, type FreshDatabase } from '../helpers/mariadb.js';
import { seedTreeEvent, treeListing, wallDaysBefore, type SeededEvent } from '../helpers/retention.js';
import { zmDatabase } from '../helpers/zmdb.js';

// Serial: the deletion path refuses an event id already being deleted in this process, and every
// test here has its own database with the same ids.
const clock = new ZoneClock(processTimeZone());
const logs: Array<Record<string, any>> = [];
const log = createLogger({
  level: 'debug',
  stream: new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) logs.push(JSON.parse(line));
      done();
    },
  }),
});
const retention = (max_age: string): AppConfig['retention'] => ({
  enabled: true,
  interval_seconds: 300,
  free_space_floor: '',
  max_age,
  quota: '',
  overrides: [],
});

interface Setup {
  db: FreshDatabase;
  prisma: PrismaClient;
  base: string;
  root: string;
  events: SeededEvent[];
}

async function setup(name: string, scheme: 'Deep' | 'Medium' | 'Shallow'): Promise<Setup> {
  const db = await zmDatabase(name);
  const base = mkdtempSync(path.join(tmpdir(), `zmgate-${name}-`));
  const root = path.join(base, 'storage');
  mkdirSync(root);
  // Something beside the storage that must never change.
  writeFileSync(path.join(base, 'outside.txt'), 'untouched');
  await insertStorage(db, { id: 1, path: root, scheme });
  const events: SeededEvent[] = [];
  for (const days of [60, 50, 1]) {
    const start = wallDaysBefore(clock.now(), days);
    events.push(
      await seedTreeEvent(db, root, { monitorId: 1, storageId: 1, start, end: start, scheme, diskSpace: 4096 }),
    );
  }
  return { db, prisma: prismaFor(db), base, root, events };
}

function crashPass(
  s: Setup,
  mode: 'after-rename' | 'after-commit',
): Promise<{ signal: NodeJS.Signals | null; stdout: string }> {
  const args = JSON.stringify({
    db: dbConfigFor(s.db),
    retention: retention('30d'),
    mode,
    defaultEventsDir: path.join(s.base, 'default'),
  });
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import=tsx', path.join(import.meta.dirname, 'fixtures', 'crash-pass.ts'), args],
      (_err, stdout) => resolve({ signal: child.signalCode, stdout }),
    );
  });
}

const pass = (s: Setup, maxAge: string) =>
  new RetentionPass({
    prisma: s.prisma,
    config: retention(maxAge),
    defaultEventsDir: path.join(s.base, 'default'),
    log,
    clock: async () => clock,
    deletion: new EventDeletion(s.prisma, path.join(s.base, 'default'), log),
  }).run();
const rowExists = async (s: Setup, id: number) =>
  (await sql(s.db, 'SELECT Id FROM Events WHERE Id = ?', [id])).length === 1;
const trashIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith(TRASH_PREFIX)) : []);

for (const scheme of ['Medium', 'Deep'] as const) {
  test.serial(
    `${scheme}: killed after the folder moved aside, before the rows went; the next pass puts it back (limit gone) — nothing lost`,
    async (t) => {
      const s = await setup(`crash1${scheme[0].toLowerCase()}`, scheme);
      const [oldest] = s.events;
      const outside = treeListing(s.base).get('outside.txt');
      const crash = await crashPass(s, 'after-rename');
      t.is(crash.signal, 'SIGKILL', crash.stdout);
      t.true(await rowExists(s, oldest.id), 'the rows are still there');
      t.false(existsSync(oldest.eventDir));
      t.is(trashIn(path.dirname(oldest.eventDir)).length, 1, 'the files wait beside it');
      // The next pass with no breached limit only settles the interrupted deletion.
      const report = await pass(s, '90d');
      t.is(report.deleted, 0);
      t.true(await rowExists(s, oldest.id));
      t.true(existsSync(path.join(oldest.eventDir, `${oldest.id}-video.mp4`)), 'the folder is back where its row says');
      t.deepEqual(trashIn(path.dirname(oldest.eventDir)), []);
      t.is(treeListing(s.base).get('outside.txt'), outside);
      await s.prisma.$disconnect();
    },
  );

  test.serial(
    `${scheme}: killed after the rows went, before the folder was removed; the next pass removes the leftover`,
    async (t) => {
      const s = await setup(`crash2${scheme[0].toLowerCase()}`, scheme);
      const [oldest, second, newest] = s.events;
      const crash = await crashPass(s, 'after-commit');
      t.is(crash.signal, 'SIGKILL', crash.stdout);
      t.false(await rowExists(s, oldest.id), 'the rows are gone');
      t.is(trashIn(path.dirname(oldest.eventDir)).length, 1, 'the folder waits beside its old place');
      const report = await pass(s, '30d');
      t.deepEqual(
        report.deletions.map((d) => d.event_id),
        [second.id],
        'the pass carries on oldest first',
      );
      t.deepEqual(trashIn(path.dirname(oldest.eventDir)), [], 'the leftover is removed');
      t.false(existsSync(oldest.eventDir));
      t.false(existsSync(second.eventDir));
      t.true(await rowExists(s, newest.id));
      t.true(existsSync(newest.eventDir));
      t.true(existsSync(path.join(s.base, 'outside.txt')));
      t.deepEqual(readdirSync(path.join(s.root, '.zmgate-retention')), [], 'no note left');
      await s.prisma.$disconnect();
    },
  );
}

test.serial(
  'killed after the move aside, then a pass that still needs the space: the deletion completes once',
  async (t) => {
    const s = await setup('crash3', 'Shallow');
    const [oldest, second] = s.events;
    const crash = await crashPass(s, 'after-rename');
    t.is(crash.signal, 'SIGKILL');
    const report = await pass(s, '30d');
    t.deepEqual(
      report.deletions.map((d) => d.event_id),
      [oldest.id, second.id],
      JSON.stringify(logs.filter((l) => l.msg === 'retention: event kept')),
    );
    t.false(await rowExists(s, oldest.id));
    t.false(existsSync(oldest.eventDir));
    t.deepEqual(trashIn(path.dirname(oldest.eventDir)), []);
    await s.prisma.$disconnect();
  },
);

test.serial(
  'the deletion path itself resumes an interrupted deletion whose folder was moved aside (no note needed)',
  async (t) => {
    const s = await setup('crash4', 'Deep');
    const [oldest] = s.events;
    const crash = await crashPass(s, 'after-rename');
    t.is(crash.signal, 'SIGKILL');
    rmSync(path.join(s.root, '.zmgate-retention'), { recursive: true });
    const outcome = await new EventDeletion(s.prisma, path.join(s.base, 'default'), log).delete(BigInt(oldest.id), {
      reason: 'api',
    });
    t.is(outcome.files, 'removed');
    t.is(outcome.diskSpace, 4096);
    t.false(await rowExists(s, oldest.id));
    t.deepEqual(trashIn(path.dirname(oldest.eventDir)), []);
    t.false(existsSync(oldest.deepMarker!), 'the Deep marker goes too');
    t.true(logs.some((l) => l.event_id === String(oldest.id) && /resumes an interrupted one/.test(l.msg)));
    await s.prisma.$disconnect();
  },
);

for (const where of ['notes folder', 'storage root'] as const) {
  test.serial(
    `a full volume's empty note (in the ${where}) is settled as a written one: the folder is put back`,
    async (t) => {
      const s = await setup(`crash5${where[0]}`, 'Medium');
      const [oldest] = s.events;
      const crash = await crashPass(s, 'after-rename');
      t.is(crash.signal, 'SIGKILL', crash.stdout);
      // The note as a full volume leaves it: an empty file whose name carries the parent folder.
      const realRoot = realpathSync(s.root);
      const dir = path.join(realRoot, '.zmgate-retention');
      const parent = readFileSync(path.join(dir, String(oldest.id)), 'utf8').trim();
      rmSync(path.join(dir, String(oldest.id)));
      const named = `${oldest.id}@${path.relative(realRoot, parent).split(path.sep).join('%')}`;
      if (where === 'notes folder') writeFileSync(path.join(dir, named), '');
      else {
        rmSync(dir, { recursive: true });
        writeFileSync(path.join(realRoot, `.zmgate-retention@${named}`), '');
      }
      const report = await pass(s, '90d');
      t.is(report.deleted, 0);
      t.true(await rowExists(s, oldest.id));
      t.true(existsSync(path.join(oldest.eventDir, `${oldest.id}-video.mp4`)), 'the folder is back where its row says');
      t.deepEqual(trashIn(path.dirname(oldest.eventDir)), []);
      t.deepEqual(
        readdirSync(realRoot).filter((n) => n.startsWith('.zmgate-retention@')),
        [],
        'no note left in the root',
      );
      t.deepEqual(existsSync(dir) ? readdirSync(dir) : [], [], 'no note left in the folder');
      await s.prisma.$disconnect();
    },
  );
}
