// Multi-server: a token issued by one host verifies on every host, through the public keys each
// host publishes in zmgate_cluster_keys; revocation (TokenMinExpiry) is shared by the database.
import test from 'ava';
import bcrypt from 'bcryptjs';
import jwt from 'jsonwebtoken';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { insertServers, startHosts, until } from '../../helpers/cluster.js';
import { request } from '../../helpers/http.js';
import type { FreshDatabase } from '../../helpers/mariadb.js';
import { insertUser, zmDatabase } from '../../helpers/zmdb.js';

let db: FreshDatabase;
let a: TestApp;
let b: TestApp;
let single: TestApp;

const bearer = (token: string): RequestInit => ({ headers: { authorization: `Bearer ${token}` } });
const post = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

test.before(async () => {
  db = await zmDatabase('cluster_tokens');
  await insertServers(db, [
    { id: 1, name: 'alpha' },
    { id: 2, name: 'bravo' },
  ]);
  for (const username of ['viewer', 'leaver']) {
    await insertUser(db, { username, password: 'x', stored: bcrypt.hashSync('pw', 4), perms: { Events: 'View' } });
  }
  [[a, b], single] = await Promise.all([startHosts(db, [{ id: 1 }, { id: 2 }]), startTestApp({ db })]);
});

test.after.always(async () => {
  await Promise.all([a?.close(), b?.close(), single?.close()]);
});

async function login(app: TestApp, username: string) {
  const res = await request(app.api('/auth/login'), post({ username, password: 'pw' }));
  if (res.status !== 200) throw new Error(`login ${res.status} ${res.text}`);
  return res.body as { access_token: string; refresh_token: string };
}

test('each host publishes its two public keys and its URL', async (t) => {
  const rows = await db.db.query<{ server_id: number; kind: string; api_url: string; kid: string }>(
    "SELECT server_id, kind, api_url, kid FROM zmgate_cluster_keys WHERE kid NOT LIKE 'server:%' ORDER BY server_id, kind",
    [],
    db.name,
  );
  t.deepEqual(
    rows.map((r) => [Number(r.server_id), r.kind]),
    [
      [1, 'access'],
      [1, 'refresh'],
      [2, 'access'],
      [2, 'refresh'],
    ],
  );
  t.is(rows[0].api_url, `${a.url}/api/v3`);
  t.is(rows[2].api_url, `${b.url}/api/v3`);
  // The kid of a token is the published one.
  const { access_token } = await login(a, 'viewer');
  t.is(jwt.decode(access_token, { complete: true })?.header.kid, rows[0].kid);
});

test('a token from host A works on host B, access and refresh alike', async (t) => {
  const tokens = await login(a, 'viewer');
  const me = await request(b.api('/me'), bearer(tokens.access_token));
  t.is(me.status, 200, me.text);
  const refreshed = await request(b.api('/auth/refresh'), post({ token: tokens.refresh_token }));
  t.is(refreshed.status, 200, refreshed.text);
  // B's own tokens work on A.
  const back = await request(a.api('/me'), bearer(refreshed.body.access_token));
  t.is(back.status, 200, back.text);
});

test('a single-server host does not accept another host’s tokens', async (t) => {
  const tokens = await login(a, 'viewer');
  const res = await request(single.api('/me'), bearer(tokens.access_token));
  t.is(res.status, 401);
  t.is(res.body.kind, 'UNAUTHORIZED_ERROR');
});

test('an unknown key id is refused with 401', async (t) => {
  const tokens = await login(a, 'viewer');
  const [head, body, sig] = tokens.access_token.split('.');
  const header = JSON.parse(Buffer.from(head, 'base64url').toString());
  const forged = Buffer.from(JSON.stringify({ ...header, kid: 'nosuchkey' })).toString('base64url');
  const res = await request(b.api('/me'), bearer(`${forged}.${body}.${sig}`));
  t.is(res.status, 401);
  t.is(res.body.kind, 'UNAUTHORIZED_ERROR');
});

test('logout on A revokes the token on B', async (t) => {
  const tokens = await login(a, 'leaver');
  t.is((await request(b.api('/me'), bearer(tokens.access_token))).status, 200);
  t.is((await request(a.api('/auth/logout'), bearer(tokens.access_token))).status, 200);
  // B re-reads the user's revocation floor within its user cache period.
  await until(async () => (await request(b.api('/me'), bearer(tokens.access_token))).status === 401, 'revocation on B');
  t.pass();
});
