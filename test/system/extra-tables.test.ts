// The ZoneMinder 1.39 tables the reference does not expose: Notifications (owner-scoped),
// Menu_Items and Maps (System), EncoderTemplates (Monitors). Happy paths, errors, paging and
// validation.
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';

let db: FreshDatabase;
let app: TestApp;
let sys: Call;
let sysView: Call;
let alice: Call;
let bob: Call;
let monitorsEdit: Call;
let monitorsView: Call;
const users: Record<string, number> = {};

test.before(async () => {
  db = await zmDatabase('extra');
  // Times go out as UTC instants: pin ZoneMinder's zone so they do not follow the machine's.
  await db.db.query("INSERT INTO Config (Name, Value, Type) VALUES ('ZM_TIMEZONE', 'UTC', 'string')", [], db.name);
  users.sys = await addUser(db, 'sys', { System: 'Edit' });
  users.sysview = await addUser(db, 'sysview', { System: 'View' });
  users.alice = await addUser(db, 'alice', {});
  users.bob = await addUser(db, 'bob', { Stream: 'View' });
  await addUser(db, 'monedit', { Monitors: 'Edit' });
  await addUser(db, 'monview', { Monitors: 'View' });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  sys = caller(app, await login(app, 'sys'));
  sysView = caller(app, await login(app, 'sysview'));
  alice = caller(app, await login(app, 'alice'));
  bob = caller(app, await login(app, 'bob'));
  monitorsEdit = caller(app, await login(app, 'monedit'));
  monitorsView = caller(app, await login(app, 'monview'));
});
test.after.always(async () => app?.close());

async function pagingWorks(t: any, call: Call, path: string): Promise<void> {
  const res = await call('GET', `${path}?page=2&page_size=1&per_page=1000`);
  t.is(res.status, 200, path);
  t.like(res.body, { per_page: 1, current_page: 2 });
  t.is(res.body.items.length, Math.min(1, Math.max(0, res.body.total - 1)));
  t.is(res.body.last_page, Math.max(1, res.body.total));
  for (const q of ['page_size=1001', 'page=-1']) t.is((await call('GET', `${path}?${q}`)).status, 400, `${path}?${q}`);
}

// ---------------------------------------------------------------- notifications

test.serial('notifications: a user registers and manages their own token', async (t) => {
  const created = await alice('POST', '/notifications', {
    token: 'fcm-alice-1',
    platform: 'android',
    monitor_list: '1,2',
    interval: 60,
    app_version: '1.2.3',
  });
  t.is(created.status, 201);
  t.like(created.body, {
    user_id: users.alice,
    token: 'fcm-alice-1',
    platform: 'android',
    monitor_list: '1,2',
    interval: 60,
    push_state: 'enabled',
    app_version: '1.2.3',
    profile: null,
    badge_count: 0,
    last_notified_at: null,
  });
  t.regex(created.body.created_on, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  t.deepEqual((await alice('GET', `/notifications/${created.body.id}`)).body, created.body);
  const patched = await alice('PATCH', `/notifications/${created.body.id}`, {
    push_state: 'disabled',
    badge_count: 3,
    last_notified_at: '2026-11-22T08:53:58',
    monitor_list: null,
  });
  t.is(patched.status, 200);
  t.like(patched.body, {
    push_state: 'disabled',
    badge_count: 3,
    last_notified_at: '2026-11-22T08:53:58Z',
    monitor_list: null,
    token: 'fcm-alice-1',
  });
  const [row] = await db.db.query<any>(
    'SELECT UserId, PushState, BadgeCount FROM Notifications WHERE Id = ?',
    [created.body.id],
    db.name,
  );
  t.deepEqual({ ...row }, { UserId: users.alice, PushState: 'disabled', BadgeCount: 3 });
  t.is((await alice('DELETE', `/notifications/${created.body.id}`)).status, 204);
  t.is((await alice('GET', `/notifications/${created.body.id}`)).status, 404);
});

test.serial('notifications: others see only their own; System View sees all; System Edit manages all', async (t) => {
  const mine = (await alice('POST', '/notifications', { token: 'apns-alice', platform: 'ios' })).body;
  const theirs = (await bob('POST', '/notifications', { token: 'web-bob', platform: 'web' })).body;
  t.deepEqual(
    (await alice('GET', '/notifications')).body.items.map((n: any) => n.id),
    [mine.id],
  );
  t.deepEqual((await alice('GET', `/notifications?user_id=${users.bob}`)).body.items, []);
  t.is((await alice('GET', `/notifications/${theirs.id}`)).status, 404, "another user's row reads as missing");
  t.is((await alice('PATCH', `/notifications/${theirs.id}`, { badge_count: 1 })).status, 404);
  t.is((await alice('DELETE', `/notifications/${theirs.id}`)).status, 404);
  const all = await sysView('GET', '/notifications');
  t.true(all.body.items.some((n: any) => n.id === mine.id) && all.body.items.some((n: any) => n.id === theirs.id));
  t.deepEqual(
    (await sysView('GET', `/notifications?user_id=${users.bob}`)).body.items.map((n: any) => n.id),
    [theirs.id],
  );
  t.is(
    (await sysView('PATCH', `/notifications/${theirs.id}`, { badge_count: 1 })).status,
    403,
    'System View reads, cannot write',
  );
  const forBob = await alice('POST', '/notifications', { token: 'sneaky', platform: 'web', user_id: users.bob });
  t.is(forBob.status, 403);
  t.deepEqual(fields(forBob.body), ['user_id']);
  const bySys = await sys('POST', '/notifications', { token: 'for-bob', platform: 'android', user_id: users.bob });
  t.is(bySys.status, 201);
  t.is(bySys.body.user_id, users.bob);
  t.is((await sys('PATCH', `/notifications/${theirs.id}`, { badge_count: 7 })).body.badge_count, 7);
  t.is((await sys('DELETE', `/notifications/${theirs.id}`)).status, 204);
  t.is((await sys('POST', '/notifications', { token: 'ghost', platform: 'web', user_id: 999999 })).status, 400);
  await pagingWorks(t, sys, '/notifications');
});

test.serial('notifications: validation and duplicate tokens', async (t) => {
  const cases: Array<[object, string]> = [
    [{ platform: 'android' }, 'token'],
    [{ token: '', platform: 'android' }, 'token'],
    [{ token: 'x'.repeat(513), platform: 'android' }, 'token'],
    [{ token: 't1', platform: 'symbian' }, 'platform'],
    [{ token: 't1', platform: 'web', monitor_list: '1, 2' }, 'monitor_list'],
    [{ token: 't1', platform: 'web', interval: -1 }, 'interval'],
    [{ token: 't1', platform: 'web', app_version: 'v'.repeat(33) }, 'app_version'],
    [{ token: 't1', platform: 'web', push_state: 'maybe' }, 'push_state'],
  ];
  for (const [body, field] of cases) {
    const res = await alice('POST', '/notifications', body);
    t.is(res.status, 400, JSON.stringify(body).slice(0, 60));
    t.true(
      fields(res.body).some((f) => f.includes(field)),
      `${field}: ${JSON.stringify(res.body.details)}`,
    );
  }
  const first = await alice('POST', '/notifications', { token: 'same-token', platform: 'web' });
  t.is(first.status, 201);
  t.is((await bob('POST', '/notifications', { token: 'same-token', platform: 'web' })).status, 409);
  const badDate = await alice('PATCH', `/notifications/${first.body.id}`, { last_notified_at: '2026-02-30T00:00:00' });
  t.is(badDate.status, 400);
  t.deepEqual(fields(badDate.body), ['last_notified_at']);
  t.is((await alice('GET', '/notifications/abc')).status, 400);
});

// ---------------------------------------------------------------- menu items

test('menu items: CRUD in menu order, System-gated', async (t) => {
  const a = await sys('POST', '/menu-items', { menu_key: 'Console', sort_order: 20, label: 'Home', enabled: true });
  t.is(a.status, 201);
  t.deepEqual(a.body, {
    id: a.body.id,
    menu_key: 'Console',
    enabled: 1,
    label: 'Home',
    sort_order: 20,
    icon: null,
    icon_type: 'material',
    link: null,
  });
  const b = await sys('POST', '/menu-items', {
    menu_key: 'Events',
    sort_order: 10,
    enabled: 0,
    icon: 'event',
    icon_type: 'fontawesome',
    link: '/events',
  });
  t.is(b.body.enabled, 0);
  const list = await sysView('GET', '/menu-items');
  t.deepEqual(
    list.body.items.map((i: any) => i.menu_key),
    ['Events', 'Console'],
  );
  const patched = await sys('PATCH', `/menu-items/${b.body.id}`, { enabled: 1, label: null, icon_type: 'none' });
  t.like(patched.body, { enabled: 1, icon_type: 'none', icon: 'event', sort_order: 10 });
  t.is((await sys('POST', '/menu-items', { menu_key: 'Console' })).status, 409);
  t.is((await sysView('POST', '/menu-items', { menu_key: 'X' })).status, 403);
  t.is((await monitorsEdit('GET', '/menu-items')).status, 403);
  t.is((await sys('DELETE', `/menu-items/${a.body.id}`)).status, 204);
  t.is((await sys('GET', `/menu-items/${a.body.id}`)).status, 404);
  await pagingWorks(t, sys, '/menu-items');
});

test('menu items: validation', async (t) => {
  const cases: Array<[object, string]> = [
    [{}, 'menu_key'],
    [{ menu_key: 'k'.repeat(33) }, 'menu_key'],
    [{ menu_key: 'v1', enabled: 2 }, 'enabled'],
    [{ menu_key: 'v2', sort_order: 40000 }, 'sort_order'],
    [{ menu_key: 'v3', icon_type: 'svg' }, 'icon_type'],
    [{ menu_key: 'v4', link: 'l'.repeat(256) }, 'link'],
  ];
  for (const [body, field] of cases) {
    const res = await sys('POST', '/menu-items', body);
    t.is(res.status, 400, JSON.stringify(body).slice(0, 60));
    t.true(
      fields(res.body).some((f) => f.includes(field)),
      `${field}: ${JSON.stringify(res.body.details)}`,
    );
  }
});

// ---------------------------------------------------------------- maps

test('maps: coordinates count, parents, cycles, delete re-parents children', async (t) => {
  const site = await sys('POST', '/maps', { name: 'Site', filename: 'site.png', coords: '0,0 100,0 100,50.5 0,50.5' });
  t.is(site.status, 201);
  t.deepEqual(site.body, {
    id: site.body.id,
    name: 'Site',
    filename: 'site.png',
    num_coords: 4,
    coords: '0,0 100,0 100,50.5 0,50.5',
    parent_id: null,
  });
  const floor = await sys('POST', '/maps', { name: 'Floor 1', parent_id: site.body.id });
  t.like(floor.body, { num_coords: 0, coords: '', filename: '', parent_id: site.body.id });
  const room = await sys('POST', '/maps', { name: 'Room', parent_id: floor.body.id, coords: '-1,-2 3,4' });
  t.is(room.body.num_coords, 2);
  t.deepEqual(
    (await sysView('GET', `/maps?parent_id=${site.body.id}`)).body.items.map((m: any) => m.id),
    [floor.body.id],
  );
  const self = await sys('PATCH', `/maps/${site.body.id}`, { parent_id: site.body.id });
  t.is(self.status, 400);
  t.deepEqual(fields(self.body), ['parent_id']);
  const cycle = await sys('PATCH', `/maps/${site.body.id}`, { parent_id: room.body.id });
  t.is(cycle.status, 400, 'a map cannot move under its own descendant');
  t.is((await sys('POST', '/maps', { name: 'Orphan', parent_id: 999999 })).status, 400);
  const moved = await sys('PATCH', `/maps/${room.body.id}`, { parent_id: null, coords: '1,1 2,2 3,3' });
  t.like(moved.body, { parent_id: null, num_coords: 3 });
  t.is((await sys('DELETE', `/maps/${site.body.id}`)).status, 204);
  t.is((await sys('GET', `/maps/${floor.body.id}`)).body.parent_id, null, 'children move to the top level');
  t.is((await sys('GET', `/maps/${site.body.id}`)).status, 404);
  t.is((await sys('DELETE', `/maps/${site.body.id}`)).status, 404);
  await pagingWorks(t, sys, '/maps');
});

test('maps: validation and the System gate', async (t) => {
  const cases: Array<[object, string]> = [
    [{}, 'name'],
    [{ name: 'm'.repeat(65) }, 'name'],
    [{ name: 'x', coords: '1,2,3' }, 'coords'],
    [{ name: 'x', coords: '1,2  3,4' }, 'coords'],
    [{ name: 'x', coords: '1,2 '.repeat(70).trim() }, 'coords'],
    [{ name: 'x', filename: 'f'.repeat(65) }, 'filename'],
    [{ name: 'x', parent_id: -1 }, 'parent_id'],
  ];
  for (const [body, field] of cases) {
    const res = await sys('POST', '/maps', body);
    t.is(res.status, 400, JSON.stringify(body).slice(0, 60));
    t.true(
      fields(res.body).some((f) => f.includes(field)),
      `${field}: ${JSON.stringify(res.body.details)}`,
    );
  }
  t.is((await monitorsEdit('GET', '/maps')).status, 403);
  t.is((await sysView('POST', '/maps', { name: 'x' })).status, 403);
});

// ---------------------------------------------------------------- encoder templates

test('encoder templates: CRUD, encoder filter, (encoder, name) unique, Monitors gate', async (t) => {
  const created = await monitorsEdit('POST', '/encoder-templates', {
    encoder: 'libx264',
    name: 'Balanced',
    params: 'preset=fast\ncrf=23',
  });
  t.is(created.status, 201);
  t.deepEqual(created.body, {
    id: created.body.id,
    encoder: 'libx264',
    name: 'Balanced',
    description: null,
    params: 'preset=fast\ncrf=23',
  });
  await monitorsEdit('POST', '/encoder-templates', {
    encoder: 'h264_vaapi',
    name: 'Balanced',
    params: 'qp=24',
    description: 'GPU',
  });
  const filtered = await monitorsView('GET', '/encoder-templates?encoder=libx264');
  t.deepEqual(filtered.body.items, [created.body]);
  const dup = await monitorsEdit('POST', '/encoder-templates', { encoder: 'libx264', name: 'Balanced', params: '' });
  t.is(dup.status, 409);
  const patched = await monitorsEdit('PATCH', `/encoder-templates/${created.body.id}`, {
    description: 'default',
    params: 'crf=20',
  });
  t.like(patched.body, { description: 'default', params: 'crf=20', name: 'Balanced' });
  t.is((await monitorsView('PATCH', `/encoder-templates/${created.body.id}`, { params: 'x' })).status, 403);
  t.is((await sys('GET', '/encoder-templates')).status, 403, 'System alone does not open monitor configuration');
  t.is((await monitorsEdit('DELETE', `/encoder-templates/${created.body.id}`)).status, 204);
  t.is((await monitorsEdit('GET', `/encoder-templates/${created.body.id}`)).status, 404);
  await pagingWorks(t, monitorsView, '/encoder-templates');
  const cases: Array<[object, string]> = [
    [{ name: 'n', params: '' }, 'encoder'],
    [{ encoder: 'e'.repeat(33), name: 'n', params: '' }, 'encoder'],
    [{ encoder: 'e', name: 'n'.repeat(65), params: '' }, 'name'],
    [{ encoder: 'e', name: 'n' }, 'params'],
  ];
  for (const [body, field] of cases) {
    const res = await monitorsEdit('POST', '/encoder-templates', body);
    t.is(res.status, 400, JSON.stringify(body).slice(0, 60));
    t.true(
      fields(res.body).some((f) => f.includes(field)),
      `${field}: ${JSON.stringify(res.body.details)}`,
    );
  }
});
