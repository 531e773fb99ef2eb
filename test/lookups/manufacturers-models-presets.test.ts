// Manufacturers and models (Devices feature) and monitor presets (Monitors feature).
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addUser, caller, checkBadIds, checkPaging, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';

let app: TestApp;
let db: FreshDatabase;
let devices: Call;
let devicesView: Call;
let monitors: Call;
let monitorsView: Call;

test.before(async () => {
  db = await zmDatabase('lookups');
  await addUser(db, 'dev', { Devices: 'Edit' });
  await addUser(db, 'devview', { Devices: 'View', Monitors: 'Edit' });
  await addUser(db, 'mon', { Monitors: 'Edit' });
  await addUser(db, 'monview', { Monitors: 'View', Devices: 'Edit' });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  devices = caller(app, await login(app, 'dev'));
  devicesView = caller(app, await login(app, 'devview'));
  monitors = caller(app, await login(app, 'mon'));
  monitorsView = caller(app, await login(app, 'monview'));
});
test.after.always(async () => app?.close());

const sql = (q: string, params: unknown[] = []) => db.db.query<Record<string, any>>(q, params, db.name);

// ---------------------------------------------------------------- manufacturers

test.serial('manufacturers: create, get, patch, list, delete', async (t) => {
  const created = await devices('POST', '/manufacturers', { name: 'Axis', id: 77, extra: 1 });
  t.is(created.status, 201);
  t.deepEqual(Object.keys(created.body).sort(), ['id', 'name']);
  t.is(created.body.name, 'Axis');
  t.not(created.body.id, 77, 'the id is never taken from the body');
  const id = created.body.id;
  t.deepEqual((await devices('GET', `/manufacturers/${id}`)).body, created.body);
  const patched = await devices('PATCH', `/manufacturers/${id}`, { name: 'Axis Communications' });
  t.is(patched.status, 200);
  t.deepEqual(patched.body, { id, name: 'Axis Communications' });
  t.deepEqual(
    (await devices('PATCH', `/manufacturers/${id}`, { name: null })).body,
    patched.body,
    'null keeps the name',
  );
  const [row] = await sql('SELECT Name FROM Manufacturers WHERE Id = ?', [id]);
  t.is(row.Name, 'Axis Communications');
  const list = await devices('GET', '/manufacturers?page_size=1000');
  t.true(list.body.items.some((m: any) => m.id === id && m.name === 'Axis Communications'));
  const del = await devices('DELETE', `/manufacturers/${id}`);
  t.is(del.status, 204);
  t.is(del.text, '');
  for (const method of ['GET', 'PATCH', 'DELETE']) {
    const res = await devices(method, `/manufacturers/${id}`, method === 'PATCH' ? { name: 'x' } : undefined);
    t.is(res.status, 404, method);
    t.is(res.body.kind, 'MESSAGE_NOT_FOUND_ERROR');
  }
});

test('manufacturers: duplicate names are 409 on create and rename', async (t) => {
  await devices('POST', '/manufacturers', { name: 'Dup' });
  const dup = await devices('POST', '/manufacturers', { name: 'Dup' });
  t.is(dup.status, 409);
  t.is(dup.body.kind, 'CONFLICT_ERROR');
  const other = await devices('POST', '/manufacturers', { name: 'Dup2' });
  t.is((await devices('PATCH', `/manufacturers/${other.body.id}`, { name: 'Dup' })).status, 409);
});

test('manufacturers: delete is refused while models or monitors name it', async (t) => {
  const m = (await devices('POST', '/manufacturers', { name: 'InUse' })).body.id;
  const model = (await devices('POST', '/models', { name: 'X1', manufacturer_id: m })).body.id;
  const res = await devices('DELETE', `/manufacturers/${m}`);
  t.is(res.status, 409);
  t.deepEqual(res.body.details, [
    ['id', String(m)],
    ['models', '1'],
    ['monitors', '0'],
  ]);
  await devices('DELETE', `/models/${model}`);
  await sql('INSERT INTO Monitors (Name, ManufacturerId) VALUES (?, ?)', ['cam-in-use', m]);
  t.is((await devices('DELETE', `/manufacturers/${m}`)).status, 409);
  await sql('DELETE FROM Monitors WHERE Name = ?', ['cam-in-use']);
  t.is((await devices('DELETE', `/manufacturers/${m}`)).status, 204);
});

test.serial('manufacturers: validation and paging', async (t) => {
  for (const [body, field] of [
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'n'.repeat(65) }, 'name'],
    [{ name: 5 }, 'name'],
  ] as Array<[object, string]>) {
    const res = await devices('POST', '/manufacturers', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(fields(res.body).includes(field), JSON.stringify(res.body.details));
  }
  const id = (await devices('POST', '/manufacturers', { name: 'Valid' })).body.id;
  t.true(fields((await devices('PATCH', `/manufacturers/${id}`, { name: 'n'.repeat(65) })).body).includes('name'));
  for (let i = 0; i < 3; i++) await devices('POST', '/manufacturers', { name: `page-${i}` });
  await checkPaging(t, devices, '/manufacturers');
  await checkBadIds(t, devices, '/manufacturers');
});

test('manufacturers and models need Devices: View reads, Edit writes, other features get 403', async (t) => {
  for (const path of ['/manufacturers', '/models']) {
    t.is((await devicesView('GET', path)).status, 200);
    const write = await devicesView('POST', path, { name: 'nope' });
    t.is(write.status, 403);
    t.is(write.body.kind, 'PERMISSION_DENIED_ERROR');
    t.is((await monitors('GET', path)).status, 403);
  }
});

// ---------------------------------------------------------------- models

test.serial('models: create, get, patch (partial, null detaches), list by manufacturer, delete', async (t) => {
  const acme = (await devices('POST', '/manufacturers', { name: 'Acme' })).body.id;
  const other = (await devices('POST', '/manufacturers', { name: 'Other' })).body.id;
  const created = await devices('POST', '/models', { name: 'A-100', manufacturer_id: acme });
  t.is(created.status, 201);
  t.deepEqual(created.body, { id: created.body.id, name: 'A-100', manufacturer_id: acme });
  const id = created.body.id;
  const loose = await devices('POST', '/models', { name: 'Generic' });
  t.is(loose.body.manufacturer_id, null);
  t.deepEqual((await devices('GET', `/models/${id}`)).body, created.body);
  t.deepEqual((await devices('PATCH', `/models/${id}`, { name: 'A-200' })).body, { ...created.body, name: 'A-200' });
  t.deepEqual((await devices('PATCH', `/models/${id}`, { manufacturer_id: other })).body.manufacturer_id, other);
  t.deepEqual((await devices('GET', `/models?manufacturer_id=${other}`)).body.items, [
    { id, name: 'A-200', manufacturer_id: other },
  ]);
  t.is((await devices('GET', `/models?manufacturer_id=${acme}`)).body.total, 0);
  t.is((await devices('PATCH', `/models/${id}`, { manufacturer_id: null })).body.manufacturer_id, null);
  t.is((await devices('DELETE', `/models/${id}`)).status, 204);
  t.is((await devices('GET', `/models/${id}`)).status, 404);
  t.is((await devices('PATCH', `/models/${id}`, { name: 'x' })).status, 404);
  t.is((await devices('DELETE', `/models/${id}`)).status, 404);
});

test('models: unknown manufacturer is 400; duplicate name per manufacturer is 409', async (t) => {
  const res = await devices('POST', '/models', { name: 'Ghost', manufacturer_id: 987654 });
  t.is(res.status, 400);
  t.deepEqual(fields(res.body), ['manufacturer_id']);
  const m = (await devices('POST', '/manufacturers', { name: 'Uniq' })).body.id;
  const first = await devices('POST', '/models', { name: 'Same', manufacturer_id: m });
  t.is((await devices('POST', '/models', { name: 'Same', manufacturer_id: m })).status, 409);
  t.is((await devices('PATCH', `/models/${first.body.id}`, { manufacturer_id: 987654 })).status, 400);
});

test('models: delete is refused while monitors or presets use the model', async (t) => {
  const model = (await devices('POST', '/models', { name: 'Used' })).body.id;
  const preset = await monitors('POST', '/monitor_presets', { name: 'p', type: 'Ffmpeg', model_id: model });
  t.is(preset.status, 201);
  const res = await devices('DELETE', `/models/${model}`);
  t.is(res.status, 409);
  t.deepEqual(res.body.details, [
    ['id', String(model)],
    ['monitors', '0'],
    ['monitor_presets', '1'],
  ]);
  await monitors('DELETE', `/monitor_presets/${preset.body.id}`);
  t.is((await devices('DELETE', `/models/${model}`)).status, 204);
});

test.serial('models: validation and paging', async (t) => {
  for (const [body, field] of [
    [{}, 'name'],
    [{ name: 'n'.repeat(65) }, 'name'],
    [{ name: 'x', manufacturer_id: -1 }, 'manufacturer_id'],
    [{ name: 'x', manufacturer_id: 1.5 }, 'manufacturer_id'],
    [{ name: 'x', manufacturer_id: 'abc' }, 'manufacturer_id'],
  ] as Array<[object, string]>) {
    const res = await devices('POST', '/models', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(fields(res.body).includes(field), JSON.stringify(res.body.details));
  }
  for (const q of ['manufacturer_id=-1', 'manufacturer_id=x']) {
    const res = await devices('GET', `/models?${q}`);
    t.is(res.status, 400, q);
    t.true(fields(res.body).includes('manufacturer_id'));
  }
  const m = (await devices('POST', '/manufacturers', { name: 'Paged' })).body.id;
  for (let i = 0; i < 3; i++) await devices('POST', '/models', { name: `pm-${i}`, manufacturer_id: m });
  await checkPaging(t, devices, `/models?manufacturer_id=${m}`);
  await checkBadIds(t, devices, '/models');
});

// ---------------------------------------------------------------- monitor presets

const FULL_PRESET = {
  name: 'Axis P1346, 1080p',
  type: 'Remote',
  device: '/dev/video0',
  channel: 2,
  format: 255,
  protocol: 'http',
  method: 'simple',
  host: 'camera.local',
  port: '8080',
  path: '/axis-cgi/mjpg/video.cgi',
  sub_path: '/sub',
  width: 1920,
  height: 1080,
  palette: 3,
  max_fps: 12.5,
  controllable: 1,
  control_id: '7',
  control_device: 'dev',
  control_address: 'user:pass@camera.local',
  default_rate: 200,
  default_scale: '50',
};

test.serial('monitor presets: create with every field, get, patch, list, delete', async (t) => {
  const model = (await devices('POST', '/models', { name: 'P1346' })).body.id;
  const created = await monitors('POST', '/monitor_presets', { ...FULL_PRESET, model_id: model });
  t.is(created.status, 201, created.text);
  t.deepEqual(created.body, { ...FULL_PRESET, model_id: model, id: created.body.id });
  const id = created.body.id;
  const [row] = await sql('SELECT Type, MaxFPS, SubPath, DefaultScale FROM MonitorPresets WHERE Id = ?', [id]);
  t.like(row, { Type: 'Remote', SubPath: '/sub', DefaultScale: '50' });
  t.is(String(row.MaxFPS), '12.500');
  t.deepEqual((await monitors('GET', `/monitor_presets/${id}`)).body, created.body);
  const patched = await monitors('PATCH', `/monitor_presets/${id}`, {
    host: null,
    width: 640,
    name: null,
    controllable: null,
    max_fps: 7.1234,
  });
  t.is(patched.status, 200);
  t.deepEqual(
    patched.body,
    { ...created.body, host: null, width: 640, max_fps: 7.123 },
    'null clears nullable columns and keeps NOT NULL ones',
  );
  t.true((await monitors('GET', '/monitor_presets?page_size=1000')).body.items.some((p: any) => p.id === id));
  t.is((await monitors('DELETE', `/monitor_presets/${id}`)).status, 204);
  for (const method of ['GET', 'PATCH', 'DELETE']) {
    t.is((await monitors(method, `/monitor_presets/${id}`, method === 'PATCH' ? {} : undefined)).status, 404, method);
  }
});

test('monitor presets: defaults; types emitted as stored, older spellings accepted', async (t) => {
  const min = await monitors('POST', '/monitor_presets', { name: 'Bare', type: 'Local' });
  t.is(min.status, 201);
  t.like(min.body, {
    controllable: 0,
    default_rate: 100,
    default_scale: '0',
    model_id: null,
    max_fps: null,
    host: null,
    width: null,
  });
  t.is((await monitors('POST', '/monitor_presets', { name: 'c', type: 'Curl' })).body.type, 'cURL');
  t.is((await monitors('POST', '/monitor_presets', { name: 'v', type: 'Vnc' })).body.type, 'VNC');
  t.is((await monitors('POST', '/monitor_presets', { name: 'n', type: 'NVSocket' })).body.type, 'NVSocket');
  t.is((await monitors('PATCH', `/monitor_presets/${min.body.id}`, { type: 'cURL' })).body.type, 'cURL');
  const [row] = await sql('SELECT Type FROM MonitorPresets WHERE Id = ?', [min.body.id]);
  t.is(row.Type, 'cURL');
});

test('monitor presets: validation → 400 naming the field', async (t) => {
  const ok = { name: 'v', type: 'Ffmpeg' };
  const cases: Array<[object, string]> = [
    [{ type: 'Ffmpeg' }, 'name'],
    [{ name: 'x' }, 'type'],
    [{ ...ok, type: 'Webcam' }, 'type'],
    [{ ...ok, name: 'n'.repeat(65) }, 'name'],
    [{ ...ok, device: 'd'.repeat(256) }, 'device'],
    [{ ...ok, protocol: 'p'.repeat(17) }, 'protocol'],
    [{ ...ok, method: 'm'.repeat(17) }, 'method'],
    [{ ...ok, host: 'h'.repeat(65) }, 'host'],
    [{ ...ok, port: '123456789' }, 'port'],
    [{ ...ok, path: 'p'.repeat(256) }, 'path'],
    [{ ...ok, sub_path: 's'.repeat(65) }, 'sub_path'],
    [{ ...ok, control_id: 'c'.repeat(17) }, 'control_id'],
    [{ ...ok, control_device: 'c'.repeat(256) }, 'control_device'],
    [{ ...ok, control_address: 'c'.repeat(256) }, 'control_address'],
    [{ ...ok, default_scale: 's'.repeat(17) }, 'default_scale'],
    [{ ...ok, channel: 256 }, 'channel'],
    [{ ...ok, width: 65536 }, 'width'],
    [{ ...ok, height: -1 }, 'height'],
    [{ ...ok, format: 4294967296 }, 'format'],
    [{ ...ok, palette: 1.5 }, 'palette'],
    [{ ...ok, max_fps: 100 }, 'max_fps'],
    [{ ...ok, max_fps: -1 }, 'max_fps'],
    [{ ...ok, controllable: 2 }, 'controllable'],
    [{ ...ok, default_rate: 65536 }, 'default_rate'],
    [{ ...ok, model_id: 'x' }, 'model_id'],
  ];
  for (const [body, field] of cases) {
    const res = await monitors('POST', '/monitor_presets', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(fields(res.body).includes(field), `${field}: ${JSON.stringify(res.body.details)}`);
  }
  const ghost = await monitors('POST', '/monitor_presets', { ...ok, model_id: 987654 });
  t.is(ghost.status, 400);
  t.deepEqual(fields(ghost.body), ['model_id']);
  const id = (await monitors('POST', '/monitor_presets', ok)).body.id;
  t.true(fields((await monitors('PATCH', `/monitor_presets/${id}`, { width: 70000 })).body).includes('width'));
  t.is((await monitors('PATCH', `/monitor_presets/${id}`, { model_id: 987654 })).status, 400);
});

test.serial('monitor presets: paging, ids and the Monitors gate', async (t) => {
  for (let i = 0; i < 3; i++) await monitors('POST', '/monitor_presets', { name: `page-${i}`, type: 'File' });
  await checkPaging(t, monitors, '/monitor_presets');
  await checkBadIds(t, monitors, '/monitor_presets');
  t.is((await monitorsView('GET', '/monitor_presets')).status, 200);
  t.is((await monitorsView('POST', '/monitor_presets', { name: 'x', type: 'File' })).status, 403);
  t.is((await devices('GET', '/monitor_presets')).status, 403);
});
