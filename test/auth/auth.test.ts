import test from 'ava';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { loadOrCreateKeys } from '../../src/auth/keys.js';
import { TokenService } from '../../src/auth/tokens.js';
import { noPermissions } from '../../src/auth/permissions.js';
import { acceptsQueryToken, isMediaPath } from '../../src/http/media-table.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { request } from '../helpers/http.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';

let db: FreshDatabase;
let app: TestApp;
const PHP_HASH = '$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a'; // rasmuslerdorf
const SEED_ADMIN = '$2b$12$NHZsm6AM2f2LQVROriz79ul3D6DnmFiZC.ZK5eqbF.ZWfwH9bqUJ6'; // admin

const json = (body: unknown, token?: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  body: JSON.stringify(body),
});
const bearer = (token: string): RequestInit => ({ headers: { authorization: `Bearer ${token}` } });
const decode = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());

async function login(username: string, password: string, target = app) {
  return request(target.api('/auth/login'), json({ username, password }));
}

test.before(async () => {
  db = await zmDatabase('auth');
  const [{ h }] = await db.db.query<{ h: string }>("SELECT PASSWORD('mysqlpw') AS h");
  const [{ z }] = await db.db.query<{ z: string }>("SELECT PASSWORD('overlaypw') AS z");
  await insertUser(db, {
    username: 'admin',
    password: 'admin',
    stored: SEED_ADMIN,
    perms: { Stream: 'View', Events: 'Edit', System: 'Edit', Monitors: 'Create' },
  });
  await insertUser(db, { username: 'rasmus', password: 'rasmuslerdorf', stored: PHP_HASH, perms: { Events: 'View' } });
  await insertUser(db, { username: 'legacy', password: 'mysqlpw', stored: h });
  await insertUser(db, {
    username: 'overlay',
    password: 'overlaypw',
    stored: `-ZM-${bcrypt.hashSync(z, 4).replace(/^\$2b\$/, '$2a$')}`,
  });
  await insertUser(db, { username: 'plain', password: 'plainpw', stored: 'plainpw' });
  await insertUser(db, { username: 'off', password: 'x', stored: bcrypt.hashSync('offpw', 4), enabled: 0 });
  await insertUser(db, { username: 'noapi', password: 'x', stored: bcrypt.hashSync('noapipw', 4), apiEnabled: 0 });
  await insertUser(db, {
    username: 'twice',
    password: 'x',
    stored: bcrypt.hashSync('twicepw', 4),
    perms: { Events: 'View' },
  });
  await insertUser(db, { username: 'changer', password: 'x', stored: bcrypt.hashSync('oldpw', 4) });
  await db.db.query("INSERT INTO User_Roles (Name, Events, Control) VALUES ('operators', 'Edit', 'View')", [], db.name);
  const [{ Id: roleId }] = await db.db.query<{ Id: number }>(
    "SELECT Id FROM User_Roles WHERE Name = 'operators'",
    [],
    db.name,
  );
  await insertUser(db, {
    username: 'roled',
    password: 'x',
    stored: bcrypt.hashSync('roledpw', 4),
    perms: { Events: 'View' },
    roleId,
  });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
});
test.after.always(async () => app?.close());

test('every stored password form of ZoneMinder logs in: $2b$, PHP $2y$, *HEX, -ZM- and plain', async (t) => {
  for (const [user, pw] of [
    ['admin', 'admin'],
    ['rasmus', 'rasmuslerdorf'],
    ['legacy', 'mysqlpw'],
    ['overlay', 'overlaypw'],
    ['plain', 'plainpw'],
  ]) {
    const res = await login(user, pw);
    t.is(res.status, 200, `${user}: ${res.text}`);
    t.is(res.body.token_type, 'Bearer');
    t.is(res.body.expire_in, 600);
    t.regex(res.body.access_token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  }
  // Legacy forms are replaced by bcrypt after a successful login, and still log in afterwards.
  const rows = await db.db.query<{ Username: string; Password: string }>(
    "SELECT Username, Password FROM Users WHERE Username IN ('legacy', 'overlay', 'plain')",
    [],
    db.name,
  );
  for (const row of rows) t.regex(row.Password, /^\$2[aby]\$/, row.Username);
  t.is((await login('legacy', 'mysqlpw')).status, 200);
});

test('unknown user, wrong password, disabled and API-disabled accounts get the same 401', async (t) => {
  const answers = await Promise.all([
    login('nobody', 'x'),
    login('admin', 'wrong'),
    login('off', 'offpw'),
    login('noapi', 'noapipw'),
  ]);
  for (const res of answers) {
    t.is(res.status, 401);
    t.deepEqual(res.body, answers[0].body);
  }
  t.is(answers[0].body.kind, 'UNAUTHORIZED_ERROR');
});

test('login validates its body: missing fields are a 400 naming them', async (t) => {
  const res = await request(app.api('/auth/login'), json({ username: 'admin' }));
  t.is(res.status, 400);
  t.is(res.body.kind, 'INVALID_INPUT_ERROR');
  t.true(
    res.body.details.some(([field]: string[]) => field.includes('password')),
    JSON.stringify(res.body.details),
  );
});

test('the access token carries the claims v3 clients decode, and /me describes the caller', async (t) => {
  const { body } = await login('admin', 'admin');
  const claims = decode(body.access_token);
  t.is(claims.typ, 'access');
  t.is(claims.user, 'admin');
  t.is(typeof claims.uid, 'number');
  t.is(claims.exp - claims.iat, 600);
  t.deepEqual(claims.perms, { ...noPermissions(), stream: 'View', events: 'Edit', system: 'Edit', monitors: 'Create' });
  t.is(decode(body.refresh_token).typ, 'refresh');
  t.is(decode(body.refresh_token).exp - decode(body.refresh_token).iat, 3600);
  const me = await request(app.api('/me'), bearer(body.access_token));
  t.is(me.status, 200);
  t.is(me.body.user.username, 'admin');
  t.is(me.body.user.monitors, 'Create');
  t.is(me.body.user.control, 'None');
  t.is(me.body.token_type, 'access');
  t.is(me.body.issued_at, claims.iat);
  t.is(me.body.expires_at, claims.exp);
  t.false('password' in me.body.user);
});

test('a role fills in the areas the user has at None', async (t) => {
  const { body } = await login('roled', 'roledpw');
  const me = await request(app.api('/me'), bearer(body.access_token));
  t.is(me.body.user.events, 'View', "the user's own value wins");
  t.is(me.body.user.control, 'View', 'the role fills None');
});

test('refresh replaces both tokens and refuses an access token; an access route refuses a refresh token', async (t) => {
  const { body } = await login('rasmus', 'rasmuslerdorf');
  const refreshed = await request(app.api('/auth/refresh'), json({ token: body.refresh_token }));
  t.is(refreshed.status, 200);
  t.not(refreshed.body.access_token, body.access_token);
  t.not(refreshed.body.refresh_token, body.refresh_token);
  t.is((await request(app.api('/auth/refresh'), json({ token: body.access_token }))).status, 401);
  t.is((await request(app.api('/me'), bearer(body.refresh_token))).status, 401);
  t.is((await request(app.api('/auth/refresh'), json({ refresh_token: body.refresh_token }))).status, 400);
});

test('logout on one login revokes the access and refresh tokens of another login', async (t) => {
  const first = (await login('twice', 'twicepw')).body;
  const second = (await login('twice', 'twicepw')).body;
  t.is((await request(app.api('/me'), bearer(second.access_token))).status, 200);
  const out = await request(app.api('/auth/logout'), bearer(first.access_token));
  t.is(out.status, 200);
  t.is(typeof out.body.message, 'string');
  t.is((await request(app.api('/me'), bearer(second.access_token))).status, 401);
  t.is((await request(app.api('/me'), bearer(first.access_token))).status, 401);
  t.is((await request(app.api('/auth/refresh'), json({ token: second.refresh_token }))).status, 401);
  // A new login right after logout works at once.
  const again = (await login('twice', 'twicepw')).body;
  t.is((await request(app.api('/me'), bearer(again.access_token))).status, 200);
  t.is((await request(app.api('/auth/logout'), { method: 'POST', ...bearer(again.access_token) })).status, 405);
});

test('expired and tampered tokens are refused with 401', async (t) => {
  const keys = loadOrCreateKeys(app.config.auth.state_dir);
  const past = new TokenService(keys, { access: 600, refresh: 3600 }, () => Math.floor(Date.now() / 1000) - 4000);
  const [{ Id }] = await db.db.query<{ Id: number }>("SELECT Id FROM Users WHERE Username = 'admin'", [], db.name);
  const old = past.issue({ id: Id, username: 'admin', perms: noPermissions() });
  const expired = await request(app.api('/me'), bearer(old.access_token));
  t.is(expired.status, 401);
  t.is(expired.body.error_message, 'Token expired');
  t.is((await request(app.api('/auth/refresh'), json({ token: old.refresh_token }))).status, 401);

  const { body } = await login('admin', 'admin');
  const [h, p, s] = body.access_token.split('.');
  const forged = Buffer.from(JSON.stringify({ ...decode(body.access_token), perms: { system: 'Edit' } })).toString(
    'base64url',
  );
  t.is((await request(app.api('/me'), bearer(`${h}.${forged}.${s}`))).status, 401);
  t.is((await request(app.api('/me'), bearer(`${h}.${p}.${s.slice(0, -2)}AA`))).status, 401);
  const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${p}.`;
  t.is((await request(app.api('/me'), bearer(none))).status, 401);
  t.is((await request(app.api('/me'), { headers: { authorization: 'Basic abc' } })).status, 401);
});

test('the token query parameter is refused on a non-media route, and accepted on media routes only', async (t) => {
  const { body } = await login('admin', 'admin');
  const res = await request(app.api(`/me?token=${body.access_token}`));
  t.is(res.status, 401);
  t.regex(res.body.error_message, /media routes only/);
  t.true(acceptsQueryToken('GET', '/api/v3/monitors/3/snapshot'));
  t.true(acceptsQueryToken('GET', '/api/v3/events/9/stream/playlist.m3u8'));
  t.true(acceptsQueryToken('GET', '/api/v3/live/2/webrtc/ws'));
  t.false(acceptsQueryToken('GET', '/api/v3/monitors/3'));
  t.false(acceptsQueryToken('DELETE', '/api/v3/events/9/video'));
  // JSON reads (live stats, event info) take the header only; start and stop too.
  t.false(acceptsQueryToken('GET', '/api/v3/live/2/stats'));
  t.false(acceptsQueryToken('GET', '/api/v3/events/9/info'));
  t.false(isMediaPath('/api/v3/live/2/stats'), 'stats stay compressed and rate limited');
  t.false(acceptsQueryToken('POST', '/api/v3/live/2/start'));
  t.false(acceptsQueryToken('DELETE', '/api/v3/live/2/stop'));
  t.false(acceptsQueryToken('GET', '/api/v3/live/sessions'));
});

test('a password change needs the current password and revokes every token', async (t) => {
  const { body } = await login('changer', 'oldpw');
  const put = (b: unknown, token = body.access_token) =>
    request(app.api('/me/password'), {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(b),
    });
  t.is((await put({ current_password: 'nope', new_password: 'newpw' })).status, 401);
  t.is((await put({ current_password: 'oldpw', new_password: '' })).status, 400);
  t.is((await put({ current_password: 'oldpw', new_password: 'x'.repeat(73) })).status, 400);
  const ok = await put({ current_password: 'oldpw', new_password: 'newpw' });
  t.is(ok.status, 200);
  t.is((await request(app.api('/me'), bearer(body.access_token))).status, 401);
  t.is((await login('changer', 'oldpw')).status, 401);
  t.is((await login('changer', 'newpw')).status, 200);
});

test('case-insensitive usernames follow ZM_CASE_INSENSITIVE_USERNAMES', async (t) => {
  t.is((await login('ADMIN', 'admin')).status, 401);
  await db.db.query(
    "INSERT INTO Config (Name, Value, Type, DefaultValue, Hint, Pattern, Format, Prompt, Help, Category, Readonly, Private, System, Requires) VALUES ('ZM_CASE_INSENSITIVE_USERNAMES', '1', 'boolean', '0', '', '', '', '', '', 'system', 0, 0, 0, '')",
    [],
    db.name,
  );
  try {
    t.is((await login('ADMIN', 'admin')).status, 200);
  } finally {
    await db.db.query("DELETE FROM Config WHERE Name = 'ZM_CASE_INSENSITIVE_USERNAMES'", [], db.name);
  }
});

test('the 11th rapid login is refused with 429 and Retry-After (default burst)', async (t) => {
  // The default burst of 10; a long replenish period so that a slow machine cannot refill the
  // bucket while the 11 requests are in flight (the default period is 2 s).
  const limited = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__RATE_LIMIT_PERIOD_SECS: '600' } });
  try {
    const answers = await Promise.all(Array.from({ length: 11 }, () => login('nobody', 'x', limited)));
    const statuses = answers.map((a) => a.status).sort();
    t.deepEqual(statuses, [...Array(10).fill(401), 429]);
    const refused = answers.find((a) => a.status === 429)!;
    t.is(refused.body.kind, 'TOO_MANY_REQUESTS_ERROR');
    t.true(Number(refused.headers.get('retry-after')) >= 1);
    t.is((await request(limited.api('/server/health_check'))).status, 200, 'other routes are not limited');
  } finally {
    await limited.close();
  }
});

test('signing keys are created with mode 0600 on first start and reused on restart', async (t) => {
  const dir = app.config.auth.state_dir;
  for (const f of ['jwt-access.key', 'jwt-refresh.key']) t.is(statSync(join(dir, f)).mode & 0o777, 0o600);
  const { body } = await login('admin', 'admin');
  const restarted = await startTestApp({ db, env: { APP_AUTH__STATE_DIR: dir } });
  try {
    t.is((await request(restarted.api('/me'), bearer(body.access_token))).status, 200);
  } finally {
    await restarted.close();
  }
  const other = await startTestApp({ db });
  try {
    t.is((await request(other.api('/me'), bearer(body.access_token))).status, 401, 'other keys: token invalid');
  } finally {
    await other.close();
  }
});
