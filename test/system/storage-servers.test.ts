import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';

let app: TestApp;
let db: FreshDatabase;
let call: Call;
let viewer: Call;
let nobody: Call;

test.before(async () => {
  db = await zmDatabase('storage');
  await addUser(db, 'admin', { System: 'Edit' });
  await addUser(db, 'viewer', { System: 'View' });
  await addUser(db, 'nobody', { Monitors: 'Edit', Events: 'Edit' });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  call = caller(app, await login(app, 'admin'));
  viewer = caller(app, await login(app, 'viewer'));
  nobody = caller(app, await login(app, 'nobody'));
});
test.after.always(async () => app?.close());

const sql = (q: string, params: unknown[] = []) => db.db.query<Record<string, any>>(q, params, db.name);

// ---------------------------------------------------------------- storage

test('storage: create with every field; do_delete is honoured on create', async (t) => {
  const body = {
    name: 'NAS',
    path: '/mnt/nas/events',
    type: 's3fs',
    enabled: 1,
    scheme: 'Deep',
    server_id: 9002, // no server test creates this many rows
    url: 's3fs://bucket',
    do_delete: 0,
    disk_space: 999,
  };
  const res = await call('POST', '/storage', body);
  t.is(res.status, 201);
  t.deepEqual(res.body, { ...body, id: res.body.id, disk_space: null });
  const [row] = await sql('SELECT DoDelete, Scheme, Type FROM Storage WHERE Id = ?', [res.body.id]);
  t.is(Number(row.DoDelete), 0);
  t.is(row.Scheme, 'Deep');
  t.deepEqual((await call('GET', `/storage/${res.body.id}`)).body, res.body);
});

test('storage: defaults (do_delete 1, Medium), older type spelling and boolean flags', async (t) => {
  const res = await call('POST', '/storage', {
    name: 'Default',
    path: '/var/cache/zoneminder/events',
    type: 'Local',
    enabled: true,
  });
  t.is(res.status, 201);
  t.like(res.body, {
    type: 'local',
    enabled: 1,
    do_delete: 1,
    scheme: 'Medium',
    server_id: null,
    url: null,
    disk_space: null,
  });
  t.is((await call('POST', '/storage', { name: 'S3', path: '/s3', type: 'S3fs', enabled: false })).body.type, 's3fs');
  t.is((await call('POST', '/storage', { name: 'Off', path: '/off', type: 'local', enabled: false })).body.enabled, 0);
});

test('storage: patch is partial; booleans and null clear what is nullable', async (t) => {
  const created = await call('POST', '/storage', {
    name: 'Patch',
    path: '/p',
    type: 'local',
    enabled: 1,
    url: 'u',
    server_id: 9001,
  });
  const res = await call('PATCH', `/storage/${created.body.id}`, {
    do_delete: false,
    url: null,
    name: null,
    scheme: 'Shallow',
  });
  t.is(res.status, 200);
  t.deepEqual(res.body, { ...created.body, do_delete: 0, url: null, scheme: 'Shallow' });
  t.is((await call('PATCH', `/storage/${created.body.id}`, { do_delete: 1, enabled: 0 })).body.do_delete, 1);
  const kept = await call('PATCH', `/storage/${created.body.id}`, { do_delete: null, enabled: null, server_id: null });
  t.like(kept.body, { do_delete: 1, enabled: 0, server_id: null }, 'null keeps a flag, clears a nullable column');
  await sql('UPDATE Storage SET DiskSpace = ? WHERE Id = ?', [5_000_000_000_123, created.body.id]);
  t.is((await call('GET', `/storage/${created.body.id}`)).body.disk_space, 5_000_000_000_123);
  t.is((await call('PATCH', '/storage/9999', { name: 'x' })).status, 404);
});

test('storage: validation → 400 naming the field', async (t) => {
  const ok = { name: 'v', path: '/v', type: 'local', enabled: 1 };
  const cases: Array<[object, string]> = [
    [{ ...ok, path: 'relative/dir' }, 'path'],
    [{ ...ok, path: '/var/../etc' }, 'path'],
    [{ ...ok, path: `/${'p'.repeat(64)}` }, 'path'],
    [{ ...ok, name: 'n'.repeat(65) }, 'name'],
    [{ ...ok, url: 'u'.repeat(256) }, 'url'],
    [{ ...ok, type: 'nfs' }, 'type'],
    [{ ...ok, scheme: 'Flat' }, 'scheme'],
    [{ ...ok, enabled: 2 }, 'enabled'],
    [{ ...ok, do_delete: 'yes' }, 'do_delete'],
    [{ name: 'v', path: '/v', type: 'local' }, 'enabled'],
    [{ name: 'v', path: '/v', enabled: 1 }, 'type'],
  ];
  for (const [body, field] of cases) {
    const res = await call('POST', '/storage', body);
    t.is(res.status, 400, JSON.stringify(body).slice(0, 80));
    t.true(fields(res.body).includes(field), `${field}: ${JSON.stringify(res.body.details)}`);
  }
  t.is((await call('GET', '/storage/abc')).status, 400);
  t.is((await call('GET', '/storage/-1')).status, 400);
});

test('storage: delete refuses while monitors or events use it (409), then deletes (204), then 404', async (t) => {
  const s = await call('POST', '/storage', { name: 'Busy', path: '/busy', type: 'local', enabled: 1 });
  const id = s.body.id;
  await sql("INSERT INTO Monitors (Name, StorageId) VALUES ('storage-user', ?)", [id]);
  const byMonitor = await call('DELETE', `/storage/${id}`);
  t.is(byMonitor.status, 409);
  t.is(byMonitor.body.kind, 'CONFLICT_ERROR');
  await sql("UPDATE Monitors SET StorageId = 0 WHERE Name = 'storage-user'");
  await sql("INSERT INTO Events (MonitorId, StorageId, Name, StateId) VALUES (1, ?, 'old', 0)", [id]);
  t.is((await call('DELETE', `/storage/${id}`)).status, 409);
  await sql('DELETE FROM Events WHERE StorageId = ?', [id]);
  t.is((await call('DELETE', `/storage/${id}`)).status, 204);
  t.is((await call('GET', `/storage/${id}`)).status, 404);
  t.is((await call('DELETE', `/storage/${id}`)).status, 404);
});

test('storage: paging', async (t) => {
  for (let i = 0; i < 3; i++)
    await call('POST', '/storage', { name: `pg${i}`, path: `/pg${i}`, type: 'local', enabled: 1 });
  const res = await call('GET', '/storage?page=2&page_size=2&per_page=1000');
  t.is(res.body.per_page, 2);
  t.is(res.body.current_page, 2);
  t.is(res.body.items.length, 2);
  t.is(res.body.last_page, Math.ceil(res.body.total / 2));
  t.is((await call('GET', '/storage')).body.per_page, 25);
  t.is((await call('GET', '/storage?page_size=1000')).status, 200);
  for (const q of ['page_size=1001', 'page=-1']) t.is((await call('GET', `/storage?${q}`)).status, 400, q);
});

// ---------------------------------------------------------------- servers

const FULL_SERVER = {
  name: 'edge-1',
  hostname: 'edge1.example.org',
  port: 8443,
  status: 'Running',
  protocol: 'https',
  path_to_index: '/zm/index.php',
  path_to_zms: '/zm/cgi-bin/nph-zms',
  path_to_api: '/zm/api',
  zmaudit: true,
  zmstats: 1,
  zmtrigger: false,
  zmeventnotification: 0,
  state_id: 3,
  latitude: 51.5073509,
  longitude: -0.12775829,
};

test('servers: every field is stored on create (not only name/hostname/port/status)', async (t) => {
  const res = await call('POST', '/servers', FULL_SERVER);
  t.is(res.status, 201);
  t.deepEqual(res.body, { ...FULL_SERVER, id: res.body.id, zmaudit: 1, zmtrigger: 0 });
  const [row] = await sql('SELECT PathToZMS, zmaudit, State_Id, Latitude FROM Servers WHERE Id = ?', [res.body.id]);
  t.is(row.PathToZMS, '/zm/cgi-bin/nph-zms');
  t.is(Number(row.zmaudit), 1);
  t.is(Number(row.State_Id), 3);
  t.deepEqual((await call('GET', `/servers/${res.body.id}`)).body, res.body);
});

test('servers: minimal create gets defaults; patch changes every field it is given', async (t) => {
  const created = await call('POST', '/servers', { name: 'bare' });
  t.is(created.status, 201);
  t.deepEqual(created.body, {
    id: created.body.id,
    name: 'bare',
    hostname: null,
    port: null,
    status: 'Unknown',
    protocol: null,
    path_to_index: null,
    path_to_zms: null,
    path_to_api: null,
    zmaudit: 0,
    zmstats: 0,
    zmtrigger: 0,
    zmeventnotification: 0,
    state_id: null,
    latitude: null,
    longitude: null,
  });
  const { name: _n, ...rest } = FULL_SERVER;
  const patched = await call('PATCH', `/servers/${created.body.id}`, rest);
  t.is(patched.status, 200);
  t.deepEqual(patched.body, { ...FULL_SERVER, id: created.body.id, name: 'bare', zmaudit: 1, zmtrigger: 0 });
  const cleared = await call('PATCH', `/servers/${created.body.id}`, {
    hostname: null,
    latitude: null,
    name: null,
    zmstats: null,
  });
  t.like(cleared.body, { hostname: null, latitude: null, name: 'bare', zmstats: 1, port: 8443 });
  t.is((await call('PATCH', '/servers/9999', { name: 'x' })).status, 404);
});

test('servers: validation → 400 naming the field', async (t) => {
  const cases: Array<[object, string]> = [
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'n'.repeat(65) }, 'name'],
    [{ name: 'v', port: 65536 }, 'port'],
    [{ name: 'v', port: -1 }, 'port'],
    [{ name: 'v', status: 'Up' }, 'status'],
    [{ name: 'v', latitude: 90.5 }, 'latitude'],
    [{ name: 'v', longitude: -181 }, 'longitude'],
    [{ name: 'v', zmaudit: 2 }, 'zmaudit'],
    [{ name: 'v', state_id: -1 }, 'state_id'],
  ];
  for (const [body, field] of cases) {
    const res = await call('POST', '/servers', body);
    t.is(res.status, 400, JSON.stringify(body).slice(0, 60));
    t.true(fields(res.body).includes(field), `${field}: ${JSON.stringify(res.body.details)}`);
  }
  t.is((await call('GET', '/servers/abc')).status, 400);
});

test('servers: delete refuses while monitors or storage use it (409), then 204, then 404', async (t) => {
  const s = await call('POST', '/servers', { name: 'busy-server' });
  const id = s.body.id;
  await sql("INSERT INTO Monitors (Name, ServerId) VALUES ('server-user', ?)", [id]);
  const refused = await call('DELETE', `/servers/${id}`);
  t.is(refused.status, 409);
  t.is(refused.body.kind, 'CONFLICT_ERROR');
  await sql("DELETE FROM Monitors WHERE Name = 'server-user'");
  const area = await call('POST', '/storage', {
    name: 'on-server',
    path: '/srv',
    type: 'local',
    enabled: 1,
    server_id: id,
  });
  t.is((await call('DELETE', `/servers/${id}`)).status, 409);
  await call('DELETE', `/storage/${area.body.id}`);
  t.is((await call('DELETE', `/servers/${id}`)).status, 204);
  t.is((await call('GET', `/servers/${id}`)).status, 404);
  t.is((await call('DELETE', `/servers/${id}`)).status, 404);
});

test('servers: paging', async (t) => {
  for (let i = 0; i < 3; i++) await call('POST', '/servers', { name: `srv${i}` });
  const res = await call('GET', '/servers?page=2&page_size=2');
  t.is(res.body.per_page, 2);
  t.is(res.body.items.length, 2);
  t.is(res.body.last_page, Math.ceil(res.body.total / 2));
  t.is((await call('GET', '/servers')).body.per_page, 25);
  t.is((await call('GET', '/servers?page_size=1000')).status, 200);
  for (const q of ['page_size=1001', 'page=-1']) t.is((await call('GET', `/servers?${q}`)).status, 400, q);
});

test('storage and servers are gated on System', async (t) => {
  for (const path of ['/storage', '/servers']) {
    t.is((await viewer('GET', path)).status, 200, path);
    t.is((await nobody('GET', path)).status, 403, path);
  }
  const write = await viewer('POST', '/servers', { name: 'nope' });
  t.is(write.status, 403);
  t.is(write.body.kind, 'PERMISSION_DENIED_ERROR');
  t.is((await viewer('POST', '/storage', { name: 'n', path: '/n', type: 'local', enabled: 1 })).status, 403);
});
