// GET /api/v3/monitors/{id}/recordings and GET /api/v3/recordings: spans, merged stretches and
// gaps in a time range, ZoneMinder's zone applied, the monitor rules of the event routes, and
// every bad input a 4xx with the envelope. The arithmetic alone: coverage() at the end.
import test from 'ava';
import { ZoneClock } from '../../src/db/zone-clock.js';
import { coverage, wallMs, type CoverageRow } from '../../src/features/recordings/coverage.js';
import { utcWriter } from '../../src/features/recordings/recordings-service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { caller, insertEvent, insertEventUsers, insertMonitor, login, sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';
import bcrypt from 'bcryptjs';

let app: TestApp;
let db: FreshDatabase;
let call: ReturnType<typeof caller>;
let limited: ReturnType<typeof caller>;
let nobody: ReturnType<typeof caller>;
const e: Record<string, number> = {};
const NY = new ZoneClock('America/New_York');
const wallText = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

test.before(async () => {
  db = await zmDatabase('recs');
  await insertEventUsers(db);
  // New York: -05:00 in January; events are stored in its wall clock.
  await sql(db, "INSERT INTO Config (Name, Value, Type) VALUES ('ZM_TIMEZONE', 'America/New_York', 'string')");
  for (const id of [1, 2, 3]) await insertMonitor(db, id);
  const ev = (monitorId: number, start: string, end: string | null, extra: Record<string, unknown> = {}) =>
    insertEvent(db, { monitorId, start, end, ...extra });
  e.old = await ev(1, '2026-01-10 07:00:00', '2026-01-10 07:10:00');
  e.before = await ev(1, '2026-01-10 07:59:50', '2026-01-10 08:00:00');
  e.a = await ev(1, '2026-01-10 08:00:00', '2026-01-10 08:00:10', { frames: 100, alarmFrames: 3, maxScore: 10 });
  e.b = await ev(1, '2026-01-10 08:00:11', '2026-01-10 08:00:20', { frames: 90, alarmFrames: 0, maxScore: 50 });
  e.c = await ev(1, '2026-01-10 08:05:00', '2026-01-10 08:06:00', { frames: 600, alarmFrames: 7, maxScore: 30 });
  e.after = await ev(1, '2026-01-10 08:10:00', '2026-01-10 08:11:00');
  // e.b has no video file: zmc saved JPEGs only.
  await sql(db, "UPDATE Events SET DefaultVideo = CONCAT(Id, '-video.mp4') WHERE Id <> ?", [e.b]);
  await sql(db, "UPDATE Events SET DefaultVideo = '' WHERE Id = ?", [e.b]);
  await sql(db, 'UPDATE Events SET StorageId = 3 WHERE Id = ?', [e.c]);
  // Monitor 2 is recording now (no EndDateTime yet).
  e.live = await ev(2, wallText(new Date(NY.now().getTime() - 60_000)), null, { length: '0.00' });
  // Monitor 3: an event zmc never closed (30 s recorded), then a closed one.
  e.abandoned = await ev(3, '2026-01-10 08:00:00', null, { length: '30.00' });
  e.next = await ev(3, '2026-01-10 08:01:00', '2026-01-10 08:02:00');

  const limitedId = await insertUser(db, {
    username: 'rlimited',
    password: 'rlimited',
    stored: bcrypt.hashSync('rlimited', 4),
    perms: { Events: 'View', Monitors: 'View' },
  });
  await sql(db, "INSERT INTO Monitors_Permissions (MonitorId, UserId, Permission) VALUES (2, ?, 'None')", [limitedId]);
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  call = caller(app, await login(app, 'evview'));
  limited = caller(app, await login(app, 'rlimited'));
  nobody = caller(app, await login(app, 'evnone'));
});
test.after.always(async () => app?.close());

const RANGE = 'from=2026-01-10T13:00:00Z&to=2026-01-10T13:10:00Z';

test('one monitor: events in time order, back-to-back events merged, gaps up to the end of the range', async (t) => {
  const r = await call('GET', `/monitors/1/recordings?${RANGE}`);
  t.is(r.status, 200, r.text);
  t.is(r.body.monitor_id, 1);
  t.is(r.body.from, '2026-01-10T13:00:00Z');
  t.is(r.body.to, '2026-01-10T13:10:00Z');
  // e.before ends exactly at `from` and e.after starts at `to`: neither overlaps [from, to).
  t.deepEqual(r.body.spans, [
    {
      event_id: e.a,
      start: '2026-01-10T13:00:00Z',
      end: '2026-01-10T13:00:10Z',
      has_video: true,
      frames: 100,
      alarm_frames: 3,
      max_score: 10,
      storage_id: 0,
      in_progress: false,
    },
    {
      event_id: e.b,
      start: '2026-01-10T13:00:11Z',
      end: '2026-01-10T13:00:20Z',
      has_video: false,
      frames: 90,
      alarm_frames: 0,
      max_score: 50,
      storage_id: 0,
      in_progress: false,
    },
    {
      event_id: e.c,
      start: '2026-01-10T13:05:00Z',
      end: '2026-01-10T13:06:00Z',
      has_video: true,
      frames: 600,
      alarm_frames: 7,
      max_score: 30,
      storage_id: 3,
      in_progress: false,
    },
  ]);
  t.deepEqual(r.body.merged, [
    {
      start: '2026-01-10T13:00:00Z',
      end: '2026-01-10T13:00:20Z',
      in_progress: false,
      event_ids: [e.a, e.b],
      has_video: false,
      frames: 190,
      alarm_frames: 3,
      max_score: 50,
    },
    {
      start: '2026-01-10T13:05:00Z',
      end: '2026-01-10T13:06:00Z',
      in_progress: false,
      event_ids: [e.c],
      has_video: true,
      frames: 600,
      alarm_frames: 7,
      max_score: 30,
    },
  ]);
  t.deepEqual(r.body.gaps, [
    { start: '2026-01-10T13:00:20Z', end: '2026-01-10T13:05:00Z' },
    { start: '2026-01-10T13:06:00Z', end: '2026-01-10T13:10:00Z' },
  ]);

  // An event that started before `from` and reaches into the range is part of it; the range
  // may be given in ZoneMinder's local time (no offset).
  const early = await call('GET', '/monitors/1/recordings?from=2026-01-10T07:59:55&to=2026-01-10T08:00:30');
  t.is(early.status, 200, early.text);
  t.is(early.body.from, '2026-01-10T12:59:55Z');
  t.deepEqual(
    early.body.spans.map((s: { event_id: number }) => s.event_id),
    [e.before, e.a, e.b],
  );
  t.deepEqual(
    early.body.merged.map((m: { event_ids: number[] }) => m.event_ids),
    [[e.before, e.a, e.b]],
  );
  t.deepEqual(early.body.gaps, [{ start: '2026-01-10T13:00:20Z', end: '2026-01-10T13:00:30Z' }]);

  const merged = await call('GET', `/monitors/1/recordings?${RANGE}&merged_only=true`);
  t.deepEqual(merged.body.spans, []);
  t.deepEqual(merged.body.merged, r.body.merged);

  const empty = await call('GET', '/monitors/1/recordings?from=2026-01-09T00:00:00Z&to=2026-01-09T01:00:00Z');
  t.is(empty.status, 200);
  t.deepEqual(empty.body.spans, []);
  t.deepEqual(empty.body.gaps, [{ start: '2026-01-09T00:00:00Z', end: '2026-01-09T01:00:00Z' }]);
});

test('an event being recorded reaches to now; one zmc never closed reaches as far as its length', async (t) => {
  const live = await call('GET', '/monitors/2/recordings?from=-1 hour');
  t.is(live.status, 200, live.text);
  t.is(live.body.spans.length, 1);
  t.like(live.body.spans[0], { event_id: e.live, end: null, in_progress: true });
  t.is(live.body.merged.length, 1);
  t.true(live.body.merged[0].in_progress);
  t.true(Date.parse(live.body.merged[0].end) >= Date.now() - 5000);
  // The hour before the event is a gap; nothing after it, as the range ends now.
  t.is(live.body.gaps.length, 1);
  t.is(live.body.gaps[0].start, live.body.from);
  t.is(live.body.gaps[0].end, live.body.spans[0].start);

  const abandoned = await call('GET', `/monitors/3/recordings?${RANGE}`);
  t.is(abandoned.status, 200, abandoned.text);
  t.like(abandoned.body.spans[0], { event_id: e.abandoned, end: '2026-01-10T13:00:30Z', in_progress: false });
  t.deepEqual(abandoned.body.gaps, [
    { start: '2026-01-10T13:00:30Z', end: '2026-01-10T13:01:00Z' },
    { start: '2026-01-10T13:02:00Z', end: '2026-01-10T13:10:00Z' },
  ]);
});

test('several monitors in one answer, in the order asked', async (t) => {
  const r = await call('GET', `/recordings?monitor_ids=3,1&${RANGE}&merged_only=true`);
  t.is(r.status, 200, r.text);
  t.is(r.body.from, '2026-01-10T13:00:00Z');
  t.deepEqual(
    r.body.monitors.map((m: { monitor_id: number }) => m.monitor_id),
    [3, 1],
  );
  const one = await call('GET', `/monitors/1/recordings?${RANGE}&merged_only=true`);
  t.deepEqual(r.body.monitors[1], one.body);
});

test("the event routes' rules: Events permission, hidden monitors answer as missing ones", async (t) => {
  t.is((await nobody('GET', `/monitors/1/recordings?${RANGE}`)).status, 403);
  t.is((await limited('GET', `/monitors/1/recordings?${RANGE}`)).status, 200);
  for (const path of [`/monitors/2/recordings?${RANGE}`, `/recordings?monitor_ids=1,2&${RANGE}`]) {
    const r = await limited('GET', path);
    t.is(r.status, 404, path);
    t.like(r.body, { kind: 'MONITOR_NOT_FOUND_ERROR', code: 4 });
    t.regex(r.text, /Monitor 2 not found/);
  }
  const missing = await call('GET', `/recordings?monitor_ids=1,99&${RANGE}`);
  t.is(missing.status, 404);
  t.regex(missing.text, /Monitor 99 not found/);
});

test('bad input is a 400 naming the parameter', async (t) => {
  const cases: [string, string][] = [
    ['/monitors/1/recordings?to=2026-01-10T13:10:00Z', 'from'],
    ['/monitors/1/recordings?from=yesterday', 'from'],
    ['/monitors/1/recordings?from=2026-01-10T13:00:00Z&to=2026-02-30T00:00:00Z', 'to'],
    ['/monitors/1/recordings?from=2026-01-10T13:00:00Z&to=2026-01-10T13:00:00Z', 'to'],
    ['/monitors/1/recordings?from=2026-01-10T13:00:00Z&to=2026-01-10T12:00:00Z', 'to'],
    ['/monitors/1/recordings?from=2026-01-01T00:00:00Z&to=2026-01-09T00:00:01Z', 'to'],
    [`/recordings?monitor_ids=1,a&${RANGE}`, 'monitor_ids'],
    [`/recordings?monitor_ids=&${RANGE}`, 'monitor_ids'],
    [`/recordings?monitor_ids=${Array.from({ length: 101 }, (_, i) => i + 1).join(',')}&${RANGE}`, 'monitor_ids'],
    [`/recordings?${RANGE}`, 'monitor_ids'],
  ];
  for (const [path, field] of cases) {
    const r = await call('GET', path);
    t.is(r.status, 400, path);
    t.true(JSON.stringify(r.body.details ?? r.body).includes(field), `${path}: ${r.text}`);
    t.notRegex(r.text, /SELECT|at .*\.js|\/work\//, path);
  }
  const long = await call('GET', '/monitors/1/recordings?from=2026-01-01T00:00:00Z&to=2026-01-09T00:00:01Z');
  t.regex(long.text, /longer than 168 hours/);
});

const row = (id: number, start: string, end: string | null, extra: Partial<CoverageRow> = {}): CoverageRow => ({
  Id: id,
  StorageId: 0,
  StartDateTime: start,
  EndDateTime: end,
  Length: '0.00',
  Frames: 1,
  AlarmFrames: 0,
  MaxScore: 0,
  DefaultVideo: 'x.mp4',
  ...extra,
});

test('coverage(): rows in any order; a hole of a second joins, a longer one is a gap; the future is no gap', (t) => {
  const ms = (text: string) => wallMs(text)!;
  const range = { from: ms('2026-01-10 08:00:00'), to: ms('2026-01-10 09:00:00'), now: ms('2026-01-10 08:30:00') };
  const found = coverage(
    [
      row(3, '2026-01-10 08:10:02', '2026-01-10 08:20:00'),
      row(1, '2026-01-10 08:00:00', '2026-01-10 08:10:00'),
      row(2, '2026-01-10 08:10:01', '2026-01-10 08:10:00'),
    ],
    range,
  );
  t.deepEqual(
    found.spans.map((s) => s.eventId),
    [1, 2, 3],
  );
  // 08:10:00 → 08:10:01 is one second: joined. 08:10:01 → 08:10:02 (row 2 ends before it
  // starts, as a clock step can leave it) joins too.
  t.deepEqual(
    found.merged.map((m) => m.eventIds),
    [[1, 2, 3]],
  );
  t.deepEqual(found.gaps, [{ start: ms('2026-01-10 08:20:00'), end: ms('2026-01-10 08:30:00') }]);

  const split = coverage(
    [row(1, '2026-01-10 08:00:00', '2026-01-10 08:10:00'), row(2, '2026-01-10 08:10:02', '2026-01-10 08:11:00')],
    range,
  );
  t.is(split.merged.length, 2);
  t.deepEqual(split.gaps[0], { start: ms('2026-01-10 08:10:00'), end: ms('2026-01-10 08:10:02') });
  // Zero dates (as a crashed zmc can leave) are skipped, not read as 1970.
  t.deepEqual(coverage([row(9, '0000-00-00 00:00:00', null)], range).spans, []);
});

test('the quarter-hour offset memo writes what ZoneClock.toUtcString writes, across DST gaps and repeats', (t) => {
  for (const zone of ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata']) {
    const clock = new ZoneClock(zone);
    const write = utcWriter(clock);
    let mismatches = 0;
    for (let ms = Date.UTC(2026, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 61_000)
      if (write(ms) !== clock.toUtcString(new Date(ms))) mismatches++;
    t.is(mismatches, 0, zone);
  }
});
