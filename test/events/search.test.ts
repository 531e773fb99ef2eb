// GET /api/v3/search: keyword search over event name, cause and notes, ranking, monitor/time/
// class filters, k and count, hostile queries as data, validation, the row ACL and the gate.
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertEvent, insertMonitor, sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
let call: Call;
let limited: Call;
let nobody: Call;
const e: Record<string, number> = {};

const unix = (text: string) => Date.parse(`${text}Z`) / 1000;

test.before(async () => {
  db = await zmDatabase('search');
  await sql(db, "INSERT INTO Config (Name, Value, Type) VALUES ('ZM_TIMEZONE', 'UTC', 'string')");
  await insertMonitor(db, 1);
  await insertMonitor(db, 2);
  e.named = await insertEvent(db, {
    monitorId: 1,
    name: 'Person at front door',
    cause: 'Motion',
    notes: 'Motion: Door',
    start: '2026-01-10 08:00:00',
  });
  e.noted = await insertEvent(db, {
    monitorId: 1,
    name: 'Event-2',
    cause: 'Motion',
    notes: 'Motion: Front detected:person:93%',
    start: '2026-01-11 08:00:00',
  });
  e.car = await insertEvent(db, {
    monitorId: 1,
    name: 'Event-3',
    cause: 'Forced Web',
    notes: 'car in 100%_driveway',
    start: '2026-01-12 08:00:00',
  });
  e.hidden = await insertEvent(db, {
    monitorId: 2,
    name: 'Person in garage',
    cause: 'Motion',
    notes: null,
    start: '2026-01-13 08:00:00',
  });
  e.detected = await insertEvent(db, {
    monitorId: 1,
    name: 'Event-5',
    cause: 'Motion',
    notes: 'Motion: Yard',
    start: '2026-01-14 08:00:00',
  });
  await sql(db, "INSERT INTO AI_Datasets (Id, Name, NumClasses) VALUES (1, 'COCO', 2)");
  await sql(
    db,
    "INSERT INTO AI_Object_Classes (Id, DatasetId, ClassName, ClassIndex) VALUES (1, 1, 'dog', 0), (2, 1, 'person', 1)",
  );
  await sql(db, 'INSERT INTO AI_Detections (EventId, ObjectClassId, Confidence) VALUES (?, 1, 0.9)', [e.detected]);
  await addUser(db, 'qedit', { Events: 'View' });
  const limitedId = await addUser(db, 'qlimited', { Events: 'View', Monitors: 'View' });
  await sql(db, "INSERT INTO Monitors_Permissions (MonitorId, UserId, Permission) VALUES (2, ?, 'None')", [limitedId]);
  await addUser(db, 'qnone', { System: 'Edit' });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  call = caller(app, await login(app, 'qedit'));
  limited = caller(app, await login(app, 'qlimited'));
  nobody = caller(app, await login(app, 'qnone'));
});
test.after.always(async () => app?.close());

const search = async (query: string, as: Call = call) => {
  const res = await as('GET', `/search?${query}`);
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.text}`);
  return res.body;
};
const hits = async (query: string, as: Call = call) => (await search(query, as)).citations.map((c: any) => c.event_id);

test('every word must occur in name, cause or notes; name hits rank first; citation fields', async (t) => {
  const body = await search('q=person');
  t.is(body.backend, 'sql');
  t.is(body.answer, null);
  t.is(body.count, 3);
  t.deepEqual(
    body.citations.map((c: any) => c.event_id),
    [e.hidden, e.named, e.noted],
    'name hits (newest first), then notes hits',
  );
  t.deepEqual(body.citations[2], {
    event_id: e.noted,
    score: Math.round((1 / 6) * 1000) / 1000,
    snippet: 'Motion: Front detected:person:93%',
    ts: unix('2026-01-11T08:00:00'),
    url: `/api/v3/events/${e.noted}`,
  });
  t.is(body.citations[1].score, 0.5);
  t.deepEqual(await hits('q=FRONT%20person'), [e.named, e.noted], 'all words, any case');
  t.deepEqual(await hits('q=person%20dog'), []);
  t.deepEqual(await hits('q=forced'), [e.car]);
});

test('filters: monitor_id, from/to (Unix seconds), class (detections or notes), k and count', async (t) => {
  t.deepEqual(await hits('q=motion&monitor_id=2'), [e.hidden]);
  t.deepEqual(
    await hits(`q=motion&from=${unix('2026-01-11T00:00:00')}&to=${unix('2026-01-13T08:00:00')}`),
    [e.noted, e.hidden],
    'cause + notes outrank cause alone',
  );
  t.deepEqual(await hits('q=motion&class=dog'), [e.detected], 'an AI detection of the class');
  t.deepEqual(await hits('q=motion&class=person'), [e.noted], 'the class named in the notes');
  const k = await search('q=motion&k=2');
  t.is(k.citations.length, 2);
  t.is(k.count, 4);
  t.is((await search('q=motion&k=0')).citations.length, 4, 'k=0 means the default (10)');
});

test('hostile queries are data; the tables survive', async (t) => {
  t.deepEqual(await hits(`q=${encodeURIComponent("'; DROP TABLE Events; --")}`), []);
  t.deepEqual(await hits(`q=${encodeURIComponent('%')}`), [e.car, e.noted], '% is literal');
  t.deepEqual(await hits(`q=${encodeURIComponent('0%_d')}`), [e.car], '_ is literal');
  t.deepEqual(await hits(`q=motion&class=${encodeURIComponent("dog' OR '1'='1")}`), []);
  t.deepEqual(await hits(`q=${encodeURIComponent('☕ ü')}`), []);
  const [{ n }] = await sql(db, 'SELECT COUNT(*) AS n FROM Events');
  t.is(Number(n), 5);
});

test('validation: 400 naming the parameter', async (t) => {
  for (const [query, field] of [
    ['', 'q'],
    ['q=', 'q'],
    ['q=%20%20', 'q'],
    [`q=${'x'.repeat(257)}`, 'q'],
    [`q=${Array.from({ length: 11 }, (_, i) => `w${i}`).join('%20')}`, 'q'],
    ['q=a&k=101', 'k'],
    ['q=a&k=-1', 'k'],
    ['q=a&from=10&to=5', 'to'],
    ['q=a&from=soon', 'from'],
    ['q=a&to=1.5', 'to'],
    ['q=a&from=99999999999999', 'from'],
    ['q=a&monitor_id=-1', 'monitor_id'],
    [`q=a&class=${'c'.repeat(65)}`, 'class'],
  ]) {
    const res = await call('GET', `/search?${query}`);
    t.is(res.status, 400, query);
    t.true(fields(res.body).includes(field), `${query} → ${JSON.stringify(res.body.details)}`);
  }
});

test('row ACL: events of hidden monitors are neither cited nor counted', async (t) => {
  const body = await search('q=person', limited);
  t.deepEqual(
    body.citations.map((c: any) => c.event_id),
    [e.named, e.noted],
  );
  t.is(body.count, 2);
  t.deepEqual(await hits('q=garage', limited), []);
  t.deepEqual(await hits('q=motion&monitor_id=2', limited), []);
});

test('the Events gate', async (t) => {
  const res = await nobody('GET', '/search?q=person');
  t.is(res.status, 403);
  t.is(res.body.kind, 'PERMISSION_DENIED_ERROR');
});
