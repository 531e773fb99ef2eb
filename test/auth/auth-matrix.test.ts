// Generated from the served OpenAPI document: every operation is checked against its declared
// policy, so a new route cannot ship without one (and cannot ship open by mistake).
import test from 'ava';
import bcrypt from 'bcryptjs';
import { PUBLIC_OPERATIONS, parsePolicy } from '../../src/auth/policy.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { request } from '../helpers/http.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const AREAS = ['Stream', 'Events', 'Control', 'Monitors', 'Groups', 'Devices', 'Snapshots', 'System'] as const;

interface Op {
  method: string;
  path: string;
  operationId: string;
  scopes: string[] | null;
}

let app: TestApp;
let ops: Op[];
const tokens: Record<string, string> = {};

test.before(async () => {
  const db = await zmDatabase('matrix');
  const all = (level: string) =>
    Object.fromEntries(AREAS.map((a) => [a, a === 'Stream' && level === 'Edit' ? 'View' : level]));
  for (const [name, level] of [
    ['nobody', 'None'],
    ['viewer', 'View'],
    ['editor', 'Edit'],
  ]) {
    await insertUser(db, { username: name, password: name, stored: bcrypt.hashSync(name, 4), perms: all(level) });
  }
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  for (const name of ['nobody', 'viewer', 'editor']) {
    const res = await request(app.api('/auth/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: name, password: name }),
    });
    tokens[name] = res.body.access_token;
  }
  const doc = await (await fetch(`${app.url}/api-docs/openapi.json`)).json();
  ops = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
    // The WebRTC WebSocket declares no security, as in the reference surface: its token, Stream
    // View and row checks run at the upgrade (test/live/webrtc-live-hub.test.ts, webrtc-signalling.test.ts), which plain requests never reach.
    // The push socket likewise checks its token in the socket.io handshake (test/push/push.test.ts).
    METHODS.filter((m) => item[m] && !['webrtcSignalingStream', 'livePushSocket'].includes(item[m].operationId)).map(
      (method) => {
        const security = item[method].security as Array<Record<string, string[]>> | undefined;
        const scopes = security && security.length ? security.flatMap((s) => s.jwt ?? ['<not jwt>']) : null;
        return { method, path, operationId: item[method].operationId, scopes };
      },
    ),
  );
});
test.after.always(async () => app?.close());

function call(op: Op, token?: string) {
  // An id no fixture row has: the Edit account's writes (DELETE /users/{id}, …) must not remove
  // the accounts this test logs in with.
  const url = `${app.url}${op.path.replace(/\{[^}]+\}/g, '4242')}`;
  const write = op.method !== 'get' && op.method !== 'delete';
  return request(url, {
    method: op.method.toUpperCase(),
    headers: {
      ...(write ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: write ? '{}' : undefined,
  });
}

test('completeness: every operation is public by name or declares exactly one valid policy', (t) => {
  t.true(ops.length >= 7);
  for (const op of ops) {
    if (op.scopes === null) {
      t.true(PUBLIC_OPERATIONS.has(op.operationId), `${op.operationId} has no policy and is not listed as public`);
    } else {
      t.false(PUBLIC_OPERATIONS.has(op.operationId), `${op.operationId} is listed as public but declares a policy`);
      t.is(op.scopes.length, 1, `${op.operationId}: exactly one scope`);
      t.truthy(parsePolicy(op.scopes[0]), `${op.operationId}: scope ${op.scopes[0]} is not a policy`);
    }
  }
  t.deepEqual(
    [...PUBLIC_OPERATIONS].filter((id) => !ops.some((o) => o.operationId === id)),
    [],
  );
});

test('public operations answer without a token', async (t) => {
  for (const op of ops.filter((o) => o.scopes === null)) {
    const res = await call(op);
    t.not(res.status, 401, `${op.operationId}`);
    t.not(res.status, 403, `${op.operationId}`);
  }
});

test('every protected operation refuses a missing token with 401', async (t) => {
  for (const op of ops.filter((o) => o.scopes !== null)) {
    const res = await call(op);
    t.is(res.status, 401, `${op.method} ${op.path}`);
    t.is(res.body?.kind, 'UNAUTHORIZED_ERROR');
  }
});

test('a token lacking the feature gets 403; View on a write gets 403; authenticated-only routes admit anyone', async (t) => {
  for (const op of ops.filter((o) => o.scopes !== null && o.operationId !== 'logout')) {
    const policy = parsePolicy(op.scopes![0])!;
    const res = await call(op, tokens.nobody);
    if (policy.feature === null) {
      t.false([401, 403].includes(res.status), `${op.operationId} with any token: ${res.status}`);
      continue;
    }
    t.is(res.status, 403, `${op.operationId} without ${policy.feature}`);
    t.is(res.body?.kind, 'PERMISSION_DENIED_ERROR');
    const write = op.method !== 'get';
    const needsEdit = policy.level === 'Edit' || (policy.level === null && write);
    if (needsEdit && policy.feature !== 'stream') {
      t.is((await call(op, tokens.viewer)).status, 403, `${op.operationId} with View`);
    }
    t.not((await call(op, tokens.editor)).status, 403, `${op.operationId} with Edit`);
  }
});
