import test from 'ava';
import bcrypt from 'bcryptjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { request } from '../helpers/http.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';

let app: TestApp;
let db: FreshDatabase;
let call: Call;
let viewer: Call;
let monitorsOnly: Call;

test.before(async () => {
  db = await zmDatabase('users');
  await addUser(db, 'root', { System: 'Edit' });
  await addUser(db, 'auditor', { System: 'View' });
  await addUser(db, 'camop', { Monitors: 'Edit' });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  call = caller(app, await login(app, 'root'));
  viewer = caller(app, await login(app, 'auditor'));
  monitorsOnly = caller(app, await login(app, 'camop'));
});
test.after.always(async () => app?.close());

const storedHash = async (id: number) =>
  (await db.db.query<{ Password: string }>('SELECT Password FROM Users WHERE Id = ?', [id], db.name))[0]?.Password;
const loginStatus = async (username: string, password: string) =>
  (
    await request(app.api('/auth/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    })
  ).status;
const me = (token: string) => request(app.api('/me'), { headers: { authorization: `Bearer ${token}` } });

test('create: every field, password hashed with bcrypt and never returned; the account can log in', async (t) => {
  const body = {
    username: 'alice',
    password: 'wonder land',
    name: 'Alice',
    email: 'alice@example.org',
    phone: '+1 555',
    language: 'en_gb',
    enabled: 1,
    api_enabled: 1,
    home_view: 'console',
    max_bandwidth: 'high',
    stream: 'View',
    events: 'Edit',
    control: 'View',
    monitors: 'Create',
    groups: 'View',
    devices: 'None',
    snapshots: 'Edit',
    system: 'None',
    role: 'ignored',
  };
  const res = await call('POST', '/users', body);
  t.is(res.status, 201);
  const { password: _p, role: _r, ...expected } = body;
  t.deepEqual(res.body, { id: res.body.id, ...expected });
  t.false('password' in res.body);
  const hash = await storedHash(res.body.id);
  t.regex(hash, /^\$2[aby]\$10\$/);
  t.true(bcrypt.compareSync('wonder land', hash));
  t.is(await loginStatus('alice', 'wonder land'), 200);
  t.deepEqual((await call('GET', `/users/${res.body.id}`)).body, res.body);
});

test('create: minimal body gets ZoneMinder defaults', async (t) => {
  const res = await call('POST', '/users', { username: 'bob', password: 'b' });
  t.is(res.status, 201);
  t.like(res.body, {
    username: 'bob',
    name: '',
    email: '',
    enabled: 1,
    api_enabled: 1,
    language: null,
    max_bandwidth: null,
    stream: 'None',
    monitors: 'None',
    system: 'None',
  });
});

test('list and get never carry a password; paging', async (t) => {
  for (let i = 0; i < 3; i++) await call('POST', '/users', { username: `pager${i}`, password: 'x' });
  const list = await call('GET', '/users?page_size=1000&per_page=2');
  t.is(list.status, 200);
  t.is(list.body.per_page, 1000);
  t.true(list.body.total >= 6);
  t.false(list.text.includes('$2'));
  t.true(list.body.items.every((u: any) => !('password' in u)));
  const page = await call('GET', '/users?page=2&page_size=2');
  t.is(page.body.items.length, 2);
  t.is(page.body.current_page, 2);
  t.is(page.body.last_page, Math.ceil(page.body.total / 2));
  t.is((await call('GET', '/users')).body.per_page, 25);
  for (const q of ['page_size=1001', 'page=-1', 'page_size=x']) t.is((await call('GET', `/users?${q}`)).status, 400, q);
});

test('permission levels: each column takes only the levels its enum has', async (t) => {
  const cases: Array<[string, string]> = [
    ['stream', 'Edit'],
    ['events', 'Create'],
    ['system', 'Create'],
    ['devices', 'Admin'],
  ];
  for (const [field, level] of cases) {
    const res = await call('POST', '/users', { username: `lvl-${field}`, password: 'x', [field]: level });
    t.is(res.status, 400, `${field}=${level}`);
    t.deepEqual(fields(res.body), [field]);
  }
  const ok = await call('POST', '/users', { username: 'creator', password: 'x', monitors: 'Create', stream: 'View' });
  t.is(ok.status, 201);
  t.is(ok.body.monitors, 'Create');
  const put = await call('PUT', `/users/${ok.body.id}`, { stream: 'Edit' });
  t.is(put.status, 400);
  t.deepEqual(fields(put.body), ['stream']);
});

test('validation: 400 naming the field, never a 500', async (t) => {
  const cases: Array<[object, string]> = [
    [{ password: 'x' }, 'username'],
    [{ username: 'nopass' }, 'password'],
    [{ username: '', password: 'x' }, 'username'],
    [{ username: 'u'.repeat(65), password: 'x' }, 'username'],
    [{ username: '用户', password: 'x' }, 'username'],
    [{ username: 'emptypw', password: '' }, 'password'],
    [{ username: 'longpw', password: 'é'.repeat(37) }, 'password'],
    [{ username: 'mail', password: 'x', email: 'e'.repeat(65) }, 'email'],
    [{ username: 'lang', password: 'x', language: 'abcdefghi' }, 'language'],
    [{ username: 'bw', password: 'x', max_bandwidth: 'b'.repeat(17) }, 'max_bandwidth'],
    [{ username: 'en', password: 'x', enabled: 2 }, 'enabled'],
  ];
  for (const [body, field] of cases) {
    const res = await call('POST', '/users', body);
    t.is(res.status, 400, JSON.stringify(body).slice(0, 60));
    t.true(fields(res.body).includes(field), `${field}: ${JSON.stringify(res.body.details)}`);
  }
  t.is((await call('GET', '/users/abc')).status, 400);
  t.is((await call('GET', '/users/-4')).status, 400);
});

test('usernames are unique (409); case-insensitive when ZoneMinder compares names that way', async (t) => {
  await call('POST', '/users', { username: 'carol', password: 'x' });
  const dup = await call('POST', '/users', { username: 'carol', password: 'y' });
  t.is(dup.status, 409);
  t.is(dup.body.kind, 'CONFLICT_ERROR');
  t.deepEqual(fields(dup.body), ['username']);
  const other = await call('POST', '/users', { username: 'dave', password: 'x' });
  t.is((await call('PUT', `/users/${other.body.id}`, { username: 'carol' })).status, 409);
  t.is(
    (await call('PUT', `/users/${other.body.id}`, { username: 'dave' })).status,
    200,
    'keeping one’s own name is fine',
  );
  t.is((await call('POST', '/users', { username: 'Carol', password: 'x' })).status, 201, 'case-sensitive by default');
  await db.db.query(
    "INSERT INTO Config (Name, Value, Type, Category) VALUES ('ZM_CASE_INSENSITIVE_USERNAMES', '1', 'boolean', 'auth')",
    [],
    db.name,
  );
  try {
    const ci = await call('POST', '/users', { username: 'CAROL', password: 'x' });
    t.is(ci.status, 409);
  } finally {
    await db.db.query("DELETE FROM Config WHERE Name = 'ZM_CASE_INSENSITIVE_USERNAMES'", [], db.name);
  }
});

test('update is partial; an unchanged password keeps its hash', async (t) => {
  const created = await call('POST', '/users', { username: 'erin', password: 'pw', name: 'Erin', events: 'View' });
  const before = await storedHash(created.body.id);
  const res = await call('PUT', `/users/${created.body.id}`, { email: 'erin@example.org', language: null });
  t.is(res.status, 200);
  t.deepEqual(res.body, { ...created.body, email: 'erin@example.org' });
  t.is(await storedHash(created.body.id), before);
  const perms = await call('PUT', `/users/${created.body.id}`, { events: 'Edit', system: 'View', name: null });
  t.like(perms.body, { events: 'Edit', system: 'View', name: 'Erin' });
  t.is((await call('PUT', '/users/999999', { name: 'x' })).status, 404);
});

test('a password change revokes the account’s tokens; the new password works', async (t) => {
  const created = await call('POST', '/users', { username: 'frank', password: 'old' });
  const token = await login(app, 'frank', 'old');
  t.is((await me(token)).status, 200);
  const res = await call('PUT', `/users/${created.body.id}`, { password: 'new' });
  t.is(res.status, 200);
  t.false('password' in res.body);
  const after = await me(token);
  t.is(after.status, 401);
  t.is(after.body.kind, 'UNAUTHORIZED_ERROR');
  t.is(await loginStatus('frank', 'old'), 401);
  const fresh = await login(app, 'frank', 'new');
  t.is((await me(fresh)).status, 200);
});

test('disabling the account or its API access revokes its tokens at once', async (t) => {
  for (const [name, change] of [
    ['gina', { enabled: 0 }],
    ['hank', { api_enabled: 0 }],
  ] as const) {
    const created = await call('POST', '/users', { username: name, password: name });
    const token = await login(app, name);
    t.is((await me(token)).status, 200);
    t.is((await call('PUT', `/users/${created.body.id}`, change)).status, 200);
    t.is((await me(token)).status, 401, name);
    t.is(await loginStatus(name, name), 401, name);
  }
});

test('delete: the account and its preferences go; its token stops at once; then 404', async (t) => {
  const created = await call('POST', '/users', { username: 'ivan', password: 'ivan' });
  const id = created.body.id;
  const token = await login(app, 'ivan');
  await db.db.query("INSERT INTO User_Preferences (UserId, Name, Value) VALUES (?, 'theme', 'dark')", [id], db.name);
  const res = await call('DELETE', `/users/${id}`);
  t.is(res.status, 204);
  t.is(res.text, '');
  t.is((await me(token)).status, 401);
  const missing = await call('GET', `/users/${id}`);
  t.is(missing.status, 404);
  t.is(missing.body.kind, 'USER_NOT_FOUND_ERROR');
  t.is(missing.body.code, 0);
  t.is((await call('DELETE', `/users/${id}`)).status, 404);
  const prefs = await db.db.query<{ n: number }>(
    'SELECT COUNT(*) AS n FROM User_Preferences WHERE UserId = ?',
    [id],
    db.name,
  );
  t.is(Number(prefs[0].n), 0);
});

test('the users family is System: View lists, only Edit writes, other areas are refused', async (t) => {
  t.is((await viewer('GET', '/users')).status, 200);
  const write = await viewer('POST', '/users', { username: 'mallory', password: 'x', system: 'Edit' });
  t.is(write.status, 403);
  t.is(write.body.kind, 'PERMISSION_DENIED_ERROR');
  const escalate = await monitorsOnly('PUT', '/users/3', { system: 'Edit' });
  t.is(escalate.status, 403);
  t.is((await monitorsOnly('GET', '/users')).status, 403);
  t.is((await call('GET', '/users/3')).body.system, 'None');
});
