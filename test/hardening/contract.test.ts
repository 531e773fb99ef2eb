// Contract fixes: /me is not throttled like the login, every status an operation answers is in
// the OpenAPI document, and ?token= is taken only where a browser element needs it.
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { request } from '../helpers/http.js';
import { addUser, caller, login } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';

let db: FreshDatabase;
let app: TestApp;

test.before(async () => {
  db = await zmDatabase('contract');
  await addUser(db, 'admin', { System: 'Edit', Events: 'View', Stream: 'View' });
  // The default auth limiter (burst 10), replenished slowly so that nothing refills mid-test.
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__RATE_LIMIT_PERIOD_SECS: '600' } });
});
test.after.always(async () => app?.close());

test.serial(
  'GET /me and refresh are not throttled like the login; the password change has its own bucket',
  async (t) => {
    const tokens = await request(app.api('/auth/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'admin' }),
    });
    t.is(tokens.status, 200);
    const me = caller(app, tokens.body.access_token);
    const statuses = [];
    for (let i = 0; i < 15; i++) statuses.push((await me('GET', '/me')).status);
    t.deepEqual(statuses, Array(15).fill(200));
    const refreshed = await request(app.api('/auth/refresh'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: tokens.body.refresh_token }),
    });
    t.is(refreshed.status, 200, refreshed.text);
    // Eleven wrong current passwords: the 11th is 429, and GET /me still answers.
    const changes = [];
    for (let i = 0; i < 11; i++)
      changes.push((await me('PUT', '/me/password', { current_password: 'wrong', new_password: 'x' })).status);
    t.is(changes[10], 429);
    t.false(changes.slice(0, 10).includes(429));
    t.is((await caller(app, refreshed.body.access_token)('GET', '/me')).status, 200);
  },
);

test('every status a validation answers is documented, e.g. GET /logs/-1 400', async (t) => {
  const token = await login(app, 'admin').catch(() => null);
  t.truthy(token);
  const res = await caller(app, token!)('GET', '/logs/-1');
  t.is(res.status, 400);
  const doc = (await request(`${app.url}/api-docs/openapi.json`)).body;
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      if ((op.parameters ?? []).length || op.requestBody) t.truthy(op.responses['400'], `${where}: 400`);
      t.truthy(op.responses['503'], `${where}: 503`);
      t.truthy(op.responses['429'], `${where}: 429`);
    }
  }
  // Request bodies are open: unknown properties are dropped, not refused, and the schema says so.
  t.false(doc.components.schemas.CreateMonitorRequest?.additionalProperties === false);
});

test('?token= is refused on event info and live stats (JSON fetched with the header)', async (t) => {
  const token = await login(app, 'admin').catch(() => null);
  t.truthy(token, 'a valid token (the refusal below is about where it is sent)');
  for (const path of ['/events/1/info', '/live/1/stats']) {
    // The same token in the header is accepted (the answer is about the id, not the token).
    const byHeader = await caller(app, token!)('GET', path);
    t.not(byHeader.status, 401, `${path} with the header: ${byHeader.text}`);
    const res = await request(app.api(`${path}?token=${token}`));
    t.is(res.status, 401, `${path}: ${res.text}`);
    t.regex(res.body.error_message, /media routes only/);
  }
});
