// /groups (nesting rules), /groups-monitors, and the System-gated permission routes
// /monitors-permissions and /groups-permissions, including their immediate effect on the ACL.
import test from 'ava';
import bcrypt from 'bcryptjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { isEnvelope, request } from '../helpers/http.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
const tokens: Record<string, string> = {};
const ids: Record<string, number> = {};

const q = (sql: string, params: unknown[] = []) => db.db.query<any>(sql, params, db.name);

const call = (method: string, path: string, body?: unknown, as = 'admin') =>
  request(app.api(path), {
    method,
    headers: {
      authorization: `Bearer ${tokens[as]}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const detailNames = (body: any): string => (body?.details ?? []).map(([k]: string[]) => k).join(',');
const monitor = async (name: string) =>
  Number((await q('INSERT INTO Monitors (Name) VALUES (?) RETURNING Id', [name]))[0].Id);
const group = async (name: string, parent: number | null = null) =>
  (await call('POST', '/groups', { name, parent_id: parent })).body.id as number;

test.before(async () => {
  db = await zmDatabase('groups');
  const users: Array<[string, Record<string, string>]> = [
    ['admin', { Monitors: 'Edit', Groups: 'Edit', System: 'Edit' }],
    ['grouper', { Monitors: 'Edit', Groups: 'Edit' }],
    ['groupview', { Monitors: 'View', Groups: 'View' }],
    ['sysview', { System: 'View' }],
    ['target', { Monitors: 'View', Groups: 'Edit' }],
    ['restricted', { Monitors: 'View', Groups: 'Edit' }],
  ];
  for (const [name, perms] of users) {
    ids[name] = await insertUser(db, { username: name, password: name, stored: bcrypt.hashSync(name, 4), perms });
  }
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  for (const name of Object.keys(ids)) {
    const res = await request(app.api('/auth/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: name, password: name }),
    });
    tokens[name] = res.body.access_token;
  }
});
test.after.always(async () => app?.close());

test('groups: create, nest, get, rename keeping the parent, move to top level, paging', async (t) => {
  const top = await call('POST', '/groups', { name: 'Outside', extra: 1 });
  t.is(top.status, 201);
  t.deepEqual(top.body, { id: top.body.id, name: 'Outside', parent_id: null });
  const child = await call('POST', '/groups', { name: 'Gate', parent_id: top.body.id });
  t.is(child.body.parent_id, top.body.id);
  t.deepEqual((await call('GET', `/groups/${child.body.id}`)).body, child.body);
  const renamed = await call('PUT', `/groups/${child.body.id}`, { name: 'Front gate' });
  t.deepEqual(renamed.body, { ...child.body, name: 'Front gate' }, 'parent_id omitted keeps the parent');
  const moved = await call('PUT', `/groups/${child.body.id}`, { parent_id: null });
  t.is(moved.body.parent_id, null, 'null makes it top level');
  const list = await call('GET', '/groups?page=1&page_size=1000&per_page=2');
  t.true(list.body.items.some((g: any) => g.id === child.body.id));
  t.is((await call('GET', '/groups?page_size=1001')).status, 400);
  t.is((await call('GET', '/groups?page=2&page_size=1')).body.current_page, 2);
});

test('groups: self-parent, cycles and unknown parents are 400 naming parent_id', async (t) => {
  const a = await group('A');
  const b = await group('B', a);
  const c = await group('C', b);
  const self = await call('PUT', `/groups/${a}`, { parent_id: a });
  t.is(self.status, 400);
  t.regex(detailNames(self.body), /parent_id/);
  const cycle = await call('PUT', `/groups/${a}`, { parent_id: c });
  t.is(cycle.status, 400);
  t.regex(detailNames(cycle.body), /parent_id/);
  t.is((await call('GET', `/groups/${a}`)).body.parent_id, null, 'nothing changed');
  const unknown = await call('POST', '/groups', { name: 'orphan', parent_id: 999999 });
  t.is(unknown.status, 400);
  t.regex(detailNames(unknown.body), /parent_id/);
  t.is((await call('PUT', `/groups/${c}`, { parent_id: a })).status, 200, 'moving up the tree is fine');
  for (const body of [{ name: '' }, { name: 'x'.repeat(65) }, {}, { name: 'ok', parent_id: -1 }]) {
    const res = await call('POST', '/groups', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(isEnvelope(res.body));
  }
});

test('groups: delete removes subgroups and memberships, not monitors', async (t) => {
  const top = await group('Doomed');
  const sub = await group('Doomed child', top);
  const m = await monitor('survivor');
  t.is((await call('POST', '/groups-monitors', { group_id: sub, monitor_id: m })).status, 201);
  const del = await call('DELETE', `/groups/${top}`);
  t.is(del.status, 204);
  t.is(del.text, '');
  t.is((await call('GET', `/groups/${top}`)).status, 404);
  t.is((await call('GET', `/groups/${sub}`)).status, 404);
  t.is((await q('SELECT COUNT(*) AS n FROM Groups_Monitors WHERE MonitorId = ?', [m]))[0].n, 0);
  t.is((await q('SELECT COUNT(*) AS n FROM Monitors WHERE Id = ?', [m]))[0].n, 1);
  t.is((await call('DELETE', `/groups/${top}`)).status, 404);
});

test('groups: Groups View reads but cannot write; no Groups area is 403', async (t) => {
  const g = await group('RO');
  t.is((await call('GET', `/groups/${g}`, undefined, 'groupview')).status, 200);
  t.is((await call('POST', '/groups', { name: 'x' }, 'groupview')).status, 403);
  t.is((await call('PUT', `/groups/${g}`, { name: 'x' }, 'groupview')).status, 403);
  t.is((await call('DELETE', `/groups/${g}`, undefined, 'groupview')).status, 403);
  t.is((await call('GET', '/groups', undefined, 'sysview')).status, 403);
  t.is((await call('GET', '/groups-monitors', undefined, 'sysview')).status, 403);
});

test('groups-monitors: create, duplicate 409, unknown references 400, get, list, delete', async (t) => {
  const g = await group('Members');
  const m = await monitor('member');
  const created = await call('POST', '/groups-monitors', { group_id: g, monitor_id: m });
  t.is(created.status, 201);
  t.deepEqual(created.body, { id: created.body.id, group_id: g, monitor_id: m });
  const dup = await call('POST', '/groups-monitors', { group_id: g, monitor_id: m });
  t.is(dup.status, 409);
  t.is(dup.body.kind, 'CONFLICT_ERROR');
  const unknown = await call('POST', '/groups-monitors', { group_id: 999999, monitor_id: 999998 });
  t.is(unknown.status, 400);
  t.regex(detailNames(unknown.body), /group_id/);
  t.regex(detailNames(unknown.body), /monitor_id/);
  t.is((await call('POST', '/groups-monitors', { group_id: g })).status, 400);
  t.deepEqual((await call('GET', `/groups-monitors/${created.body.id}`)).body, created.body);
  const list = await call('GET', '/groups-monitors?page_size=1000');
  t.true(list.body.items.some((r: any) => r.id === created.body.id));
  t.is((await call('GET', '/groups-monitors?page_size=1001')).status, 400);
  t.is((await call('DELETE', `/groups-monitors/${created.body.id}`, undefined, 'groupview')).status, 403);
  t.is((await call('DELETE', `/groups-monitors/${created.body.id}`)).status, 204);
  t.is((await call('GET', `/groups-monitors/${created.body.id}`)).status, 404);
});

test('row ACL on groups and memberships: None hides the subtree, View is read-only, hidden monitors stay hidden', async (t) => {
  const secret = await group('Secret');
  const secretChild = await group('Secret child', secret);
  const shared = await group('Shared');
  const open = await group('Open');
  const hiddenMonitor = await monitor('hidden cam');
  const plainMonitor = await monitor('plain cam');
  const hiddenMember = (await call('POST', '/groups-monitors', { group_id: open, monitor_id: hiddenMonitor })).body.id;
  const plainMember = (await call('POST', '/groups-monitors', { group_id: open, monitor_id: plainMonitor })).body.id;
  await q('INSERT INTO Groups_Permissions (UserId, GroupId, Permission) VALUES (?, ?, ?), (?, ?, ?)', [
    ids.restricted,
    secret,
    'None',
    ids.restricted,
    shared,
    'View',
  ]);
  await q('INSERT INTO Monitors_Permissions (UserId, MonitorId, Permission) VALUES (?, ?, ?)', [
    ids.restricted,
    hiddenMonitor,
    'None',
  ]);

  const groups = (await call('GET', '/groups?page_size=1000', undefined, 'restricted')).body.items.map(
    (g: any) => g.id,
  );
  t.false(groups.includes(secret));
  t.false(groups.includes(secretChild), 'a row on the parent covers the subgroup');
  t.true(groups.includes(shared) && groups.includes(open));
  t.is((await call('GET', `/groups/${secretChild}`, undefined, 'restricted')).status, 404);
  t.is((await call('PUT', `/groups/${secret}`, { name: 'x' }, 'restricted')).status, 404);
  t.is((await call('PUT', `/groups/${shared}`, { name: 'x' }, 'restricted')).status, 403);
  t.is((await call('POST', '/groups', { name: 'under shared', parent_id: shared }, 'restricted')).status, 403);
  t.is(
    (await call('POST', '/groups', { name: 'under secret', parent_id: secret }, 'restricted')).status,
    400,
    'a hidden parent reads as unknown',
  );
  t.is(
    (await call('PUT', `/groups/${open}`, { name: 'Open 2' }, 'restricted')).status,
    200,
    'no row: Groups=Edit area',
  );

  const members = (await call('GET', '/groups-monitors?page_size=1000', undefined, 'restricted')).body.items.map(
    (r: any) => r.id,
  );
  t.true(members.includes(plainMember));
  t.false(members.includes(hiddenMember));
  t.is((await call('GET', `/groups-monitors/${hiddenMember}`, undefined, 'restricted')).status, 404);
  const hiddenInBody = await call(
    'POST',
    '/groups-monitors',
    { group_id: open, monitor_id: hiddenMonitor },
    'restricted',
  );
  t.is(hiddenInBody.status, 400);
  t.regex(detailNames(hiddenInBody.body), /monitor_id/);
  const intoViewOnly = await call(
    'POST',
    '/groups-monitors',
    { group_id: shared, monitor_id: plainMonitor },
    'restricted',
  );
  t.is(intoViewOnly.status, 403);
});

test('monitors-permissions: CRUD, 409 duplicate, 400 unknown references and bad levels, paging', async (t) => {
  const m = await monitor('perm cam');
  const created = await call('POST', '/monitors-permissions', {
    monitor_id: m,
    user_id: ids.target,
    permission: 'View',
  });
  t.is(created.status, 201);
  t.deepEqual(created.body, { id: created.body.id, monitor_id: m, user_id: ids.target, permission: 'View' });
  const dup = await call('POST', '/monitors-permissions', { monitor_id: m, user_id: ids.target, permission: 'Edit' });
  t.is(dup.status, 409);
  const unknown = await call('POST', '/monitors-permissions', {
    monitor_id: 999999,
    user_id: 999999,
    permission: 'View',
  });
  t.is(unknown.status, 400);
  t.regex(detailNames(unknown.body), /user_id/);
  t.regex(detailNames(unknown.body), /monitor_id/);
  const badLevel = await call('POST', '/monitors-permissions', {
    monitor_id: m,
    user_id: ids.admin,
    permission: 'Create',
  });
  t.is(badLevel.status, 400);
  t.regex(detailNames(badLevel.body), /permission/);
  t.deepEqual((await call('GET', `/monitors-permissions/${created.body.id}`)).body, created.body);
  const patched = await call('PATCH', `/monitors-permissions/${created.body.id}`, { permission: 'Edit' });
  t.is(patched.body.permission, 'Edit');
  t.is((await call('PATCH', `/monitors-permissions/${created.body.id}`, {})).body.permission, 'Edit', 'omitted keeps');
  t.is((await call('PATCH', `/monitors-permissions/${created.body.id}`, { permission: 'Maybe' })).status, 400);
  const list = await call('GET', '/monitors-permissions?page_size=1000');
  t.true(list.body.items.some((r: any) => r.id === created.body.id));
  t.is((await call('GET', '/monitors-permissions?page_size=1001')).status, 400);
  t.is((await call('DELETE', `/monitors-permissions/${created.body.id}`)).status, 204);
  t.is((await call('GET', `/monitors-permissions/${created.body.id}`)).status, 404);
  t.is((await call('PATCH', `/monitors-permissions/${created.body.id}`, { permission: 'View' })).status, 404);
});

test('groups-permissions: CRUD and validation', async (t) => {
  const g = await group('perm group');
  const created = await call('POST', '/groups-permissions', { group_id: g, user_id: ids.target, permission: 'Edit' });
  t.is(created.status, 201);
  t.deepEqual(created.body, { id: created.body.id, group_id: g, user_id: ids.target, permission: 'Edit' });
  t.is(
    (await call('POST', '/groups-permissions', { group_id: g, user_id: ids.target, permission: 'View' })).status,
    409,
  );
  const unknown = await call('POST', '/groups-permissions', {
    group_id: 999999,
    user_id: ids.target,
    permission: 'View',
  });
  t.is(unknown.status, 400);
  t.regex(detailNames(unknown.body), /group_id/);
  t.is(
    (await call('PATCH', `/groups-permissions/${created.body.id}`, { permission: 'Inherit' })).body.permission,
    'Inherit',
  );
  t.deepEqual((await call('GET', `/groups-permissions/${created.body.id}`)).body.permission, 'Inherit');
  t.true(
    (await call('GET', '/groups-permissions?page_size=1000')).body.items.some((r: any) => r.id === created.body.id),
  );
  t.is((await call('DELETE', `/groups-permissions/${created.body.id}`)).status, 204);
  t.is((await call('DELETE', `/groups-permissions/${created.body.id}`)).status, 404);
});

test('a Groups-Edit (or Monitors-Edit) user cannot change permissions: 403 on every permission route', async (t) => {
  const g = await group('escalation');
  const m = await monitor('escalation cam');
  const row = (await call('POST', '/groups-permissions', { group_id: g, user_id: ids.sysview, permission: 'View' }))
    .body.id;
  const mrow = (
    await call('POST', '/monitors-permissions', { monitor_id: m, user_id: ids.sysview, permission: 'View' })
  ).body.id;
  const attempts: Array<[string, string, unknown?]> = [
    ['POST', '/groups-permissions', { group_id: g, user_id: ids.grouper, permission: 'Edit' }],
    ['PATCH', `/groups-permissions/${row}`, { permission: 'Edit' }],
    ['DELETE', `/groups-permissions/${row}`],
    ['GET', '/groups-permissions'],
    ['GET', `/groups-permissions/${row}`],
    ['POST', '/monitors-permissions', { monitor_id: m, user_id: ids.grouper, permission: 'Edit' }],
    ['PATCH', `/monitors-permissions/${mrow}`, { permission: 'Edit' }],
    ['DELETE', `/monitors-permissions/${mrow}`],
    ['GET', '/monitors-permissions'],
  ];
  for (const [method, path, body] of attempts) {
    const res = await call(method, path, body, 'grouper');
    t.is(res.status, 403, `${method} ${path}`);
    t.is(res.body.kind, 'PERMISSION_DENIED_ERROR');
    t.true(res.body.details.some(([k, v]: string[]) => k === 'feature' && v === 'system'));
  }
  t.is((await call('GET', '/groups-permissions', undefined, 'sysview')).status, 200, 'System View reads');
  t.is(
    (await call('POST', '/groups-permissions', { group_id: g, user_id: ids.sysview, permission: 'Edit' }, 'sysview'))
      .status,
    403,
  );
  t.is(
    (await q('SELECT COUNT(*) AS n FROM Groups_Permissions WHERE UserId = ?', [ids.grouper]))[0].n,
    0,
    'nothing was written',
  );
  t.is((await q('SELECT Permission FROM Groups_Permissions WHERE Id = ?', [row]))[0].Permission, 'View');
});

test('permission changes apply at once: the ACL cache is dropped on every write', async (t) => {
  const m = await monitor('watched');
  const seen = async () =>
    (await call('GET', '/monitors?page_size=1000', undefined, 'target')).body.items.some((x: any) => x.id === m);
  t.true(await seen(), 'default allow');
  const row = (await call('POST', '/monitors-permissions', { monitor_id: m, user_id: ids.target, permission: 'None' }))
    .body.id;
  t.false(await seen(), 'hidden right after the None row was added');
  t.is((await call('GET', `/monitors/${m}`, undefined, 'target')).status, 404);
  await call('PATCH', `/monitors-permissions/${row}`, { permission: 'View' });
  t.true(await seen());
  const g = await group('covering');
  await call('POST', '/groups-monitors', { group_id: g, monitor_id: m });
  await call('DELETE', `/monitors-permissions/${row}`);
  await call('POST', '/groups-permissions', { group_id: g, user_id: ids.target, permission: 'None' });
  t.false(await seen(), 'a group None row hides its members at once');
});
