// The service on a stock ZoneMinder 1.36.33 database that `zmgate-db bridge` has not brought to
// 1.39 yet: it starts, login and the routes whose tables and columns 1.36 has work, and every
// route that needs a missing table or column answers 503 with the envelope naming the fix, never
// a 500.
import test from 'ava';
import bcrypt from 'bcryptjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { login } from '../helpers/rest.js';
import { database136 } from '../helpers/zm136.js';

let db: FreshDatabase;
let app: TestApp;
let token: string;

test.before(async () => {
  db = await database136('unbridged');
  // A 1.36 Users row: no RoleId yet, MonitorIds instead of Monitors_Permissions.
  await db.db.query(
    "INSERT INTO Users (Username, Password, Enabled, APIEnabled, Stream, Events, Monitors, System) VALUES ('adm', ?, 1, 1, 'View', 'Edit', 'Edit', 'Edit')",
    [bcrypt.hashSync('adm', 4)],
    db.name,
  );
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  token = await login(app, 'adm');
});
test.after.always(async () => app?.close());

const get = async (path: string) => {
  const res = await fetch(app.api(path), { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

test('before the bridge: version, config, storage, states, logs, the caller and live sources work', async (t) => {
  t.like(await get('/host/getVersion'), { status: 200, body: { db_version: '1.36.33' } });
  for (const path of ['/configs', '/storage', '/states', '/logs', '/me', '/live/sources'])
    t.is((await get(path)).status, 200, path);
  // Recorded playback reads only 1.36 columns: a missing event is a plain 404.
  t.like(await get('/events/1/info'), { status: 404, body: { kind: 'EVENT_NOT_FOUND_ERROR' } });
});

test('routes that need 1.39 tables or columns answer 503 naming `zmgate-db status`, not 500', async (t) => {
  for (const path of [
    '/monitors',
    '/monitors/1',
    '/events',
    '/events/1',
    '/users',
    '/roles',
    '/tags',
    '/filters',
    '/servers',
    '/monitor-status',
    '/event-summaries',
    '/notifications',
  ]) {
    const res = await get(path);
    t.is(res.status, 503, path);
    t.like(res.body, { kind: 'SERVICE_UNAVAILABLE_ERROR', details: [['database', 'schema incomplete']] }, path);
    t.regex(String(res.body.error_message), /ZoneMinder before 1\.39.*'zmgate-db status' says which/, path);
  }
});
