// Events over HTTP: get/create/patch, field rules (length string, UTC `Z` times converted with
// ZM_TIMEZONE, tags), validation, permissions, and the two count routes.
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  caller,
  insertEvent,
  insertEventUsers,
  insertMonitor,
  insertStorage,
  login,
  sql,
  summary,
} from '../helpers/events.js';
import { isEnvelope } from '../helpers/http.js';
import { parseEventTime, ZoneClock } from '../../src/zm/event-time.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
let call: ReturnType<typeof caller>;
let viewer: string;
let nobody: string;

test.before(async () => {
  db = await zmDatabase('events');
  await insertEventUsers(db);
  // Berlin: +01:00 in January, +02:00 in July.
  await sql(db, "INSERT INTO Config (Name, Value, Type) VALUES ('ZM_TIMEZONE', 'Europe/Berlin', 'string')");
  await insertMonitor(db, 1);
  await insertMonitor(db, 2);
  await insertStorage(db, { id: 3, path: '/nonexistent/zm-events', scheme: 'Deep' });
  app = await startTestApp({
    db,
    env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_ZONEMINDER__DIR_EVENTS: '/nonexistent/events' },
  });
  call = caller(app, await login(app, 'evedit'));
  viewer = await login(app, 'evview');
  nobody = await login(app, 'evnone');
});
test.after.always(async () => app?.close());

test('get: every EventResponse field, length as a 2-place string, times as UTC with Z', async (t) => {
  const id = await insertEvent(db, {
    monitorId: 1,
    name: 'Winter',
    cause: 'Motion',
    notes: 'Motion: All',
    start: '2026-01-15 10:00:00',
    end: '2026-01-15 10:09:39',
    length: '579.9',
    diskSpace: 1234,
    storageId: null,
  });
  await sql(
    db,
    'UPDATE Events SET Latitude = 52.5, Longitude = -13.25, SaveJPEGs = 3, Videoed = 1, DefaultVideo = ? WHERE Id = ?',
    [`${id}-video.mp4`, id],
  );
  const res = await call('GET', `/events/${id}`);
  t.is(res.status, 200);
  t.deepEqual(res.body, {
    id,
    monitor_id: 1,
    storage_id: 0,
    secondary_storage_id: 0,
    name: 'Winter',
    cause: 'Motion',
    start_date_time: '2026-01-15T09:00:00Z',
    end_date_time: '2026-01-15T09:09:39Z',
    width: 0,
    height: 0,
    length: '579.90',
    frames: 100,
    alarm_frames: 5,
    default_video: `${id}-video.mp4`,
    save_jpe_gs: 3,
    tot_score: 50,
    avg_score: 10,
    max_score: 20,
    archived: 0,
    videoed: 1,
    uploaded: 0,
    emailed: 0,
    messaged: 0,
    executed: 0,
    notes: 'Motion: All',
    state_id: 0,
    orientation: 'ROTATE_0',
    disk_space: 1234,
    scheme: 'Medium',
    locked: 0,
    latitude: '52.50000000',
    longitude: '-13.25000000',
  });
  t.false('tags' in res.body, 'tags omitted when the event has none');
  t.false(Number.isNaN(Date.parse(res.body.start_date_time)));
});

test('summer time converts with +02:00; an open event has end_date_time null', async (t) => {
  const id = await insertEvent(db, { monitorId: 1, start: '2026-07-15 10:00:00', end: null });
  const res = await call('GET', `/events/${id}`);
  t.is(res.body.start_date_time, '2026-07-15T08:00:00Z');
  t.is(res.body.end_date_time, null);
});

test('tags are listed as {id, name}', async (t) => {
  const id = await insertEvent(db, { monitorId: 2 });
  await sql(db, "INSERT INTO Tags (Id, Name) VALUES (71, 'person'), (72, 'car')");
  await sql(db, 'INSERT INTO Events_Tags (TagId, EventId) VALUES (71, ?), (72, ?)', [id, id]);
  const res = await call('GET', `/events/${id}`);
  t.deepEqual(res.body.tags, [
    { id: 72, name: 'car' },
    { id: 71, name: 'person' },
  ]);
  const list = await call('GET', `/events?monitor_id=2&tag_id=71`);
  t.deepEqual(
    list.body.items.map((e: any) => e.id),
    [id],
  );
  t.deepEqual(list.body.items[0].tags.length, 2);
});

test('get: 404 MESSAGE_NOT_FOUND (code 3, as the reference) for a missing id; 400 for a bad id', async (t) => {
  const res = await call('GET', '/events/999999');
  t.is(res.status, 404);
  t.true(isEnvelope(res.body));
  t.is(res.body.kind, 'MESSAGE_NOT_FOUND_ERROR');
  t.is(res.body.code, 3);
  for (const bad of ['abc', '-1', '1.5']) t.is((await call('GET', `/events/${bad}`)).status, 400, bad);
  // Event ids are int64: a large id is a 404, not a validation error.
  t.is((await call('GET', '/events/5000000000')).status, 404);
});

test('create: 201 with the event, bucket rows and Event_Summaries counters', async (t) => {
  const before = await summary(db, 2);
  const start = new Date(Date.now() - 60_000);
  const res = await call('POST', '/events', {
    monitor_id: 2,
    storage_id: 3,
    name: 'Made by API',
    cause: 'API',
    width: 640,
    height: 480,
    length: '12.5',
    orientation: 'Rotate90',
    start_date_time: start.toISOString(),
    end_date_time: new Date().toISOString(),
    unknown_key: 'ignored',
  });
  t.is(res.status, 201, res.text);
  t.like(res.body, {
    monitor_id: 2,
    storage_id: 3,
    name: 'Made by API',
    cause: 'API',
    width: 640,
    height: 480,
    length: '12.50',
    orientation: 'ROTATE_90',
    scheme: 'Deep',
    frames: 0,
    archived: 0,
  });
  t.regex(res.body.start_date_time, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  t.true(
    // Stored to the second: the instant sent comes back, however long the request took.
    Math.abs(Date.parse(res.body.start_date_time) - start.getTime()) < 1_000,
    'the instant survives the round trip',
  );
  const buckets = await sql(
    db,
    'SELECT (SELECT COUNT(*) FROM Events_Hour WHERE EventId = ?) AS h, (SELECT COUNT(*) FROM Events_Month WHERE EventId = ?) AS m',
    [res.body.id, res.body.id],
  );
  t.deepEqual([Number(buckets[0].h), Number(buckets[0].m)], [1, 1]);
  const after = await summary(db, 2);
  t.is(after?.TotalEvents, (before?.TotalEvents ?? 0) + 1);
  t.is(after?.HourEvents, (before?.HourEvents ?? 0) + 1);
});

test('create: an old start goes into no recent bucket; start defaults to now', async (t) => {
  const old = await call('POST', '/events', {
    monitor_id: 1,
    storage_id: 0,
    name: 'old',
    width: 1,
    height: 1,
    length: '1',
    orientation: 'ROTATE_0',
    start_date_time: '2020-01-01T00:00:00',
  });
  t.is(old.status, 201);
  const [row] = await sql(
    db,
    'SELECT (SELECT COUNT(*) FROM Events_Month WHERE EventId = ?) AS m, StartDateTime FROM Events WHERE Id = ?',
    [old.body.id, old.body.id],
  );
  t.is(Number(row.m), 0);
  t.is(old.body.start_date_time, '2019-12-31T23:00:00Z', 'a naive time is ZoneMinder local time');
  t.is(old.body.end_date_time, null);
  const now = await call('POST', '/events', {
    monitor_id: 1,
    storage_id: 0,
    name: 'now',
    width: 1,
    height: 1,
    length: '0',
    orientation: 'ROTATE_0',
  });
  t.true(Math.abs(Date.parse(now.body.start_date_time) - Date.now()) < 5_000);
});

test('create: validation names the field', async (t) => {
  const base = {
    monitor_id: 1,
    storage_id: 0,
    name: 'x',
    width: 1,
    height: 1,
    length: '1.00',
    orientation: 'ROTATE_0',
  };
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ ...base, monitor_id: 999 }, 'monitor_id'],
    [{ ...base, storage_id: 99 }, 'storage_id'],
    [{ ...base, length: '1.234' }, 'length'],
    [{ ...base, length: '123456789' }, 'length'],
    [{ ...base, length: 'abc' }, 'length'],
    [{ ...base, name: 'n'.repeat(65) }, 'name'],
    [{ ...base, width: 70000 }, 'width'],
    [{ ...base, orientation: 'SIDEWAYS' }, 'orientation'],
    [{ ...base, start_date_time: '2026-02-30T00:00:00Z' }, 'start_date_time'],
    // Found by schemathesis: year 29 was stored, then every read of the row failed with a 500.
    [{ ...base, start_date_time: '0029-05-02T14:29:13.003-08:55' }, 'start_date_time'],
    [{ ...base, end_date_time: '0999-12-31T23:59:59' }, 'end_date_time'],
    [{ ...base, start_date_time: '2026-01-02T00:00:00Z', end_date_time: '2026-01-01T00:00:00Z' }, 'end_date_time'],
    [{ name: 'x' }, 'monitor_id'],
  ];
  for (const [body, field] of cases) {
    const res = await call('POST', '/events', body);
    t.is(res.status, 400, `${field}: ${res.text}`);
    t.true(
      res.body.details.some(([f]: string[]) => f.includes(field)),
      `${field}: ${JSON.stringify(res.body.details)}`,
    );
  }
});

test('patch: partial update, booleans stored as 0/1, null clears notes, archive maintains Events_Archived', async (t) => {
  const id = await insertEvent(db, { monitorId: 1, name: 'before', notes: 'n', cause: 'c' });
  const res = await call('PATCH', `/events/${id}`, {
    archived: true,
    locked: true,
    notes: null,
    emailed: true,
    orientation: 'FlipHori',
  });
  t.is(res.status, 200, res.text);
  t.like(res.body, {
    id,
    name: 'before',
    cause: 'c',
    notes: null,
    archived: 1,
    locked: 1,
    emailed: 1,
    orientation: 'FLIP_HORI',
  });
  const [arch] = await sql(db, 'SELECT COUNT(*) AS n FROM Events_Archived WHERE EventId = ?', [id]);
  t.is(Number(arch.n), 1);
  const renamed = await call('PATCH', `/events/${id}`, { name: 'after', name_extra: 1 });
  t.is(renamed.body.name, 'after');
  t.is(renamed.body.archived, 1, 'untouched fields stay');
  t.is((await call('PATCH', '/events/999999', { name: 'x' })).status, 404);
  const long = await call('PATCH', `/events/${id}`, { name: 'n'.repeat(65) });
  t.is(long.status, 400);
  t.true(long.body.details.some(([f]: string[]) => f.includes('name')));
});

test('delete: open events are refused with 409, unknown ids are 404', async (t) => {
  const id = await insertEvent(db, { monitorId: 1, end: null });
  const res = await call('DELETE', `/events/${id}`);
  t.is(res.status, 409);
  t.is(res.body.kind, 'CONFLICT_ERROR');
  t.is((await call('DELETE', '/events/999999')).status, 404);
  t.is((await call('GET', `/events/${id}`)).status, 200);
});

test('delete: 204 with no body removes the event (files on a missing directory are simply absent)', async (t) => {
  const id = await insertEvent(db, { monitorId: 1 });
  const res = await call('DELETE', `/events/${id}`);
  t.is(res.status, 204, res.text);
  t.is(res.text, '');
  t.is((await call('GET', `/events/${id}`)).status, 404);
  t.true(
    app.logs.some((l) => l.msg === 'event deleted' && l.event_id === id && l.reason === 'api' && l.actor === 'evedit'),
  );
});

test('permissions: View reads but cannot write; None gets 403', async (t) => {
  const id = await insertEvent(db, { monitorId: 1 });
  t.is((await call('GET', `/events/${id}`, undefined, viewer)).status, 200);
  t.is((await call('GET', '/events', undefined, viewer)).status, 200);
  for (const [method, path] of [
    ['PATCH', `/events/${id}`],
    ['DELETE', `/events/${id}`],
    ['POST', '/events'],
  ]) {
    const res = await call(method, path, method === 'DELETE' ? undefined : {}, viewer);
    t.is(res.status, 403, `${method} ${path}`);
  }
  t.is((await call('GET', '/events', undefined, nobody)).status, 403);
  t.is((await call('GET', '/events/counts/24', undefined, nobody)).status, 403);
});

test('counts: per ZoneMinder-local hour as UTC Z; by monitor lists every monitor', async (t) => {
  const cdb = await zmDatabase('counts');
  await insertEventUsers(cdb);
  await sql(cdb, "INSERT INTO Config (Name, Value, Type) VALUES ('ZM_TIMEZONE', 'Asia/Kolkata', 'string')");
  for (const id of [1, 2, 3]) await insertMonitor(cdb, id);
  const capp = await startTestApp({ db: cdb, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  try {
    const c = caller(capp, await login(capp, 'evview'));
    // "now" as Kolkata wall clock (+05:30), minus 30 minutes and minus 3 hours, plus one very old.
    const wall = (msAgo: number) =>
      new Date(Date.now() + 5.5 * 3_600_000 - msAgo).toISOString().slice(0, 19).replace('T', ' ');
    await insertEvent(cdb, { monitorId: 1, start: wall(30 * 60_000) });
    await insertEvent(cdb, { monitorId: 1, start: wall(30 * 60_000 + 1000) });
    await insertEvent(cdb, { monitorId: 2, start: wall(3 * 3_600_000) });
    await insertEvent(cdb, { monitorId: 2, start: '2001-01-01 00:00:00' });
    const counts = await c('GET', '/events/counts/24');
    t.is(counts.status, 200);
    t.is(counts.body.hours, 24);
    t.is(
      counts.body.counts.reduce((s: number, x: any) => s + x.count, 0),
      3,
    );
    for (const bucket of counts.body.counts) {
      t.regex(bucket.date, /^\d{4}-\d{2}-\d{2}T\d{2}:30:00Z$/, 'a Kolkata hour starts at :30 UTC');
    }
    const byMonitor = await c('GET', '/events/counts-by-monitor/1');
    t.deepEqual(byMonitor.body, {
      hours: 1,
      counts: [
        { monitor_id: 1, count: 2 },
        { monitor_id: 2, count: 0 },
        { monitor_id: 3, count: 0 },
      ],
    });
    const week = await c('GET', '/events/counts-by-monitor/168');
    t.deepEqual(
      week.body.counts.map((x: any) => x.count),
      [2, 1, 0],
    );
    for (const bad of ['0', '-5', '87601', 'abc']) {
      const res = await c('GET', `/events/counts/${bad}`);
      t.is(res.status, 400, bad);
      t.true(res.body.details.some(([f]: string[]) => f.includes('hours')));
      t.is((await c('GET', `/events/counts-by-monitor/${bad}`)).status, 400);
    }
  } finally {
    await capp.close();
  }
});

test('ZoneClock: DST gaps move forward, repeated hours take the earlier instant, offsets parse', (t) => {
  const berlin = new ZoneClock('Europe/Berlin');
  const wall = (s: string) => new Date(`${s}Z`);
  t.is(berlin.toUtcString(wall('2026-01-15T10:00:00')), '2026-01-15T09:00:00Z');
  t.is(berlin.toUtcString(wall('2026-03-29T02:30:00')), '2026-03-29T01:30:00Z', 'skipped 02:30 is 03:30 CEST');
  t.is(berlin.toUtcString(wall('2026-10-25T02:30:00')), '2026-10-25T00:30:00Z', 'the first 02:30 (CEST)');
  t.is(berlin.toUtcString(null), null);
  const p = (text: string) => parseEventTime(text, berlin)?.toISOString() ?? null;
  t.is(p('2026-10-25T01:30:00Z'), '2026-10-25T02:30:00.000Z', 'the second 02:30 (CET) as wall clock');
  t.is(p('2026-01-15T10:00:00+05:30'), '2026-01-15T05:30:00.000Z');
  t.is(p('2026-01-15T10:00:00-0800'), '2026-01-15T19:00:00.000Z');
  t.is(p('2026-01-15T10:00'), '2026-01-15T10:00:00.000Z');
  t.is(p('2026-01-15T10:00:00.1234567Z'), '2026-01-15T11:00:00.123Z');
  for (const bad of [
    '2026-02-29T00:00:00',
    '2026-01-15T24:00:00',
    '2026-1-5',
    '20260115T100000',
    'now',
    '2026-01-15T10:00:00+24:00',
    '',
  ]) {
    t.is(p(bad), null, bad);
  }
});
