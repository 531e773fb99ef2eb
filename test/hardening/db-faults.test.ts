// Database faults: a frozen server (SIGSTOP) must not hold requests beyond the query bound, an
// outage answers 503 with Retry-After on every route, and recovery needs no service restart.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { isEnvelope, request } from '../helpers/http.js';
import { privateMariaDb } from '../helpers/mariadb.js';
import { addUser, login } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { ThrowawayMariaDb } from '../../src/devdb/throwaway-mariadb.js';
import { EVENTS_MAX_AGE_MS, MONITORS_MAX_AGE_MS } from '../../src/features/read-cache/read-caches.js';

let server: ThrowawayMariaDb;
let app: TestApp;
let token: string;

test.before(async () => {
  server = await privateMariaDb();
  const db = await zmDatabase('faults', { server });
  await addUser(db, 'admin', { System: 'Edit', Monitors: 'Edit', Events: 'Edit' });
  app = await startTestApp({
    db,
    env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_DB__QUERY_TIMEOUT_SECS: '2', APP_DB__POOL_MIN: '1' },
  });
  token = await login(app, 'admin');
});
test.after.always(async () => {
  await app?.close();
  await server?.stop();
});

const mariadbdPid = () => Number(readFileSync(join(server.baseDir, 'mariadbd.pid'), 'utf8').trim());

/** A request that must come back: a hang fails the test instead of stalling it. */
const get = (path: string, auth = true) =>
  request(app.api(path), {
    headers: auth ? { authorization: `Bearer ${token}` } : {},
    signal: AbortSignal.timeout(20_000),
  });

const ROUTES = ['/monitors', '/events', '/configs', '/users', '/logs', '/me'];

async function allUnavailable(t: import('ava').ExecutionContext, label: string): Promise<void> {
  const answers = await Promise.all([
    get('/server/health_check', false),
    ...ROUTES.map((path) => get(path)),
    request(app.api('/auth/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'admin' }),
      signal: AbortSignal.timeout(20_000),
    }),
  ]);
  for (const [i, res] of answers.entries()) {
    const what = `${label} ${['health', ...ROUTES, 'login'][i]}`;
    t.is(res.status, 503, `${what}: ${res.status} ${res.text.slice(0, 200)}`);
    t.true(isEnvelope(res.body), what);
    t.truthy(res.headers.get('retry-after'), `${what}: Retry-After`);
  }
}

/** The first answer that is 200, trying every 100 ms for at most 10 tries (1 s). */
/** The polled lists may answer from their read caches within the stated staleness: wait past it. */
async function pastCachedAnswers(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.max(MONITORS_MAX_AGE_MS, EVENTS_MAX_AGE_MS) + 200));
}

async function okWithinASecond(path: string): Promise<boolean> {
  for (let i = 0; i < 10; i++) {
    if ((await get(path)).status === 200) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

test.serial('a frozen database: every request 503 within the bound, 200 again after SIGCONT', async (t) => {
  t.is((await get('/monitors')).status, 200);
  const pid = mariadbdPid();
  process.kill(pid, 'SIGSTOP');
  try {
    await pastCachedAnswers();
    await allUnavailable(t, 'frozen, first wave');
    // Connections held by the first wave must not make the second one wait for ever.
    await allUnavailable(t, 'frozen, second wave');
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  t.true(await okWithinASecond('/monitors'), 'GET /monitors 200 within 1 s of SIGCONT');
  t.is((await get('/server/health_check', false)).status, 200);
});

test.serial('a killed database: 503 with Retry-After on every route, 200 within 1 s of the restart', async (t) => {
  t.is((await get('/monitors')).status, 200);
  process.kill(mariadbdPid(), 'SIGKILL');
  // Wait until the process is gone (the pid file stays behind after SIGKILL).
  for (let i = 0; i < 100 && server.running; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  await pastCachedAnswers();
  await allUnavailable(t, 'down');
  await server.resume();
  t.true(await okWithinASecond('/monitors'), 'GET /monitors 200 within 1 s of the restart');
  t.is((await get('/server/health_check', false)).status, 200);
});
