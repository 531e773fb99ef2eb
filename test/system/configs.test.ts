import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';

let app: TestApp;
let db: FreshDatabase;
let call: Call;
let viewer: Call;
let nobody: Call;

// [Id, Name, Value, Type, Category, Readonly, Private]
const ROWS: Array<[number, string, string, string, string, number, number]> = [
  [1, 'ZM_WEB_EVENTS_PER_PAGE', '25', 'integer', 'web', 0, 0],
  [2, 'ZM_WEB_LIST_THUMBS', '0', 'boolean', 'web', 0, 0],
  [3, 'ZM_WEB_EVENT_SORT_FIELD', 'StartDateTime', 'string', 'web', 0, 0],
  [4, 'ZM_OPT_CONTROL', '1', 'boolean', 'system', 0, 0],
  [5, 'ZM_WATCH_MAX_DELAY', '45', 'decimal', 'system', 0, 0],
  [6, 'ZM_SHM_KEY', '0x7a6d0000', 'hexadecimal', 'system', 0, 0],
  [7, 'ZM_DYN_DB_VERSION', '1.39.22', 'string', 'version', 1, 0],
  [8, 'ZM_AUTH_HASH_SECRET', 's3cret', 'string', 'auth', 0, 1],
  [9, 'ZM_MQTT_PASSWORD', 'mq', 'password', 'MQTT', 0, 0],
  [10, 'ZM_MIN_RTSP_PORT', '', 'integer', 'network', 0, 0],
];

test.before(async () => {
  db = await zmDatabase('configs');
  for (const [id, name, value, type, category, ro, priv] of ROWS) {
    await db.db.query(
      `INSERT INTO Config (Id, Name, Value, Type, DefaultValue, Hint, Pattern, Format, Prompt, Help, Category, Readonly, Private, System)
       VALUES (?, ?, ?, ?, ?, 'hint', 'pattern', 'format', 'prompt', 'help', ?, ?, ?, 0)`,
      [id, name, value, type, value, category, ro, priv],
      db.name,
    );
  }
  await addUser(db, 'admin', { System: 'Edit' });
  await addUser(db, 'viewer', { System: 'View' });
  await addUser(db, 'nobody', { Events: 'Edit' });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  call = caller(app, await login(app, 'admin'));
  viewer = caller(app, await login(app, 'viewer'));
  nobody = caller(app, await login(app, 'nobody'));
});
test.after.always(async () => app?.close());

const stored = async (name: string) =>
  (await db.db.query<{ Value: string }>('SELECT Value FROM Config WHERE Name = ?', [name], db.name))[0]?.Value;

test.serial('get one entry by name with every field', async (t) => {
  const res = await viewer('GET', '/configs/ZM_WEB_EVENTS_PER_PAGE');
  t.is(res.status, 200);
  t.deepEqual(res.body, {
    id: 1,
    name: 'ZM_WEB_EVENTS_PER_PAGE',
    value: '25',
    type: 'integer',
    category: 'web',
    readonly: 0,
    private: 0,
    system: 0,
    default_value: '25',
    help: 'help',
    hint: 'hint',
    prompt: 'prompt',
    pattern: 'pattern',
    format: 'format',
  });
});

test('unknown name → 404 CONFIG_NOT_FOUND_ERROR with code 5, never 500', async (t) => {
  for (const name of ['ZM_NO_SUCH_OPTION', 'x'.repeat(200), 'a%20b', "it's"]) {
    const res = await call('GET', `/configs/${name}`);
    t.is(res.status, 404, name);
    t.is(res.body.kind, 'CONFIG_NOT_FOUND_ERROR');
    t.is(res.body.code, 5);
  }
  const put = await call('PUT', '/configs/ZM_NO_SUCH_OPTION', { value: '1' });
  t.is(put.status, 404);
  t.is(put.body.code, 5);
});

test('list: envelope, category exact filter, name search, paging', async (t) => {
  const all = await call('GET', '/configs?page_size=1000');
  t.is(all.status, 200);
  t.is(all.body.total, ROWS.length);
  t.deepEqual(
    all.body.items.map((c: any) => c.id),
    ROWS.map((r) => r[0]),
  );
  const web = await call('GET', '/configs?category=web');
  t.deepEqual(
    web.body.items.map((c: any) => c.name),
    ['ZM_WEB_EVENTS_PER_PAGE', 'ZM_WEB_LIST_THUMBS', 'ZM_WEB_EVENT_SORT_FIELD'],
  );
  t.is((await call('GET', '/configs?category=we')).body.total, 0); // exact, not a prefix
  const search = await call('GET', '/configs?search=EVENT');
  t.deepEqual(
    search.body.items.map((c: any) => c.name),
    ['ZM_WEB_EVENTS_PER_PAGE', 'ZM_WEB_EVENT_SORT_FIELD'],
  );
  const both = await call('GET', '/configs?category=system&search=SHM');
  t.deepEqual(
    both.body.items.map((c: any) => c.name),
    ['ZM_SHM_KEY'],
  );
  t.is((await call('GET', '/configs?search=%25')).body.total, 0, 'a % in search is literal, not a wildcard');
  t.deepEqual(
    (await call('GET', '/configs?search=EVENT%5F')).body.items.map((c: any) => c.name),
    ['ZM_WEB_EVENT_SORT_FIELD'],
    'an _ is literal',
  );
  t.is((await call('GET', '/configs?search=WEB_%5C')).body.total, 0, 'a backslash is literal');
  const page = await call('GET', '/configs?page=2&page_size=4&per_page=1000');
  t.deepEqual(
    { ...page.body, items: page.body.items.length },
    { items: 4, total: 10, per_page: 4, current_page: 2, last_page: 3 },
  );
  t.is((await call('GET', '/configs')).body.per_page, 25);
  t.is((await call('GET', '/configs?page_size=1000')).status, 200);
  for (const q of ['page_size=1001', 'page=-2', 'page_size=x']) {
    const res = await call('GET', `/configs?${q}`);
    t.is(res.status, 400, q);
    t.is(res.body.kind, 'INVALID_INPUT_ERROR');
  }
});

test('categories: a bare array of {category, count}', async (t) => {
  const res = await viewer('GET', '/configs/categories');
  t.is(res.status, 200);
  t.true(Array.isArray(res.body));
  t.deepEqual(
    [...res.body].sort((a: any, b: any) => a.category.localeCompare(b.category)),
    [
      { category: 'auth', count: 1 },
      { category: 'MQTT', count: 1 },
      { category: 'network', count: 1 },
      { category: 'system', count: 3 },
      { category: 'version', count: 1 },
      { category: 'web', count: 3 },
    ].sort((a, b) => a.category.localeCompare(b.category)),
  );
});

test.serial('update: value stored and returned; booleans normalised to 1/0', async (t) => {
  const res = await call('PUT', '/configs/ZM_WEB_EVENTS_PER_PAGE', { value: '50', other: 'ignored' });
  t.is(res.status, 200);
  t.is(res.body.value, '50');
  t.is(await stored('ZM_WEB_EVENTS_PER_PAGE'), '50');
  t.is((await call('PUT', '/configs/ZM_WEB_LIST_THUMBS', { value: 'yes' })).body.value, '1');
  t.is(await stored('ZM_WEB_LIST_THUMBS'), '1');
  t.is((await call('PUT', '/configs/ZM_WEB_LIST_THUMBS', { value: 'false' })).body.value, '0');
  t.is((await call('PUT', '/configs/ZM_WATCH_MAX_DELAY', { value: '12.5' })).body.value, '12.5');
  t.is((await call('PUT', '/configs/ZM_SHM_KEY', { value: '0x7a6e0000' })).body.value, '0x7a6e0000');
  t.is((await call('PUT', '/configs/ZM_MIN_RTSP_PORT', { value: '' })).status, 200);
  t.is((await call('PUT', '/configs/ZM_WEB_EVENT_SORT_FIELD', { value: 'Id' })).body.value, 'Id');
  t.is(
    (await call('PUT', '/configs/ZM_WEB_EVENTS_PER_PAGE', { value: 75 })).body.value,
    '75',
    'a JSON number is taken as text',
  );
});

test('update: a value that does not fit the type → 400 naming value; nothing stored', async (t) => {
  const cases: Array<[string, string]> = [
    ['ZM_WEB_EVENTS_PER_PAGE', 'lots'],
    ['ZM_WEB_EVENTS_PER_PAGE', '2.5'],
    ['ZM_OPT_CONTROL', 'maybe'],
    ['ZM_WATCH_MAX_DELAY', '1e3'],
    ['ZM_SHM_KEY', '0x123456789'],
  ];
  for (const [name, value] of cases) {
    const before = await stored(name);
    const res = await call('PUT', `/configs/${name}`, { value });
    t.is(res.status, 400, `${name}=${value}`);
    t.deepEqual(fields(res.body), ['value']);
    t.is(await stored(name), before);
  }
  for (const body of [{}, { value: null }, { value: true }]) {
    const res = await call('PUT', '/configs/ZM_OPT_CONTROL', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(fields(res.body).includes('value'));
  }
  t.is(await stored('ZM_OPT_CONTROL'), '1');
  const tooLong = await call('PUT', '/configs/ZM_WEB_EVENT_SORT_FIELD', { value: 'x'.repeat(65536) });
  t.is(tooLong.status, 400);
  t.deepEqual(fields(tooLong.body), ['value']);
});

test('update of a read-only entry → 403 PERMISSION_DENIED_ERROR, value kept', async (t) => {
  const res = await call('PUT', '/configs/ZM_DYN_DB_VERSION', { value: '9.9.9' });
  t.is(res.status, 403);
  t.is(res.body.kind, 'PERMISSION_DENIED_ERROR');
  t.is(await stored('ZM_DYN_DB_VERSION'), '1.39.22');
});

test.serial('private and password values are masked; writing the mask back keeps the secret', async (t) => {
  const secret = await call('GET', '/configs/ZM_AUTH_HASH_SECRET');
  t.is(secret.body.value, '********');
  t.is(secret.body.private, 1);
  t.is((await call('GET', '/configs/ZM_MQTT_PASSWORD')).body.value, '********');
  const listed = await call('GET', '/configs?category=auth');
  t.is(listed.body.items[0].value, '********');
  t.is((await call('PUT', '/configs/ZM_AUTH_HASH_SECRET', { value: '********' })).status, 200);
  t.is(await stored('ZM_AUTH_HASH_SECRET'), 's3cret');
  const changed = await call('PUT', '/configs/ZM_AUTH_HASH_SECRET', { value: 'n3w' });
  t.is(changed.body.value, '********');
  t.is(await stored('ZM_AUTH_HASH_SECRET'), 'n3w');
});

test('System gate: View reads, View cannot write, no System → 403', async (t) => {
  t.is((await viewer('GET', '/configs')).status, 200);
  const write = await viewer('PUT', '/configs/ZM_OPT_CONTROL', { value: '0' });
  t.is(write.status, 403);
  t.is(write.body.kind, 'PERMISSION_DENIED_ERROR');
  t.is(await stored('ZM_OPT_CONTROL'), '1');
  for (const path of ['/configs', '/configs/categories', '/configs/ZM_OPT_CONTROL'])
    t.is((await nobody('GET', path)).status, 403, path);
});
