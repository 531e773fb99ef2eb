// Multi-server lists: `?scope=cluster` on /live/sessions, /live/sources and /daemons answers with
// every host's items, each host asked with the caller's token; a host that fails is reported (in
// `servers` and the X-Zmgate-Cluster-Incomplete header), never fails the list. Two hosts in one
// process on loopback, one database: A in takeover mode (stand-in daemons, monitor 1's shared
// memory), B passive with a fake zmc for monitor 2; charlie refuses connections, delta accepts
// and never answers.
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import test from 'ava';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { insertServers, startHosts, until } from '../../helpers/cluster.js';
import { servedDocument } from '../../helpers/coverage.js';
import { RUNS, standInBin } from '../../helpers/daemon-standins.js';
import { sql } from '../../helpers/events.js';
import { request } from '../../helpers/http.js';
import { liveEnv, liveFixture, type LiveFixture } from '../../helpers/live.js';
import type { FreshDatabase } from '../../helpers/mariadb.js';
import { addUser, caller, login, type Call } from '../../helpers/rest.js';
import { takeoverDirs, takeoverEnv, type TakeoverDirs } from '../../helpers/takeover.js';
import { zmDatabase } from '../../helpers/zmdb.js';

let db: FreshDatabase;
let fxB: LiveFixture;
let dirsA: TakeoverDirs;
let a: TestApp;
let b: TestApp;
let admin: Call;
let adminB: Call;
let silent: net.Server;
const held: net.Socket[] = [];

test.before(async () => {
  db = await zmDatabase('cluster_lists');
  await insertServers(db, [
    { id: 1, name: 'alpha' },
    { id: 2, name: 'bravo' },
    { id: 3, name: 'charlie' },
    { id: 4, name: 'delta' },
  ]);
  await sql(
    db,
    `INSERT INTO Monitors (Id, Name, Type, Device, Capturing, Analysing, Recording, ServerId, Width, Height, ImageBufferCount)
     VALUES (1, 'Cam 1', 'Ffmpeg', '', 'Always', 'None', 'None', 1, 320, 240, 3),
            (2, 'Cam 2', 'Ffmpeg', '', 'Always', 'None', 'None', 2, 320, 240, 3)`,
  );
  const admins = { System: 'Edit', Stream: 'View', Monitors: 'View', Events: 'View' };
  await addUser(db, 'admin', admins);
  const limited = await addUser(db, 'limited', admins);
  await sql(db, "INSERT INTO Monitors_Permissions (UserId, MonitorId, Permission) VALUES (?, 2, 'None')", [limited]);
  silent = net.createServer((socket) => held.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  await sql(
    db,
    `INSERT INTO zmgate_cluster_keys (kid, kind, server_id, server_name, public_key, api_url)
     VALUES ('charlie-a', 'access', 3, 'charlie', '', 'http://127.0.0.1:1/api/v3'),
            ('delta-a', 'access', 4, 'delta', '', ?)`,
    [`http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/api/v3`],
  );
  dirsA = takeoverDirs(standInBin({ zmc: RUNS, 'zmstats.pl': RUNS, 'zmfilter.pl': RUNS }));
  fxB = await liveFixture([2]);
  [a, b] = await startHosts(db, [
    { id: 1, env: takeoverEnv(dirsA, { APP_DAEMON__SERVER_HOST: 'alpha' }) },
    { id: 2, env: liveEnv(fxB) },
  ]);
  admin = caller(a, await login(a, 'admin'));
  adminB = caller(b, await login(b, 'admin'));
  await until(async () => (await admin('GET', '/daemons')).body.daemons?.length >= 1, 'A’s daemons');
  // Monitor 1 has shared memory on A only (offered there as MJPEG; written after the supervisor's
  // start-up clean-up of stale segments), monitor 2 a stream socket on B.
  writeFileSync(join(dirsA.map, 'zm.mmap.1'), Buffer.alloc(4096));
});

test.after.always(async () => {
  for (const s of held) s.destroy();
  silent?.close();
  await Promise.all([a?.close(), b?.close()]);
  await fxB?.close();
});

const INCOMPLETE = 'x-zmgate-cluster-incomplete';
const byServer = (servers: Array<Record<string, any>>) => Object.fromEntries(servers.map((s) => [s.server_name, s]));

function failedPeers(t: import('ava').ExecutionContext, servers: Array<Record<string, any>>, header: string | null) {
  const s = byServer(servers);
  t.like(s.charlie, { server_id: 3, status: 'unreachable' });
  t.like(s.delta, { server_id: 4, status: 'timeout' });
  t.regex(header ?? '', /3 charlie unreachable/);
  t.regex(header ?? '', /4 delta timeout/);
}

test('/live/sources?scope=cluster: every host’s sources with their server; failed hosts reported', async (t) => {
  const local = await admin('GET', '/live/sources');
  t.is(local.status, 200);
  t.deepEqual(
    local.body.sources.map((s: any) => s.monitor_id),
    [1],
  );
  t.false('servers' in local.body);
  t.false('server_id' in local.body.sources[0]);

  const all = await admin('GET', '/live/sources?scope=cluster');
  t.is(all.status, 200, all.text);
  t.deepEqual(
    all.body.sources.map((s: any) => [s.monitor_id, s.server_id, s.server_name, s.codec === 'MJPEG']),
    [
      [1, 1, 'alpha', true],
      [2, 2, 'bravo', false],
    ],
  );
  // B's source URLs are relative to the API: they play through A (forwarded to B).
  t.is(all.body.sources[1].hls, '/api/v3/live/2/hls/master.m3u8');
  t.like(byServer(all.body.servers), { alpha: { status: 'ok' }, bravo: { status: 'ok' } });
  failedPeers(t, all.body.servers, all.headers.get(INCOMPLETE));
  t.is(local.headers.get(INCOMPLETE), null);
});

test('/live/sources?scope=cluster: each host applies the caller’s monitor ACL', async (t) => {
  const limited = caller(a, await login(a, 'limited'));
  const all = await limited('GET', '/live/sources?scope=cluster');
  t.is(all.status, 200);
  t.deepEqual(
    all.body.sources.map((s: any) => s.monitor_id),
    [1],
  );
  t.like(byServer(all.body.servers), { bravo: { status: 'ok' } });
});

test('/live/sessions?scope=cluster: B’s session (started through A) is listed by A', async (t) => {
  const token = await login(a, 'admin');
  // GET live.m3u8 through A starts the session on B.
  await until(
    async () => (await fetch(a.api(`/live/2/hls/live.m3u8?token=${token}`))).status === 200,
    'B’s session started through A',
    60_000,
  );
  t.deepEqual((await admin('GET', '/live/sessions')).body, []);
  const all = await admin('GET', '/live/sessions?scope=cluster');
  t.is(all.status, 200);
  t.deepEqual(all.body, [2]);
  t.regex(all.headers.get(INCOMPLETE) ?? '', /3 charlie unreachable, 4 delta timeout/);
  // A request already forwarded by another host is answered with this host's own list only.
  const onward = await request(a.api('/live/sessions?scope=cluster'), {
    headers: { authorization: `Bearer ${token}`, 'x-zmgate-forwarded-by': '2' },
  });
  t.deepEqual(onward.body, []);
});

test('/daemons?scope=cluster: A’s daemons with their server; passive B reported with its 503', async (t) => {
  t.is((await adminB('GET', '/daemons')).status, 503);
  const all = await admin('GET', '/daemons?scope=cluster');
  t.is(all.status, 200, all.text);
  t.true(all.body.daemons.length >= 1);
  t.true(all.body.daemons.every((d: any) => d.server_id === 1 && d.server_name === 'alpha'));
  t.true(all.body.daemons.some((d: any) => d.id === 'zmc -m 1'));
  t.false(
    all.body.daemons.some((d: any) => d.id === 'zmc -m 2'),
    'A runs only its own monitors',
  );
  const servers = byServer(all.body.servers);
  t.like(servers.alpha, { status: 'ok' });
  t.like(servers.bravo, { status: 'error', http_status: 503 }, JSON.stringify(servers.bravo));
  t.regex(servers.bravo.message, /Daemon manager not available/);
  failedPeers(t, all.body.servers, all.headers.get(INCOMPLETE));
  // From B (passive itself): its own 503 is reported the same way, A's daemons listed.
  const fromB = await adminB('GET', '/daemons?scope=cluster');
  t.is(fromB.status, 200, fromB.text);
  t.like(byServer(fromB.body.servers), { alpha: { status: 'ok' }, bravo: { status: 'error', http_status: 503 } });
  t.true(fromB.body.daemons.some((d: any) => d.id === 'zmc -m 1' && d.server_id === 1));
});

test('scope is validated: an unknown scope is 400', async (t) => {
  const res = await admin('GET', '/live/sources?scope=everywhere');
  t.is(res.status, 400);
});

test('on a single server scope=cluster answers the local list unchanged', async (t) => {
  const single = await startTestApp({ db, env: liveEnv(fxB) });
  try {
    const call = caller(single, await login(single, 'admin'));
    const local = await call('GET', '/live/sources');
    const all = await call('GET', '/live/sources?scope=cluster');
    t.is(all.status, 200);
    t.deepEqual(all.body, local.body);
    t.false('servers' in all.body);
    t.is(all.headers.get(INCOMPLETE), null);
  } finally {
    await single.close();
  }
});

test('OpenAPI: the lists document scope, the per-item server and the servers list; WebRTC may be 502/504', async (t) => {
  const doc = await servedDocument(a.url);
  for (const [path, id] of [
    ['/api/v3/live/sessions', 'listLiveSessions'],
    ['/api/v3/live/sources', 'getLiveSources'],
    ['/api/v3/daemons', 'list_daemons'],
  ]) {
    const op = doc.paths[path].get;
    t.is(op.operationId, id);
    const scope = op.parameters.find((p: any) => p.name === 'scope');
    t.like(scope, { in: 'query', required: false }, path);
    t.deepEqual(scope.schema.enum ?? doc.components.schemas[scope.schema.$ref?.split('/').pop()]?.enum, [
      'local',
      'cluster',
    ]);
  }
  const schemas = doc.components.schemas;
  t.truthy(schemas.LiveSource.properties.server_id);
  t.truthy(schemas.LiveSourcesResponse.properties.servers);
  t.truthy(schemas.DaemonStatusResponse.properties.server_id);
  t.truthy(schemas.DaemonListResponse.properties.servers);
  const webrtc = doc.paths['/api/v3/live/{monitor_id}/webrtc/ws'].get.responses;
  t.truthy(webrtc['502']);
  t.truthy(webrtc['504']);
});
