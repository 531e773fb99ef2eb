// A frozen database (SIGSTOP) with the statement bound left at its default of 30 s: every API
// request started during the freeze answers 503 with Retry-After about as fast as the health
// check does (src/db/bounded.ts: a wait without an answer has the server probed, and a probe
// without an answer closes the gate and releases what waits), on every kind of route: the
// hot-read lane's reads, express's JSON routes, a write, a media route. After SIGCONT the same app
// answers 200 again within a second.
//
// The bound asserted (10 s) is far from the statements' own 30 s, so a loaded machine does not
// make it flaky; the expected answer comes after about 3 s. FAULTS_VERBOSE=1 prints each answer.
import test, { type ExecutionContext } from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertEvent, insertMonitor } from '../helpers/events.js';
import { isEnvelope, request, type JsonResponse } from '../helpers/http.js';
import { privateMariaDb } from '../helpers/mariadb.js';
import { addUser, login } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { ThrowawayMariaDb } from '../../src/devdb/throwaway-mariadb.js';
import { EVENTS_MAX_AGE_MS, MONITORS_MAX_AGE_MS } from '../../src/infra/read-cache/read-caches.js';

/** Left at the default: the answer must not wait for it. */
const QUERY_TIMEOUT_S = 30;
/** Well below the statements' bound, well above the ~3 s expected (a loaded 2-core machine). */
const BOUND_MS = 10_000;
const FROZEN_MS = 20_000;
/** Recovery: 1 s, plus slack for a loaded machine. */
const RECOVERY_MS = 2000;
/** A fresh cached answer (a read cache, docs/api-caches.md) is a correct 200. */
const CACHE_MS = Math.max(MONITORS_MAX_AGE_MS, EVENTS_MAX_AGE_MS);

let server: ThrowawayMariaDb | undefined;
let app: TestApp | undefined;
let token: string;
let stoppedPid: number | null = null;

test.before(async () => {
  server = await privateMariaDb();
  const db = await zmDatabase('frozen', { server });
  await addUser(db, 'admin', { System: 'Edit', Monitors: 'Edit', Events: 'Edit', Stream: 'View' });
  await insertMonitor(db, 1, 'front');
  await insertEvent(db, { id: 1, monitorId: 1 });
  app = await startTestApp({
    db,
    env: {
      APP_AUTH__RATE_LIMIT__ENABLED: 'false',
      APP_SERVER__MIDDLEWARE__RATE_LIMIT__ENABLED: 'false',
      APP_DB__QUERY_TIMEOUT_SECS: String(QUERY_TIMEOUT_S),
      // The shipped defaults (config/base.toml), not the test profile's shorter ones.
      APP_DB__ACQUIRE_TIMEOUT_SECS: '5',
      APP_DB__CONNECT_TIMEOUT_SECS: '5',
      APP_DB__POOL_MIN: '1',
    },
  });
  token = await login(app, 'admin');
});
test.after.always(async () => {
  // Never leave the server stopped, whatever failed.
  if (stoppedPid !== null) process.kill(stoppedPid, 'SIGCONT');
  await app?.close();
  await server?.stop();
});

/** True once every thread of `pid` is stopped (state T in /proc). */
function stopped(pid: number): boolean {
  const tasks = readdirSync(`/proc/${pid}/task`);
  return tasks.every((task) => /^\d+ \(.*\) T /.test(readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8')));
}

/** A request that must come back: one held to the statements' bound still ends the test. */
const call = (method: string, path: string, body?: unknown) =>
  request(app!.api(path), {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout((QUERY_TIMEOUT_S + 10) * 1000),
  });

interface Route {
  name: string;
  /** Answered from a read cache while its answer is fresh: 200 is then correct. */
  cached?: boolean;
  send: () => Promise<JsonResponse<any>>;
  /** Its answer while the database answers (default 200). */
  healthy?: number;
}

const ROUTES: Route[] = [
  // The hot-read lane's reads (src/http/polled-reads.ts).
  { name: 'lane: monitor list', cached: true, send: () => call('GET', '/monitors') },
  { name: 'lane: event list', cached: true, send: () => call('GET', '/events?page_size=5') },
  { name: 'lane: me', send: () => call('GET', '/me') },
  // express's chain.
  { name: 'one monitor', cached: true, send: () => call('GET', '/monitors/1') },
  { name: 'one event', send: () => call('GET', '/events/1') },
  { name: 'users', send: () => call('GET', '/users') },
  { name: 'write', healthy: 201, send: () => call('POST', '/tags', { name: `t${Date.now()}${Math.random()}` }) },
  // A media route (playback): the event's row is read first; it has no files, hence a 404.
  { name: 'media: event video', healthy: 404, send: () => call('GET', '/events/1/video') },
];

/** Sends every route at once; each must be a 503 envelope with Retry-After (or a fresh cached 200) within BOUND_MS. */
async function wave(t: ExecutionContext, label: string, frozen: number): Promise<number> {
  const sent = performance.now();
  const times = await Promise.all(
    ROUTES.map(async (route) => {
      const res = await route.send();
      const elapsed = performance.now() - sent;
      const what = `${label} ${route.name}: ${res.status} after ${Math.round(elapsed)} ms`;
      if (process.env.FAULTS_VERBOSE) console.error(what);
      t.true(elapsed < BOUND_MS, `${what}: not within ${BOUND_MS} ms`);
      if (route.cached && res.status === 200 && sent - frozen < CACHE_MS) return elapsed;
      t.is(res.status, 503, `${what} ${res.text.slice(0, 200)}`);
      t.true(isEnvelope(res.body), what);
      t.is(res.body?.kind, 'SERVICE_UNAVAILABLE_ERROR', what);
      t.truthy(res.headers.get('retry-after'), `${what}: Retry-After`);
      return elapsed;
    }),
  );
  return Math.max(...times);
}

test.serial(
  'frozen 20 s with a 30 s statement bound: 503 + Retry-After on every route within the bound, 200 soon after SIGCONT',
  async (t) => {
    t.timeout(110_000);
    const url = app!.url;
    for (const route of ROUTES) t.is((await route.send()).status, route.healthy ?? 200, `${route.name} before`);
    const pid = Number(readFileSync(join(server!.baseDir, 'mariadbd.pid'), 'utf8').trim());
    const logsBefore = app!.logs.length;
    stoppedPid = pid;
    process.kill(pid, 'SIGSTOP');
    // The signal is delivered asynchronously: a thread already running may answer once more.
    while (!stopped(pid)) await new Promise((resolve) => setTimeout(resolve, 10));
    const frozen = performance.now();
    let waves = 0;
    let slowest = 0;
    try {
      // Waves back to back: requests meet connections used a moment ago (not validated by the
      // pool), the acquire queue, and the gate open, closing and closed. At most four a second.
      while (performance.now() - frozen < FROZEN_MS) {
        const started = performance.now();
        slowest = Math.max(slowest, await wave(t, `wave ${++waves}`, frozen));
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 250 - (performance.now() - started))));
      }
    } finally {
      process.kill(pid, 'SIGCONT');
      stoppedPid = null;
    }
    const resumed = performance.now();
    t.log(`frozen ${Math.round(resumed - frozen)} ms, ${waves} waves, slowest answer ${Math.round(slowest)} ms`);
    t.true(waves >= 3, `${waves} waves`);
    // Every route answers again; /users (no cache) first, as the time to recover.
    let recovered = Infinity;
    while (performance.now() - resumed < 10_000) {
      if ((await call('GET', '/users')).status === 200) {
        recovered = performance.now() - resumed;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    t.log(`200 ${Math.round(recovered)} ms after SIGCONT`);
    t.true(recovered <= RECOVERY_MS, `GET /users 200 ${Math.round(recovered)} ms after SIGCONT`);
    for (const route of ROUTES) t.is((await route.send()).status, route.healthy ?? 200, `${route.name} after`);
    t.is(app!.url, url, 'the same app, never restarted');
    // An outage is expected: warnings, never an error line with a stack.
    const errors = app!.logs.slice(logsBefore).filter((l) => l.level >= 50);
    t.deepEqual(
      errors.map((l) => l.msg),
      [],
    );
  },
);
