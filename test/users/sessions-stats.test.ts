// ZoneMinder web sessions, host load samples (server-stats) and zone alarm statistics (stats):
// System-gated tables written by ZoneMinder itself.
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startAppWithAcl, type AclApp } from '../helpers/acl-app.js';
import { addUser, caller, checkBadIds, checkPaging, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';

let app: TestApp;
let aclApp: AclApp;
let db: FreshDatabase;
let admin: Call;
let viewer: Call;
let other: Call;
let restricted: Call;
// m1 editable, m2 visible only, m3 hidden for `restricted`; each has one zone and one event.
const m: number[] = [];
const zone: Record<number, number> = {};
const event: Record<number, number> = {};

const sql = (q: string, params: unknown[] = []) => db.db.query<Record<string, any>>(q, params, db.name);

test.before(async () => {
  db = await zmDatabase('sessions');
  // Times go out as UTC instants: pin ZoneMinder's zone to the throwaway server's (UTC).
  await sql("INSERT INTO Config (Name, Value, Type) VALUES ('ZM_TIMEZONE', 'UTC', 'string')");
  for (const name of ['m1', 'm2', 'm3']) {
    await sql('INSERT INTO Monitors (Name) VALUES (?)', [name]);
    const id = Number((await sql('SELECT Id FROM Monitors WHERE Name = ?', [name]))[0].Id);
    m.push(id);
    await sql("INSERT INTO Zones (MonitorId, Name, Coords) VALUES (?, 'z', '0,0 10,0 10,10')", [id]);
    zone[id] = Number((await sql('SELECT Id FROM Zones WHERE MonitorId = ?', [id]))[0].Id);
    await sql('INSERT INTO Events (MonitorId, StateId, Name) VALUES (?, 1, ?)', [id, `e-${name}`]);
    event[id] = Number((await sql('SELECT Id FROM Events WHERE MonitorId = ?', [id]))[0].Id);
  }
  await addUser(db, 'admin', { System: 'Edit' });
  await addUser(db, 'viewer', { System: 'View' });
  await addUser(db, 'other', { Monitors: 'Edit', Events: 'Edit', Control: 'Edit', Devices: 'Edit' });
  await addUser(db, 'limited', { System: 'Edit' });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  admin = caller(app, await login(app, 'admin'));
  viewer = caller(app, await login(app, 'viewer'));
  other = caller(app, await login(app, 'other'));
  aclApp = await startAppWithAcl(
    db,
    { scope: async () => ({ visible: new Set([m[0], m[1]]), editable: new Set([m[0]]) }) },
    {
      APP_AUTH__RATE_LIMIT__ENABLED: 'false',
    },
  );
  restricted = caller(aclApp, await login(aclApp, 'limited'));
});
test.after.always(async () => {
  await app?.close();
  await aclApp?.close();
});

// ---------------------------------------------------------------- sessions

test.serial('sessions: create, get, patch, list, delete', async (t) => {
  const created = await admin('POST', '/sessions', {
    id: 'abc123DEF,-x',
    access: 1_700_000_000,
    data: 'username|s:5:"admin";',
  });
  t.is(created.status, 201, created.text);
  t.deepEqual(created.body, { id: 'abc123DEF,-x', access: 1_700_000_000, data: 'username|s:5:"admin";' });
  t.deepEqual((await admin('GET', '/sessions/abc123DEF,-x')).body, created.body);
  const patched = await admin('PATCH', '/sessions/abc123DEF,-x', { access: 1_700_000_100 });
  t.deepEqual(patched.body, { ...created.body, access: 1_700_000_100 });
  t.deepEqual((await admin('PATCH', '/sessions/abc123DEF,-x', { data: null })).body, { ...patched.body, data: null });
  t.true((await admin('GET', '/sessions?page_size=1000')).body.items.some((s: any) => s.id === 'abc123DEF,-x'));
  t.is((await admin('DELETE', '/sessions/abc123DEF,-x')).status, 204);
  const gone = await admin('GET', '/sessions/abc123DEF,-x');
  t.is(gone.status, 404);
  t.like(gone.body, { kind: 'MESSAGE_NOT_FOUND_ERROR', code: 3 });
  t.is((await admin('PATCH', '/sessions/abc123DEF,-x', {})).status, 404);
  t.is((await admin('DELETE', '/sessions/abc123DEF,-x')).status, 404);
});

test('sessions: rows PHP wrote are listed; duplicate ids are 409', async (t) => {
  await sql("INSERT INTO Sessions (id, access, data) VALUES ('phpwritten0000000000000000000001', 5, 'x|s:1:\"y\";')");
  t.deepEqual((await admin('GET', '/sessions/phpwritten0000000000000000000001')).body, {
    id: 'phpwritten0000000000000000000001',
    access: 5,
    data: 'x|s:1:"y";',
  });
  t.is((await admin('POST', '/sessions', { id: 'phpwritten0000000000000000000001' })).status, 409);
});

test('sessions: even reading needs System Edit (session ids are web credentials)', async (t) => {
  for (const [method, path] of [
    ['GET', '/sessions'],
    ['GET', '/sessions/abc'],
    ['DELETE', '/sessions/abc'],
    ['POST', '/sessions'],
  ]) {
    const res = await viewer(method, path, method === 'POST' ? { id: 'abc' } : undefined);
    t.is(res.status, 403, `${method} ${path}`);
    t.is(res.body.kind, 'PERMISSION_DENIED_ERROR');
    t.is((await other(method, path, method === 'POST' ? { id: 'abc' } : undefined)).status, 403);
  }
});

test('sessions: validation → 400 naming the field', async (t) => {
  const cases: Array<[object, string]> = [
    [{}, 'id'],
    [{ id: '' }, 'id'],
    [{ id: 'x'.repeat(33) }, 'id'],
    [{ id: 'has space' }, 'id'],
    [{ id: 'semi;colon' }, 'id'],
    [{ id: 'ok', access: -1 }, 'access'],
    [{ id: 'ok', access: 4294967296 }, 'access'],
    [{ id: 'ok', data: 5 }, 'data'],
  ];
  for (const [body, field] of cases) {
    const res = await admin('POST', '/sessions', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(fields(res.body).includes(field), `${field}: ${JSON.stringify(res.body.details)}`);
  }
  for (const bad of ['has%20space', 'x'.repeat(33), 'semi%3Bcolon']) {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const res = await admin(method, `/sessions/${bad}`, method === 'PATCH' ? {} : undefined);
      t.is(res.status, 400, `${method} ${bad}`);
      t.true(fields(res.body).includes('id'));
    }
  }
});

test.serial('sessions: paging', async (t) => {
  for (let i = 0; i < 3; i++) await admin('POST', '/sessions', { id: `page${i}`, access: i });
  await checkPaging(t, admin, '/sessions');
});

// ---------------------------------------------------------------- server-stats

const SAMPLE = {
  cpu_load: '1.5',
  cpu_user_percent: '12.5',
  cpu_nice_percent: '0',
  cpu_system_percent: '3.2',
  cpu_idle_percent: '84.3',
  cpu_usage_percent: '15.7',
  total_mem: 16_000_000_000,
  free_mem: 8_000_000_000,
  total_swap: 2_000_000_000,
  free_swap: 1_999_999_999,
};

test.serial('server-stats: create, get, list oldest first, delete (no update route)', async (t) => {
  await sql("INSERT INTO Servers (Name) VALUES ('host-a')");
  const serverId = Number((await sql("SELECT Id FROM Servers WHERE Name = 'host-a'"))[0].Id);
  const created = await admin('POST', '/server-stats', {
    ...SAMPLE,
    server_id: serverId,
    time_stamp: '2001-01-01T00:00:00',
  });
  t.is(created.status, 201, created.text);
  t.deepEqual(created.body, {
    ...SAMPLE,
    cpu_nice_percent: '0.0',
    server_id: serverId,
    id: created.body.id,
    time_stamp: created.body.time_stamp,
  });
  const [row] = await sql(
    "SELECT DATE_FORMAT(TimeStamp, '%Y-%m-%dT%H:%i:%s') AS ts, CpuLoad FROM Server_Stats WHERE Id = ?",
    [created.body.id],
  );
  t.is(created.body.time_stamp, `${row.ts}Z`, 'the database stamps the sample; emitted as the instant it shows');
  t.is(String(row.CpuLoad), '1.5');
  t.deepEqual((await viewer('GET', `/server-stats/${created.body.id}`)).body, created.body);
  // zmstats.pl rows, out of id order by time: the list follows TimeStamp.
  await sql(
    "INSERT INTO Server_Stats (TimeStamp, CpuLoad) VALUES ('2000-01-02 00:00:00', 0.2), ('2000-01-01 00:00:00', 0.1)",
  );
  const list = (await viewer('GET', '/server-stats?page_size=1000')).body.items;
  const times = list.map((s: any) => s.time_stamp);
  t.deepEqual(times, [...times].sort());
  t.like(list[0], {
    time_stamp: '2000-01-01T00:00:00Z',
    cpu_load: '0.1',
    server_id: null,
    total_mem: null,
    cpu_idle_percent: null,
  });
  t.is((await admin('PATCH', `/server-stats/${created.body.id}`, { cpu_load: '2' })).status, 405);
  t.is((await admin('DELETE', `/server-stats/${created.body.id}`)).status, 204);
  t.is((await admin('GET', `/server-stats/${created.body.id}`)).status, 404);
  t.is((await admin('DELETE', `/server-stats/${created.body.id}`)).status, 404);
});

test('server-stats: validation → 400 naming the field', async (t) => {
  const cases: Array<[object, string]> = [
    [{ ...SAMPLE, cpu_load: undefined }, 'cpu_load'],
    [{ ...SAMPLE, cpu_user_percent: 12.5 }, 'cpu_user_percent'],
    [{ ...SAMPLE, cpu_idle_percent: '12.55' }, 'cpu_idle_percent'],
    [{ ...SAMPLE, cpu_usage_percent: '10000' }, 'cpu_usage_percent'],
    [{ ...SAMPLE, cpu_system_percent: '-1' }, 'cpu_system_percent'],
    [{ ...SAMPLE, cpu_nice_percent: 'abc' }, 'cpu_nice_percent'],
    [{ ...SAMPLE, total_mem: -1 }, 'total_mem'],
    [{ ...SAMPLE, free_swap: 1.5 }, 'free_swap'],
    [{ ...SAMPLE, server_id: -1 }, 'server_id'],
    [{ ...SAMPLE, server_id: 987654 }, 'server_id'],
  ];
  for (const [body, field] of cases) {
    const res = await admin('POST', '/server-stats', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(fields(res.body).includes(field), `${field}: ${JSON.stringify(res.body.details)}`);
  }
  t.is(
    (await admin('POST', '/server-stats', { ...SAMPLE, cpu_load: '9999.9' })).status,
    201,
    'the column maximum fits',
  );
});

test.serial('server-stats: paging, ids and the System gate', async (t) => {
  for (let i = 0; i < 3; i++) await admin('POST', '/server-stats', SAMPLE);
  await checkPaging(t, viewer, '/server-stats');
  await checkBadIds(t, admin, '/server-stats');
  t.is((await viewer('POST', '/server-stats', SAMPLE)).status, 403);
  t.is((await viewer('DELETE', '/server-stats/1')).status, 403);
  t.is((await other('GET', '/server-stats')).status, 403);
});

// ---------------------------------------------------------------- stats

const statBody = (monitor: number, extra: object = {}) => ({
  monitor_id: monitor,
  zone_id: zone[monitor],
  event_id: event[monitor],
  frame_id: 12,
  pixel_diff: 255,
  alarm_pixels: 4000,
  filter_pixels: 3000,
  blob_pixels: 2000,
  blobs: 3,
  min_blob_size: 100,
  max_blob_size: 1500,
  min_x: 10,
  max_x: 65535,
  min_y: 20,
  max_y: 400,
  score: 42,
  ...extra,
});

test.serial('stats: create, get, patch, list, delete', async (t) => {
  const created = await admin('POST', '/stats', statBody(m[0]));
  t.is(created.status, 201, created.text);
  t.deepEqual(created.body, { ...statBody(m[0]), id: created.body.id });
  const id = created.body.id;
  t.deepEqual((await viewer('GET', `/stats/${id}`)).body, created.body);
  const patched = await admin('PATCH', `/stats/${id}`, { score: 7, blobs: null });
  t.deepEqual(patched.body, { ...created.body, score: 7 });
  const moved = await admin('PATCH', `/stats/${id}`, { monitor_id: m[1], zone_id: zone[m[1]], event_id: event[m[1]] });
  t.like(moved.body, { monitor_id: m[1], zone_id: zone[m[1]], event_id: event[m[1]], score: 7 });
  const [row] = await sql('SELECT MonitorId, Score, MaxX FROM Stats WHERE Id = ?', [id]);
  t.deepEqual(
    { MonitorId: Number(row.MonitorId), Score: Number(row.Score), MaxX: Number(row.MaxX) },
    { MonitorId: m[1], Score: 7, MaxX: 65535 },
  );
  t.true((await viewer('GET', '/stats?page_size=1000')).body.items.some((s: any) => s.id === id));
  t.is((await admin('DELETE', `/stats/${id}`)).status, 204);
  for (const method of ['GET', 'PATCH', 'DELETE']) {
    t.is((await admin(method, `/stats/${id}`, method === 'PATCH' ? {} : undefined)).status, 404, method);
  }
});

test('stats: the monitor, zone and event must exist and belong together', async (t) => {
  const cases: Array<[object, string]> = [
    [statBody(m[0], { monitor_id: 987654 }), 'monitor_id'],
    [statBody(m[0], { zone_id: zone[m[1]] }), 'zone_id'],
    [statBody(m[0], { event_id: event[m[1]] }), 'event_id'],
    [statBody(m[0], { event_id: 987654321 }), 'event_id'],
  ];
  for (const [body, field] of cases) {
    const res = await admin('POST', '/stats', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.deepEqual(fields(res.body), [field]);
  }
  const id = (await admin('POST', '/stats', statBody(m[0]))).body.id;
  const res = await admin('PATCH', `/stats/${id}`, { monitor_id: m[1] });
  t.is(res.status, 400, 'moving to another monitor must bring its zone and event');
  t.deepEqual(fields(res.body), ['zone_id']);
});

test('stats: validation → 400 naming the field', async (t) => {
  const cases: Array<[object, string]> = [
    [{ ...statBody(m[0]), score: undefined }, 'score'],
    [statBody(m[0], { pixel_diff: 256 }), 'pixel_diff'],
    [statBody(m[0], { blobs: 65536 }), 'blobs'],
    [statBody(m[0], { min_x: -1 }), 'min_x'],
    [statBody(m[0], { alarm_pixels: 1.5 }), 'alarm_pixels'],
    [statBody(m[0], { event_id: 'x' }), 'event_id'],
    [statBody(m[0], { frame_id: 2147483648 }), 'frame_id'],
  ];
  for (const [body, field] of cases) {
    const res = await admin('POST', '/stats', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(fields(res.body).includes(field), `${field}: ${JSON.stringify(res.body.details)}`);
  }
});

test.serial('stats: the monitor row ACL filters, hides and protects', async (t) => {
  const ids = [];
  for (const monitor of m) ids.push((await admin('POST', '/stats', statBody(monitor))).body.id);
  const [s1, s2, s3] = ids;
  const listed = (await restricted('GET', '/stats?page_size=1000')).body;
  t.true(listed.items.every((s: any) => s.monitor_id !== m[2]));
  t.true(listed.items.some((s: any) => s.id === s1) && listed.items.some((s: any) => s.id === s2));
  t.is(listed.total, listed.items.length);
  const hidden = await restricted('GET', `/stats/${s3}`);
  t.is(hidden.status, 404, 'a row of a hidden monitor reads as missing');
  t.is(hidden.body.kind, 'MESSAGE_NOT_FOUND_ERROR');
  t.is((await restricted('DELETE', `/stats/${s3}`)).status, 404);
  t.is((await restricted('PATCH', `/stats/${s3}`, { score: 1 })).status, 404);
  t.is((await restricted('GET', `/stats/${s2}`)).status, 200);
  t.is((await restricted('PATCH', `/stats/${s2}`, { score: 1 })).status, 403, 'view-only monitor');
  t.is((await restricted('DELETE', `/stats/${s2}`)).status, 403);
  t.is((await restricted('POST', '/stats', statBody(m[1]))).status, 403);
  const onHidden = await restricted('POST', '/stats', statBody(m[2]));
  t.is(onHidden.status, 400, 'a hidden monitor is as unknown as a missing one');
  t.deepEqual(fields(onHidden.body), ['monitor_id']);
  t.is(
    (await restricted('PATCH', `/stats/${s1}`, { monitor_id: m[1], zone_id: zone[m[1]], event_id: event[m[1]] }))
      .status,
    403,
  );
  t.is((await restricted('PATCH', `/stats/${s1}`, { score: 9 })).body.score, 9);
  t.is((await restricted('DELETE', `/stats/${s1}`)).status, 204);
});

test.serial('stats: paging, ids and the System gate', async (t) => {
  for (let i = 0; i < 3; i++) await admin('POST', '/stats', statBody(m[0], { frame_id: i }));
  await checkPaging(t, viewer, '/stats');
  await checkBadIds(t, admin, '/stats');
  t.is((await viewer('POST', '/stats', statBody(m[0]))).status, 403);
  t.is((await other('GET', '/stats')).status, 403);
});
