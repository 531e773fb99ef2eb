import test from 'ava';
import bcrypt from 'bcryptjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { request } from '../helpers/http.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let token: string;
let viewerToken: string;

async function loginAs(name: string) {
  const res = await request(app.api('/auth/login'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: name, password: name }),
  });
  return res.body.access_token as string;
}

const call = (method: string, path: string, body?: unknown, as = token) =>
  request(app.api(path), {
    method,
    headers: { authorization: `Bearer ${as}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

test.before(async () => {
  const db = await zmDatabase('devices');
  await insertUser(db, {
    username: 'dev',
    password: 'dev',
    stored: bcrypt.hashSync('dev', 4),
    perms: { Devices: 'Edit' },
  });
  await insertUser(db, {
    username: 'look',
    password: 'look',
    stored: bcrypt.hashSync('look', 4),
    perms: { Devices: 'View' },
  });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  token = await loginAs('dev');
  viewerToken = await loginAs('look');
});
test.after.always(async () => app?.close());

test.serial('create, get, patch (partial), list and delete a device', async (t) => {
  const created = await call('POST', '/devices', {
    name: 'Porch light',
    type: 'X10',
    key_string: 'A1',
    extra: 'ignored',
  });
  t.is(created.status, 201);
  t.like(created.body, { name: 'Porch light', type: 'X10', key_string: 'A1' });
  const id = created.body.id;
  t.is(typeof id, 'number');
  t.deepEqual((await call('GET', `/devices/${id}`)).body, created.body);
  const patched = await call('PATCH', `/devices/${id}`, { key_string: 'B2' });
  t.is(patched.status, 200);
  t.deepEqual(patched.body, { ...created.body, key_string: 'B2' });
  const list = await call('GET', '/devices?page=1&page_size=10&per_page=1000');
  t.is(list.status, 200);
  t.deepEqual(list.body, { items: [patched.body], total: 1, per_page: 10, current_page: 1, last_page: 1 });
  const del = await call('DELETE', `/devices/${id}`);
  t.is(del.status, 204);
  t.is(del.text, '');
  t.is((await call('GET', `/devices/${id}`)).status, 404);
  t.is((await call('DELETE', `/devices/${id}`)).status, 404);
});

test('paging: defaults, page_size cap and bad values', async (t) => {
  for (let i = 0; i < 3; i++) await call('POST', '/devices', { name: `d${i}`, type: 'X10', key_string: `k${i}` });
  const second = await call('GET', '/devices?page=2&page_size=2');
  t.is(second.body.current_page, 2);
  t.is(second.body.per_page, 2);
  t.true(second.body.total >= 3);
  t.is(second.body.last_page, Math.ceil(second.body.total / 2));
  t.is((await call('GET', '/devices')).body.per_page, 25);
  for (const q of ['page_size=1001', 'page_size=abc', 'page=-1']) {
    const res = await call('GET', `/devices?${q}`);
    t.is(res.status, 400, q);
    t.is(res.body.kind, 'INVALID_INPUT_ERROR');
  }
  t.is((await call('GET', '/devices?page_size=1000')).status, 200);
});

test('validation: missing fields, bad enum, bad id, too long → 400 naming the field', async (t) => {
  const missing = await call('POST', '/devices', { name: 'x' });
  t.is(missing.status, 400);
  t.true(
    missing.body.details.some(([f]: string[]) => f.includes('type')),
    JSON.stringify(missing.body.details),
  );
  const badEnum = await call('POST', '/devices', { name: 'x', type: 'Y20', key_string: '' });
  t.is(badEnum.status, 400);
  t.is((await call('GET', '/devices/abc')).status, 400);
  t.is((await call('GET', '/devices/-3')).status, 400);
  t.is(
    (await call('GET', '/devices/99999999999999999999')).status,
    400,
    'beyond int32 is a 400, not a driver overflow',
  );
  t.is((await call('GET', '/devices/2147483648')).status, 400);
  const long = await call('POST', '/devices', { name: 'x', type: 'X10', key_string: 'k'.repeat(40) });
  t.is(long.status, 400);
  t.true(long.body.details.some(([f]: string[]) => f.includes('key_string')));
});

test('View may read but not write; the write is refused before validation', async (t) => {
  t.is((await call('GET', '/devices', undefined, viewerToken)).status, 200);
  const res = await call('POST', '/devices', {}, viewerToken);
  t.is(res.status, 403);
  t.is(res.body.kind, 'PERMISSION_DENIED_ERROR');
});
