// The event-deletion path on real directory trees: every storage scheme, DoDelete=0, refusals,
// Event_Summaries and Storage.DiskSpace, and injected failures before, during and after the
// transaction (nothing may be lost).
import test from 'ava';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  writeFileSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.js';
import { EventDeletion, nodeDeletionFs, TRASH_PREFIX, type DeletionFs } from '../../src/zm/event-deletion.js';
import { eventPaths } from '../../src/zm/event-paths.js';
import { startTestApp } from '../helpers/app.js';
import {
  caller,
  insertEvent,
  insertEventUsers,
  insertMonitor,
  insertStorage,
  login,
  prismaFor,
  sql,
  summary,
  type EventSeed,
} from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { PrismaClient } from '../../src/db/prisma.js';

let db: FreshDatabase;
let prisma: PrismaClient;
let root: string;
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
const dirOf = (name: string) => path.join(root, name);
let nextMonitor = 10;

test.before(async () => {
  db = await zmDatabase('evdel');
  prisma = prismaFor(db);
  root = mkdtempSync(path.join(tmpdir(), 'zmgate-evdel-'));
  await insertStorage(db, { id: 1, path: dirOf('deep'), scheme: 'Deep', diskSpace: 1_000_000 });
  await insertStorage(db, { id: 2, path: dirOf('medium'), scheme: 'Medium', diskSpace: 1_000_000 });
  await insertStorage(db, { id: 3, path: dirOf('shallow'), scheme: 'Shallow' });
  await insertStorage(db, { id: 4, path: dirOf('keep'), scheme: 'Medium', doDelete: 0, diskSpace: 1_000_000 });
  // Tests that check Storage.DiskSpace get a row of their own (tests run concurrently).
  await insertStorage(db, { id: 11, path: dirOf('deep'), scheme: 'Deep', diskSpace: 1_000_000 });
  await insertStorage(db, { id: 12, path: dirOf('deep'), scheme: 'Deep', diskSpace: 1_000_000 });
  // Injected failure: deleting an event named 'fail-me' raises an error inside the transaction.
  await db.db.exec(
    "CREATE TRIGGER zmgate_test_fail AFTER DELETE ON Events FOR EACH ROW BEGIN IF OLD.Name = 'fail-me' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure'; END IF; END",
    db.name,
  );
});
test.after.always(async () => prisma?.$disconnect());

const deletion = (fs: DeletionFs = nodeDeletionFs) => new EventDeletion(prisma, dirOf('default'), log, fs);

/**
 * An event as zmc leaves it: the Events row, its bucket rows, the Event_Summaries counters and
 * disk space, frames, stats, event data, a tag, and its directory with files (and marker).
 */
async function seedEvent(seed: Omit<EventSeed, 'monitorId'> & { monitorId?: number }, withFiles = true) {
  const monitorId = seed.monitorId ?? nextMonitor++;
  await insertMonitor(db, monitorId).catch(() => {});
  const summaryBefore = await summary(db, monitorId);
  const diskSpace = seed.diskSpace === undefined ? 4096 : seed.diskSpace;
  const id = await insertEvent(db, {
    start: '2026-03-04 05:06:07',
    end: '2026-03-04 05:07:00',
    ...seed,
    monitorId,
    diskSpace,
  });
  for (const bucket of ['Hour', 'Day', 'Week', 'Month']) {
    await sql(db, `INSERT INTO Events_${bucket} (EventId, MonitorId, StartDateTime, DiskSpace) VALUES (?, ?, ?, ?)`, [
      id,
      monitorId,
      '2026-03-04 05:06:07',
      diskSpace,
    ]);
  }
  await sql(
    db,
    `INSERT INTO Event_Summaries (MonitorId, TotalEvents, TotalEventDiskSpace, HourEvents, HourEventDiskSpace, DayEvents, DayEventDiskSpace, WeekEvents, WeekEventDiskSpace, MonthEvents, MonthEventDiskSpace)
     VALUES (?, 1, ?, 1, ?, 1, ?, 1, ?, 1, ?) ON DUPLICATE KEY UPDATE TotalEvents = TotalEvents + 1, TotalEventDiskSpace = TotalEventDiskSpace + VALUES(TotalEventDiskSpace),
     HourEvents = HourEvents + 1, HourEventDiskSpace = HourEventDiskSpace + VALUES(HourEventDiskSpace), DayEvents = DayEvents + 1, DayEventDiskSpace = DayEventDiskSpace + VALUES(DayEventDiskSpace),
     WeekEvents = WeekEvents + 1, WeekEventDiskSpace = WeekEventDiskSpace + VALUES(WeekEventDiskSpace), MonthEvents = MonthEvents + 1, MonthEventDiskSpace = MonthEventDiskSpace + VALUES(MonthEventDiskSpace)`,
    [monitorId, diskSpace ?? 0, diskSpace ?? 0, diskSpace ?? 0, diskSpace ?? 0, diskSpace ?? 0],
  );
  for (let f = 1; f <= 3; f++)
    await sql(db, 'INSERT INTO Frames (EventId, FrameId, Type, Score, Delta) VALUES (?, ?, ?, 0, 0)', [
      id,
      f,
      'Normal',
    ]);
  await sql(db, 'INSERT INTO Stats (MonitorId, ZoneId, EventId, FrameId) VALUES (?, 1, ?, 1)', [monitorId, id]);
  await sql(db, 'INSERT INTO Event_Data (EventId, MonitorId, Timestamp, Data) VALUES (?, ?, NOW(), ?)', [
    id,
    monitorId,
    '{}',
  ]);
  await sql(db, 'INSERT IGNORE INTO Tags (Id, Name) VALUES (1, ?)', ['person']);
  await sql(db, 'INSERT INTO Events_Tags (TagId, EventId) VALUES (1, ?)', [id]);

  const [row] = await sql(
    db,
    "SELECT DATE_FORMAT(e.StartDateTime, '%Y-%m-%dT%H:%i:%sZ') AS start, e.Scheme, s.Path FROM Events e LEFT JOIN Storage s ON s.Id = e.StorageId WHERE e.Id = ?",
    [id],
  );
  const start = row.start ? new Date(row.start) : null; // a wall-clock Date: UTC fields = stored digits
  const paths = eventPaths({ id, monitorId, startDateTime: start, scheme: row.Scheme }, row.Path ?? dirOf('default'));
  if (withFiles) {
    mkdirSync(paths.eventDir, { recursive: true });
    writeFileSync(path.join(paths.eventDir, `${id}-video.mp4`), 'video');
    writeFileSync(path.join(paths.eventDir, 'snapshot.jpg'), 'jpeg');
    if (row.Scheme === 'Shallow') writeFileSync(path.join(paths.eventDir, `.${id}`), '');
    if (paths.deepMarker) symlinkSync(path.relative(path.dirname(paths.deepMarker), paths.eventDir), paths.deepMarker);
  }
  return { id, monitorId, paths, summaryBefore };
}

async function rowCounts(id: number): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [table, col] of [
    ['Events', 'Id'],
    ['Frames', 'EventId'],
    ['Stats', 'EventId'],
    ['Event_Data', 'EventId'],
    ['Events_Tags', 'EventId'],
    ['Events_Hour', 'EventId'],
    ['Events_Day', 'EventId'],
    ['Events_Week', 'EventId'],
    ['Events_Month', 'EventId'],
    ['Events_Archived', 'EventId'],
  ]) {
    const [r] = await sql(db, `SELECT COUNT(*) AS n FROM ${table} WHERE ${col} = ?`, [id]);
    out[table] = Number(r.n);
  }
  return out;
}
const allZero = (counts: Record<string, number>) => Object.values(counts).every((n) => n === 0);
const storageSpace = async (id: number) =>
  Number((await sql(db, 'SELECT DiskSpace FROM Storage WHERE Id = ?', [id]))[0].DiskSpace);
const trashLeft = (dir: string) => existsSync(dir) && readdirSync(dir).some((name) => name.startsWith(TRASH_PREFIX));

test('Deep: rows, directory, marker symlink and empty parents go; summaries and Storage.DiskSpace follow', async (t) => {
  const ev = await seedEvent({ storageId: 11, scheme: 'Deep', diskSpace: 5000 });
  t.is(ev.paths.eventDir, path.join(dirOf('deep'), String(ev.monitorId), '26', '03', '04', '05', '06', '07'));
  t.true(lstatSync(ev.paths.deepMarker!).isSymbolicLink());
  t.is(readlinkSync(ev.paths.deepMarker!), path.join('05', '06', '07'));
  const spaceBefore = await storageSpace(11);
  const outcome = await deletion().delete(BigInt(ev.id), { reason: 'test' });
  t.like(outcome, { eventId: ev.id, monitorId: ev.monitorId, files: 'removed', eventDir: ev.paths.eventDir });
  t.true(allZero(await rowCounts(ev.id)), JSON.stringify(await rowCounts(ev.id)));
  t.false(existsSync(ev.paths.eventDir));
  t.throws(() => lstatSync(ev.paths.deepMarker!), undefined, 'the marker symlink is gone');
  t.false(existsSync(path.join(dirOf('deep'), String(ev.monitorId), '26')), 'empty parents up to yy are removed');
  t.true(existsSync(ev.paths.monitorDir), 'the monitor folder stays');
  t.deepEqual(await summary(db, ev.monitorId), {
    ...ev.summaryBefore,
    MonitorId: ev.monitorId,
    TotalEvents: 0,
    TotalEventDiskSpace: 0,
    HourEvents: 0,
    HourEventDiskSpace: 0,
    DayEvents: 0,
    DayEventDiskSpace: 0,
    WeekEvents: 0,
    WeekEventDiskSpace: 0,
    MonthEvents: 0,
    MonthEventDiskSpace: 0,
    ArchivedEvents: null,
    ArchivedEventDiskSpace: null,
  });
  t.is(await storageSpace(11), spaceBefore - 5000);
  t.true(
    logs.some((l) => l.msg === 'event deleted' && l.event_id === ev.id && l.reason === 'test' && l.files === 'removed'),
  );
});

test('Medium: the event folder goes; the day folder stays while another event uses it', async (t) => {
  const monitorId = nextMonitor++;
  const a = await seedEvent({ monitorId, storageId: 2, scheme: 'Medium' });
  const b = await seedEvent({ monitorId, storageId: 2, scheme: 'Medium', start: '2026-03-04 07:00:00' });
  t.is(a.paths.eventDir, path.join(dirOf('medium'), String(monitorId), '2026-03-04', String(a.id)));
  await deletion().delete(BigInt(a.id), { reason: 'test' });
  t.false(existsSync(a.paths.eventDir));
  t.true(existsSync(path.join(b.paths.eventDir, `${b.id}-video.mp4`)), 'the other event is untouched');
  t.is((await rowCounts(b.id)).Frames, 3);
  t.is((await summary(db, monitorId))?.TotalEvents, 1, 'only one event came off the summary');
  await deletion().delete(BigInt(b.id), { reason: 'test' });
  t.false(
    existsSync(path.join(dirOf('medium'), String(monitorId), '2026-03-04')),
    'the day folder goes with its last event',
  );
  t.true(existsSync(path.join(dirOf('medium'), String(monitorId))));
  t.false(trashLeft(path.join(dirOf('medium'), String(monitorId))));
});

test('Shallow: <root>/<M>/<Id> with its marker file goes; StorageId 0 uses ZM_DIR_EVENTS', async (t) => {
  const shallow = await seedEvent({ storageId: 3, scheme: 'Shallow' });
  t.is(shallow.paths.eventDir, path.join(dirOf('shallow'), String(shallow.monitorId), String(shallow.id)));
  t.true(existsSync(path.join(shallow.paths.eventDir, `.${shallow.id}`)));
  t.is((await deletion().delete(BigInt(shallow.id), { reason: 'test' })).files, 'removed');
  t.false(existsSync(shallow.paths.eventDir));
  t.true(existsSync(shallow.paths.monitorDir));

  const byDefault = await seedEvent({ storageId: 0, scheme: 'Medium' });
  t.true(byDefault.paths.eventDir.startsWith(dirOf('default') + path.sep));
  t.is((await deletion().delete(BigInt(byDefault.id), { reason: 'test' })).files, 'removed');
  t.false(existsSync(byDefault.paths.eventDir));
  t.true(allZero(await rowCounts(byDefault.id)));
});

test('no start time: Deep and Medium fall back to the Shallow path', async (t) => {
  const ev = await seedEvent({ storageId: 1, scheme: 'Deep', start: null });
  t.is(ev.paths.eventDir, path.join(dirOf('deep'), String(ev.monitorId), String(ev.id)));
  t.is((await deletion().delete(BigInt(ev.id), { reason: 'test' })).files, 'removed');
  t.false(existsSync(ev.paths.eventDir));
});

test('DoDelete=0: the rows go, the files stay', async (t) => {
  const ev = await seedEvent({ storageId: 4, scheme: 'Medium', diskSpace: 700 });
  const outcome = await deletion().delete(BigInt(ev.id), { reason: 'test' });
  t.is(outcome.files, 'kept');
  t.true(allZero(await rowCounts(ev.id)));
  t.true(existsSync(path.join(ev.paths.eventDir, `${ev.id}-video.mp4`)));
  t.is(await storageSpace(4), 1_000_000 - 700);
});

test('a missing directory is "absent" and the rows still go', async (t) => {
  const ev = await seedEvent({ storageId: 2, scheme: 'Medium' }, false);
  t.is((await deletion().delete(BigInt(ev.id), { reason: 'test' })).files, 'absent');
  t.true(allZero(await rowCounts(ev.id)));
});

test('open, archived, locked and lock-held events are refused with 409; rows and files untouched', async (t) => {
  const cases: Array<[Partial<EventSeed>, string]> = [
    [{ end: null }, 'in progress'],
    [{ archived: 1 }, 'archived'],
    [{ locked: 1 }, 'locked'],
  ];
  for (const [seed, reason] of cases) {
    const ev = await seedEvent({ storageId: 2, scheme: 'Medium', ...seed });
    const err = await t.throwsAsync(deletion().delete(BigInt(ev.id), { reason: 'test' }));
    t.like(err, { status: 409, kind: 'CONFLICT_ERROR' }, reason);
    t.deepEqual((err as any).details, [
      ['event_id', String(ev.id)],
      ['reason', reason],
    ]);
    t.is((await rowCounts(ev.id)).Frames, 3);
    t.true(existsSync(path.join(ev.paths.eventDir, 'snapshot.jpg')));
  }
  const held = await seedEvent({ storageId: 2, scheme: 'Medium' });
  await sql(
    db,
    "INSERT INTO Events_Lock (EventId, LockedBy, LockedAt, ExpiresAt) VALUES (?, 'zmfilter', NOW(), NOW() + INTERVAL 1 HOUR)",
    [held.id],
  );
  t.like(await t.throwsAsync(deletion().delete(BigInt(held.id), { reason: 'test' })), { status: 409 });
  t.true(existsSync(held.paths.eventDir), 'the directory was moved back');
  t.false(trashLeft(path.dirname(held.paths.eventDir)));
  await sql(db, 'UPDATE Events_Lock SET ExpiresAt = NOW() - INTERVAL 1 MINUTE WHERE EventId = ?', [held.id]);
  t.is(
    (await deletion().delete(BigInt(held.id), { reason: 'test' })).files,
    'removed',
    'an expired lock does not hold',
  );
  t.is(Number((await sql(db, 'SELECT COUNT(*) AS n FROM Events_Lock WHERE EventId = ?', [held.id]))[0].n), 0);
});

test('a failure inside the transaction leaves rows, summaries, Storage.DiskSpace and files as they were', async (t) => {
  const ev = await seedEvent({ storageId: 12, scheme: 'Deep', name: 'fail-me', diskSpace: 900 });
  const countsBefore = await rowCounts(ev.id);
  const summaryBefore = await summary(db, ev.monitorId);
  const spaceBefore = await storageSpace(12);
  const err = await t.throwsAsync(deletion().delete(BigInt(ev.id), { reason: 'test' }));
  t.regex(String(err?.message), /injected failure/);
  t.deepEqual(await rowCounts(ev.id), countsBefore);
  t.deepEqual(await summary(db, ev.monitorId), summaryBefore);
  t.is(await storageSpace(12), spaceBefore);
  t.true(existsSync(path.join(ev.paths.eventDir, `${ev.id}-video.mp4`)), 'the directory is back in place');
  t.true(lstatSync(ev.paths.deepMarker!).isSymbolicLink());
  t.false(trashLeft(path.dirname(ev.paths.eventDir)));
});

test('when the directory cannot be moved aside nothing is deleted (500)', async (t) => {
  const ev = await seedEvent({ storageId: 2, scheme: 'Medium' });
  const readOnly: DeletionFs = {
    ...nodeDeletionFs,
    rename: async () => {
      throw Object.assign(new Error('read-only file system'), { code: 'EROFS' });
    },
  };
  const err = await t.throwsAsync(deletion(readOnly).delete(BigInt(ev.id), { reason: 'test' }));
  t.like(err, { status: 500, kind: 'INTERNAL_SERVER_ERROR' });
  t.false(String(err?.message).includes(root), 'no path in the message');
  t.is((await rowCounts(ev.id)).Events, 1);
  t.true(existsSync(path.join(ev.paths.eventDir, 'snapshot.jpg')));
  t.true(logs.some((l) => l.event_id === String(ev.id) && /could not be moved aside/.test(l.msg)));
});

test('when removal fails after the commit, the rows are gone and the files wait in the trash folder', async (t) => {
  const ev = await seedEvent({ storageId: 2, scheme: 'Medium' });
  const stuck: DeletionFs = {
    ...nodeDeletionFs,
    rm: async () => {
      throw Object.assign(new Error('device busy'), { code: 'EBUSY' });
    },
  };
  const outcome = await deletion(stuck).delete(BigInt(ev.id), { reason: 'test' });
  t.is(outcome.files, 'left');
  t.true(allZero(await rowCounts(ev.id)));
  const parent = path.dirname(ev.paths.eventDir);
  const trash = readdirSync(parent).filter((n) => n.startsWith(`${TRASH_PREFIX}${ev.id}.`));
  t.is(trash.length, 1);
  t.true(existsSync(path.join(parent, trash[0], `${ev.id}-video.mp4`)), 'nothing is lost');
  t.true(logs.some((l) => l.level >= 50 && l.event_id === String(ev.id) && l.dir === path.join(parent, trash[0])));
});

test('if the directory cannot be moved back after a failed transaction, that is logged as fatal with both paths', async (t) => {
  const ev = await seedEvent({ storageId: 2, scheme: 'Medium', name: 'fail-me' });
  let renames = 0;
  const oneWay: DeletionFs = {
    ...nodeDeletionFs,
    rename: async (from, to) => {
      if (renames++ > 0) throw Object.assign(new Error('gone'), { code: 'EIO' });
      return nodeDeletionFs.rename(from, to);
    },
  };
  await t.throwsAsync(deletion(oneWay).delete(BigInt(ev.id), { reason: 'test' }));
  t.is((await rowCounts(ev.id)).Events, 1);
  const fatal = logs.find((l) => l.level === 60 && l.event_id === String(ev.id));
  t.truthy(fatal);
  t.is(fatal?.original, ev.paths.eventDir);
  t.true(existsSync(path.join(fatal?.moved_to, 'snapshot.jpg')), 'the files are where the log says');
});

test('two deletions of one event at once: one wins, the other is refused; nothing is left behind', async (t) => {
  const ev = await seedEvent({ storageId: 2, scheme: 'Medium' });
  const results = await Promise.allSettled([
    deletion().delete(BigInt(ev.id), { reason: 'a' }),
    deletion().delete(BigInt(ev.id), { reason: 'b' }),
  ]);
  t.is(results.filter((r) => r.status === 'fulfilled').length, 1);
  const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
  t.true([404, 409].includes(refused.reason.status));
  t.false(existsSync(ev.paths.eventDir));
  t.false(trashLeft(path.dirname(ev.paths.eventDir)));
});

test('DELETE /api/v3/events/{id} uses this path: rows and the event directory go', async (t) => {
  const app = await startTestApp({
    db,
    env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_ZONEMINDER__DIR_EVENTS: dirOf('default') },
  });
  try {
    await insertEventUsers(db);
    const call = caller(app, await login(app, 'evedit'));
    const ev = await seedEvent({ storageId: 0, scheme: 'Shallow' });
    const res = await call('DELETE', `/events/${ev.id}`);
    t.is(res.status, 204, res.text);
    t.false(existsSync(ev.paths.eventDir));
    t.true(allZero(await rowCounts(ev.id)));
    t.true(
      app.logs.some(
        (l) =>
          l.msg === 'event deleted' &&
          l.event_id === ev.id &&
          l.reason === 'api' &&
          l.actor === 'evedit' &&
          l.files === 'removed',
      ),
    );
    const open = await seedEvent({ storageId: 0, scheme: 'Shallow', end: null });
    t.is((await call('DELETE', `/events/${open.id}`)).status, 409);
    t.true(existsSync(open.paths.eventDir));
  } finally {
    await app.close();
  }
});
