// Roles (User_Roles) and their row-level rules (Role_Monitors_Permissions,
// Role_Groups_Permissions): CRUD, validation, paging, the System gate, and that changes reach
// users at once for row scopes (the ACL cache is dropped) and within 5 s for feature areas.
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';

let db: FreshDatabase;
let app: TestApp;
let sys: Call;
let sysView: Call;
let controlOnly: Call;
const ids: Record<string, number> = {};

async function insert(table: string, row: Record<string, unknown>): Promise<number> {
  const cols = Object.keys(row);
  await db.db.query(
    `INSERT INTO \`${table}\` (${cols.map((c) => `\`${c}\``).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
    Object.values(row),
    db.name,
  );
  const [last] = await db.db.query<{ Id: number }>(`SELECT MAX(Id) AS Id FROM \`${table}\``, [], db.name);
  return Number(last.Id);
}

test.before(async () => {
  db = await zmDatabase('roles');
  ids.m1 = await insert('Monitors', { Name: 'm1' });
  ids.m2 = await insert('Monitors', { Name: 'm2' });
  ids.g1 = await insert('Groups', { Name: 'g1' });
  await insert('Groups_Monitors', { GroupId: ids.g1, MonitorId: ids.m2 });
  await addUser(db, 'sys', { System: 'Edit' });
  await addUser(db, 'sysview', { System: 'View' });
  await addUser(db, 'ctl', { Control: 'Edit' });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  sys = caller(app, await login(app, 'sys'));
  sysView = caller(app, await login(app, 'sysview'));
  controlOnly = caller(app, await login(app, 'ctl'));
});
test.after.always(async () => app?.close());

// ---------------------------------------------------------------- roles

test('roles: create, get, partial update, delete', async (t) => {
  const created = await sys('POST', '/roles', {
    name: 'Operators',
    description: 'Night shift',
    stream: 'View',
    monitors: 'Create',
    control: 'Edit',
  });
  t.is(created.status, 201);
  t.deepEqual(created.body, {
    id: created.body.id,
    name: 'Operators',
    description: 'Night shift',
    stream: 'View',
    events: 'None',
    control: 'Edit',
    monitors: 'Create',
    groups: 'None',
    devices: 'None',
    snapshots: 'None',
    system: 'None',
  });
  const [row] = await db.db.query<any>('SELECT * FROM User_Roles WHERE Id = ?', [created.body.id], db.name);
  t.like(row, { Name: 'Operators', Stream: 'View', Monitors: 'Create', Control: 'Edit', Events: 'None' });
  t.deepEqual((await sysView('GET', `/roles/${created.body.id}`)).body, created.body);
  const patched = await sys('PATCH', `/roles/${created.body.id}`, {
    events: 'View',
    name: null,
    description: null,
    unknown_key: 1,
  });
  t.is(patched.status, 200);
  t.deepEqual(patched.body, { ...created.body, events: 'View', description: null });
  t.is((await sys('DELETE', `/roles/${created.body.id}`)).status, 204);
  t.is((await sys('GET', `/roles/${created.body.id}`)).status, 404);
  t.is((await sys('PATCH', `/roles/${created.body.id}`, { events: 'Edit' })).status, 404);
  t.is((await sys('DELETE', `/roles/${created.body.id}`)).status, 404);
});

test('roles: validation names the field; duplicate names are 409', async (t) => {
  const cases: Array<[object, string]> = [
    [{ name: 'x', stream: 'Edit' }, 'stream'],
    [{ name: 'x', system: 'Create' }, 'system'],
    [{ name: 'x', events: 'Everything' }, 'events'],
    [{ name: 'n'.repeat(65) }, 'name'],
    [{ name: '' }, 'name'],
    [{ description: 'no name' }, 'name'],
  ];
  for (const [body, field] of cases) {
    const res = await sys('POST', '/roles', body);
    t.is(res.status, 400, JSON.stringify(body).slice(0, 60));
    t.true(
      fields(res.body).some((f) => f.includes(field)),
      `${field}: ${JSON.stringify(res.body.details)}`,
    );
  }
  t.is((await sys('POST', '/roles', { name: 'Twice' })).status, 201);
  const dup = await sys('POST', '/roles', { name: 'Twice' });
  t.is(dup.status, 409);
  t.is(dup.body.kind, 'CONFLICT_ERROR');
  for (const bad of ['abc', '-1', '1.5']) t.is((await sys('GET', `/roles/${bad}`)).status, 400, bad);
});

test('roles: paging', async (t) => {
  for (let i = 0; i < 3; i++) await sys('POST', '/roles', { name: `page-${i}` });
  const res = await sys('GET', '/roles?page=2&page_size=2&per_page=1000');
  t.is(res.status, 200);
  t.like(res.body, { per_page: 2, current_page: 2 });
  t.is(res.body.items.length, 2);
  t.is(res.body.last_page, Math.ceil(res.body.total / 2));
  t.is((await sys('GET', '/roles')).body.per_page, 25);
  for (const q of ['page_size=1001', 'page=-1', 'page_size=x']) t.is((await sys('GET', `/roles?${q}`)).status, 400, q);
});

test('roles and role rules are System-gated: View reads, Edit writes', async (t) => {
  t.is((await sysView('GET', '/roles')).status, 200);
  t.is((await sysView('GET', '/role-monitors-permissions')).status, 200);
  t.is((await sysView('POST', '/roles', { name: 'nope' })).status, 403);
  t.is(
    (await sysView('POST', '/role-groups-permissions', { role_id: 1, group_id: ids.g1, permission: 'View' })).status,
    403,
  );
  for (const path of ['/roles', '/role-monitors-permissions', '/role-groups-permissions']) {
    const res = await controlOnly('GET', path);
    t.is(res.status, 403, path);
    t.is(res.body.kind, 'PERMISSION_DENIED_ERROR');
  }
});

// ---------------------------------------------------------------- role rules

test('role monitor permissions: CRUD, role_id filter, unknown references, duplicates', async (t) => {
  const role = (await sys('POST', '/roles', { name: 'Rules' })).body.id;
  const other = (await sys('POST', '/roles', { name: 'Other rules' })).body.id;
  const created = await sys('POST', '/role-monitors-permissions', {
    role_id: role,
    monitor_id: ids.m1,
    permission: 'View',
  });
  t.is(created.status, 201);
  t.deepEqual(created.body, { id: created.body.id, role_id: role, monitor_id: ids.m1, permission: 'View' });
  await sys('POST', '/role-monitors-permissions', { role_id: other, monitor_id: ids.m1, permission: 'None' });
  const filtered = await sys('GET', `/role-monitors-permissions?role_id=${role}`);
  t.deepEqual(filtered.body.items, [created.body]);
  t.is(filtered.body.total, 1);
  const dup = await sys('POST', '/role-monitors-permissions', {
    role_id: role,
    monitor_id: ids.m1,
    permission: 'Edit',
  });
  t.is(dup.status, 409);
  const unknown = await sys('POST', '/role-monitors-permissions', {
    role_id: 999999,
    monitor_id: 999999,
    permission: 'View',
  });
  t.is(unknown.status, 400);
  t.deepEqual(fields(unknown.body), ['role_id', 'monitor_id']);
  const bad = await sys('POST', '/role-monitors-permissions', {
    role_id: role,
    monitor_id: ids.m2,
    permission: 'Create',
  });
  t.is(bad.status, 400);
  t.true(fields(bad.body).some((f) => f.includes('permission')));
  const patched = await sys('PATCH', `/role-monitors-permissions/${created.body.id}`, { permission: 'Edit' });
  t.is(patched.body.permission, 'Edit');
  t.is(
    (await sys('PATCH', `/role-monitors-permissions/${created.body.id}`, { permission: null })).body.permission,
    'Edit',
  );
  t.is((await sys('DELETE', `/role-monitors-permissions/${created.body.id}`)).status, 204);
  t.is((await sys('GET', `/role-monitors-permissions/${created.body.id}`)).status, 404);
  t.is((await sys('DELETE', `/role-monitors-permissions/${created.body.id}`)).status, 404);
});

test('role group permissions: CRUD and references; deleting a role removes its rules', async (t) => {
  const role = (await sys('POST', '/roles', { name: 'Group rules' })).body.id;
  const created = await sys('POST', '/role-groups-permissions', {
    role_id: role,
    group_id: ids.g1,
    permission: 'Edit',
  });
  t.is(created.status, 201);
  t.deepEqual(created.body, { id: created.body.id, role_id: role, group_id: ids.g1, permission: 'Edit' });
  t.deepEqual((await sys('GET', `/role-groups-permissions/${created.body.id}`)).body, created.body);
  const unknown = await sys('POST', '/role-groups-permissions', {
    role_id: role,
    group_id: 999999,
    permission: 'View',
  });
  t.is(unknown.status, 400);
  t.deepEqual(fields(unknown.body), ['group_id']);
  t.is(
    (await sys('PATCH', `/role-groups-permissions/${created.body.id}`, { permission: 'None' })).body.permission,
    'None',
  );
  t.is((await sys('DELETE', `/roles/${role}`)).status, 204);
  t.is((await sys('GET', `/role-groups-permissions/${created.body.id}`)).status, 404, 'the rule went with its role');
});

// ---------------------------------------------------------------- effect on users

test('a role rule change applies to its users at once (row scopes are not served stale)', async (t) => {
  const role = (await sys('POST', '/roles', { name: 'Viewers' })).body.id;
  await addUser(db, 'member', { Monitors: 'View' }, { roleId: role });
  const member = caller(app, await login(app, 'member'));
  const seen = async () => (await member('GET', '/monitors')).body.items.map((m: any) => m.id).sort();
  t.deepEqual(await seen(), [ids.m1, ids.m2]); // also fills the member's cached scope
  const rule = await sys('POST', '/role-monitors-permissions', {
    role_id: role,
    monitor_id: ids.m1,
    permission: 'None',
  });
  t.deepEqual(await seen(), [ids.m2]);
  t.is((await member('GET', `/monitors/${ids.m1}`)).status, 404);
  await sys('PATCH', `/role-monitors-permissions/${rule.body.id}`, { permission: 'View' });
  t.deepEqual(await seen(), [ids.m1, ids.m2]);
  const groupRule = await sys('POST', '/role-groups-permissions', {
    role_id: role,
    group_id: ids.g1,
    permission: 'None',
  });
  t.deepEqual(await seen(), [ids.m1]);
  await sys('DELETE', `/role-groups-permissions/${groupRule.body.id}`);
  await sys('DELETE', `/role-monitors-permissions/${rule.body.id}`);
  t.deepEqual(await seen(), [ids.m1, ids.m2]);
  // Deleting the role keeps the user, without a role.
  await sys('DELETE', `/roles/${role}`);
  const [user] = await db.db.query<any>("SELECT RoleId FROM Users WHERE Username = 'member'", [], db.name);
  t.is(user.RoleId, null);
});

test('a role area change reaches tokens already issued within 5 s', async (t) => {
  const role = (await sys('POST', '/roles', { name: 'Controllers', control: 'View' })).body.id;
  await addUser(db, 'roled', {}, { roleId: role });
  const roled = caller(app, await login(app, 'roled'));
  t.is((await roled('GET', '/controls')).status, 200, 'Control View through the role');
  await sys('PATCH', `/roles/${role}`, { control: 'None' });
  const started = Date.now();
  let status = 200;
  while (status === 200 && Date.now() - started < 7000) {
    await sleep(250);
    status = (await roled('GET', '/controls')).status;
  }
  t.is(status, 403);
  t.true(Date.now() - started <= 5600, `took ${Date.now() - started} ms`);
});
