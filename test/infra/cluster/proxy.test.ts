// Multi-server: media of a monitor or a recording owned by another host, asked of this host, is
// forwarded there as a streaming proxy. Two hosts in one process on loopback, one database:
// monitor 1 on host A, monitor 2 on host B (its fake zmc and shared memory only B can see), a
// recording of monitor 2 on B's Storage. Through A: LL-HLS (ffmpeg reads it), MJPEG, the snapshot,
// the recording with byte ranges; A's own monitor is served by A; an unreachable or silent peer
// answers 502/504 with the envelope naming it, while A's own monitors keep answering.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { promisify } from 'node:util';
import test from 'ava';
import { sharedMemoryPath } from '../../../src/native/index.js';
import type { TestApp } from '../../helpers/app.js';
import { insertServers, startHosts, until } from '../../helpers/cluster.js';
import { insertMonitor, sql } from '../../helpers/events.js';
import { isEnvelope, request } from '../../helpers/http.js';
import { liveEnv, liveFixture, type LiveFixture } from '../../helpers/live.js';
import type { FreshDatabase } from '../../helpers/mariadb.js';
import { insertMediaEvent, makeStorages, type MediaEvent } from '../../helpers/playback.js';
import { addUser, login } from '../../helpers/rest.js';
import { writeShmFixture } from '../../helpers/shm-fixture.js';
import { refusedUpgrade, SignalClient } from '../../helpers/ws-client.js';
import { zmDatabase } from '../../helpers/zmdb.js';

const run = promisify(execFile);

let db: FreshDatabase;
let fxA: LiveFixture;
let fxB: LiveFixture;
let a: TestApp;
let b: TestApp;
let token: string;
let recording: MediaEvent;
let recordingFile: Buffer;
let silent: net.Server;
const held: net.Socket[] = [];

test.before(async () => {
  db = await zmDatabase('cluster_proxy');
  await insertServers(db, [
    { id: 1, name: 'alpha' },
    { id: 2, name: 'bravo' },
    { id: 3, name: 'charlie' },
    { id: 4, name: 'delta' },
  ]);
  for (const [id, server] of [
    [1, 1],
    [2, 2],
    [3, 3],
    [4, 4],
    [5, 2],
    [6, 5],
  ]) {
    await insertMonitor(db, id, `Cam ${id}`, { ServerId: server, Width: 320, Height: 240, ImageBufferCount: 3 });
  }
  await addUser(db, 'watcher', { Stream: 'View', Events: 'View', Monitors: 'View' });
  await addUser(db, 'operator', { Stream: 'View', Events: 'View', Monitors: 'Edit' });
  // Each host sees only its own camera: its own socket and shared-memory directories.
  fxA = await liveFixture([1]);
  fxB = await liveFixture([2]);
  writeShmFixture(sharedMemoryPath(fxB.mapDir, 2), {
    layout: 888,
    format: 'rgb24',
    width: 320,
    height: 240,
    imageBufferCount: 3,
    images: [{ slot: 0, timestampUs: 1_700_000_000_000_000 }],
    fields: { heartbeat_time: Math.floor(Date.now() / 1000) },
  });
  // Echo published no URL and its Servers row has no Hostname: no address to forward to.
  await sql(db, "INSERT INTO Servers (Id, Name, Protocol, Hostname, Port) VALUES (5, 'echo', 'http', NULL, 80)");
  const roots = await makeStorages(db, 'cluster');
  await sql(db, 'UPDATE Storage SET ServerId = 2 WHERE Id = 2');
  recording = await insertMediaEvent(db, roots, {
    monitorId: 2,
    defaultVideo: '{id}-video.mp4',
    files: { '{id}-video.mp4': { fixture: 'h264.mp4' } },
  });
  recordingFile = readFileSync(`${recording.dir}/${recording.id}-video.mp4`);
  // Charlie refuses connections; delta accepts them and never answers.
  silent = net.createServer((socket) => held.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const silentPort = (silent.address() as net.AddressInfo).port;
  await sql(
    db,
    `INSERT INTO zmgate_cluster_keys (kid, kind, server_id, server_name, public_key, api_url)
     VALUES ('charlie-a', 'access', 3, 'charlie', '', 'http://127.0.0.1:1/api/v3'),
            ('delta-a', 'access', 4, 'delta', '', ?)`,
    [`http://127.0.0.1:${silentPort}/api/v3`],
  );
  // Under test load a cold first request may take a second or more: the default 5 s bound.
  const timeout = { APP_CLUSTER__PROXY_TIMEOUT_SECS: '5' };
  [a, b] = await startHosts(db, [
    { id: 1, env: liveEnv(fxA, timeout) },
    { id: 2, env: liveEnv(fxB, timeout) },
  ]);
  token = await login(a, 'watcher');
});

test.after.always(async () => {
  for (const s of held) s.destroy();
  silent?.close();
  await Promise.all([a?.close(), b?.close()]);
  await Promise.all([fxA?.close(), fxB?.close()]);
});

const auth = () => ({ authorization: `Bearer ${token}` });
const viaB = (res: { headers: Headers }) => /zmgate-1/.test(res.headers.get('via') ?? '');

test('the recording of B’s camera plays through A with byte ranges', async (t) => {
  const whole = await fetch(a.api(`/events/${recording.id}/video`), { headers: auth() });
  t.is(whole.status, 200);
  t.true(viaB(whole));
  t.deepEqual(Buffer.from(await whole.arrayBuffer()), recordingFile);

  const part = await fetch(a.api(`/events/${recording.id}/video?token=${token}`), {
    headers: { range: 'bytes=100-1099' },
  });
  t.is(part.status, 206);
  t.is(part.headers.get('content-range'), `bytes 100-1099/${recordingFile.length}`);
  t.deepEqual(Buffer.from(await part.arrayBuffer()), recordingFile.subarray(100, 1100));
});

test('the snapshot of B’s camera comes through A; A’s own monitor is answered by A', async (t) => {
  const snap = await fetch(a.api('/monitors/2/snapshot'), { headers: auth() });
  t.is(snap.status, 200, await snap.clone().text());
  t.is(snap.headers.get('content-type'), 'image/jpeg');
  t.true(viaB(snap));
  const jpeg = Buffer.from(await snap.arrayBuffer());
  t.is(jpeg.readUInt16BE(0), 0xffd8);
  // Monitor 1 is A's: no shared memory on A, so A's own answer (503), not forwarded.
  const own = await fetch(a.api('/monitors/1/snapshot'), { headers: auth() });
  t.false(viaB(own));
  t.is(own.status, 503);
});

test('live MJPEG of B’s camera streams through A, and leaving ends it', async (t) => {
  const ctl = new AbortController();
  const res = await fetch(a.api(`/live/2/mjpeg?token=${token}`), { signal: ctl.signal });
  t.is(res.status, 200);
  t.true(viaB(res));
  t.regex(res.headers.get('content-type') ?? '', /^multipart\/x-mixed-replace/);
  const reader = res.body!.getReader();
  let got = Buffer.alloc(0);
  while (got.indexOf(Buffer.from([0xff, 0xd8])) < 0) {
    const { value, done } = await reader.read();
    if (done) break;
    got = Buffer.concat([got, Buffer.from(value)]);
  }
  t.true(got.indexOf(Buffer.from([0xff, 0xd8])) >= 0, 'a JPEG arrived');
  ctl.abort();
});

test('ffmpeg reads the live HLS of B’s camera through A', async (t) => {
  const url = a.api(`/live/2/hls/live.m3u8?token=${token}`);
  // The first request starts B's session; wait for a playable playlist (three segments).
  for (let i = 0; i < 300; i++) {
    const res = await fetch(url);
    const text = await res.text();
    if (res.status === 200 && (text.match(/#EXTINF/g) ?? []).length >= 3) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const { stderr } = await run('ffmpeg', ['-nostdin', '-v', 'error', '-i', url, '-t', '4', '-f', 'null', '-'], {
    timeout: 60_000,
  });
  t.is(stderr.trim(), '');
  // B packaged it: A has no session of its own for monitor 2.
  // (/live/sessions lists the monitor ids with a session.)
  t.deepEqual((await request(b.api('/live/sessions'), { headers: auth() })).body, [2]);
  t.deepEqual((await request(a.api('/live/sessions'), { headers: auth() })).body, []);
});

test('a peer that refuses connections answers 502 with the envelope naming it', async (t) => {
  const res = await request(a.api('/live/3/mjpeg'), { headers: auth() });
  t.is(res.status, 502);
  t.true(isEnvelope(res.body));
  t.is(res.body.kind, 'BAD_GATEWAY_ERROR');
  t.regex(res.body.error_message, /charlie/);
  t.deepEqual(res.body.details, [
    ['server_id', '3'],
    ['server_name', 'charlie'],
  ]);
});

test('a peer with no address answers 502 naming it, for HTTP and for the WebRTC upgrade', async (t) => {
  const res = await request(a.api('/live/6/mjpeg'), { headers: auth() });
  t.is(res.status, 502);
  t.is(res.body.kind, 'BAD_GATEWAY_ERROR');
  t.regex(res.body.error_message, /echo.*has no address/);
  t.deepEqual(res.body.details, [
    ['server_id', '5'],
    ['server_name', 'echo'],
  ]);
  const upgrade = await refusedUpgrade(wsUrl(a, 6));
  t.is(upgrade.status, 502);
  t.regex(upgrade.body.error_message, /echo.*has no address/);
});

test('a silent peer answers 504 within the timeout; A’s own and B’s monitors are unaffected', async (t) => {
  const pending = request(a.api('/monitors/4/snapshot'), { headers: auth() });
  // While delta hangs, the other hosts answer.
  const meanwhile = await fetch(a.api('/monitors/2/snapshot'), { headers: auth() });
  t.is(meanwhile.status, 200);
  const res = await pending;
  t.is(res.status, 504);
  t.is(res.body.kind, 'GATEWAY_TIMEOUT_ERROR');
  t.regex(res.body.error_message, /delta.*5 s/);
});

test('a request that was already forwarded is served where it lands', async (t) => {
  const res = await fetch(b.api('/monitors/1/snapshot'), { headers: { ...auth(), 'x-zmgate-forwarded-by': '9' } });
  t.false(viaB(res));
  t.is(res.status, 503); // B has no shared memory for A's camera
});

test('control routes of B’s monitor (alarm, live session start and stats) are forwarded with their body', async (t) => {
  const headers = {
    authorization: `Bearer ${await login(a, 'operator')}`,
    'content-type': 'application/json',
  };
  const alarm = await fetch(a.api('/monitors/2/alarm'), {
    method: 'PATCH',
    headers,
    body: JSON.stringify({ action: 'on', cause: 'Forwarded', score: 5 }),
  });
  t.is(alarm.status, 200, await alarm.clone().text());
  t.true(viaB(alarm));
  const cancel = await fetch(a.api('/monitors/2/alarm'), { method: 'PATCH', headers, body: '{"action":"cancel"}' });
  t.is(cancel.status, 200);
  const start = await fetch(a.api('/live/2/start'), { method: 'POST', headers, body: '{}' });
  t.true([200, 409].includes(start.status), await start.clone().text());
  t.true(viaB(start));
  const stats = await request(a.api('/live/2/stats'), { headers });
  t.is(stats.status, 200, stats.text);
  // A's own monitor stays on A.
  const own = await fetch(a.api('/live/1/stats'), { headers });
  t.false(viaB(own));
});

const wsUrl = (app: TestApp, monitorId: number) =>
  `${app.url.replace(/^http/, 'ws')}/api/v3/live/${monitorId}/webrtc/ws?token=${token}`;

test('WebRTC signalling for B’s camera is forwarded by A: B’s offer, and B answers a ping', async (t) => {
  // A has no stream socket for monitor 2: served there, the upgrade would be refused with 404.
  const client = await SignalClient.connect(wsUrl(a, 2));
  try {
    t.regex(String(client.upgradeHeaders.via), /zmgate-1/);
    const offer = await client.next('offer', 30_000);
    t.regex(offer.sdp, /^v=0/);
    t.regex(offer.sdp, /a=ice-options:.*trickle/);
    const from = client.messages.length;
    client.send({ type: 'ping' });
    await client.next('pong', 20_000, from);
    t.pass();
  } finally {
    // Gone without a closing handshake (a tab killed, a network drop): only A's socket closes.
    client.ws.terminate();
  }
  await client.waitClosed();
  // That ends B's session at once (not at B's 60 s answer timeout, code 1011).
  await until(
    async () => b.logs.some((l) => l.msg === 'webrtc session closed' && l.code === 1000),
    'B’s WebRTC session closed by the client leaving',
  );
});

test('WebRTC signalling: B’s refusal comes back through A, an unreachable or silent owner is 502/504', async (t) => {
  // Monitor 5 is B's and has no camera there: B's own 404, passed on by A.
  const missing = await refusedUpgrade(wsUrl(a, 5));
  t.is(missing.status, 404);
  t.regex(String(missing.headers.via), /zmgate-1/);
  t.true(isEnvelope(missing.body));
  t.deepEqual(missing.body.details, [
    ['monitor_id', '5'],
    ['reason', 'stream socket not available'],
  ]);
  const refused = await refusedUpgrade(wsUrl(a, 3));
  t.is(refused.status, 502);
  t.is(refused.body.kind, 'BAD_GATEWAY_ERROR');
  t.regex(refused.body.error_message, /charlie/);
  const silentPeer = await refusedUpgrade(wsUrl(a, 4));
  t.is(silentPeer.status, 504);
  t.is(silentPeer.body.kind, 'GATEWAY_TIMEOUT_ERROR');
  t.regex(silentPeer.body.error_message, /delta/);
  // A checks the caller first: no token, no forwarding.
  const anonymous = await refusedUpgrade(wsUrl(a, 2).replace(/\?token=.*/, ''));
  t.is(anonymous.status, 401);
  t.is(anonymous.headers.via, undefined);
});
