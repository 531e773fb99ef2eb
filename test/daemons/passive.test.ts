// Passive mode (daemon.enabled = false, the default): every supervision route is registered and
// answers 503 "daemon manager not available" after authentication and the System check;
// POST /system/state still applies a run state to the database; PATCH /monitors/{id}/state is a
// 503, never a silent 200.
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { request } from '../helpers/http.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';

let app: TestApp;
let db: FreshDatabase;
let admin: Call;
let viewer: Call;
let other: Call;

const sql = (q: string, params: unknown[] = []) => db.db.query<Record<string, any>>(q, params, db.name);

test.before(async () => {
  db = await zmDatabase('dmnpassive');
  await addUser(db, 'admin', { System: 'Edit', Monitors: 'Edit' });
  await addUser(db, 'viewer', { System: 'View', Monitors: 'Edit' });
  await addUser(db, 'other', { Monitors: 'Edit', Events: 'Edit' });
  await sql(
    "INSERT INTO Monitors (Id, Name, Type, Capturing, Analysing, Recording) VALUES (1, 'One', 'Ffmpeg', 'Always', 'Always', 'Always'), (2, 'Two', 'Ffmpeg', 'Always', 'None', 'None')",
  );
  await sql(
    "INSERT INTO States (Name, Definition, IsActive) VALUES ('night', '1:None:None:None,2:Always:Always:OnMotion', 0), ('day', '1:Always:Always:Always', 1)",
  );
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  admin = caller(app, await login(app, 'admin'));
  viewer = caller(app, await login(app, 'viewer'));
  other = caller(app, await login(app, 'other'));
});
test.after.always(async () => app?.close());

const READS = ['/daemons', '/daemons/zmc%20-m%201', '/system/status'];
const WRITES = [
  '/daemons/zmc%20-m%201/start',
  '/daemons/zmc%20-m%201/stop',
  '/daemons/zmc%20-m%201/restart',
  '/daemons/zmc%20-m%201/reload',
  '/system/startup',
  '/system/shutdown',
  '/system/restart',
  '/system/logrot',
];

test('every supervision route answers 503 with the envelope in passive mode', async (t) => {
  for (const path of READS) {
    const res = await admin('GET', path);
    t.is(res.status, 503, path);
    t.is(res.body.kind, 'SERVICE_UNAVAILABLE_ERROR', path);
    t.regex(res.body.error_message, /daemon manager not available/i, path);
  }
  for (const path of WRITES) {
    const res = await admin('POST', path);
    t.is(res.status, 503, path);
    t.regex(res.body.error_message, /daemon manager not available/i, path);
  }
  // An expected 503: a warning line naming the reason, not an error with a stack.
  const lines = app.logs.filter((l) => l.path === '/api/v3/system/status');
  t.true(lines.some((l) => l.msg === 'request not served' && l.level === 40 && l.status === 503));
  t.false(
    lines.some((l) => l.level >= 50),
    JSON.stringify(lines.filter((l) => l.level >= 50)),
  );
});

test('RBAC: System View reads, System Edit acts, other features and no token are refused', async (t) => {
  for (const path of READS) {
    t.is((await viewer('GET', path)).status, 503, `viewer GET ${path} passes the System View check`);
    const denied = await other('GET', path);
    t.is(denied.status, 403, path);
    t.is(denied.body.kind, 'PERMISSION_DENIED_ERROR');
    t.is((await request(app.api(path))).status, 401, path);
  }
  for (const path of [...WRITES, '/system/state', '/server/control/restart']) {
    const res = await viewer('POST', path, path === '/system/state' ? { state_name: 'day' } : undefined);
    t.is(res.status, 403, `viewer POST ${path}`);
    t.deepEqual(res.body.details, [
      ['feature', 'system'],
      ['required', 'Edit'],
    ]);
    t.is((await other('POST', path)).status, 403, path);
    t.is((await request(app.api(path), { method: 'POST' })).status, 401, path);
  }
});

test.serial('POST /system/state applies the States row to Monitors and marks it active', async (t) => {
  const res = await admin('POST', '/system/state', { state_name: 'night' });
  t.is(res.status, 200, res.text);
  t.true(res.body.success);
  t.regex(res.body.message, /applied to 2 monitors \(daemons managed by zoneminder\.service\)/);
  const rows = await sql('SELECT Id, Capturing, Analysing, Recording FROM Monitors ORDER BY Id');
  t.deepEqual(
    rows.map((r) => [r.Id, r.Capturing, r.Analysing, r.Recording]),
    [
      [1, 'None', 'None', 'None'],
      [2, 'Always', 'Always', 'OnMotion'],
    ],
  );
  const states = await sql('SELECT Name, IsActive FROM States ORDER BY Name');
  t.deepEqual(
    states.map((s) => [s.Name, s.IsActive]),
    [
      ['day', 0],
      ['night', 1],
    ],
  );
});

test.serial('POST /system/state: unknown state 404, missing name 400, nothing changed', async (t) => {
  const before = await sql('SELECT Id, Capturing FROM Monitors ORDER BY Id');
  const unknown = await admin('POST', '/system/state', { state_name: 'nope' });
  t.is(unknown.status, 404);
  t.is(unknown.body.kind, 'CONFIG_NOT_FOUND_ERROR');
  t.deepEqual(unknown.body.details, [['state_name', 'nope']]);
  const missing = await admin('POST', '/system/state', {});
  t.is(missing.status, 400);
  t.true(
    fields(missing.body).some((f) => f.includes('state_name')),
    JSON.stringify(missing.body.details),
  );
  t.deepEqual(await sql('SELECT Id, Capturing FROM Monitors ORDER BY Id'), before);
});

test('PATCH /monitors/{id}/state is 503 in passive mode, 404 for a missing monitor, 400 without an action', async (t) => {
  const res = await admin('PATCH', '/monitors/1/state', { state: 'start' });
  t.is(res.status, 503);
  t.regex(res.body.error_message, /daemon manager not available/i);
  t.deepEqual(res.body.details, [
    ['monitor_id', '1'],
    ['state', 'start'],
  ]);
  t.is((await admin('PATCH', '/monitors/99/state', { state: 'stop' })).status, 404);
  t.is((await admin('PATCH', '/monitors/1/state', {})).status, 400);
});

test('POST /server/control/{action} refuses an unknown action with 400', async (t) => {
  const res = await admin('POST', '/server/control/reboot');
  t.is(res.status, 400);
  t.deepEqual(fields(res.body), ['action']);
});
