// X10 triggers (Control, monitor row ACL), object types (Events) and the locale route
// (authentication only).
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startAppWithAcl, type AclApp } from '../helpers/acl-app.js';
import { addUser, caller, checkBadIds, checkPaging, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { formatOffset, offsetSeconds } from '../../src/features/system/locale-service.js';

let app: TestApp;
let aclApp: AclApp;
let db: FreshDatabase;
let control: Call;
let controlView: Call;
let events: Call;
let eventsView: Call;
let nobody: Call;
let restricted: Call;
const monitors: number[] = [];

const sql = (q: string, params: unknown[] = []) => db.db.query<Record<string, any>>(q, params, db.name);

async function insertMonitor(name: string): Promise<number> {
  await sql('INSERT INTO Monitors (Name) VALUES (?)', [name]);
  return Number((await sql('SELECT Id FROM Monitors WHERE Name = ?', [name]))[0].Id);
}

test.before(async () => {
  db = await zmDatabase('x10');
  for (let i = 0; i < 8; i++) monitors.push(await insertMonitor(`cam${i}`));
  await addUser(db, 'ctl', { Control: 'Edit' });
  await addUser(db, 'ctlview', { Control: 'View', Events: 'Edit' });
  await addUser(db, 'ev', { Events: 'Edit' });
  await addUser(db, 'evview', { Events: 'View', Control: 'Edit' });
  await addUser(db, 'nobody', {});
  await addUser(db, 'limited', { Control: 'Edit' });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  control = caller(app, await login(app, 'ctl'));
  controlView = caller(app, await login(app, 'ctlview'));
  events = caller(app, await login(app, 'ev'));
  eventsView = caller(app, await login(app, 'evview'));
  nobody = caller(app, await login(app, 'nobody'));
  // monitors[0] editable, monitors[1] visible only, every other monitor hidden.
  aclApp = await startAppWithAcl(
    db,
    { scope: async () => ({ visible: new Set([monitors[0], monitors[1]]), editable: new Set([monitors[0]]) }) },
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

// ---------------------------------------------------------------- triggers_x10

test.serial('triggers_x10: create, get, patch, list, delete by monitor id', async (t) => {
  const mid = monitors[7];
  const created = await control('POST', '/triggers_x10', {
    monitor_id: mid,
    activation: 'A1',
    alarm_input: 'A2',
    alarm_output: null,
  });
  t.is(created.status, 201, created.text);
  t.deepEqual(created.body, { monitor_id: mid, activation: 'A1', alarm_input: 'A2', alarm_output: null });
  t.deepEqual((await controlView('GET', `/triggers_x10/${mid}`)).body, created.body);
  const patched = await control('PATCH', `/triggers_x10/${mid}`, { alarm_output: 'B3', activation: null });
  t.deepEqual(patched.body, { monitor_id: mid, activation: null, alarm_input: 'A2', alarm_output: 'B3' });
  const [row] = await sql('SELECT Activation, AlarmInput, AlarmOutput FROM TriggersX10 WHERE MonitorId = ?', [mid]);
  t.deepEqual({ ...row }, { Activation: null, AlarmInput: 'A2', AlarmOutput: 'B3' });
  t.true((await controlView('GET', '/triggers_x10?page_size=1000')).body.items.some((x: any) => x.monitor_id === mid));
  t.is((await control('DELETE', `/triggers_x10/${mid}`)).status, 204);
  for (const method of ['GET', 'PATCH', 'DELETE']) {
    t.is((await control(method, `/triggers_x10/${mid}`, method === 'PATCH' ? {} : undefined)).status, 404, method);
  }
});

test('triggers_x10: one per monitor (409); the monitor must exist (400); validation', async (t) => {
  const mid = monitors[6];
  t.is((await control('POST', '/triggers_x10', { monitor_id: mid })).status, 201);
  t.is((await control('POST', '/triggers_x10', { monitor_id: mid })).status, 409);
  const ghost = await control('POST', '/triggers_x10', { monitor_id: 987654 });
  t.is(ghost.status, 400);
  t.deepEqual(fields(ghost.body), ['monitor_id']);
  const cases: Array<[object, string]> = [
    [{}, 'monitor_id'],
    [{ monitor_id: -1 }, 'monitor_id'],
    [{ monitor_id: 'x' }, 'monitor_id'],
    [{ monitor_id: mid, activation: 'a'.repeat(33) }, 'activation'],
    [{ monitor_id: mid, alarm_input: 'a'.repeat(33) }, 'alarm_input'],
    [{ monitor_id: mid, alarm_output: 5 }, 'alarm_output'],
  ];
  for (const [body, field] of cases) {
    const res = await control('POST', '/triggers_x10', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(fields(res.body).includes(field), `${field}: ${JSON.stringify(res.body.details)}`);
  }
  t.true(
    fields((await control('PATCH', `/triggers_x10/${mid}`, { alarm_output: 'o'.repeat(33) })).body).includes(
      'alarm_output',
    ),
  );
});

test.serial('triggers_x10: the monitor row ACL filters, hides and protects', async (t) => {
  const [editable, viewOnly, hidden] = monitors;
  for (const mid of [editable, viewOnly, hidden])
    t.is((await control('POST', '/triggers_x10', { monitor_id: mid, activation: `M${mid}` })).status, 201);
  const listed = (await restricted('GET', '/triggers_x10?page_size=1000')).body;
  t.deepEqual(listed.items.map((x: any) => x.monitor_id).sort(), [editable, viewOnly].sort());
  t.is(listed.total, 2);
  for (const method of ['GET', 'PATCH', 'DELETE']) {
    const res = await restricted(
      method,
      `/triggers_x10/${hidden}`,
      method === 'PATCH' ? { activation: 'x' } : undefined,
    );
    t.is(res.status, 404, `${method}: a hidden monitor's trigger reads as missing`);
    t.is(res.body.kind, 'MESSAGE_NOT_FOUND_ERROR');
  }
  t.is((await restricted('GET', `/triggers_x10/${viewOnly}`)).body.activation, `M${viewOnly}`);
  t.is((await restricted('PATCH', `/triggers_x10/${viewOnly}`, { activation: 'x' })).status, 403);
  t.is((await restricted('DELETE', `/triggers_x10/${viewOnly}`)).status, 403);
  t.is((await restricted('PATCH', `/triggers_x10/${editable}`, { activation: 'E' })).body.activation, 'E');
  await control('DELETE', `/triggers_x10/${viewOnly}`);
  t.is((await restricted('POST', '/triggers_x10', { monitor_id: viewOnly })).status, 403);
  const onHidden = await restricted('POST', '/triggers_x10', { monitor_id: monitors[5] });
  t.is(onHidden.status, 400, 'a hidden monitor is as unknown as a missing one');
  t.is((await restricted('DELETE', `/triggers_x10/${editable}`)).status, 204);
  await control('DELETE', `/triggers_x10/${hidden}`);
});

test.serial('triggers_x10: paging, ids and the Control gate', async (t) => {
  for (const mid of monitors.slice(2, 5)) await control('POST', '/triggers_x10', { monitor_id: mid });
  await checkPaging(t, controlView, '/triggers_x10');
  await checkBadIds(t, control, '/triggers_x10', 'monitor_id');
  t.is((await controlView('POST', '/triggers_x10', { monitor_id: monitors[5] })).status, 403);
  t.is((await events('GET', '/triggers_x10')).status, 403);
});

// ---------------------------------------------------------------- object types

test.serial('object types: create, get, patch, list, delete', async (t) => {
  const created = await events('POST', '/object-types', { name: 'person', human: 'Person' });
  t.is(created.status, 201, created.text);
  t.deepEqual(created.body, { id: created.body.id, name: 'person', human: 'Person' });
  const id = created.body.id;
  t.deepEqual((await eventsView('GET', `/object-types/${id}`)).body, created.body);
  t.deepEqual((await events('PATCH', `/object-types/${id}`, { human: 'A person' })).body, {
    ...created.body,
    human: 'A person',
  });
  t.deepEqual((await events('PATCH', `/object-types/${id}`, { name: null })).body, {
    id,
    name: null,
    human: 'A person',
  });
  t.true((await eventsView('GET', '/object-types?page_size=1000')).body.items.some((o: any) => o.id === id));
  t.is((await events('DELETE', `/object-types/${id}`)).status, 204);
  for (const method of ['GET', 'PATCH', 'DELETE']) {
    t.is((await events(method, `/object-types/${id}`, method === 'PATCH' ? {} : undefined)).status, 404, method);
  }
  t.is(
    (await events('GET', '/object-types/-5')).status,
    404,
    'ids are signed: a negative id is valid input, just not found',
  );
});

test('object types: an empty body is a row of nulls; names are unique; validation', async (t) => {
  const empty = await events('POST', '/object-types', {});
  t.is(empty.status, 201);
  t.deepEqual(empty.body, { id: empty.body.id, name: null, human: null });
  await events('POST', '/object-types', { name: 'car' });
  t.is((await events('POST', '/object-types', { name: 'car' })).status, 409);
  t.is((await events('PATCH', `/object-types/${empty.body.id}`, { name: 'car' })).status, 409);
  for (const [body, field] of [
    [{ name: 'n'.repeat(33) }, 'name'],
    [{ human: 5 }, 'human'],
  ] as Array<[object, string]>) {
    const res = await events('POST', '/object-types', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(fields(res.body).includes(field));
  }
});

test.serial('object types: paging, ids and the Events gate', async (t) => {
  for (let i = 0; i < 3; i++) await events('POST', '/object-types', { name: `label${i}` });
  await checkPaging(t, eventsView, '/object-types');
  await checkBadIds(t, events, '/object-types', 'id', [
    'abc',
    '1.5',
    '2147483648',
    '-2147483649',
    '99999999999999999999',
  ]);
  t.is((await eventsView('POST', '/object-types', {})).status, 403);
  t.is((await control('GET', '/object-types')).status, 403);
});

// ---------------------------------------------------------------- locale

const setOption = (name: string, value: string) =>
  sql(
    "INSERT INTO Config (Name, Value, Type, Category) VALUES (?, ?, 'string', 'system') ON DUPLICATE KEY UPDATE Value = VALUES(Value)",
    [name, value],
  );

test('offsets are formatted ±HH:MM and follow DST', (t) => {
  t.is(formatOffset(19800), '+05:30');
  t.is(formatOffset(-12600), '-03:30');
  t.is(formatOffset(0), '+00:00');
  t.is(offsetSeconds('Asia/Kolkata', new Date('2026-01-15T12:00:00Z')), 19800);
  t.is(offsetSeconds('America/New_York', new Date('2026-01-15T12:00:00Z')), -18000);
  t.is(offsetSeconds('America/New_York', new Date('2026-07-15T12:00:00Z')), -14400);
  t.is(offsetSeconds('Pacific/Chatham', new Date('2026-01-15T12:00:00Z')), 49500);
});

test.serial('locale: ZM_TIMEZONE and the format patterns; unset values fall back or read null', async (t) => {
  const processZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const bare = await nobody('GET', '/system/locale');
  t.is(bare.status, 200, 'authentication only: no feature needed');
  t.like(bare.body, { timezone: processZone, date_format: null, datetime_format: null, time_format: null });
  t.is(bare.body.utc_offset, formatOffset(bare.body.utc_offset_seconds));
  t.is(bare.body.utc_offset_seconds, offsetSeconds(processZone, new Date()));

  await setOption('ZM_TIMEZONE', 'Asia/Kolkata');
  await setOption('ZM_DATE_FORMAT_PATTERN', 'yyyy-MM-dd');
  await setOption('ZM_DATETIME_FORMAT_PATTERN', 'yyyy-MM-dd HH:mm:ss');
  await setOption('ZM_TIME_FORMAT_PATTERN', 'HH:mm:ss');
  t.deepEqual((await control('GET', '/system/locale')).body, {
    timezone: 'Asia/Kolkata',
    utc_offset: '+05:30',
    utc_offset_seconds: 19800,
    date_format: 'yyyy-MM-dd',
    datetime_format: 'yyyy-MM-dd HH:mm:ss',
    time_format: 'HH:mm:ss',
  });

  await setOption('ZM_TIMEZONE', 'Mars/Olympus_Mons');
  const unknown = await control('GET', '/system/locale');
  t.is(unknown.body.timezone, processZone, 'an unknown zone falls back to the process zone');
  await control('GET', '/system/locale');
  t.is(app.logs.filter((l) => l.ZM_TIMEZONE === 'Mars/Olympus_Mons').length, 1, 'logged once');
  await setOption('ZM_TIMEZONE', '');
});

test('locale: a token is required; a query token is refused', async (t) => {
  const res = await fetch(app.api('/system/locale'));
  t.is(res.status, 401);
  t.is((await res.json()).kind, 'UNAUTHORIZED_ERROR');
});
