// Retention passes on a real database and real folders: each limit, each guarantee, each refusal,
// the log lines, the deletion path's Deep marker and empty parents, and a database error mid-pass.
// Tests run one at a time: a pass looks at every Storage of the database.
import test from 'ava';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  closeSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  renameSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { AppConfig } from '../../src/config/types.js';
import { processTimeZone, ZoneClock } from '../../src/db/zone-clock.js';
import type { PrismaClient } from '../../src/db/prisma.js';
import { RetentionPass, dirBytes } from '../../src/features/retention/retention-pass.js';
import type { VolumeMeter } from '../../src/features/retention/retention-storage.js';
import { createLogger } from '../../src/log.js';
import { EventDeletion } from '../../src/zm/event-deletion.js';
import { insertStorage, prismaFor, sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { rowChecksums, seedTreeEvent, treeListing, wallDaysBefore, type TreeEvent } from '../helpers/retention.js';
import { zmDatabase } from '../helpers/zmdb.js';

let db: FreshDatabase;
let prisma: PrismaClient;
let base: string;
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
const clock = new ZoneClock(processTimeZone());
const wallNow = () => clock.now();
let storageSeq = 100;
let monitorSeq = 100;

test.before(async () => {
  db = await zmDatabase('retpass');
  prisma = prismaFor(db);
  base = mkdtempSync(path.join(tmpdir(), 'zmgate-retpass-'));
  await sql(
    db,
    "CREATE TRIGGER zmgate_test_fail AFTER DELETE ON Events FOR EACH ROW BEGIN IF OLD.Name = 'fail-me' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure'; END IF; END",
  );
});
test.after.always(async () => prisma?.$disconnect());
test.beforeEach(async () => {
  await sql(db, "UPDATE Events SET Name = 'done' WHERE Name = 'fail-me'");
  for (const table of ['Events', 'Frames', 'Storage', 'Monitors', 'Event_Summaries'])
    await sql(db, `DELETE FROM ${table}`);
  logs.length = 0;
});

const retention = (over: Partial<AppConfig['retention']> = {}): AppConfig['retention'] => ({
  enabled: true,
  interval_seconds: 300,
  free_space_floor: '',
  max_age: '',
  quota: '',
  overrides: [],
  ...over,
});

/** A volume of `total` bytes whose used part is what the storage folders really hold now. */
const treeMeter =
  (total: number, roots: () => string[]): VolumeMeter =>
  async () => {
    let used = 0;
    for (const r of roots()) used += await dirBytes(r);
    return { free: total - used, total };
  };

function pass(config: AppConfig['retention'], volume?: VolumeMeter, defaultEventsDir = path.join(base, 'default')) {
  return new RetentionPass({
    prisma,
    config,
    defaultEventsDir,
    log,
    clock: async () => clock,
    deletion: new EventDeletion(prisma, defaultEventsDir, log),
    volume,
  });
}

async function newStorage(opts: { scheme?: string; doDelete?: number; name?: string; diskSpace?: number } = {}) {
  const id = storageSeq++;
  const root = path.join(base, `s${id}`);
  mkdirSync(root, { recursive: true });
  await insertStorage(db, { id, path: root, scheme: opts.scheme, doDelete: opts.doDelete, diskSpace: opts.diskSpace });
  if (opts.name) await sql(db, 'UPDATE Storage SET Name = ? WHERE Id = ?', [opts.name, id]);
  return { id, root };
}

async function event(storage: { id: number; root: string }, e: Partial<TreeEvent> & { daysAgo: number }) {
  const start = wallDaysBefore(wallNow(), e.daysAgo);
  return seedTreeEvent(db, storage.root, {
    monitorId: e.monitorId ?? 1,
    storageId: storage.id,
    start,
    end: start,
    scheme: 'Medium',
    ...e,
  });
}

const exists = async (id: number) => (await sql(db, 'SELECT Id FROM Events WHERE Id = ?', [id])).length === 1;

test.serial(
  'max_age deletes events older than the limit, oldest first, by ZoneMinder wall-clock time; every deletion logged with its limit',
  async (t) => {
    const s = await newStorage();
    const m = monitorSeq++;
    const old2 = await event(s, { monitorId: m, daysAgo: 35 });
    const old1 = await event(s, { monitorId: m, daysAgo: 40 });
    const young = await event(s, { monitorId: m, daysAgo: 20 });
    const newest = await event(s, { monitorId: m, daysAgo: 1 });
    const report = await pass(retention({ max_age: '30d' })).run();
    t.is(report.error, null);
    t.is(report.outcome, 'completed');
    t.deepEqual(
      report.deletions.map((d) => d.event_id),
      [old1.id, old2.id],
      'oldest first',
    );
    t.false(await exists(old1.id));
    t.false(await exists(old2.id));
    t.true(await exists(young.id));
    t.true(await exists(newest.id));
    t.false(existsSync(old1.eventDir));
    t.true(existsSync(young.eventDir));
    const lines = logs.filter((l) => l.msg === 'retention: event deleted');
    t.is(lines.length, 2);
    t.like(lines[0], { event_id: old1.id, monitor_id: m, storage_id: s.id, limit: 'max_age' });
    t.true(lines[0].bytes_freed >= 4096, 'bytes freed measured from the folder');
    t.true(logs.some((l) => l.msg === 'retention: pass finished' && l.deleted === 2));
    t.true(
      logs.some((l) => l.msg === 'event deleted' && l.reason === 'retention:max_age'),
      'through the shared deletion path',
    );
  },
);

test.serial('an age just inside the limit by wall clock is kept (no UTC-vs-local shift)', async (t) => {
  const s = await newStorage();
  const m = monitorSeq++;
  // 29 days 23 hours ago in ZoneMinder's wall clock: kept with 30d in any zone offset.
  const start = wallDaysBefore(wallNow(), 29, 23 * 3600);
  const kept = await seedTreeEvent(db, s.root, { monitorId: m, storageId: s.id, start, end: start });
  await event(s, { monitorId: m, daysAgo: 0 });
  const report = await pass(retention({ max_age: '30d' })).run();
  t.is(report.deleted, 0);
  t.true(await exists(kept.id));
});

test.serial(
  'never deleted: archived, unfinished, locked, newest of its monitor, an open file, DoDelete=0 (rows too)',
  async (t) => {
    const s = await newStorage();
    const keep = await newStorage({ doDelete: 0 });
    const m = monitorSeq++;
    const archived = await event(s, { monitorId: m, daysAgo: 90, archived: 1 });
    const open = await event(s, { monitorId: m, daysAgo: 89, end: null });
    const locked = await event(s, { monitorId: m, daysAgo: 88, locked: 1 });
    const held = await event(s, { monitorId: m, daysAgo: 87 });
    writeFileSync(path.join(held.eventDir, 'incomplete.h264.mp4'), 'x');
    const fd = openSync(path.join(held.eventDir, 'incomplete.h264.mp4'), 'r');
    const solo = await event(s, { monitorId: monitorSeq++, daysAgo: 86 }); // the only event of its monitor
    const other = await event(keep, { monitorId: m, daysAgo: 85 });
    const victim = await event(s, { monitorId: m, daysAgo: 84 });
    const newest = await event(s, { monitorId: m, daysAgo: 60 });
    try {
      const report = await pass(retention({ max_age: '30d' })).run();
      t.deepEqual(
        report.deletions.map((d) => d.event_id),
        [victim.id],
      );
      for (const e of [archived, open, locked, held, solo, other, newest]) {
        t.true(await exists(e.id), `event ${e.id} kept`);
        t.true(existsSync(e.eventDir), `folder of ${e.id} kept`);
      }
      const keepReport = report.storages.find((x) => x.storage_id === keep.id);
      t.is(keepReport?.state, 'skipped');
    } finally {
      closeSync(fd);
    }
  },
);

test.serial(
  'quota: deletes oldest first until the summed DiskSpace is within the quota; Storage.DiskSpace follows',
  async (t) => {
    const s = await newStorage({ diskSpace: 5000 });
    const m = monitorSeq++;
    const evs = [];
    for (let i = 0; i < 5; i++) evs.push(await event(s, { monitorId: m, daysAgo: 10 - i, diskSpace: 1000 }));
    const report = await pass(retention({ quota: '2500' })).run();
    // 5000 > 2500: delete 3 (5000 -> 2000).
    t.deepEqual(
      report.deletions.map((d) => d.event_id),
      evs.slice(0, 3).map((e) => e.id),
    );
    t.true(report.deletions.every((d) => d.limit === 'quota' && (d.used_bytes_before ?? 0) > 2500));
    const [row] = await sql(db, 'SELECT DiskSpace FROM Storage WHERE Id = ?', [s.id]);
    t.is(Number(row.DiskSpace), 2000);
    t.deepEqual(report.storages.find((x) => x.storage_id === s.id)?.breached, []);
  },
);

test.serial(
  'free-space floor: re-measures after each deletion and stops as soon as the floor holds; Deep markers and empty parents go',
  async (t) => {
    const s = await newStorage({ scheme: 'Deep' });
    const m = monitorSeq++;
    const evs = [];
    for (let i = 0; i < 6; i++)
      evs.push(await event(s, { monitorId: m, daysAgo: 20 - i, scheme: 'Deep', fill: 100_000 }));
    const per = await dirBytes(evs[0].eventDir);
    const used = await dirBytes(s.root);
    // Floor: free must reach (total - used) + 2.5 folders → 3 deletions.
    const total = used + 1_000_000;
    const floor = 1_000_000 + Math.floor(2.5 * per);
    const report = await pass(
      retention({ free_space_floor: String(floor) }),
      treeMeter(total, () => [s.root]),
    ).run();
    t.deepEqual(
      report.deletions.map((d) => d.event_id),
      evs.slice(0, 3).map((e) => e.id),
    );
    for (const e of evs.slice(0, 3)) {
      t.false(existsSync(e.deepMarker!), 'Deep marker removed from M/yy/mm/dd');
      t.false(existsSync(path.dirname(e.eventDir)), 'empty minute folder pruned');
    }
    t.true(existsSync(evs[3].deepMarker!));
    t.true(report.deletions.every((d) => d.limit === 'free_space_floor' && (d.free_bytes_before ?? Infinity) < floor));
  },
);

test.serial('overrides by Name and by Id replace the defaults key by key', async (t) => {
  const a = await newStorage({ name: 'NAS' });
  const b = await newStorage();
  const c = await newStorage();
  const m = monitorSeq++;
  const ea = await event(a, { monitorId: m, daysAgo: 40 });
  const eb = await event(b, { monitorId: m, daysAgo: 40 });
  const ec = await event(c, { monitorId: m, daysAgo: 40 });
  await event(c, { monitorId: m, daysAgo: 0 });
  const report = await pass(
    retention({
      max_age: '30d',
      overrides: [
        { storage: 'NAS', max_age: '60d' },
        { storage: String(b.id), max_age: '' },
      ],
    }),
  ).run();
  t.deepEqual(
    report.deletions.map((d) => d.event_id),
    [ec.id],
  );
  t.true(await exists(ea.id));
  t.true(await exists(eb.id));
  const byId = new Map(report.storages.map((x) => [x.storage_id, x]));
  t.is(byId.get(a.id)?.limits.max_age, '60d');
  t.is(byId.get(a.id)?.override, 'NAS');
  t.is(byId.get(b.id)?.state, 'no_limits');
});

test.serial(
  'refuses a missing path, a file, and an empty folder with events (unmounted); nothing is touched',
  async (t) => {
    const gone = await newStorage();
    const file = await newStorage();
    const empty = await newStorage();
    const m = monitorSeq++;
    const e1 = await event(gone, { monitorId: m, daysAgo: 50 });
    const e2 = await event(file, { monitorId: m, daysAgo: 49 });
    const e3 = await event(empty, { monitorId: m, daysAgo: 48, noFolder: true });
    await event(empty, { monitorId: m, daysAgo: 0, noFolder: true });
    rmSync(gone.root, { recursive: true });
    rmSync(file.root, { recursive: true });
    writeFileSync(file.root, 'not a folder');
    const before = await rowChecksums(db);
    const report = await pass(retention({ max_age: '30d' })).run();
    t.is(report.deleted, 0);
    for (const id of [e1.id, e2.id, e3.id]) t.true(await exists(id));
    const states = new Map(report.storages.map((x) => [x.storage_id, x]));
    t.is(states.get(gone.id)?.state, 'refused');
    t.is(states.get(file.id)?.state, 'refused');
    t.regex(states.get(empty.id)?.reason ?? '', /mounted/);
    t.deepEqual(await rowChecksums(db), before);
    t.true(
      logs.some((l) => l.msg === 'retention: storage not processed' && l.storage_id === gone.id && l.level === 50),
    );
  },
);

test.serial('a statvfs failure skips that storage (never read as full or empty)', async (t) => {
  const s = await newStorage();
  const m = monitorSeq++;
  const e = await event(s, { monitorId: m, daysAgo: 50 });
  await event(s, { monitorId: m, daysAgo: 0 });
  const failing: VolumeMeter = async () => {
    throw Object.assign(new Error('I/O error'), { code: 'EIO' });
  };
  const report = await pass(retention({ free_space_floor: '50%', max_age: '30d' }), failing).run();
  t.is(report.deleted, 0);
  t.true(await exists(e.id));
  t.is(report.storages[0].state, 'error');
  t.regex(report.storages[0].reason ?? '', /EIO/);
});

test.serial(
  'a folder already gone still has its rows removed; a folder resolving outside the root is kept',
  async (t) => {
    const s = await newStorage();
    const m = monitorSeq++;
    const gone = await event(s, { monitorId: m, daysAgo: 50, noFolder: true });
    const escape = await event(s, { monitorId: m, daysAgo: 49 });
    const outside = mkdtempSync(path.join(tmpdir(), 'zmgate-outside-'));
    writeFileSync(path.join(outside, 'precious'), 'keep me');
    renameSync(escape.eventDir, `${escape.eventDir}.moved`);
    symlinkSync(outside, escape.eventDir);
    await event(s, { monitorId: m, daysAgo: 0 });
    const report = await pass(retention({ max_age: '30d' })).run();
    t.deepEqual(
      report.deletions.map((d) => d.event_id),
      [gone.id],
    );
    t.false(await exists(gone.id));
    t.true(await exists(escape.id));
    t.true(existsSync(path.join(outside, 'precious')));
    t.true(logs.some((l) => /outside its storage root/.test(l.msg) && l.event_id === escape.id));
  },
);

test.serial('a database error mid-pass leaves that event whole and ends the pass', async (t) => {
  const s = await newStorage();
  const m = monitorSeq++;
  const first = await event(s, { monitorId: m, daysAgo: 60 });
  const failing = await event(s, { monitorId: m, daysAgo: 59, name: 'fail-me' });
  const later = await event(s, { monitorId: m, daysAgo: 58 });
  await event(s, { monitorId: m, daysAgo: 0 });
  const report = await pass(retention({ max_age: '30d' })).run();
  t.is(report.outcome, 'aborted');
  t.deepEqual(
    report.deletions.map((d) => d.event_id),
    [first.id],
  );
  t.true(await exists(failing.id));
  t.true(existsSync(path.join(failing.eventDir, `${failing.id}-video.mp4`)), 'its files are back in place');
  t.true(await exists(later.id), 'the pass ended');
  t.true(logs.some((l) => l.msg === 'retention: pass finished' && l.outcome === 'aborted'));
});

test.serial(
  'events without a Storage row live in ZM_DIR_EVENTS and count as Storage 0, not the lowest Storage Id',
  async (t) => {
    const other = await newStorage();
    const defaultDir = path.join(base, `default-${monitorSeq}`);
    mkdirSync(defaultDir, { recursive: true });
    const m = monitorSeq++;
    const orphan = await event({ id: 0, root: defaultDir }, { monitorId: m, daysAgo: 50 });
    await event({ id: 0, root: defaultDir }, { monitorId: m, daysAgo: 0 });
    const inOther = await event(other, { monitorId: monitorSeq++, daysAgo: 50 });
    await event(other, { monitorId: inOther.monitorId, daysAgo: 0 });
    const report = await pass(
      retention({ max_age: '30d', overrides: [{ storage: String(other.id), max_age: '' }] }),
      undefined,
      defaultDir,
    ).run();
    t.deepEqual(
      report.deletions.map((d) => [d.event_id, d.storage_id]),
      [[orphan.id, 0]],
    );
    t.false(existsSync(orphan.eventDir));
    t.true(await exists(inOther.id));
  },
);

test.serial('a dry run decides the same and writes nothing', async (t) => {
  const s = await newStorage({ diskSpace: 3000 });
  const m = monitorSeq++;
  for (let i = 0; i < 3; i++) await event(s, { monitorId: m, daysAgo: 40 - i, diskSpace: 1000 });
  const rows = await rowChecksums(db);
  const tree = treeListing(base);
  const dry = await new RetentionPass({
    prisma,
    config: retention({ quota: '1500' }),
    defaultEventsDir: base,
    log,
    clock: async () => clock,
    deletion: null,
  }).run({ dryRun: true });
  t.is(dry.deleted, 2);
  t.deepEqual(await rowChecksums(db), rows);
  t.deepEqual(treeListing(base), tree);
  const real = await pass(retention({ quota: '1500' })).run();
  t.deepEqual(
    real.deletions.map((d) => d.event_id),
    dry.deletions.map((d) => d.event_id),
  );
});
