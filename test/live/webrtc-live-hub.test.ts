// The WebRTC endpoint in the real server over the live hub (services.live): a node-datachannel
// viewer gets media through startServer's listener; the viewer shows in /live/sources (video and
// audio subscribers) and its start-up timings in /live/{id}/stats; the reader is released when
// the socket closes; streaming.enabled = false refuses the upgrade with 503; shutdown closes open
// signalling sockets with 1001.
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { liveEnv, liveFixture, seedLive, type LiveFixture } from '../helpers/live.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { caller, login, type Call } from '../helpers/rest.js';
import { NodeViewer } from '../helpers/rtc-peer.js';
import { refusedUpgrade, SignalClient } from '../helpers/ws-client.js';
import { zmDatabase } from '../helpers/zmdb.js';

let db: FreshDatabase;
let fixture: LiveFixture;
let app: TestApp;
let token: string;
let call: Call;

const wsUrl = (a: TestApp, id: number, tok?: string) =>
  `${a.url.replace(/^http/, 'ws')}/api/v3/live/${id}/webrtc/ws${tok ? `?token=${tok}` : ''}`;

test.before(async () => {
  db = await zmDatabase('webrtc_hub');
  await seedLive(db, 2);
  fixture = await liveFixture([1], [], {
    video: 'h264-baseline',
    audio: 'pcmu',
    width: 320,
    height: 180,
    fps: 25,
    seconds: 30,
  });
  app = await startTestApp({ db, env: liveEnv(fixture, { APP_METRICS__ENABLED: 'true' }) });
  token = await login(app, 'viewer');
  call = caller(app, token);
});

test.after.always(async () => {
  await app?.close();
  await fixture?.close();
});

async function until<T>(read: () => Promise<T>, check: (v: T) => boolean, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (check(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await sleep(100);
  }
}

const source = async (id: number) =>
  ((await call('GET', '/live/sources')).body.sources as any[]).find((s) => s.monitor_id === id);

test.serial(
  'a viewer through the real server: media, /live/sources counts, /stats timings, release on close',
  async (t) => {
    t.is((await call('POST', '/live/1/start', {})).status, 200, 'an HLS session, so /stats answers');
    const signal = await SignalClient.connect(wsUrl(app, 1, token));
    const viewer = await NodeViewer.answer(signal);
    t.teardown(() => viewer.close());
    t.like(await signal.next('ready'), { monitor_id: 1, has_audio: true });
    await until(
      async () => viewer.packets.video.length,
      (n) => n > 20,
      10_000,
      'video RTP',
    );
    await until(
      async () => viewer.packets.audio.length,
      (n) => n > 5,
      10_000,
      'audio RTP',
    );

    // The live bytes metric: what reached the viewer was counted first. The tracks get whole access
    // units and packets; RTP adds 2 bytes per fragment and strips 4-byte start codes, so the
    // received payload is within a few percent of it.
    const received = [...viewer.packets.video, ...viewer.packets.audio].reduce((n, p) => n + p.payload.length, 0);
    const counted = Number(
      /^zmgate_live_bytes_sent_total\{monitor="1",transport="webrtc"\} (\d+)$/m.exec(
        (await app.services.metrics.render()).body,
      )?.[1] ?? 0,
    );
    t.true(counted >= received * 0.9, `counted ${counted} for ${received} received`);

    const row = await source(1);
    t.like(row, { monitor_id: 1, codec: 'H264', has_audio: true, audio_subscribers: 1 });
    t.true(row.video_subscribers >= 2, 'the HLS session and the WebRTC viewer');
    const stats = (await call('GET', '/live/1/stats')).body;
    t.true(stats.protocols.webrtc);
    const s = stats.webrtc_startup;
    t.is(typeof s.warm_start, 'boolean');
    for (const k of ['get_source_ms', 'offer_ms', 'connected_ms', 'first_rtp_ms']) t.is(typeof s[k], 'number', k);
    t.true(s.get_source_ms <= s.offer_ms && s.offer_ms <= s.connected_ms && s.connected_ms <= s.first_rtp_ms);

    signal.close();
    await signal.waitClosed();
    await until(
      () => source(1),
      (r) => r.audio_subscribers === 0 && r.video_subscribers === row.video_subscribers - 1,
      5000,
      'the viewer released',
    );
    t.false((await call('GET', '/live/1/stats')).body.protocols.webrtc);
    await call('DELETE', '/live/1/stop');
  },
);

test.serial('auth and source checks run in the real server too', async (t) => {
  t.is((await refusedUpgrade(wsUrl(app, 1))).status, 401);
  t.is((await refusedUpgrade(wsUrl(app, 1, await login(app, 'nostream')))).status, 403);
  t.like((await refusedUpgrade(wsUrl(app, 2, await login(app, 'limited')))).body, { kind: 'MONITOR_NOT_FOUND_ERROR' });
  const missing = await refusedUpgrade(wsUrl(app, 2, token));
  t.is(missing.status, 404);
  t.deepEqual(missing.body.details, [
    ['monitor_id', '2'],
    ['reason', 'stream socket not available'],
  ]);
});

test.serial('streaming.enabled = false: 503 at upgrade; shutdown closes open sockets with 1001', async (t) => {
  const off = await startTestApp({ db, env: liveEnv(fixture, { APP_STREAMING__ENABLED: 'false' }) });
  t.teardown(() => off.close());
  const r = await refusedUpgrade(wsUrl(off, 1, await login(off, 'viewer')));
  t.is(r.status, 503);
  t.like(r.body, { kind: 'SERVICE_UNAVAILABLE_ERROR', details: [['setting', 'streaming.enabled']] });

  const other = await startTestApp({ db, env: liveEnv(fixture) });
  const signal = await SignalClient.connect(wsUrl(other, 1, await login(other, 'viewer')));
  await signal.next('offer');
  await other.close();
  t.is((await signal.waitClosed()).code, 1001);
});

test('requests asking for another protocol (Upgrade: h2c) are still served as plain HTTP', async (t) => {
  const port = new URL(app.url).port;
  const get = (path: string, auth?: string) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        path,
        headers: {
          connection: 'Upgrade, HTTP2-Settings',
          upgrade: 'h2c',
          'http2-settings': 'AAMAAABkAAQAoAAAAAIAAAAA',
          ...(auth ? { authorization: `Bearer ${auth}` } : {}),
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end();
    });
  const health = await get('/api/v3/server/health_check');
  t.is(health.status, 200);
  const sources = await get('/api/v3/live/sources', token);
  t.is(sources.status, 200);
  t.true(Array.isArray(sources.body.sources));
  t.is((await get('/api/v3/live/sources')).status, 401);
});

test('OpenAPI: the WebSocket is documented as the reference names it (webrtcSignalingStream, no security entry, ?token=, 101)', async (t) => {
  const doc = await (await fetch(`${app.url}/api-docs/openapi.json`)).json();
  const op = doc.paths['/api/v3/live/{monitor_id}/webrtc/ws']?.get;
  t.is(op?.operationId, 'webrtcSignalingStream');
  t.deepEqual(op?.tags, ['Live Streaming']);
  t.is(op?.security, undefined, 'auth: null in the reference surface; checked at upgrade');
  t.regex(op?.description ?? '', /Stream View/);
  t.true(op?.parameters.some((p: any) => p.in === 'query' && p.name === 'token'));
  t.true(op?.parameters.some((p: any) => p.in === 'path' && p.name === 'monitor_id' && p.schema.minimum === 0));
  const variants = op?.responses['101'].content['application/json'].schema.oneOf.map(
    (v: any) => v.properties.type.enum[0],
  );
  t.deepEqual(variants, ['offer', 'answer', 'icecandidate', 'ready', 'error', 'ping', 'pong']);
  for (const status of ['400', '401', '403', '404', '503']) t.truthy(op?.responses[status], status);
});
