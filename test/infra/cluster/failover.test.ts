// Multi-server peer failure and rejoin: while host B is down, host A answers B's monitors with a
// 502 envelope naming B and keeps serving its own; when B comes back (on another port, as after
// a move), A finds its newly published URL and forwards again, with no restart of A.
import test from 'ava';
import { sharedMemoryPath } from '../../../src/native/index.js';
import type { TestApp } from '../../helpers/app.js';
import { insertServers, startHost, startHosts, until } from '../../helpers/cluster.js';
import { insertMonitor } from '../../helpers/events.js';
import { request } from '../../helpers/http.js';
import { liveEnv, liveFixture, type LiveFixture } from '../../helpers/live.js';
import type { FreshDatabase } from '../../helpers/mariadb.js';
import { addUser, login } from '../../helpers/rest.js';
import { writeShmFixture } from '../../helpers/shm-fixture.js';
import { zmDatabase } from '../../helpers/zmdb.js';

let db: FreshDatabase;
let fxA: LiveFixture;
let fxB: LiveFixture;
let a: TestApp;
let b: TestApp | undefined;

const picture = (mapDir: string, id: number) =>
  writeShmFixture(sharedMemoryPath(mapDir, id), {
    layout: 888,
    format: 'rgb24',
    width: 320,
    height: 240,
    imageBufferCount: 3,
    images: [{ slot: 0, timestampUs: 1_700_000_000_000_000 }],
    fields: { heartbeat_time: Math.floor(Date.now() / 1000) },
  });

test.before(async () => {
  db = await zmDatabase('cluster_failover');
  await insertServers(db, [
    { id: 1, name: 'alpha' },
    { id: 2, name: 'bravo' },
  ]);
  for (const id of [1, 2])
    await insertMonitor(db, id, `Cam ${id}`, { ServerId: id, Width: 320, Height: 240, ImageBufferCount: 3 });
  await addUser(db, 'watcher', { Stream: 'View', Monitors: 'View' });
  fxA = await liveFixture([]);
  fxB = await liveFixture([]);
  picture(fxA.mapDir, 1);
  picture(fxB.mapDir, 2);
  [a, b] = await startHosts(db, [
    { id: 1, env: liveEnv(fxA) },
    { id: 2, env: liveEnv(fxB) },
  ]);
});

test.after.always(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await Promise.all([fxA?.close(), fxB?.close()]);
});

test('B down: 502 naming B for its monitor, A’s own monitor unaffected; B back: forwarded again', async (t) => {
  const headers = { authorization: `Bearer ${await login(a, 'watcher')}` };
  const snapshot = (id: number) => fetch(a.api(`/monitors/${id}/snapshot`), { headers });
  t.is((await snapshot(2)).status, 200);

  await b!.close();
  b = undefined;
  const down = await request(a.api('/monitors/2/snapshot'), { headers });
  t.is(down.status, 502);
  t.is(down.body.kind, 'BAD_GATEWAY_ERROR');
  t.regex(down.body.error_message, /"bravo" \(id 2\)/);
  const own = await snapshot(1);
  t.is(own.status, 200);
  t.is(own.headers.get('via'), null);

  // B restarts (a new port); A picks up the URL it publishes within cluster.refresh_secs.
  b = await startHost(db, 2, liveEnv(fxB));
  await until(async () => (await snapshot(2)).status === 200, 'A forwarding to the restarted B');
  const back = await snapshot(2);
  t.is(back.headers.get('content-type'), 'image/jpeg');
  t.regex(back.headers.get('via') ?? '', /zmgate-1/);
});
