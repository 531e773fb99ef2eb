import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startAppWithAcl, type AclApp } from '../helpers/acl-app.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';

let app: TestApp;
let aclApp: AclApp;
let db: FreshDatabase;
let call: Call;
let viewer: Call;
let systemOnly: Call;
let restricted: Call;
const monitors: number[] = [];

async function insertMonitor(name: string): Promise<number> {
  await db.db.query('INSERT INTO Monitors (Name) VALUES (?)', [name], db.name);
  const [row] = await db.db.query<{ Id: number }>('SELECT Id FROM Monitors WHERE Name = ?', [name], db.name);
  return Number(row.Id);
}

test.before(async () => {
  db = await zmDatabase('controls');
  for (const name of ['m1', 'm2', 'm3']) monitors.push(await insertMonitor(name));
  await addUser(db, 'ptz', { Control: 'Edit' });
  await addUser(db, 'ptzview', { Control: 'View' });
  await addUser(db, 'sysonly', { System: 'Edit' });
  await addUser(db, 'limited', { Control: 'Edit' });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  call = caller(app, await login(app, 'ptz'));
  viewer = caller(app, await login(app, 'ptzview'));
  systemOnly = caller(app, await login(app, 'sysonly'));
  // m1 editable, m2 visible only, m3 hidden.
  const [m1, m2] = monitors;
  aclApp = await startAppWithAcl(
    db,
    { scope: async () => ({ visible: new Set([m1, m2]), editable: new Set([m1]) }) },
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

// ---------------------------------------------------------------- controls

const FLAGS = [
  'can_wake',
  'can_zoom',
  'can_auto_focus',
  'has_pan_speed',
  'has_turbo_tilt',
  'can_move_diag',
  'has_presets',
  'can_set_presets',
];
const UNSIGNED = [
  'min_zoom_range',
  'max_zoom_range',
  'max_focus_step',
  'max_iris_speed',
  'min_gain_step',
  'max_white_range',
];
const SIGNED = [
  'min_pan_range',
  'max_pan_range',
  'min_tilt_step',
  'max_tilt_speed',
  'turbo_pan_speed',
  'turbo_tilt_speed',
];
const column = (f: string) => f.replace(/(?:^|_)([a-z])/g, (_m, c: string) => c.toUpperCase());

test('controls: create with values round-trips through the columns of the same name', async (t) => {
  const body: Record<string, unknown> = {
    name: 'PTZ full',
    type: 'Ffmpeg',
    protocol: 'onvif',
    num_presets: 20,
    num_scan_paths: 3,
  };
  FLAGS.forEach((f) => (body[f] = 1));
  UNSIGNED.forEach((f, i) => (body[f] = 1000 + i));
  SIGNED.forEach((f, i) => (body[f] = -100 - i));
  const res = await call('POST', '/controls', body);
  t.is(res.status, 201);
  t.like(res.body, body);
  t.is(res.body.can_sleep, 0); // unsent flags default to 0
  t.is(res.body.min_focus_range, null); // unsent ranges are null
  t.is(Object.keys(res.body).length, 100); // id, name, type, protocol + 96 capabilities
  const [row] = await db.db.query<Record<string, unknown>>(
    'SELECT * FROM Controls WHERE Id = ?',
    [res.body.id],
    db.name,
  );
  for (const [f, v] of Object.entries(body))
    if (f !== 'name' && f !== 'type' && f !== 'protocol') t.is(Number(row[column(f)]), v as number, f);
  t.is(row.Type, 'Ffmpeg');
  t.deepEqual((await call('GET', `/controls/${res.body.id}`)).body, res.body);
});

test('controls: older type spellings are accepted and stored as ZoneMinder stores them', async (t) => {
  t.is((await call('POST', '/controls', { name: 'c1', type: 'Curl' })).body.type, 'cURL');
  t.is((await call('POST', '/controls', { name: 'c2', type: 'Vnc' })).body.type, 'VNC');
  t.is((await call('POST', '/controls', { name: 'c3', type: 'NVSocket' })).body.type, 'NVSocket');
  const bad = await call('POST', '/controls', { name: 'c4', type: 'Serial' });
  t.is(bad.status, 400);
  t.true(fields(bad.body).includes('type'));
});

test('controls: patch is partial; null clears a range but not a flag or the name', async (t) => {
  const created = await call('POST', '/controls', {
    name: 'patchme',
    type: 'Local',
    can_zoom: 1,
    min_zoom_range: 5,
    protocol: 'p',
  });
  const id = created.body.id;
  const res = await call('PATCH', `/controls/${id}`, {
    can_pan: 1,
    min_zoom_range: null,
    can_zoom: null,
    name: null,
    type: 'Remote',
  });
  t.is(res.status, 200);
  t.deepEqual(res.body, { ...created.body, can_pan: 1, min_zoom_range: null, type: 'Remote' });
  const cleared = await call('PATCH', `/controls/${id}`, { protocol: null });
  t.is(cleared.body.protocol, null);
  t.is((await call('PATCH', '/controls/999999', { can_pan: 1 })).status, 404);
});

test('controls: validation → 400 naming the field', async (t) => {
  const cases: Array<[object, string]> = [
    [{ name: 'v', type: 'Local', can_zoom: 2 }, 'can_zoom'],
    [{ name: 'v', type: 'Local', num_presets: 256 }, 'num_presets'],
    [{ name: 'v', type: 'Local', min_zoom_range: -1 }, 'min_zoom_range'],
    [{ name: 'v', type: 'Local', max_pan_speed: 2147483648 }, 'max_pan_speed'],
    [{ name: 'v', type: 'Local', can_zoom: 0.5 }, 'can_zoom'],
    [{ name: 'n'.repeat(65), type: 'Local' }, 'name'],
    [{ name: 'v', type: 'Local', protocol: 'p'.repeat(65) }, 'protocol'],
    [{ type: 'Local' }, 'name'],
    [{ name: 'v' }, 'type'],
  ];
  for (const [body, field] of cases) {
    const res = await call('POST', '/controls', body);
    t.is(res.status, 400, JSON.stringify(body).slice(0, 80));
    t.true(fields(res.body).includes(field), `${field}: ${JSON.stringify(res.body.details)}`);
  }
  t.is((await call('POST', '/controls', { name: 'neg pan', type: 'Local', min_pan_range: -2147483648 })).status, 201);
  t.is((await call('GET', '/controls/abc')).status, 400);
  t.is((await call('GET', '/controls/-1')).status, 400);
});

test('controls: delete; a profile monitors use → 409; missing → 404', async (t) => {
  const used = await call('POST', '/controls', { name: 'in use', type: 'Local' });
  await db.db.query('UPDATE Monitors SET ControlId = ? WHERE Id = ?', [used.body.id, monitors[2]], db.name);
  const refused = await call('DELETE', `/controls/${used.body.id}`);
  t.is(refused.status, 409);
  t.is(refused.body.kind, 'CONFLICT_ERROR');
  t.is((await call('GET', `/controls/${used.body.id}`)).status, 200);
  await db.db.query('UPDATE Monitors SET ControlId = NULL WHERE Id = ?', [monitors[2]], db.name);
  t.is((await call('DELETE', `/controls/${used.body.id}`)).status, 204);
  t.is((await call('GET', `/controls/${used.body.id}`)).status, 404);
  t.is((await call('DELETE', `/controls/${used.body.id}`)).status, 404);
});

test('controls: paging', async (t) => {
  for (let i = 0; i < 3; i++) await call('POST', '/controls', { name: `page${i}`, type: 'Local' });
  const res = await call('GET', '/controls?page=2&page_size=2&per_page=1000');
  t.is(res.status, 200);
  t.is(res.body.per_page, 2);
  t.is(res.body.current_page, 2);
  t.is(res.body.items.length, 2);
  t.is(res.body.last_page, Math.ceil(res.body.total / 2));
  t.is((await call('GET', '/controls')).body.per_page, 25);
  t.is((await call('GET', '/controls?page_size=1000')).status, 200);
  for (const q of ['page_size=1001', 'page=-1', 'page_size=z'])
    t.is((await call('GET', `/controls?${q}`)).status, 400, q);
});

test('controls and presets are gated on Control (not System)', async (t) => {
  t.is((await viewer('GET', '/controls')).status, 200);
  t.is((await viewer('GET', '/control_presets')).status, 200);
  const write = await viewer('POST', '/controls', { name: 'x', type: 'Local' });
  t.is(write.status, 403);
  t.is(write.body.kind, 'PERMISSION_DENIED_ERROR');
  t.is((await viewer('POST', '/control_presets', { monitor_id: monitors[0], preset: 99, label: 'x' })).status, 403);
  t.is((await systemOnly('GET', '/controls')).status, 403);
  t.is((await systemOnly('GET', '/control_presets')).status, 403);
});

// ---------------------------------------------------------------- control presets

test.serial('presets: create, get, patch, list with monitor filter, delete', async (t) => {
  const [m1, m2] = monitors;
  const created = await call('POST', '/control_presets', { monitor_id: m1, preset: 1, label: 'Gate', extra: true });
  t.is(created.status, 201);
  t.deepEqual(created.body, { monitor_id: m1, preset: 1, label: 'Gate' });
  await call('POST', '/control_presets', { monitor_id: m1, preset: 2, label: 'Drive' });
  await call('POST', '/control_presets', { monitor_id: m2, preset: 1, label: 'Door' });
  t.deepEqual((await call('GET', `/control_presets/${m1}/1`)).body, created.body);
  const patched = await call('PATCH', `/control_presets/${m1}/1`, { label: 'Front gate' });
  t.is(patched.status, 200);
  t.deepEqual(patched.body, { monitor_id: m1, preset: 1, label: 'Front gate' });
  t.deepEqual((await call('PATCH', `/control_presets/${m1}/1`, {})).body, patched.body);
  const ofM1 = await call('GET', `/control_presets?monitor_id=${m1}&per_page=1000`);
  t.deepEqual(ofM1.body, {
    items: [patched.body, { monitor_id: m1, preset: 2, label: 'Drive' }],
    total: 2,
    per_page: 25,
    current_page: 1,
    last_page: 1,
  });
  t.is((await call('GET', '/control_presets')).body.total, 3);
  t.is((await call('DELETE', `/control_presets/${m1}/2`)).status, 204);
  t.is((await call('GET', `/control_presets/${m1}/2`)).status, 404);
  t.is((await call('DELETE', `/control_presets/${m1}/2`)).status, 404);
  t.is((await call('PATCH', `/control_presets/${m1}/2`, { label: 'x' })).status, 404);
});

test.serial('presets: duplicate → 409, unknown monitor → 400, validation → 400 naming the field', async (t) => {
  const [m1] = monitors;
  const dup = await call('POST', '/control_presets', { monitor_id: m1, preset: 1, label: 'again' });
  t.is(dup.status, 409);
  t.is(dup.body.kind, 'CONFLICT_ERROR');
  const unknown = await call('POST', '/control_presets', { monitor_id: 999999, preset: 1, label: 'x' });
  t.is(unknown.status, 400);
  t.deepEqual(fields(unknown.body), ['monitor_id']);
  const cases: Array<[object, string]> = [
    [{ monitor_id: m1, preset: 5, label: 'l'.repeat(65) }, 'label'],
    [{ monitor_id: m1, label: 'x' }, 'preset'],
    [{ monitor_id: m1, preset: -1, label: 'x' }, 'preset'],
    [{ preset: 3, label: 'x' }, 'monitor_id'],
  ];
  for (const [body, field] of cases) {
    const res = await call('POST', '/control_presets', body);
    t.is(res.status, 400, JSON.stringify(body).slice(0, 60));
    t.true(fields(res.body).includes(field), JSON.stringify(res.body.details));
  }
  t.deepEqual(fields((await call('PATCH', `/control_presets/${m1}/1`, { label: 'l'.repeat(65) })).body), ['label']);
  t.is((await call('GET', '/control_presets/x/1')).status, 400);
  t.is((await call('GET', `/control_presets/${m1}/-1`)).status, 400);
  t.is((await call('GET', '/control_presets?monitor_id=-1')).status, 400);
});

test.serial('presets: paging limits', async (t) => {
  const [, , m3] = monitors;
  for (let p = 0; p < 5; p++) await call('POST', '/control_presets', { monitor_id: m3, preset: p, label: `p${p}` });
  const page = await call('GET', `/control_presets?monitor_id=${m3}&page=2&page_size=2`);
  t.deepEqual(
    page.body.items.map((p: any) => p.preset),
    [2, 3],
  );
  t.is(page.body.last_page, 3);
  t.is((await call('GET', '/control_presets?page_size=1000')).status, 200);
  for (const q of ['page_size=1001', 'page=-1']) t.is((await call('GET', `/control_presets?${q}`)).status, 400, q);
});

test.serial('presets: the monitor row ACL filters lists, hides rows (404) and guards writes (403)', async (t) => {
  const [m1, m2, m3] = monitors;
  const listed = await restricted('GET', '/control_presets?page_size=1000');
  t.is(listed.status, 200);
  t.true(listed.body.items.length > 0);
  t.true(
    listed.body.items.every((p: any) => p.monitor_id === m1 || p.monitor_id === m2),
    JSON.stringify(listed.body.items),
  );
  t.is(listed.body.total, listed.body.items.length);
  t.is((await restricted('GET', `/control_presets?monitor_id=${m3}`)).body.total, 0);
  t.is((await call('GET', `/control_presets?monitor_id=${m3}`)).body.total, 5); // unrestricted sees them
  const hidden = await restricted('GET', `/control_presets/${m3}/0`);
  t.is(hidden.status, 404);
  t.is(hidden.body.kind, 'MESSAGE_NOT_FOUND_ERROR');
  t.is((await restricted('PATCH', `/control_presets/${m3}/0`, { label: 'x' })).status, 404);
  t.is((await restricted('DELETE', `/control_presets/${m3}/0`)).status, 404);
  t.is((await restricted('GET', `/control_presets/${m2}/1`)).status, 200);
  t.is((await restricted('PATCH', `/control_presets/${m2}/1`, { label: 'x' })).status, 403);
  t.is((await restricted('DELETE', `/control_presets/${m2}/1`)).status, 403);
  t.is((await restricted('POST', '/control_presets', { monitor_id: m2, preset: 7, label: 'x' })).status, 403);
  const create = await restricted('POST', '/control_presets', { monitor_id: m3, preset: 7, label: 'x' });
  t.is(create.status, 400, 'a hidden monitor reads as unknown');
  t.is((await restricted('POST', '/control_presets', { monitor_id: m1, preset: 7, label: 'mine' })).status, 201);
  t.is((await restricted('PATCH', `/control_presets/${m1}/7`, { label: 'still mine' })).body.label, 'still mine');
  t.is((await restricted('DELETE', `/control_presets/${m1}/7`)).status, 204);
});
