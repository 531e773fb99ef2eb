// Real-world input that once gave 500s: text the column's character set cannot hold (on latin1
// and utf8mb4 ZoneMinder databases), corrupt compressed bodies, ids beyond the integer types,
// and deeply nested JSON. Each answers a 4xx envelope (or matches nothing), never a 500.
import test, { type ExecutionContext } from 'ava';
import { gzipSync } from 'node:zlib';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { isEnvelope, request } from '../helpers/http.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';

interface Site {
  app: TestApp;
  admin: Call;
}

const sites = new Map<string, Promise<Site>>();

/** One app per database character set, started on first use. */
function site(charset: 'latin1' | 'utf8mb4'): Promise<Site> {
  let started = sites.get(charset);
  if (!started) {
    started = (async () => {
      const db = await zmDatabase(`hard_${charset}`, { charset });
      await db.db.query(
        `INSERT INTO Config (Id, Name, Value, Type, DefaultValue, Hint, Pattern, Format, Prompt, Help, Category, Readonly, Private, System)
         VALUES (1, 'ZM_WEB_EVENTS_PER_PAGE', '25', 'integer', '25', 'h', 'p', 'f', 'p', 'h', 'web', 0, 0, 0)`,
        [],
        db.name,
      );
      await addUser(db, 'admin', {
        System: 'Edit',
        Monitors: 'Edit',
        Events: 'Edit',
        Stream: 'View',
        Snapshots: 'Edit',
        Groups: 'Edit',
      });
      const app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
      return { app, admin: caller(app, await login(app, 'admin')) };
    })();
    sites.set(charset, started);
  }
  return started;
}

test.after.always(async () => {
  for (const s of sites.values()) await (await s.catch(() => null))?.app.close();
});

const NON_LATIN1 = 'Łukasz 東京 🎥';

const postJson = (app: TestApp, path: string, body: unknown) =>
  request(app.api(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

function noServerError(t: ExecutionContext, res: { status: number; text: string }, what: string): void {
  t.true(res.status < 500, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
}

for (const charset of ['latin1', 'utf8mb4'] as const) {
  test(`${charset}: login with a non-Latin-1 username is the unknown-user 401`, async (t) => {
    const { app } = await site(charset);
    const unknown = await postJson(app, '/auth/login', { username: 'nosuchuser', password: 'x' });
    const foreign = await postJson(app, '/auth/login', { username: NON_LATIN1, password: 'x' });
    t.is(unknown.status, 401);
    t.is(foreign.status, 401, foreign.text);
    t.deepEqual(foreign.body, unknown.body);
  });

  test(`${charset}: lookups by text the column cannot hold match nothing`, async (t) => {
    const { admin } = await site(charset);
    const one = await admin('GET', `/configs/${encodeURIComponent(`ZM_${NON_LATIN1}`)}`);
    t.is(one.status, 404, one.text);
    const list = await admin('GET', `/configs?search=${encodeURIComponent(NON_LATIN1)}`);
    t.is(list.status, 200, list.text);
    t.is(list.body.total, 0);
    const byCategory = await admin('GET', `/configs?category=${encodeURIComponent(NON_LATIN1)}`);
    t.is(byCategory.status, 200, byCategory.text);
    t.is(byCategory.body.total, 0);
    const clear = await admin('DELETE', `/logs?component=${encodeURIComponent(NON_LATIN1)}`);
    t.is(clear.status, 200, clear.text);
    const logs = await admin('GET', `/logs?search=${encodeURIComponent(NON_LATIN1)}`);
    t.is(logs.status, 200, logs.text);
    t.is(logs.body.total, 0);
    const search = await admin('GET', `/search?q=${encodeURIComponent(NON_LATIN1)}`);
    noServerError(t, search, 'search');
    const users = await admin('GET', `/users?username=${encodeURIComponent(NON_LATIN1)}`);
    noServerError(t, users, 'users');
  });

  test(`${charset}: writes of text the column cannot hold answer 400 naming the field`, async (t) => {
    const { admin } = await site(charset);
    const monitor = await admin('POST', '/monitors', { name: NON_LATIN1 });
    const user = await admin('POST', '/users', { username: `u${Date.now()}`, password: 'pw', language: 'Łu東' });
    const tag = await admin('POST', '/tags', { name: NON_LATIN1 });
    if (charset === 'latin1') {
      t.is(monitor.status, 400, monitor.text);
      t.true(isEnvelope(monitor.body));
      t.deepEqual(monitor.body.details, [['field', 'Name']]);
      t.is(user.status, 400, user.text);
      t.deepEqual(user.body.details, [['field', 'Language']]);
    } else {
      t.is(monitor.status, 201, monitor.text);
      t.is(user.status, 201, user.text);
    }
    // Tags.Name is latin1 on every install.
    t.is(tag.status, 400, tag.text);
    t.true(fields(tag.body).includes('field') || fields(tag.body).includes('name'), tag.text);
  });
}

test('a corrupt compressed body is 400 and logs at most a line', async (t) => {
  const { app } = await site('utf8mb4');
  for (const encoding of ['gzip', 'deflate', 'br']) {
    const reqId = `corrupt-${encoding}-${Date.now()}`;
    const res = await request(app.api('/auth/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': encoding, 'x-request-id': reqId },
      body: Buffer.from('this is not compressed at all, not even a little'),
    });
    t.is(res.status, 400, `${encoding}: ${res.text}`);
    t.true(isEnvelope(res.body));
    // Other tests share the app: only this request's records count.
    const written = app.logs.filter((r) => r.req_id === reqId && r.level >= 40);
    t.true(written.length <= 1, `${encoding}: ${JSON.stringify(written).slice(0, 500)}`);
    t.true(
      JSON.stringify(written).length < 600,
      `${encoding}: log too long: ${JSON.stringify(written).slice(0, 1500)}`,
    );
  }
  // A well-formed gzip body still works.
  const ok = await request(app.api('/auth/login'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: gzipSync(JSON.stringify({ username: 'admin', password: 'admin' })),
  });
  t.is(ok.status, 200, ok.text);
});

test('path ids beyond the integer types are 400 or 404', async (t) => {
  const { admin } = await site('utf8mb4');
  const huge = ['9223372036854775808', '18446744073709551616', '99999999999999999999999'];
  const paths = [
    '/filters/{id}',
    '/logs/{id}',
    '/reports/{id}',
    '/snapshots/{id}',
    '/snapshots-events/{id}',
    '/users/{id}',
    '/events/{id}',
    '/tags/{id}',
    '/monitors/{id}',
  ];
  for (const path of paths) {
    for (const id of huge) {
      const res = await admin('GET', path.replace('{id}', id));
      t.true(res.status === 400 || res.status === 404, `${path} ${id}: ${res.status} ${res.text.slice(0, 200)}`);
    }
  }
  // Integers in a body are held to their declared format too.
  const body = await admin('POST', '/snapshots', { name: 'x', created_by: 2147483648 });
  t.is(body.status, 400, body.text);
  t.deepEqual(body.body.details, [['created_by', 'integer out of range for its format']]);
  for (const query of [
    '/events?monitor_id=3000000000',
    '/logs?server_id=3000000000',
    '/search?q=x&monitor_id=3000000000',
  ]) {
    const res = await admin('GET', query);
    t.true(res.status === 400 || res.status === 404, `${query}: ${res.status} ${res.text.slice(0, 200)}`);
  }
});

test('JSON nested 5,000 deep is 400', async (t) => {
  const { app, admin } = await site('utf8mb4');
  const deep = '['.repeat(5000) + ']'.repeat(5000);
  const deepObject = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
  for (const [path, body] of [
    ['/monitors', `{"name":${deep}}`],
    ['/monitors', `{"name":"x","linked_monitors":${deepObject}}`],
    ['/filters', `{"name":"x","filter":${deepObject}}`],
    ['/filters/preview', `{"filter":${deep}}`],
    ['/events', `{"monitor_id":1,"notes":${deepObject}}`],
    ['/users', `{"username":"x","password":"y","monitor_ids":${deep}}`],
  ] as const) {
    const res = await request(app.api(path), {
      method: 'POST',
      headers: { authorization: `Bearer ${await login(app, 'admin')}`, 'content-type': 'application/json' },
      body,
    });
    t.is(res.status, 400, `${path}: ${res.status} ${res.text.slice(0, 200)}`);
    t.true(isEnvelope(res.body));
  }
  t.is((await admin('GET', '/configs/ZM_WEB_EVENTS_PER_PAGE')).status, 200);
});
