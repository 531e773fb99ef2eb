// Frames and event data over HTTP (CRUD, paging, validation, permissions) and their row ACL at
// the service level (stub MonitorAcl).
import test from 'ava';
import { EventDataService } from '../../src/features/events/event-data-service.js';
import { FramesService } from '../../src/features/events/frames-service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  caller,
  insertEvent,
  insertEventUsers,
  insertMonitor,
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
let viewer: string;
let nobody: string;
let ev1: number;
let ev2: number;
/** Writes go to this event (monitor 3), so the concurrent read tests keep their counts. */
let ev3: number;

test.before(async () => {
  db = await zmDatabase('frames');
  // Times are written back as UTC instants: pin ZoneMinder's zone so they do not follow the machine's.
  await sql(db, "INSERT INTO Config (Name, Value, Type) VALUES ('ZM_TIMEZONE', 'UTC', 'string')");
  await insertEventUsers(db);
  await insertMonitor(db, 1);
  await insertMonitor(db, 2);
  await insertMonitor(db, 3);
  ev1 = await insertEvent(db, { monitorId: 1 });
  ev2 = await insertEvent(db, { monitorId: 2 });
  ev3 = await insertEvent(db, { monitorId: 3 });
  for (let f = 1; f <= 7; f++) {
    await sql(db, 'INSERT INTO Frames (EventId, FrameId, Type, Score, TimeStamp, Delta) VALUES (?, ?, ?, ?, ?, ?)', [
      ev1,
      f,
      f === 4 ? 'Alarm' : 'Normal',
      f * 3,
      `2026-01-15 10:00:0${f}`,
      (f - 1) * 0.5,
    ]);
  }
  await sql(db, 'INSERT INTO Frames (EventId, FrameId, Type, Score, TimeStamp, Delta) VALUES (?, 1, ?, 0, ?, 0)', [
    ev2,
    'Bulk',
    '2026-01-15 11:00:00',
  ]);
  await sql(
    db,
    'INSERT INTO Event_Data (EventId, MonitorId, FrameId, Timestamp, Data) VALUES (?, 1, 4, ?, ?), (?, NULL, NULL, ?, ?), (NULL, 2, NULL, ?, ?)',
    [
      ev1,
      '2026-01-15 10:00:04.250',
      '{"label":"person"}',
      ev2,
      '2026-01-15 11:00:00',
      'on ev2',
      '2026-01-15 12:00:00',
      'monitor 2 only',
    ],
  );
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  call = caller(app, await login(app, 'evedit'));
  viewer = await login(app, 'evview');
  nobody = await login(app, 'evnone');
});
test.after.always(async () => app?.close());

test.serial("frames: an event's frames in order with the reference fields", async (t) => {
  const res = await call('GET', `/frames?event_id=${ev1}&page=1&page_size=500`);
  t.is(res.status, 200);
  t.like(res.body, { total: 7, per_page: 500, current_page: 1, last_page: 1 });
  t.deepEqual(
    res.body.items.map((f: any) => f.frame_id),
    [1, 2, 3, 4, 5, 6, 7],
  );
  const fourth = res.body.items[3];
  t.deepEqual(Object.keys(fourth).sort(), ['delta', 'event_id', 'frame_id', 'id', 'score', 'time_stamp', 'type']);
  t.like(fourth, {
    event_id: ev1,
    frame_id: 4,
    type: 'Alarm',
    score: 12,
    time_stamp: '2026-01-15T10:00:04Z',
    delta: '1.50',
  });
  t.deepEqual((await call('GET', `/frames/${fourth.id}`)).body, fourth);
  const paged = await call('GET', `/frames?event_id=${ev1}&page=2&page_size=3`);
  t.like(paged.body, { total: 7, last_page: 3, current_page: 2 });
  t.deepEqual(
    paged.body.items.map((f: any) => f.frame_id),
    [4, 5, 6],
  );
  t.is((await call('GET', '/frames')).body.total, 8);
  t.deepEqual((await call('GET', '/frames?event_id=999999')).body.items, []);
});

test('frames: create, patch, delete, and their errors', async (t) => {
  const created = await call('POST', '/frames', {
    event_id: ev3,
    frame_id: 8,
    type: 'Bulk',
    score: 1,
    time_stamp: '2026-01-15T10:00:09',
    delta: '4.25',
    extra: true,
  });
  t.is(created.status, 201, created.text);
  t.like(created.body, {
    event_id: ev3,
    frame_id: 8,
    type: 'Bulk',
    score: 1,
    time_stamp: '2026-01-15T10:00:09Z',
    delta: '4.25',
  });
  const patched = await call('PATCH', `/frames/${created.body.id}`, { type: 'Alarm', score: 99 });
  t.like(patched.body, { type: 'Alarm', score: 99, frame_id: 8 });
  t.like(
    (await call('PATCH', `/frames/${created.body.id}`, { type: 'Normal' })).body,
    { type: 'Normal', score: 99 },
    'score kept when absent',
  );
  t.is((await call('DELETE', `/frames/${created.body.id}`)).status, 204);
  t.is((await call('GET', `/frames/${created.body.id}`)).status, 404);
  t.is((await call('DELETE', `/frames/${created.body.id}`)).status, 404);
  t.is((await call('PATCH', '/frames/999999', { type: 'Normal' })).status, 404);
  t.is((await call('GET', '/frames/abc')).status, 400);

  const base = { event_id: ev1, frame_id: 9, type: 'Normal', score: 0, time_stamp: '2026-01-15T10:00:00', delta: '0' };
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ ...base, event_id: 999999 }, 'event_id'],
    [{ ...base, type: 'Weird' }, 'type'],
    [{ ...base, score: 70000 }, 'score'],
    [{ ...base, delta: '1.234' }, 'delta'],
    [{ ...base, delta: '10000000' }, 'delta'],
    [{ ...base, time_stamp: '2026-01-15T25:00:00' }, 'time_stamp'],
    [{ ...base, time_stamp: '1900-01-01T00:00:00' }, 'time_stamp'],
    [{ ...base, frame_id: -1 }, 'frame_id'],
    [{ type: 'Normal' }, 'event_id'],
  ];
  for (const [body, field] of cases) {
    const res = await call('POST', '/frames', body);
    t.is(res.status, 400, `${field}: ${res.text}`);
    t.true(
      res.body.details.some(([f]: string[]) => f.includes(field)),
      `${field}: ${JSON.stringify(res.body.details)}`,
    );
  }
  t.is((await call('PATCH', `/frames/1`, { score: 1 })).status, 400, 'type is required on update, as in the reference');
});

test.serial('event data: list by event, get, create (monitor taken from the event), patch, delete', async (t) => {
  const list = await call('GET', `/event-data?event_id=${ev1}&page=1&page_size=200`);
  t.is(list.status, 200);
  t.is(list.body.total, 1);
  t.is((await call('GET', '/event-data')).body.total, 3);
  t.deepEqual(list.body.items[0], {
    id: list.body.items[0].id,
    event_id: ev1,
    monitor_id: 1,
    frame_id: 4,
    timestamp: '2026-01-15T10:00:04.250Z',
    data: '{"label":"person"}',
  });
  const created = await call('POST', '/event-data', {
    event_id: ev3,
    frame_id: 1,
    timestamp: '2026-01-15T11:00:01',
    data: 'x',
  });
  t.is(created.status, 201, created.text);
  t.like(created.body, { event_id: ev3, monitor_id: 3, frame_id: 1, timestamp: '2026-01-15T11:00:01Z', data: 'x' });
  t.deepEqual((await call('GET', `/event-data/${created.body.id}`)).body, created.body);
  t.like((await call('PATCH', `/event-data/${created.body.id}`, { data: 'y' })).body, { data: 'y', frame_id: 1 });
  t.like((await call('PATCH', `/event-data/${created.body.id}`, {})).body, { data: 'y' }, 'absent data is left alone');
  t.like((await call('PATCH', `/event-data/${created.body.id}`, { data: null })).body, { data: null });
  t.is((await call('DELETE', `/event-data/${created.body.id}`)).status, 204);
  t.is((await call('GET', `/event-data/${created.body.id}`)).status, 404);
  t.is((await call('GET', '/event-data/99999999999')).status, 404, 'ids are int64');
  for (const [body, field] of [
    [{ event_id: 999999, timestamp: '2026-01-15T11:00:01' }, 'event_id'],
    [{ monitor_id: 999, timestamp: '2026-01-15T11:00:01' }, 'monitor_id'],
    [{ event_id: ev1, timestamp: 'soon' }, 'timestamp'],
    [{ event_id: ev1 }, 'timestamp'],
    [{ event_id: ev1, timestamp: '2026-01-15T11:00:01', data: 'd'.repeat(65536) }, 'data'],
  ] as Array<[Record<string, unknown>, string]>) {
    const res = await call('POST', '/event-data', body);
    t.is(res.status, 400, `${field}: ${res.text}`);
    t.true(
      res.body.details.some(([f]: string[]) => f.includes(field)),
      `${field}: ${JSON.stringify(res.body.details)}`,
    );
  }
});

test('paging limits and permissions on both families', async (t) => {
  for (const family of ['frames', 'event-data']) {
    t.is((await call('GET', `/${family}?page_size=1001`)).status, 400);
    t.is((await call('GET', `/${family}?page_size=1000`)).status, 200);
    t.is((await call('GET', `/${family}?page=0`)).body.current_page, 1);
    t.is((await call('GET', `/${family}?per_page=1`)).body.per_page, 25);
    t.is((await call('GET', `/${family}`, undefined, viewer)).status, 200);
    t.is((await call('POST', `/${family}`, {}, viewer)).status, 403);
    t.is((await call('GET', `/${family}`, undefined, nobody)).status, 403);
  }
});

test('row ACL: frames and event data of hidden monitors are not there', async (t) => {
  const prisma = prismaFor(db);
  try {
    const frames = new FramesService(prisma, stubAcl([1]));
    t.is((await frames.list(someUser, undefined)).total, 7, 'only the frames of monitor 1');
    t.like(await frames.list(someUser, ev2), { items: [], total: 0 });
    const [{ Id: hiddenFrame }] = await sql(db, 'SELECT Id FROM Frames WHERE EventId = ?', [ev2]);
    t.like(await t.throwsAsync(frames.get(someUser, Number(hiddenFrame))), { status: 404 });
    t.like(await t.throwsAsync(frames.remove(someUser, Number(hiddenFrame))), { status: 404 });
    t.like(
      await t.throwsAsync(
        frames.create(someUser, {
          event_id: ev2,
          frame_id: 2,
          type: 'Normal',
          score: 0,
          time_stamp: '2026-01-15T10:00:00',
          delta: '0',
        }),
      ),
      { status: 400 },
    );
    t.is((await new FramesService(prisma, stubAcl([])).list(someUser, undefined)).total, 0);

    const data = new EventDataService(prisma, stubAcl([2]));
    const visible = await data.list(someUser, undefined);
    t.deepEqual(
      visible.items.map((d) => d.data).sort(),
      ['monitor 2 only', 'on ev2'],
      "MonitorId, else the event's monitor",
    );
    t.is(visible.total, 2);
    t.like(await data.list(someUser, ev1), { items: [], total: 0 });
    const [{ Id: hiddenData }] = await sql(db, 'SELECT Id FROM Event_Data WHERE EventId = ?', [ev1]);
    t.like(await t.throwsAsync(data.get(someUser, Number(hiddenData))), { status: 404 });
    t.like(await t.throwsAsync(data.update(someUser, Number(hiddenData), { data: 'x' })), { status: 404 });
    t.like(
      await t.throwsAsync(data.create(someUser, { timestamp: '2026-01-15T10:00:00' })),
      { status: 400 },
      'a restricted caller must tie the row to a monitor',
    );
    t.like(await t.throwsAsync(data.create(someUser, { monitor_id: 1, timestamp: '2026-01-15T10:00:00' })), {
      status: 400,
    });
    t.is((await new EventDataService(prisma, stubAcl(null)).list(someUser, undefined)).total >= 3, true);
  } finally {
    await prisma.$disconnect();
  }
});
