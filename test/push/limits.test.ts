// The push service's limits, on a service of its own (no full app): a flood of connections with
// the same forged token costs one real check, a client that stops reading is dropped while the
// others keep receiving, and connections beyond push.max_clients are refused at the handshake.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import type { AuthUser } from '../../src/auth/auth-service.js';
import { permissionsFromRow } from '../../src/auth/permissions.js';
import { loadConfig } from '../../src/config/index.js';
import { createPool } from '../../src/db/pool.js';
import { ZoneClock } from '../../src/db/zone-clock.js';
import { UnauthorizedError } from '../../src/errors.js';
import { PushService } from '../../src/features/push/push-service.js';
import { createLogger } from '../../src/log.js';
import { Metrics } from '../../src/metrics.js';
import { insertMonitor } from '../helpers/events.js';
import { request } from '../helpers/http.js';
import { dbConfigFor, type FreshDatabase } from '../helpers/mariadb.js';
import { PushClient } from '../helpers/push-client.js';
import { zmDatabase } from '../helpers/zmdb.js';

let db: FreshDatabase;
let pool: ReturnType<typeof createPool>;

const GOOD = 'good.token.sig';
const user: AuthUser = {
  id: 1,
  username: 'u',
  perms: permissionsFromRow({ Stream: 'View', Events: 'View' }),
  issuedAt: 0,
  expiresAt: Math.floor(Date.now() / 1000) + 3600,
};

test.before(async () => {
  db = await zmDatabase('push_limits');
  await insertMonitor(db, 1);
  pool = createPool(dbConfigFor(db));
});
test.after.always(() => pool?.end());

/** A PushService on its own listener; its token check accepts GOOD only and counts its calls. */
async function service(t: any, push: Record<string, string> = {}) {
  const { config } = loadConfig({
    env: { APP_ZONEMINDER__CONFIG_PATH: '/nonexistent/zm.conf', APP_ZONEMINDER__PATH_MAP: '/nonexistent', ...push },
    defaultOperatorFile: '/nonexistent/prod.toml',
  });
  const checks = { n: 0 };
  const auth = {
    clock: () => Date.now(),
    authenticate: async (token: string) => {
      checks.n++;
      if (token !== GOOD) throw new UnauthorizedError('Invalid token');
      return user;
    },
  };
  const acl = { scope: async () => ({ visible: null, editable: null }) };
  const metrics = new Metrics(true);
  const svc = new PushService({
    config,
    log: createLogger({ level: 'fatal' }),
    auth,
    acl,
    db: pool,
    clock: async () => new ZoneClock('UTC'),
    metrics,
  });
  await svc.monitors.refresh();
  const server: Server = createServer(svc.wrap((_req, res) => res.writeHead(404).end()));
  server.on('upgrade', (req, socket, head) => svc.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.teardown(async () => {
    await svc.close();
    server.closeAllConnections();
    server.close();
  });
  return { svc, url, checks, metrics };
}

const alarm = (i: number) => ({
  v: 1 as const,
  type: 'alarm' as const,
  monitor_id: 1,
  phase: 'start' as const,
  state: 'Alarm',
  score: i,
  cause: `n${i}`,
  time: '2026-01-01T00:00:00Z',
});

test('a flood of handshakes with the same forged token is refused, costing one real token check', async (t) => {
  const { url, checks } = await service(t);
  const forged = 'eyJhbGciOiJSUzI1NiJ9.eyJ1aWQiOjF9.AAAA';
  const refusals = await Promise.all(
    Array.from({ length: 300 }, async () => {
      const c = new PushClient(url, { token: forged });
      const err = await c.connected().then(
        () => null,
        (e) => e,
      );
      c.close();
      return err?.message;
    }),
  );
  t.deepEqual(new Set(refusals), new Set(['Invalid token']));
  t.is(checks.n, 1);
  // Tokens that are not even shaped like a JWT never reach the check.
  const junk = new PushClient(url, { token: 'x'.repeat(100) });
  t.is(
    (
      await junk.connected().then(
        () => null,
        (e) => e,
      )
    )?.message,
    'Invalid token',
  );
  junk.close();
  t.is(checks.n, 1);
  const ok = new PushClient(url, { token: GOOD });
  await ok.connected();
  t.truthy(await ok.waitFor('hello'));
  ok.close();
});

test('a client that stops reading is dropped; the others receive everything', async (t) => {
  const { svc, url, metrics } = await service(t, { APP_PUSH__MAX_QUEUED_MESSAGES: '8' });
  svc.start(); // the queue sweep
  const fast = new PushClient(url, { token: GOOD });
  t.teardown(() => fast.close());
  await fast.connected();
  t.true((await fast.request('subscribe', { monitors: 'all' })).ok);
  // The slow client speaks Engine.IO long-polling by hand and stops polling after subscribing.
  const base = `${url}/api/v3/socket.io/?EIO=4&transport=polling`;
  const open = await request(base);
  const sid = JSON.parse(open.text.slice(1)).sid as string;
  const post = (body: string) =>
    request(`${base}&sid=${sid}`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
  await post(`40${JSON.stringify({ token: GOOD })}`);
  t.regex((await request(`${base}&sid=${sid}`)).text, /^40/); // connected (the hello may come with it)
  await post('42["subscribe",{"monitors":"all"}]');
  await sleep(200);
  t.is(svc.clientCount, 2);
  for (let i = 0; i < 30; i++) svc.publish(alarm(i));
  for (let i = 0; i < 30; i++) await fast.waitFor('alarm', (m) => m.score === i);
  // A burst of 30 queues for both (under the hard limit of 4 × 8); the sweep drops the one that stays full.
  for (let i = 0; i < 300 && svc.clientCount > 1; i++) await sleep(20);
  t.is(svc.clientCount, 1, 'the slow client was dropped');
  t.true(fast.socket.connected);
  // The metrics: 30 alarms published, each to both connections; one connection dropped.
  const text = (await metrics.render()).body;
  t.regex(text, /^zmgate_push_messages_total\{type="alarm"\} 30$/m);
  t.regex(text, /^zmgate_push_deliveries_total\{type="alarm"\} 60$/m);
  t.regex(text, /^zmgate_push_connections_ended_total\{reason="slow_consumer"\} 1$/m);
  // When it polls again it gets what was queued (bounded), ending with session_ended.
  const rest = (await request(`${base}&sid=${sid}`)).text;
  t.regex(rest, /session_ended.*slow_consumer/);
  t.true((rest.match(/42\["alarm"/g) ?? []).length <= 32);
});

test('connections beyond push.max_clients are refused at the handshake', async (t) => {
  const { url } = await service(t, { APP_PUSH__MAX_CLIENTS: '2' });
  const clients = [new PushClient(url, { token: GOOD }), new PushClient(url, { token: GOOD })];
  t.teardown(() => clients.forEach((c) => c.close()));
  await Promise.all(clients.map((c) => c.connected()));
  const third = new PushClient(url, { token: GOOD, transports: ['polling'] });
  clients.push(third);
  t.truthy(
    await third.connected().then(
      () => null,
      (e) => e,
    ),
  );
});
