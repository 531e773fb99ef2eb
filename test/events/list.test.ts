// GET /api/v3/events: every filter, every sort field in both directions, paging limits, and the
// row ACL (service level, with a stub MonitorAcl).
import test from 'ava';
import { EventDeletion } from '../../src/zm/event-deletion.js';
import { zoneMinderClock } from '../../src/zm/event-time.js';
import { EventsService } from '../../src/features/events/events-service.js';
import { EventRows } from '../../src/features/events/event-rows.js';
import { poolFor } from '../helpers/maintenance.js';
import { EVENT_SORT_FIELDS } from '../../src/features/events/event-list-query.js';
import { CoalescedCount } from '../../src/db/coalesced-count.js';
import { createLogger } from '../../src/log.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  caller,
  insertEvent,
  insertEventUsers,
  insertMonitor,
  insertStorage,
  login,
  prismaFor,
  someUser,
  sql,
  stubAcl,
} from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
let call: ReturnType<typeof caller>;
const e: Record<string, number> = {};

test.before(async () => {
  db = await zmDatabase('evlist');
  await insertEventUsers(db);
  // New York: -05:00 in January.
  await sql(db, "INSERT INTO Config (Name, Value, Type) VALUES ('ZM_TIMEZONE', 'America/New_York', 'string')");
  for (const id of [1, 2, 3]) await insertMonitor(db, id);
  await insertStorage(db, { id: 5, path: '/nonexistent/s5' });
  e.front = await insertEvent(db, {
    monitorId: 1,
    name: 'Front door',
    cause: 'Motion',
    notes: 'person detected',
    start: '2026-01-10 08:00:00',
    end: '2026-01-10 08:01:00',
    alarmFrames: 3,
    maxScore: 10,
    avgScore: 4,
    totScore: 30,
    length: '60.00',
    frames: 60,
  });
  e.back = await insertEvent(db, {
    monitorId: 1,
    name: 'Back yard',
    cause: 'Signal',
    notes: null,
    start: '2026-01-10 09:00:00',
    end: '2026-01-10 09:05:00',
    alarmFrames: 10,
    maxScore: 90,
    avgScore: null,
    totScore: 900,
    length: '300.00',
    frames: 300,
    archived: 1,
    storageId: 5,
  });
  e.garage = await insertEvent(db, {
    monitorId: 2,
    name: 'GARAGE',
    cause: 'motion',
    notes: 'car',
    start: '2026-01-11 12:00:00',
    end: '2026-01-11 12:00:30',
    alarmFrames: 0,
    maxScore: 5,
    avgScore: 2,
    totScore: 5,
    length: '30.50',
    frames: 30,
    storageId: 5,
  });
  e.open = await insertEvent(db, {
    monitorId: 3,
    name: '100%_off',
    cause: 'Forced Web',
    notes: 'a_b',
    start: '2026-01-12 00:00:00',
    end: null,
    alarmFrames: 50,
    maxScore: 100,
    avgScore: 50,
    totScore: 5000,
    length: '1.00',
    frames: 1,
    storageId: null,
  });
  e.edge = await insertEvent(db, {
    monitorId: 2,
    name: 'Edge',
    cause: null,
    notes: 'x',
    start: '2026-01-09 23:59:59',
    end: '2026-01-10 00:00:10',
    alarmFrames: 1,
    maxScore: null,
    avgScore: 1,
    totScore: 1,
    length: '11.00',
    frames: 11,
  });
  await sql(db, "INSERT INTO Tags (Id, Name) VALUES (1, 'person'), (2, 'car')");
  await sql(db, 'INSERT INTO Events_Tags (TagId, EventId) VALUES (1, ?), (2, ?)', [e.front, e.garage]);
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  call = caller(app, await login(app, 'evview'));
});
test.after.always(async () => app?.close());

const ids = async (query: string) => {
  const res = await call('GET', `/events${query}`);
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.text}`);
  return res.body.items.map((x: any) => x.id) as number[];
};

test('default order: newest start first; the total counts every row', async (t) => {
  const res = await call('GET', '/events');
  t.is(res.status, 200);
  t.deepEqual(
    res.body.items.map((x: any) => x.id),
    [e.open, e.garage, e.back, e.front, e.edge],
  );
  t.like(res.body, { total: 5, per_page: 25, current_page: 1, last_page: 1 });
});

test('monitor_id, archived, alarm_frames_min and storage_id filters', async (t) => {
  t.deepEqual(await ids('?monitor_id=1'), [e.back, e.front]);
  t.deepEqual(await ids('?monitor_id=9'), []);
  t.deepEqual(await ids('?archived=true'), [e.back]);
  t.deepEqual(await ids('?archived=false'), [e.open, e.garage, e.front, e.edge]);
  t.deepEqual(await ids('?alarm_frames_min=10'), [e.open, e.back]);
  t.deepEqual(await ids('?storage_id=5'), [e.garage, e.back]);
  t.deepEqual(await ids('?storage_id=0'), [e.open, e.front, e.edge], 'StorageId 0 and NULL are the default storage');
  t.is((await call('GET', '/events?archived=maybe')).status, 400);
  t.is((await call('GET', '/events?alarm_frames_min=-1')).status, 400);
});

test('start_time/end_time: Z and offsets are instants in ZoneMinder time; naive is ZoneMinder local time', async (t) => {
  // 08:30 in New York is 13:30Z.
  for (const q of [
    '2026-01-10T13:30:00Z',
    '2026-01-10T14:30:00%2B01:00',
    '2026-01-10T08:30:00',
    '2026-01-10 08:30:00',
    '2026-01-10T13:30:00.000Z',
  ]) {
    t.deepEqual(await ids(`?start_time=${q}`), [e.open, e.garage, e.back], q);
  }
  // Bounds are inclusive; an event ends by end_time or is left out (open events never match).
  t.deepEqual(await ids('?end_time=2026-01-10T09:05:00'), [e.back, e.front, e.edge]);
  t.deepEqual(await ids('?end_time=2026-01-10T14:04:59Z'), [e.front, e.edge]);
  t.deepEqual(await ids('?start_time=2026-01-10T00:00:00&end_time=2026-01-10T23:59:59'), [e.back, e.front]);
  t.deepEqual(await ids('?start_time=2026-01-10'), [e.open, e.garage, e.back, e.front], 'a date is local midnight');
  for (const bad of [
    'yesterday',
    '2026-13-01T00:00:00Z',
    '2026-01-10T25:00:00',
    '1736500000',
    '2026-01-10T08:00:00%2B25:00',
  ]) {
    const res = await call('GET', `/events?start_time=${bad}`);
    t.is(res.status, 400, bad);
    t.is(res.body.kind, 'INVALID_INPUT_ERROR');
    t.deepEqual(
      res.body.details.map((d: string[]) => d[0]),
      ['start_time'],
    );
  }
  t.deepEqual(
    (await call('GET', '/events?end_time=nope')).body.details.map((d: string[]) => d[0]),
    ['end_time'],
  );
});

test('name, cause and notes: case-insensitive substrings with LIKE wildcards taken literally', async (t) => {
  t.deepEqual(await ids('?cause=MOTION'), [e.garage, e.front]);
  t.deepEqual(await ids('?name=garage'), [e.garage]);
  t.deepEqual(await ids('?name=%25'), [e.open], '% is a character, not a wildcard');
  t.deepEqual(await ids('?notes=_'), [e.open], '_ is a character, not a wildcard');
  t.deepEqual(await ids('?notes=PERSON&cause=motion'), [e.front]);
  t.deepEqual((await ids('?name=')).length, 5, 'an empty text filter is no filter');
});

test('tag_id: comma-separated, any of', async (t) => {
  t.deepEqual(await ids('?tag_id=1'), [e.front]);
  t.deepEqual(await ids('?tag_id=1,2'), [e.garage, e.front]);
  t.deepEqual(await ids('?tag_id=3'), []);
  for (const bad of ['x', '1,,a', '-1']) {
    const res = await call('GET', `/events?tag_id=${bad}`);
    t.is(res.status, 400, bad);
    t.deepEqual(
      res.body.details.map((d: string[]) => d[0]),
      ['tag_id'],
    );
  }
});

// The response value a sort field orders by, comparable with `<` (null sorts first ascending,
// as in MariaDB).
const sortKey: Record<string, (x: any) => string | number | null> = {
  start_time: (x) => x.start_date_time,
  end_time: (x) => x.end_date_time,
  alarm_frames: (x) => x.alarm_frames,
  max_score: (x) => x.max_score,
  avg_score: (x) => x.avg_score,
  tot_score: (x) => x.tot_score,
  length: (x) => Number(x.length),
  id: (x) => x.id,
  name: (x) => x.name.toLowerCase(),
  cause: (x) => x.cause?.toLowerCase() ?? null,
  monitor_id: (x) => x.monitor_id,
  notes: (x) => x.notes?.toLowerCase() ?? null,
  frames: (x) => x.frames,
};

function compare(field: string) {
  return (a: any, b: any) => {
    const ka = sortKey[field](a);
    const kb = sortKey[field](b);
    if (ka !== kb) {
      if (ka === null) return -1;
      if (kb === null) return 1;
      return ka < kb ? -1 : 1;
    }
    return a.id - b.id;
  };
}

test('sort: every reference field, both directions, ties broken by id', async (t) => {
  t.deepEqual(Object.keys(sortKey).sort(), Object.keys(EVENT_SORT_FIELDS).sort());
  for (const field of Object.keys(EVENT_SORT_FIELDS)) {
    const asc = (await call('GET', `/events?sort=${field}&direction=asc`)).body.items;
    const desc = (await call('GET', `/events?sort=${field}&direction=desc`)).body.items;
    t.deepEqual(
      asc.map((x: any) => x.id),
      [...asc].sort(compare(field)).map((x: any) => x.id),
      `${field} asc`,
    );
    t.deepEqual(
      desc.map((x: any) => x.id),
      [...asc].reverse().map((x: any) => x.id),
      `${field} desc`,
    );
  }
  t.deepEqual(await ids('?sort=max_score&direction=desc'), [e.open, e.back, e.front, e.garage, e.edge]);
  t.deepEqual(
    await ids('?sort=StartDateTime&direction=ASC'),
    [e.edge, e.front, e.back, e.garage, e.open],
    'ZoneMinder column name and upper case accepted',
  );
  t.deepEqual(await ids('?sort=length'), [e.back, e.front, e.garage, e.edge, e.open], 'direction defaults to desc');
});

test('sort and direction: unknown values are a 400 naming the parameter', async (t) => {
  for (const [q, field] of [
    ['sort=DiskSpace', 'sort'],
    ['sort=1;DROP TABLE Events', 'sort'],
    ['direction=up', 'direction'],
    ['sort=__proto__', 'sort'],
  ]) {
    const res = await call('GET', `/events?${encodeURI(q)}`);
    t.is(res.status, 400, q);
    t.deepEqual(
      res.body.details.map((d: string[]) => d[0]),
      [field],
      q,
    );
  }
});

test('paging: page_size, last_page, beyond the end, 0 reads as 1, limits, stray per_page', async (t) => {
  const p2 = await call('GET', '/events?page=2&page_size=2');
  t.like(p2.body, { total: 5, per_page: 2, current_page: 2, last_page: 3 });
  t.deepEqual(
    p2.body.items.map((x: any) => x.id),
    [e.back, e.front],
  );
  t.deepEqual(await ids('?page=3&page_size=2'), [e.edge]);
  const beyond = await call('GET', '/events?page=99&page_size=2');
  t.like(beyond.body, { items: [], total: 5, current_page: 99, last_page: 3 });
  // Zeros are refused, as the reference's EventQueryParams validation does (test/contract/reference-errors.ts).
  for (const q of ['page=0', 'page_size=0'])
    t.like(await call('GET', `/events?${q}`), {
      status: 400,
      body: { kind: 'INVALID_INPUT_ERROR', details: [[q.split('=')[0]]] },
    });
  t.is((await call('GET', '/events?per_page=1000')).body.per_page, 25);
  t.is((await call('GET', '/events?page_size=1000')).status, 200);
  for (const q of ['page_size=1001', 'page=-1', 'page_size=x'])
    t.is((await call('GET', `/events?${q}`)).status, 400, q);
  const filtered = await call('GET', '/events?monitor_id=2&page_size=1');
  t.like(filtered.body, { total: 2, last_page: 2 });
});

test('row ACL: the list, get, counts and delete see only visible monitors', async (t) => {
  const prisma = prismaFor(db);
  const pool = poolFor(db);
  const log = createLogger({ level: 'fatal' });
  const service = (visible: number[] | null) =>
    new EventsService(
      prisma,
      stubAcl(visible),
      zoneMinderClock(prisma),
      new EventDeletion(prisma, '/nonexistent/events', log),
      new EventRows(pool),
    );
  try {
    const limited = service([1, 3]);
    const page = await limited.list(someUser, {});
    t.deepEqual(
      page.items.map((x) => x.id),
      [e.open, e.back, e.front],
    );
    t.is(page.total, 3);
    t.is((await limited.list(someUser, { monitor_id: 2 })).total, 0, 'a hidden monitor lists nothing');
    t.deepEqual(
      (await limited.list(someUser, { cause: 'motion' })).items.map((x) => x.id),
      [e.front],
    );
    const none = await service([]).list(someUser, {});
    t.like(none, { items: [], total: 0, last_page: 1 });
    t.is((await service(null).list(someUser, {})).total, 5);

    t.is((await limited.get(someUser, e.front)).id, e.front);
    const hidden = await t.throwsAsync(limited.get(someUser, e.garage));
    t.like(hidden, { status: 404, kind: 'MESSAGE_NOT_FOUND_ERROR' }, 'a hidden event is the same 404 as a missing one');
    t.like(await t.throwsAsync(limited.update(someUser, e.garage, { name: 'x' })), { status: 404 });
    t.like(await t.throwsAsync(limited.remove(someUser, e.garage)), { status: 404 });
    t.like(
      await t.throwsAsync(
        limited.create(someUser, {
          monitor_id: 2,
          storage_id: 0,
          name: 'x',
          width: 1,
          height: 1,
          length: '1',
          orientation: 'ROTATE_0',
        }),
      ),
      { status: 400 },
    );
    const byMonitor = await limited.countsByMonitor(someUser, 87_600);
    t.deepEqual(
      byMonitor.counts.map((c) => c.monitor_id),
      [1, 3],
    );
    const counts = await limited.counts(someUser, 87_600);
    t.is(
      counts.counts.reduce((s, c) => s + c.count, 0),
      3,
    );
    t.deepEqual((await service([]).counts(someUser, 24)).counts, []);
  } finally {
    await prisma.$disconnect();
    await pool.end();
  }
});

test('coalesced counts: arrivals before a query starts share it; later arrivals get a fresh one', async (t) => {
  const counter = new CoalescedCount();
  let runs = 0;
  const releases: Array<(n: number) => void> = [];
  const run = () => {
    runs++;
    return new Promise<number>((resolve) => releases.push(resolve));
  };
  const a = counter.count('k', run);
  const b = counter.count('k', run);
  await Promise.resolve();
  await Promise.resolve();
  t.is(runs, 1, 'a and b share one query');
  const c = counter.count('k', run); // arrives while it runs: must not reuse it
  const d = counter.count('k', run);
  const other = counter.count('other', run);
  releases[0](5);
  t.deepEqual(await Promise.all([a, b]), [5, 5]);
  await new Promise((r) => setImmediate(r));
  t.is(runs, 3, 'c and d started one new query after the first finished; another key runs on its own');
  releases[1](7); // 'other'
  releases[2](9); // c and d
  t.deepEqual(await Promise.all([c, d]), [9, 9]);
  t.is(await other, 7);
  const failing = counter.count('k', () => Promise.reject(new Error('db down')));
  await t.throwsAsync(failing, { message: 'db down' });
  t.is(await counter.count('k', async () => 11), 11, 'after a failure the next call runs afresh');
});
