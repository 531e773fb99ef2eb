// Snapshots, their events and reports over HTTP: CRUD, creator/author from the token (never
// from the body), validation, paging, the row ACL on snapshot events, and the Snapshots and
// System gates.
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertEvent, insertMonitor, sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
let snap: Call;
let snapView: Call;
let limited: Call;
let sys: Call;
let sysView: Call;
let nobody: Call;
let snapId: number;
let sysId: number;
const e: Record<string, number> = {};

const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

test.before(async () => {
  db = await zmDatabase('snaprep');
  await sql(db, "INSERT INTO Config (Name, Value, Type) VALUES ('ZM_TIMEZONE', 'Europe/Berlin', 'string')");
  await insertMonitor(db, 1);
  await insertMonitor(db, 2);
  e.visible = await insertEvent(db, { monitorId: 1 });
  e.hidden = await insertEvent(db, { monitorId: 2 });
  snapId = await addUser(db, 'sedit', { Snapshots: 'Edit' });
  await addUser(db, 'sview', { Snapshots: 'View' });
  const limitedId = await addUser(db, 'slimited', { Snapshots: 'Edit', Monitors: 'View' });
  await sql(db, "INSERT INTO Monitors_Permissions (MonitorId, UserId, Permission) VALUES (2, ?, 'None')", [limitedId]);
  sysId = await addUser(db, 'radmin', { System: 'Edit' });
  await addUser(db, 'rview', { System: 'View' });
  await addUser(db, 'nothing', { Events: 'Edit' });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  snap = caller(app, await login(app, 'sedit'));
  snapView = caller(app, await login(app, 'sview'));
  limited = caller(app, await login(app, 'slimited'));
  sys = caller(app, await login(app, 'radmin'));
  sysView = caller(app, await login(app, 'rview'));
  nobody = caller(app, await login(app, 'nothing'));
});
test.after.always(async () => app?.close());

test('snapshots: create (creator from the token), get, patch, list, delete', async (t) => {
  const created = await snap('POST', '/snapshots', {
    name: 'Burglary',
    description: 'Night of 3 May',
    created_by: 4242,
  });
  t.is(created.status, 201);
  t.like(created.body, { name: 'Burglary', description: 'Night of 3 May', created_by: snapId });
  t.regex(created.body.created_on, LOCAL);
  const id = created.body.id;
  t.deepEqual((await snap('GET', `/snapshots/${id}`)).body, created.body);
  const patched = await snap('PATCH', `/snapshots/${id}`, {
    description: null,
    created_by: 4242,
    created_on: '2026-05-03T23:10:00',
  });
  t.is(patched.status, 200);
  t.deepEqual(patched.body, { ...created.body, description: null, created_on: '2026-05-03T23:10:00' });
  const list = await snapView('GET', '/snapshots?page_size=1000&per_page=1');
  t.is(list.status, 200);
  t.true(list.body.items.some((s: any) => s.id === id));
  t.is((await snap('DELETE', `/snapshots/${id}`)).status, 204);
  t.is((await snap('GET', `/snapshots/${id}`)).status, 404);
  t.is((await snap('PATCH', `/snapshots/${id}`, { name: 'x' })).status, 404);
  t.is((await snap('DELETE', `/snapshots/${id}`)).status, 404);
});

test('snapshots: validation and paging', async (t) => {
  for (const [body, field] of [
    [{ name: 'x'.repeat(65) }, 'name'],
    [{ created_on: 'tomorrow' }, 'created_on'],
    [{ created_on: '2026-05-03T23:10:00Z' }, 'created_on'],
    [{ created_by: 'me' }, 'created_by'],
  ] as const) {
    const res = await snap('POST', '/snapshots', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(fields(res.body).includes(field), JSON.stringify(res.body.details));
  }
  const empty = await snap('POST', '/snapshots', {});
  t.is(empty.status, 201, 'every field is optional');
  t.like(empty.body, { name: null, description: null, created_by: snapId });
  await snap('POST', '/snapshots', { name: 'p2' });
  const page = await snap('GET', '/snapshots?page=2&page_size=1');
  t.like(page.body, { current_page: 2, per_page: 1 });
  t.is(page.body.items.length, 1);
  t.is((await snap('GET', '/snapshots?page_size=1001')).status, 400);
  t.is((await snap('GET', '/snapshots/abc')).status, 400);
});

test('snapshot events: add, list, get, delete; hidden events behave as missing', async (t) => {
  const snapshot = (await snap('POST', '/snapshots', { name: 'With events' })).body.id;
  const a = await snap('POST', '/snapshots-events', { snapshot_id: snapshot, event_id: e.visible });
  t.is(a.status, 201);
  t.deepEqual(a.body, { id: a.body.id, snapshot_id: snapshot, event_id: e.visible });
  const b = await snap('POST', '/snapshots-events', { snapshot_id: snapshot, event_id: e.hidden });
  t.is(b.status, 201);
  const all = await snap('GET', `/snapshots-events?snapshot_id=${snapshot}`);
  t.deepEqual(
    all.body.items.map((x: any) => x.event_id),
    [e.visible, e.hidden],
  );
  t.is(all.body.total, 2);
  const restricted = await limited('GET', `/snapshots-events?snapshot_id=${snapshot}`);
  t.deepEqual(
    restricted.body.items.map((x: any) => x.event_id),
    [e.visible],
  );
  t.is(restricted.body.total, 1);
  t.is((await limited('GET', `/snapshots-events/${b.body.id}`)).status, 404);
  t.is((await limited('DELETE', `/snapshots-events/${b.body.id}`)).status, 404);
  t.deepEqual((await snap('GET', `/snapshots-events/${b.body.id}`)).body, b.body);

  const hidden = await limited('POST', '/snapshots-events', { snapshot_id: snapshot, event_id: e.hidden });
  t.is(hidden.status, 400);
  t.deepEqual(fields(hidden.body), ['event_id']);
  const unknown = await snap('POST', '/snapshots-events', { snapshot_id: 999999, event_id: 999999 });
  t.is(unknown.status, 400);
  t.deepEqual(fields(unknown.body).sort(), ['event_id', 'snapshot_id']);
  t.is((await snap('POST', '/snapshots-events', { snapshot_id: snapshot })).status, 400);
  t.is((await snap('GET', '/snapshots-events?page_size=1001')).status, 400);

  t.is((await snap('DELETE', `/snapshots-events/${a.body.id}`)).status, 204);
  t.is((await snap('GET', `/snapshots-events/${a.body.id}`)).status, 404);
  // Deleting the snapshot takes its event rows; the events stay.
  t.is((await snap('DELETE', `/snapshots/${snapshot}`)).status, 204);
  t.is((await snap('GET', `/snapshots-events/${b.body.id}`)).status, 404);
  const [{ n }] = await sql(db, 'SELECT COUNT(*) AS n FROM Events WHERE Id = ?', [e.hidden]);
  t.is(Number(n), 1);
});

test('the Snapshots gate', async (t) => {
  t.is((await snapView('GET', '/snapshots')).status, 200);
  t.is((await snapView('GET', '/snapshots-events')).status, 200);
  t.is((await snapView('POST', '/snapshots', { name: 'x' })).status, 403);
  t.is((await snapView('POST', '/snapshots-events', { snapshot_id: 1, event_id: 1 })).status, 403);
  t.is((await nobody('GET', '/snapshots')).status, 403);
  t.is((await nobody('GET', '/snapshots-events')).status, 403);
  t.is((await sys('GET', '/snapshots')).status, 403, 'System Edit is not Snapshots');
});

test('reports: CreatedBy comes from the token even when the body names someone else', async (t) => {
  const created = await sys('POST', '/reports', {
    name: 'Weekly',
    start_date_time: '2026-01-05T00:00:00',
    end_date_time: '2026-01-12T00:00:00',
    interval: 604800,
    created_by: snapId,
    CreatedBy: snapId,
  });
  t.is(created.status, 201);
  t.deepEqual(created.body, {
    id: created.body.id,
    name: 'Weekly',
    filter_id: null,
    // Sent as Berlin local time (+01:00 in January), written back as the UTC instant.
    start_date_time: '2026-01-04T23:00:00Z',
    end_date_time: '2026-01-11T23:00:00Z',
    interval: 604800,
    created_by: sysId,
  });
  const [row] = await sql(db, 'SELECT CreatedBy FROM Reports WHERE Id = ?', [created.body.id]);
  t.is(Number(row.CreatedBy), sysId);
  const updated = await sys('PATCH', `/reports/${created.body.id}`, {
    start_date_time: '2026-01-06T00:00',
    end_date_time: '2026-01-13T00:00:00',
    created_by: snapId,
  });
  t.is(updated.status, 200);
  t.like(updated.body, {
    name: 'Weekly',
    start_date_time: '2026-01-05T23:00:00Z',
    end_date_time: '2026-01-12T23:00:00Z',
    interval: 604800,
    created_by: sysId,
  });
});

test('reports: filter_id must exist; times are local, or instants converted; CRUD and paging', async (t) => {
  const [{ Id: filterId }] = await sql(
    db,
    "INSERT INTO Filters (Name, Query_json) VALUES ('r', '{\"terms\":[]}') RETURNING Id",
  );
  const created = await sys('POST', '/reports', {
    name: 'F',
    filter_id: Number(filterId),
    start_date_time: '2026-01-05T00:00:00',
    end_date_time: '2026-01-05T00:00:00',
  });
  t.is(created.status, 201);
  t.is(created.body.filter_id, Number(filterId));
  const id = created.body.id;
  const cleared = await sys('PATCH', `/reports/${id}`, {
    start_date_time: '2026-01-05T00:00:00',
    end_date_time: '2026-01-06T00:00:00',
    filter_id: null,
    name: null,
  });
  t.like(cleared.body, { filter_id: null, name: null });
  t.deepEqual((await sysView('GET', `/reports/${id}`)).body, cleared.body);
  const instants = await sys('PATCH', `/reports/${id}`, {
    start_date_time: '2026-01-05T00:00:00Z',
    end_date_time: '2026-01-05T12:00:00+02:00',
  });
  t.like(
    instants.body,
    { start_date_time: '2026-01-05T00:00:00Z', end_date_time: '2026-01-05T10:00:00Z' },
    'instants come back as the same instants',
  );
  const [stored] = await sql(
    db,
    "SELECT DATE_FORMAT(StartDateTime, '%Y-%m-%dT%H:%i:%s') AS s, DATE_FORMAT(EndDateTime, '%Y-%m-%dT%H:%i:%s') AS e FROM Reports WHERE Id = ?",
    [id],
  );
  t.deepEqual({ ...stored }, { s: '2026-01-05T01:00:00', e: '2026-01-05T11:00:00' }, 'stored as Berlin local time');
  const list = await sysView('GET', '/reports?page_size=1000');
  t.true(list.body.items.some((x: any) => x.id === id));
  t.is((await sys('GET', '/reports?page_size=1001')).status, 400);
  t.is((await sys('DELETE', `/reports/${id}`)).status, 204);
  t.is((await sys('GET', `/reports/${id}`)).status, 404);
  t.is(
    (
      await sys('PATCH', `/reports/${id}`, {
        start_date_time: '2026-01-05T00:00:00',
        end_date_time: '2026-01-06T00:00:00',
      })
    ).status,
    404,
  );
  t.is((await sys('DELETE', `/reports/${id}`)).status, 404);
});

test('reports: validation → 400 naming the field', async (t) => {
  const ok = { start_date_time: '2026-01-05T00:00:00', end_date_time: '2026-01-06T00:00:00' };
  for (const [body, field] of [
    [{ end_date_time: ok.end_date_time }, 'start_date_time'],
    [{ ...ok, name: 'x'.repeat(31) }, 'name'],
    [{ ...ok, filter_id: 999999 }, 'filter_id'],
    [{ ...ok, interval: -1 }, 'interval'],
    [{ ...ok, start_date_time: 'soon' }, 'start_date_time'],
    [{ ...ok, end_date_time: '2026-01-04T00:00:00' }, 'end_date_time'],
    [{ ...ok, start_date_time: '0999-01-01T00:00:00' }, 'start_date_time'],
  ] as const) {
    const res = await sys('POST', '/reports', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(fields(res.body).includes(field), `${JSON.stringify(body)} → ${JSON.stringify(res.body.details)}`);
  }
  const id = (await sys('POST', '/reports', ok)).body.id;
  t.is(
    (await sys('PATCH', `/reports/${id}`, { name: 'no times' })).status,
    400,
    'an update gives both times, as in the reference',
  );
  t.is((await sys('GET', '/reports/abc')).status, 400);
});

test('the System gate on reports', async (t) => {
  t.is((await sysView('GET', '/reports')).status, 200);
  t.is(
    (
      await sysView('POST', '/reports', {
        start_date_time: '2026-01-05T00:00:00',
        end_date_time: '2026-01-06T00:00:00',
      })
    ).status,
    403,
  );
  t.is((await snap('GET', '/reports')).status, 403);
  t.is((await nobody('GET', '/reports')).status, 403);
});
