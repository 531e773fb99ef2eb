// Montage layouts, run states and user preferences: System-gated tables of ZoneMinder's web UI.
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addUser, caller, checkBadIds, checkPaging, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';

let app: TestApp;
let db: FreshDatabase;
let admin: Call;
let viewer: Call;
let other: Call;
let adminId: number;
let viewerId: number;
let otherId: number;

test.before(async () => {
  db = await zmDatabase('systables');
  adminId = await addUser(db, 'admin', { System: 'Edit' });
  viewerId = await addUser(db, 'viewer', { System: 'View' });
  otherId = await addUser(db, 'other', { Monitors: 'Edit', Devices: 'Edit', Control: 'Edit', Events: 'Edit' });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  admin = caller(app, await login(app, 'admin'));
  viewer = caller(app, await login(app, 'viewer'));
  other = caller(app, await login(app, 'other'));
});
test.after.always(async () => app?.close());

const sql = (q: string, params: unknown[] = []) => db.db.query<Record<string, any>>(q, params, db.name);

test('all three families need System: View reads, Edit writes, other features get 403', async (t) => {
  for (const path of ['/montage_layouts', '/states', '/user_preferences']) {
    t.is((await viewer('GET', path)).status, 200, path);
    const write = await viewer('POST', path, {});
    t.is(write.status, 403, path);
    t.is(write.body.kind, 'PERMISSION_DENIED_ERROR');
    t.is((await other('GET', path)).status, 403, path);
  }
});

// ---------------------------------------------------------------- montage layouts

const POSITIONS = JSON.stringify({ default: { float: 'left', width: '25%' }, monitors: { 1: { width: '50%' } } });

test.serial('montage layouts: create, get, patch, list, delete', async (t) => {
  const created = await admin('POST', '/montage_layouts', {
    name: 'Four up',
    positions: POSITIONS,
    user_id: adminId,
    id: 9,
  });
  t.is(created.status, 201, created.text);
  t.deepEqual(created.body, { id: created.body.id, name: 'Four up', positions: POSITIONS, user_id: adminId });
  const id = created.body.id;
  t.deepEqual((await viewer('GET', `/montage_layouts/${id}`)).body, created.body);
  const patched = await admin('PATCH', `/montage_layouts/${id}`, { name: 'Two up', positions: null });
  t.deepEqual(patched.body, { id, name: 'Two up', positions: null, user_id: adminId });
  t.deepEqual((await admin('PATCH', `/montage_layouts/${id}`, { name: null, user_id: 0 })).body, {
    ...patched.body,
    user_id: 0,
  });
  const [row] = await sql('SELECT Name, Positions, UserId FROM MontageLayouts WHERE Id = ?', [id]);
  t.deepEqual({ ...row, UserId: Number(row.UserId) }, { Name: 'Two up', Positions: null, UserId: 0 });
  t.true((await viewer('GET', '/montage_layouts?page_size=1000')).body.items.some((l: any) => l.id === id));
  t.is((await admin('DELETE', `/montage_layouts/${id}`)).status, 204);
  for (const method of ['GET', 'PATCH', 'DELETE']) {
    t.is((await admin(method, `/montage_layouts/${id}`, method === 'PATCH' ? {} : undefined)).status, 404, method);
  }
});

test('montage layouts: validation → 400 naming the field', async (t) => {
  const cases: Array<[object, string]> = [
    [{ user_id: 0 }, 'name'],
    [{ name: 'x' }, 'user_id'],
    [{ name: '', user_id: 0 }, 'name'],
    [{ name: 'x', user_id: -1 }, 'user_id'],
    [{ name: 'x', user_id: 1.5 }, 'user_id'],
    [{ name: 'x', user_id: 987654 }, 'user_id'],
    [{ name: 'x', user_id: 0, positions: '{not json' }, 'positions'],
    [{ name: 'x', user_id: 0, positions: 5 }, 'positions'],
  ];
  for (const [body, field] of cases) {
    const res = await admin('POST', '/montage_layouts', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(fields(res.body).includes(field), `${field}: ${JSON.stringify(res.body.details)}`);
  }
  const id = (await admin('POST', '/montage_layouts', { name: 'v', user_id: viewerId })).body.id;
  t.true(fields((await admin('PATCH', `/montage_layouts/${id}`, { positions: '[' })).body).includes('positions'));
  t.true(fields((await admin('PATCH', `/montage_layouts/${id}`, { user_id: 987654 })).body).includes('user_id'));
});

test.serial('montage layouts: paging and ids', async (t) => {
  for (let i = 0; i < 3; i++) await admin('POST', '/montage_layouts', { name: `p${i}`, user_id: 0 });
  await checkPaging(t, viewer, '/montage_layouts');
  await checkBadIds(t, admin, '/montage_layouts');
});

// ---------------------------------------------------------------- states

test.serial('states: create, get, patch (update_state_preset), list, delete', async (t) => {
  const created = await admin('POST', '/states', {
    name: 'Day',
    definition: '1:Always:Always:OnMotion,2:None:None:None',
    is_active: 0,
  });
  t.is(created.status, 201, created.text);
  t.deepEqual(created.body, {
    id: created.body.id,
    name: 'Day',
    definition: '1:Always:Always:OnMotion,2:None:None:None',
    is_active: 0,
  });
  const id = created.body.id;
  t.deepEqual((await viewer('GET', `/states/${id}`)).body, created.body);
  const patched = await admin('PATCH', `/states/${id}`, { definition: '1:Modect:1,2:None:0', name: null });
  t.is(patched.status, 200);
  t.deepEqual(patched.body, { ...created.body, definition: '1:Modect:1,2:None:0' }, 'the legacy form is accepted too');
  t.true((await viewer('GET', '/states?page_size=1000')).body.items.some((s: any) => s.id === id));
  t.is((await admin('DELETE', `/states/${id}`)).status, 204);
  for (const method of ['GET', 'PATCH', 'DELETE']) {
    t.is((await admin(method, `/states/${id}`, method === 'PATCH' ? {} : undefined)).status, 404, method);
  }
});

test.serial('states: at most one is active', async (t) => {
  const a = (await admin('POST', '/states', { name: 'A', definition: '', is_active: 1 })).body;
  const b = (await admin('POST', '/states', { name: 'B', definition: '', is_active: 1 })).body;
  t.is(a.is_active, 1);
  t.is(b.is_active, 1);
  t.is((await admin('GET', `/states/${a.id}`)).body.is_active, 0, 'creating an active state deactivates the others');
  t.is((await admin('PATCH', `/states/${a.id}`, { is_active: 1 })).body.is_active, 1);
  t.is((await admin('GET', `/states/${b.id}`)).body.is_active, 0);
  t.is((await admin('PATCH', `/states/${a.id}`, { is_active: 0 })).body.is_active, 0);
  const active = await sql('SELECT COUNT(*) AS n FROM States WHERE IsActive = 1');
  t.is(Number(active[0].n), 0);
  await admin('DELETE', `/states/${a.id}`);
  await admin('DELETE', `/states/${b.id}`);
});

test('states: unique names (409) and validation (400 naming the field)', async (t) => {
  await admin('POST', '/states', { name: 'Night', definition: '', is_active: 0 });
  t.is((await admin('POST', '/states', { name: 'Night', definition: '', is_active: 0 })).status, 409);
  const other2 = (await admin('POST', '/states', { name: 'Away', definition: '', is_active: 0 })).body.id;
  t.is((await admin('PATCH', `/states/${other2}`, { name: 'Night' })).status, 409);
  const ok = { name: 'v', definition: '', is_active: 0 };
  const cases: Array<[object, string]> = [
    [{ definition: '', is_active: 0 }, 'name'],
    [{ name: 'x', is_active: 0 }, 'definition'],
    [{ name: 'x', definition: '' }, 'is_active'],
    [{ ...ok, name: '' }, 'name'],
    [{ ...ok, name: 'n'.repeat(65) }, 'name'],
    [{ ...ok, is_active: 2 }, 'is_active'],
    [{ ...ok, definition: 'x:Always:Always:Always' }, 'definition'],
    [{ ...ok, definition: '1:Sometimes:Always:Always' }, 'definition'],
    [{ ...ok, definition: '1:Always:Ondemand:Always' }, 'definition'],
    [{ ...ok, definition: '1:Always:Always:OnMotion,' }, 'definition'],
    [{ ...ok, definition: '1:Modect:2' }, 'definition'],
    [{ ...ok, definition: '1:Always' }, 'definition'],
  ];
  for (const [body, field] of cases) {
    const res = await admin('POST', '/states', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(fields(res.body).includes(field), `${field}: ${JSON.stringify(res.body.details)}`);
  }
  t.true(fields((await admin('PATCH', `/states/${other2}`, { definition: 'nope' })).body).includes('definition'));
});

test.serial('states: paging and ids', async (t) => {
  for (let i = 0; i < 3; i++) await admin('POST', '/states', { name: `page-${i}`, definition: '', is_active: 0 });
  await checkPaging(t, viewer, '/states');
  await checkBadIds(t, admin, '/states');
});

// ---------------------------------------------------------------- user preferences

test.serial('user preferences: System View sees only its own rows; System Edit sees and manages all', async (t) => {
  const mine = await admin('POST', '/user_preferences', { user_id: viewerId, name: 'theme', value: 'dark' });
  t.is(mine.status, 201, mine.text);
  t.deepEqual(mine.body, { id: mine.body.id, user_id: viewerId, name: 'theme', value: 'dark' });
  const foreign = (await admin('POST', '/user_preferences', { user_id: adminId, name: 'theme', value: 'light' })).body;
  const list = await viewer('GET', '/user_preferences?page_size=1000');
  t.deepEqual(list.body.items, [mine.body]);
  t.is(list.body.total, 1);
  t.deepEqual((await viewer('GET', `/user_preferences/${mine.body.id}`)).body, mine.body);
  const hidden = await viewer('GET', `/user_preferences/${foreign.id}`);
  t.is(hidden.status, 404, 'another user’s row reads like a missing one');
  t.is(hidden.body.kind, 'MESSAGE_NOT_FOUND_ERROR');
  const all = (await admin('GET', '/user_preferences?page_size=1000')).body.items.map((p: any) => p.id);
  t.true(all.includes(mine.body.id) && all.includes(foreign.id));
  t.deepEqual((await admin('GET', `/user_preferences/${mine.body.id}`)).body, mine.body);
});

test.serial('user preferences: patch, delete, duplicates and validation', async (t) => {
  const created = (await admin('POST', '/user_preferences', { user_id: adminId, name: 'zoom' })).body;
  t.is(created.value, null);
  t.deepEqual((await admin('PATCH', `/user_preferences/${created.id}`, { value: '150', name: null })).body, {
    ...created,
    value: '150',
  });
  t.deepEqual((await admin('PATCH', `/user_preferences/${created.id}`, { value: null, user_id: otherId })).body, {
    ...created,
    user_id: otherId,
  });
  t.is((await admin('POST', '/user_preferences', { user_id: otherId, name: 'zoom' })).status, 409);
  const second = (await admin('POST', '/user_preferences', { user_id: otherId, name: 'zoom2' })).body;
  t.is((await admin('PATCH', `/user_preferences/${second.id}`, { name: 'zoom' })).status, 409);
  const cases: Array<[object, string]> = [
    [{ name: 'x' }, 'user_id'],
    [{ user_id: adminId }, 'name'],
    [{ user_id: adminId, name: null }, 'name'],
    [{ user_id: adminId, name: '' }, 'name'],
    [{ user_id: adminId, name: 'n'.repeat(65) }, 'name'],
    [{ user_id: -1, name: 'x' }, 'user_id'],
    [{ user_id: 987654, name: 'x' }, 'user_id'],
    [{ user_id: adminId, name: 'x', value: 7 }, 'value'],
  ];
  for (const [body, field] of cases) {
    const res = await admin('POST', '/user_preferences', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(fields(res.body).includes(field), `${field}: ${JSON.stringify(res.body.details)}`);
  }
  t.true(
    fields((await admin('PATCH', `/user_preferences/${created.id}`, { user_id: 987654 })).body).includes('user_id'),
  );
  t.is((await admin('DELETE', `/user_preferences/${created.id}`)).status, 204);
  for (const method of ['GET', 'PATCH', 'DELETE']) {
    t.is(
      (await admin(method, `/user_preferences/${created.id}`, method === 'PATCH' ? {} : undefined)).status,
      404,
      method,
    );
  }
});

test.serial('user preferences: paging and ids', async (t) => {
  for (let i = 0; i < 3; i++) await admin('POST', '/user_preferences', { user_id: viewerId, name: `page-${i}` });
  await checkPaging(t, viewer, '/user_preferences');
  await checkBadIds(t, admin, '/user_preferences');
});
