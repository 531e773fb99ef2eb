// Database faults: a frozen server (SIGSTOP for 30 s) must not hold any request beyond its bound,
// an outage answers 503 with Retry-After on every route, and recovery (SIGCONT, or kill -9 and a
// restart) needs no service restart: the same app answers 200 again within a second.
//
// Deadlines are conditions on each request's own elapsed time (bound + slack for a loaded
// machine), never fixed sleeps with an expected outcome. FAULTS_VERBOSE=1 prints every answer's time.
import test, { type ExecutionContext } from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { isEnvelope, request, type JsonResponse } from '../helpers/http.js';
import { privateMariaDb } from '../helpers/mariadb.js';
import { addUser, login } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { ThrowawayMariaDb } from '../../src/devdb/throwaway-mariadb.js';
import { EVENTS_MAX_AGE_MS, MONITORS_MAX_AGE_MS } from '../../src/infra/read-cache/read-caches.js';

// The configured bounds of this app (seconds in its settings below).
const QUERY_TIMEOUT_S = 2;
const ACQUIRE_TIMEOUT_S = 2;
const CONNECT_TIMEOUT_S = 2;
/** Health check's own bound (src/features/system/server-service.ts). */
const HEALTH_BOUND_MS = 3000;
/**
 * A request's bound: waiting for a connection (acquire; a new connection's handshake is within
 * it) and then one statement. A request whose first statement times out answers at once.
 */
const REQUEST_BOUND_MS = (ACQUIRE_TIMEOUT_S + QUERY_TIMEOUT_S) * 1000;
/** Scheduling slack on a loaded 2-core machine (answers seen at 2.0-4.2 s with load average 20). */
const SLACK_MS = 3000;
/** Recovery is measured from the database's first answer: 1 s, plus this much slack. */
const RECOVERY_SLACK_MS = 1000;
const FROZEN_MS = 30_000;
/** Staleness of the read caches: a fresh cached answer is a correct one. */
const CACHE_MS = Math.max(MONITORS_MAX_AGE_MS, EVENTS_MAX_AGE_MS);

let server: ThrowawayMariaDb;
let app: TestApp;
let token: string;

test.before(async () => {
  server = await privateMariaDb();
  const db = await zmDatabase('faults', { server });
  await addUser(db, 'admin', { System: 'Edit', Monitors: 'Edit', Events: 'Edit' });
  await db.db.query(
    "INSERT INTO Monitors (Id, Name, Type, Width, Height) VALUES (1, 'front', 'Ffmpeg', 640, 480)",
    [],
    db.name,
  );
  app = await startTestApp({
    db,
    env: {
      APP_AUTH__RATE_LIMIT__ENABLED: 'false',
      APP_SERVER__MIDDLEWARE__RATE_LIMIT__ENABLED: 'false',
      APP_DB__QUERY_TIMEOUT_SECS: String(QUERY_TIMEOUT_S),
      APP_DB__ACQUIRE_TIMEOUT_SECS: String(ACQUIRE_TIMEOUT_S),
      APP_DB__CONNECT_TIMEOUT_SECS: String(CONNECT_TIMEOUT_S),
      APP_DB__POOL_MIN: '1',
    },
  });
  token = await login(app, 'admin');
});
test.after.always(async () => {
  await app?.close();
  await server?.stop();
});

/** True once every thread of `pid` is stopped (state T in /proc). */
function stopped(pid: number): boolean {
  const tasks = readdirSync(`/proc/${pid}/task`);
  return tasks.every((task) => /^\d+ \(.*\) T /.test(readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8')));
}

const mariadbdPid = () => Number(readFileSync(join(server.baseDir, 'mariadbd.pid'), 'utf8').trim());

interface Probe {
  name: string;
  /** Answered from a read cache while its answer is fresh: 200 is then correct. */
  cached?: boolean;
  send: () => Promise<JsonResponse<any>>;
  bound: number;
  /** What an answer during the outage must be (default: the 503 envelope with Retry-After). */
  outage?: (t: ExecutionContext, res: JsonResponse<any>, what: string) => void;
}

/** A request that must come back: a hang fails the test instead of stalling it. */
const call = (method: string, path: string, body?: unknown, auth = true) =>
  request(app.api(path), {
    method,
    headers: {
      ...(auth ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(FROZEN_MS),
  });

const PROBES: Probe[] = [
  { name: 'health', send: () => call('GET', '/server/health_check', undefined, false), bound: HEALTH_BOUND_MS },
  {
    // Documented to answer with "unknown" versions rather than fail: clients read api_version.
    name: 'version',
    send: () => call('GET', '/host/getVersion', undefined, false),
    bound: REQUEST_BOUND_MS,
    outage: (t, res, what) => {
      t.is(res.status, 200, what);
      t.is(res.body?.db_version, 'unknown', what);
    },
  },
  { name: 'monitor list', cached: true, send: () => call('GET', '/monitors'), bound: REQUEST_BOUND_MS },
  { name: 'event list', cached: true, send: () => call('GET', '/events'), bound: REQUEST_BOUND_MS },
  { name: 'one monitor', cached: true, send: () => call('GET', '/monitors/1'), bound: REQUEST_BOUND_MS },
  { name: 'users', send: () => call('GET', '/users'), bound: REQUEST_BOUND_MS },
  { name: 'me', send: () => call('GET', '/me'), bound: REQUEST_BOUND_MS },
  { name: 'write', send: () => call('POST', '/tags', { name: `t${Date.now()}` }), bound: REQUEST_BOUND_MS },
  {
    name: 'login',
    send: () => call('POST', '/auth/login', { username: 'admin', password: 'admin' }, false),
    bound: REQUEST_BOUND_MS,
  },
];

function unavailable(t: ExecutionContext, res: JsonResponse<any>, what: string): void {
  t.is(res.status, 503, `${what}: ${res.status} ${res.text.slice(0, 200)}`);
  t.true(isEnvelope(res.body), what);
  t.truthy(res.headers.get('retry-after'), `${what}: Retry-After`);
}

/** Sends every probe at once; each answer checked, and its time against its bound. */
async function wave(t: ExecutionContext, label: string, outageStart: number): Promise<number[]> {
  const sent = performance.now();
  return Promise.all(
    PROBES.map(async (probe) => {
      const res = await probe.send();
      const elapsed = performance.now() - sent;
      if (process.env.FAULTS_VERBOSE)
        console.error(`${label} ${probe.name}: ${res.status} in ${Math.round(elapsed)} ms`);
      const what = `${label} ${probe.name} (${Math.round(elapsed)} ms)`;
      t.true(elapsed <= probe.bound + SLACK_MS, `${what}: answered beyond its bound of ${probe.bound} ms`);
      if (probe.cached && res.status === 200 && sent - outageStart < CACHE_MS) t.pass();
      else (probe.outage ?? unavailable)(t, res, what);
      return elapsed;
    }),
  );
}

/** Milliseconds from `since` until `path` first answers 200 (polled every 50 ms; 10 s at most). */
async function msUntilOk(path: string, since: number): Promise<number> {
  while (performance.now() - since < 10_000) {
    const res = await call('GET', path).catch(() => null);
    if (res?.status === 200) return performance.now() - since;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Infinity;
}

test.serial('frozen 30 s: every request within its bound (503 + Retry-After), 200 within 1 s of SIGCONT', async (t) => {
  const url = app.url;
  t.is((await call('GET', '/monitors')).status, 200);
  const pid = mariadbdPid();
  process.kill(pid, 'SIGSTOP');
  // The signal is delivered asynchronously: a thread already running may answer once more.
  while (!stopped(pid)) await new Promise((resolve) => setTimeout(resolve, 10));
  const frozen = performance.now();
  let waves = 0;
  let slowest = 0;
  try {
    // Waves back to back for the whole 30 s: requests meet a fresh pool, timed-out connections
    // being dropped, new connections stuck in their handshake, and the acquire queue.
    // (Paced to at most four waves a second: fast 503s would otherwise make it a load test.)
    while (performance.now() - frozen < FROZEN_MS) {
      const started = performance.now();
      slowest = Math.max(slowest, ...(await wave(t, `frozen, wave ${++waves}`, frozen)));
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 250 - (performance.now() - started))));
    }
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  const resumed = performance.now();
  t.log(`held ${Math.round(resumed - frozen)} ms frozen, ${waves} waves, slowest answer ${Math.round(slowest)} ms`);
  t.true(waves >= 5, `${waves} waves in 30 s`);
  const ms = await msUntilOk('/users', resumed);
  t.log(`200 ${Math.round(ms)} ms after SIGCONT`);
  t.true(ms <= 1000 + RECOVERY_SLACK_MS, `GET /users 200 ${Math.round(ms)} ms after SIGCONT`);
  t.is((await call('GET', '/server/health_check', undefined, false)).status, 200);
  t.is(app.url, url, 'the same app, never restarted');
});

test.serial('killed (-9): 503 with Retry-After within the bound, 200 within 1 s of the restart', async (t) => {
  const url = app.url;
  t.is((await call('GET', '/users')).status, 200);
  const killed = performance.now();
  process.kill(mariadbdPid(), 'SIGKILL');
  // Wait until the process is gone (the pid file stays behind after SIGKILL).
  for (let i = 0; i < 200 && server.running; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  t.false(server.running);
  await wave(t, 'down, first', killed);
  await new Promise((resolve) => setTimeout(resolve, CACHE_MS));
  await wave(t, 'down, past the caches', killed);
  await server.resume(); // resolves once the server accepts connections
  const accepting = performance.now();
  const ms = await msUntilOk('/users', accepting);
  t.log(`200 ${Math.round(ms)} ms after the database accepts connections`);
  t.true(ms <= 1000 + RECOVERY_SLACK_MS, `GET /users 200 ${Math.round(ms)} ms after the restart`);
  for (const path of ['/monitors', '/events', '/me']) t.is((await call('GET', path)).status, 200, path);
  t.is((await call('GET', '/server/health_check', undefined, false)).status, 200);
  t.is(app.url, url, 'the same app, never restarted');
});
