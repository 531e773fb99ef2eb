// Multi-server push: with cluster.redis_url set, socket.io's Redis adapter carries every host's
// messages to every host's clients, and exactly one host (the monitor's owner) speaks for each
// monitor. A redis-server started here on a loopback port, two hosts on one database, a
// simulated camera on host B only; the client is connected to host A. Last, Redis is stopped and
// started again while both hosts run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { SimCamera } from '../../../src/sim/camera.js';
import type { TestApp } from '../../helpers/app.js';
import { insertServers, startHosts, until } from '../../helpers/cluster.js';
import { insertEvent, insertMonitor } from '../../helpers/events.js';
import { request } from '../../helpers/http.js';
import type { FreshDatabase } from '../../helpers/mariadb.js';
import { PushClient } from '../../helpers/push-client.js';
import { startRedis, type TestRedis } from '../../helpers/redis.js';
import { addUser, caller, login } from '../../helpers/rest.js';
import { zmDatabase } from '../../helpers/zmdb.js';

let db: FreshDatabase;
let redis: TestRedis;
let a: TestApp;
let b: TestApp;
let camera: SimCamera;
const dirs: string[] = [];
const clients: PushClient[] = [];

test.before(async () => {
  db = await zmDatabase('cluster_push');
  await insertServers(db, [
    { id: 1, name: 'alpha' },
    { id: 2, name: 'bravo' },
  ]);
  await insertMonitor(db, 1, 'Cam 1', { ServerId: 1 });
  await insertMonitor(db, 2, 'Cam 2', { ServerId: 2 });
  await addUser(db, 'viewer', { Stream: 'View', Monitors: 'View', Events: 'View' });
  await addUser(db, 'operator', { Stream: 'View', Monitors: 'Edit', Events: 'View' });
  redis = await startRedis();
  const dirA = mkdtempSync(join(tmpdir(), 'zmgate-cluster-a-'));
  const dirB = mkdtempSync(join(tmpdir(), 'zmgate-cluster-b-'));
  dirs.push(dirA, dirB);
  camera = await SimCamera.start({ monitorId: 2, socketDir: dirB, mapDir: dirB });
  const env = (dir: string) => ({
    APP_ZONEMINDER__PATH_SOCKS: dir,
    APP_ZONEMINDER__PATH_MAP: dir,
    APP_AUTH__RATE_LIMIT__ENABLED: 'false',
    APP_CLUSTER__REDIS_URL: redis.url,
  });
  [a, b] = await startHosts(db, [
    { id: 1, env: env(dirA) },
    { id: 2, env: env(dirB) },
  ]);
});

test.after.always(async () => {
  for (const c of clients) c.close();
  await Promise.all([a?.close(), b?.close()]);
  await camera?.stop();
  await redis?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function subscriber(app: TestApp): Promise<PushClient> {
  const client = new PushClient(app.url, { token: await login(app, 'viewer') });
  clients.push(client);
  await client.connected();
  await client.waitFor('hello');
  const ack = await client.request('subscribe', { monitors: 'all' });
  if (!ack.ok) throw new Error(JSON.stringify(ack));
  return client;
}

test.serial('an alarm on host B reaches a client of host A', async (t) => {
  const client = await subscriber(a);
  const call = caller(b, await login(b, 'operator'));
  const sent = Date.now();
  t.is((await call('PATCH', '/monitors/2/alarm', { action: 'on', cause: 'Doorbell', score: 42 })).status, 200);
  const start = await client.waitFor('alarm', (m) => m.monitor_id === 2 && m.phase === 'start');
  t.log(`alarm on B seen by A's client ${Date.now() - sent} ms after the request`);
  t.like(start, { type: 'alarm', cause: 'Doorbell', score: 42 });
  t.is((await call('PATCH', '/monitors/2/alarm', { action: 'cancel' })).status, 200);
  await client.waitFor('alarm', (m) => m.monitor_id === 2 && m.phase === 'end');
  t.is(client.of('alarm').filter((m) => m.monitor_id === 2 && m.phase === 'start').length, 1);
});

test.serial('events are announced once, by the monitor’s owner, to clients of every host', async (t) => {
  const onA = await subscriber(a);
  const onB = await subscriber(b);
  const remote = await insertEvent(db, { monitorId: 2, end: null });
  await onA.waitFor('event_start', (m) => m.event.id === remote);
  await onB.waitFor('event_start', (m) => m.event.id === remote);
  // An event of A's monitor afterwards: by then any second announcement of the first would be in.
  const local = await insertEvent(db, { monitorId: 1, end: null });
  await onA.waitFor('event_start', (m) => m.event.id === local);
  await onB.waitFor('event_start', (m) => m.event.id === local);
  for (const c of [onA, onB]) {
    t.is(c.of('event_start').filter((m) => m.event.id === remote).length, 1, 'no duplicates');
    t.is(c.of('event_start').filter((m) => m.event.id === local).length, 1, 'no duplicates');
  }
});

test.serial(
  'Redis down: both hosts serve and push locally; Redis back: push crosses hosts again, no restart',
  async (t) => {
    const onA = await subscriber(a);
    const onB = await subscriber(b);
    const call = caller(b, await login(b, 'operator'));
    const ends = () => onB.of('alarm').filter((m) => m.monitor_id === 2 && m.phase === 'end').length;
    const alarm = async (cause: string) => {
      const endsBefore = ends();
      t.is((await call('PATCH', '/monitors/2/alarm', { action: 'on', cause, score: 9 })).status, 200);
      await onB.waitFor('alarm', (m) => m.monitor_id === 2 && m.phase === 'start' && m.cause === cause, 30_000);
      t.is((await call('PATCH', '/monitors/2/alarm', { action: 'cancel' })).status, 200);
      await until(async () => ends() > endsBefore, `the end of the alarm "${cause}" on B’s client`, 30_000);
    };
    // Each host's adapter holds one pattern subscription: two such Redis clients, both hosts attached.
    const attached = async () =>
      (await redis.cli('CLIENT', 'LIST').catch(() => '')).split('\n').filter((l) => / psub=1 /.test(l)).length;
    t.is(await attached(), 2);

    await redis.stop();
    const warned = (app: TestApp) => app.logs.some((l) => /Redis unreachable/.test(String(l.msg)));
    await until(async () => warned(a) && warned(b), 'both hosts noticing Redis gone', 30_000);
    // Both keep answering, and B's clients still get B's alarms (published locally).
    for (const app of [a, b])
      t.is((await request(app.api('/me'), { headers: auth(await login(app, 'viewer')) })).status, 200);
    await alarm('During the outage');

    await redis.restart();
    // Both hosts reconnect by themselves and subscribe again.
    await until(async () => (await attached()) === 2, 'both hosts back on Redis', 60_000);
    await alarm('After the outage');
    const back = await onA.waitFor(
      'alarm',
      (m) => m.monitor_id === 2 && m.phase === 'start' && m.cause === 'After the outage',
      30_000,
    );
    t.like(back, { type: 'alarm', score: 9 });
  },
);
