// The live routes over HTTP with fake zmcs serving real H.264: 401/403/404 on every route
// (hidden monitor = missing), the JSON shapes of start/stop/stats/sessions/sources, the LL-HLS
// answers (reference names, real parts + preload hint, blocking reload on _HLS_msn and
// _HLS_part, `?token=` carried into every URI, content types and caching, 400/404 names,
// ffprobe-readable segments), 503 when disabled, the OpenAPI declaration against the reference
// surface, and ffmpeg reading `live.m3u8?token=` for 10 s.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { LIVE_ROUTES } from '../../src/features/live/live-routes.js';
import { isMediaPath } from '../../src/http/media-table.js';
import type { TestApp } from '../helpers/app.js';
import { checkOperation, referenceOperations, servedDocument } from '../helpers/coverage.js';
import { isEnvelope, request } from '../helpers/http.js';
import { FakeZmc } from '../helpers/fake-zmc.js';
import {
  LIVE_CLIP,
  type LiveFixture,
  liveFixture,
  playlistParts,
  playlistUris,
  seedLive,
  startLiveApp,
} from '../helpers/live.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { ffmpegHlsExtensions, mediaClip, probeFile, urisWithoutAllowedExtension } from '../helpers/media.js';
import { login } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';

const run = promisify(execFile);

let db: FreshDatabase;
let fx: LiveFixture;
let app: TestApp;
const tokens: Record<string, string> = {};

// Monitors 1, 2 (hidden from `limited`) and 5 have stream sockets; 3 only shared memory; 4 nothing.
test.before(async () => {
  db = await zmDatabase('live_routes');
  await seedLive(db, 5);
  fx = await liveFixture([1, 2, 5], [3]);
  app = await startLiveApp(db, fx);
  for (const u of ['viewer', 'nostream', 'limited']) tokens[u] = await login(app, u);
});

test.after.always(async () => {
  await app?.close();
  await fx?.close();
});

const auth = (who: string) => ({ authorization: `Bearer ${tokens[who]}` });
const call = (method: string, path: string, who?: string, body?: unknown) =>
  request(app.api(path), {
    method,
    headers: { ...(who ? auth(who) : {}), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function startHls(id: number): Promise<void> {
  const res = await call('POST', `/live/${id}/start`, 'viewer', {});
  if (res.status !== 200 && res.status !== 409) throw new Error(`start ${id}: ${res.status} ${res.text}`);
}

/** The playlist once it lists at least `parts` parts (and `segments` complete segments). */
async function playlist(id: number, parts = 3, query = '', segments = 0): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(app.api(`/live/${id}/hls/live.m3u8${query}`), {
      headers: query.includes('token=') ? {} : auth('viewer'),
    });
    const text = await res.text();
    if (
      res.status === 200 &&
      playlistParts(text).parts.length >= parts &&
      playlistParts(text).segments.length >= segments
    )
      return text;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no playlist with parts');
}

test.serial(
  'every live route: 401 without a token, 403 with Stream None, 404 MONITOR_NOT_FOUND for a hidden or missing monitor',
  async (t) => {
    await startHls(2); // a session exists, so the 404s below come from the row ACL, not from its absence
    const perMonitor: Array<[string, (id: number) => string]> = [
      ['POST', (id) => `/live/${id}/start`],
      ['DELETE', (id) => `/live/${id}/stop`],
      ['GET', (id) => `/live/${id}/stats`],
      ['GET', (id) => `/live/${id}/hls/master.m3u8`],
      ['GET', (id) => `/live/${id}/hls/live.m3u8`],
      ['GET', (id) => `/live/${id}/hls/init.mp4`],
      ['GET', (id) => `/live/${id}/hls/segment_00000.m4s`],
      ['GET', (id) => `/live/${id}/hls/segment_00000.0.m4s`],
    ];
    for (const [method, path] of [
      ...perMonitor.map(([m, p]) => [m, p(2)] as const),
      ['GET', '/live/sessions'] as const,
      ['GET', '/live/sources'] as const,
    ]) {
      const anon = await call(method, path);
      t.is(anon.status, 401, `${method} ${path}`);
      t.is(anon.body?.kind, 'UNAUTHORIZED_ERROR');
      const none = await call(method, path, 'nostream');
      t.is(none.status, 403, `${method} ${path} Stream None`);
      t.is(none.body?.kind, 'PERMISSION_DENIED_ERROR');
    }
    for (const [method, path] of perMonitor) {
      const hidden = await call(method, path(2), 'limited');
      t.is(hidden.status, 404, `${method} ${path(2)} hidden`);
      t.is(hidden.body?.kind, 'MONITOR_NOT_FOUND_ERROR', `${method} ${path(2)}`);
      t.is(hidden.body?.code, 4);
      // A monitor that does not exist answers exactly as a hidden one (not SESSION_NOT_FOUND).
      const missing = await call(method, path(99), 'viewer');
      t.is(missing.status, 404, `${method} ${path(99)} missing`);
      t.deepEqual(
        { kind: missing.body?.kind, code: missing.body?.code, details: missing.body?.details },
        { kind: 'MONITOR_NOT_FOUND_ERROR', code: 4, details: [['monitor_id', '99']] },
        `${method} ${path(99)}`,
      );
      t.deepEqual(hidden.body?.details, [['monitor_id', '2']], `${method} ${path(2)} details`);
    }
    // The hidden monitor's session is not listed for the limited user.
    t.deepEqual((await call('GET', '/live/sessions', 'limited')).body, []);
    t.false((await call('GET', '/live/sources', 'limited')).body.sources.some((s: any) => s.monitor_id === 2));
    // The session routes take the token from the header only; the media routes also from ?token=.
    t.is((await call('GET', `/live/sessions?token=${tokens.viewer}`)).status, 401);
    // GET stats is a JSON read a script fetches with the header: no query token either.
    t.is((await call('GET', `/live/2/stats?token=${tokens.viewer}`)).status, 401);
    t.is(
      (await call('POST', `/live/2/start?token=${tokens.viewer}`)).status,
      401,
      'start and stop take the header only',
    );
    t.is((await call('DELETE', `/live/2/stop?token=${tokens.viewer}`)).status, 401);
    t.is((await call('GET', `/live/2/hls/live.m3u8?token=${tokens.nostream}`)).status, 403);
    t.is((await call('GET', `/live/2/hls/live.m3u8?token=${tokens.limited}`)).status, 404);
    t.is((await call('GET', `/live/2/hls/live.m3u8?token=${tokens.viewer}`)).status, 200);
    t.is((await call('DELETE', '/live/2/stop', 'viewer')).status, 204);
  },
);

test.serial('start / stats / sessions / sources / stop: the docs/contract/clients.md shapes', async (t) => {
  const started = await call('POST', '/live/1/start', 'viewer', { enable_hls: true, enable_webrtc: true });
  t.is(started.status, 200, started.text);
  t.deepEqual(started.body, {
    monitor_id: 1,
    status: 'started',
    hls_playlist: '/api/v3/live/1/hls/live.m3u8',
    webrtc_signaling: '/api/v3/live/1/webrtc/ws',
  });
  const again = await call('POST', '/live/1/start', 'viewer');
  t.is(again.status, 409, 'a POST without a body is accepted and meets the existing session');
  t.is(again.body.kind, 'CONFLICT_ERROR');

  const noHls = await call('POST', '/live/5/start', 'viewer', { enable_hls: false, enable_webrtc: true });
  t.deepEqual(noHls.body, {
    monitor_id: 5,
    status: 'started',
    hls_playlist: null,
    webrtc_signaling: '/api/v3/live/5/webrtc/ws',
  });
  t.is((await call('GET', '/live/5/stats', 'viewer')).status, 404, 'enable_hls false starts no session');

  const noSocket = await call('POST', '/live/3/start', 'viewer', {});
  t.is(noSocket.status, 404);
  t.like(noSocket.body, { kind: 'MONITOR_NOT_FOUND_ERROR', code: 4 });
  t.deepEqual(noSocket.body.details, [
    ['monitor_id', '3'],
    ['reason', 'stream socket not available'],
  ]);
  t.is((await call('POST', '/live/99/start', 'viewer', {})).body.kind, 'MONITOR_NOT_FOUND_ERROR', 'no such monitor');
  for (const bad of ['abc', '-1', '1.5', '2147483648']) {
    t.is((await call('POST', `/live/${bad}/start`, 'viewer', {})).status, 400, bad);
    t.is((await call('GET', `/live/${bad}/hls/live.m3u8`, 'viewer')).status, 400, bad);
  }
  t.is((await call('POST', '/live/1/start', 'viewer', { enable_hls: 'yes' })).status, 400);

  await playlist(1, 1);
  const stats = await call('GET', '/live/1/stats', 'viewer');
  t.is(stats.status, 200);
  t.deepEqual(Object.keys(stats.body).sort(), [
    'errors',
    'monitor_id',
    'packets_processed',
    'protocols',
    'status',
    'uptime_seconds',
  ]);
  t.like(stats.body, { monitor_id: 1, status: 'active', errors: 0, protocols: { hls: true, webrtc: false } });
  t.true(stats.body.packets_processed > 0);
  t.is(typeof stats.body.uptime_seconds, 'number');

  t.deepEqual((await call('GET', '/live/sessions', 'viewer')).body, [1]);

  const sources = await call('GET', '/live/sources', 'viewer');
  t.is(sources.status, 200);
  const byId = new Map(sources.body.sources.map((s: any) => [s.monitor_id, s]));
  t.deepEqual([...byId.keys()], [1, 2, 3, 5], 'socket monitors and the shared-memory one; monitor 4 has neither');
  t.deepEqual(byId.get(1), {
    monitor_id: 1,
    codec: 'H264',
    active: true,
    video_subscribers: 1,
    audio_subscribers: 0,
    has_audio: false,
    audio_packets: 0,
    hls: '/api/v3/live/1/hls/master.m3u8',
    webrtc: '/api/v3/live/1/webrtc/ws',
  });
  t.like(byId.get(2), { codec: 'Unknown', active: false, video_subscribers: 0, hls: '/api/v3/live/2/hls/master.m3u8' });
  t.deepEqual(byId.get(3), {
    monitor_id: 3,
    codec: 'MJPEG',
    active: false,
    video_subscribers: 0,
    audio_subscribers: 0,
    has_audio: false,
    audio_packets: 0,
    mjpeg: '/api/v3/live/3/mjpeg',
  });
  t.is(sources.body.active_sources, 1);

  const stop = await call('DELETE', '/live/1/stop', 'viewer');
  t.is(stop.status, 204);
  t.is(stop.text, '');
  t.is((await call('DELETE', '/live/1/stop', 'viewer')).status, 204, 'idempotent');
  t.is((await call('DELETE', '/live/4/stop', 'viewer')).status, 204, 'nothing to stop');
  const gone = await call('GET', '/live/1/stats', 'viewer');
  t.is(gone.status, 404);
  t.true(isEnvelope(gone.body));
  t.deepEqual((await call('GET', '/live/sessions', 'viewer')).body, []);
  for (const p of ['init.mp4', 'segment_00000.m4s', 'segment_00000.0.m4s']) {
    const res = await call('GET', `/live/1/hls/${p}`, 'viewer');
    t.is(res.status, 404, `${p} without a session`);
    t.is(res.body.kind, 'SESSION_NOT_FOUND_ERROR', p);
  }
  t.deepEqual((await call('GET', '/live/sessions', 'viewer')).body, [], 'those start nothing');
  // A playlist request starts the session (a player given only the URL works); /start then meets it.
  const auto = await call('GET', '/live/1/hls/live.m3u8', 'viewer');
  t.is(auto.status, 200);
  t.regex(auto.text, /^#EXTM3U/);
  t.deepEqual((await call('GET', '/live/sessions', 'viewer')).body, [1]);
  t.is((await call('POST', '/live/1/start', 'viewer', {})).status, 409);
  const noSocketHls = await call('GET', '/live/3/hls/master.m3u8', 'viewer');
  t.is(noSocketHls.status, 404);
  t.deepEqual(noSocketHls.body.details, [
    ['monitor_id', '3'],
    ['reason', 'stream socket not available'],
  ]);
  t.is((await call('GET', '/live/99/hls/live.m3u8', 'viewer')).body.kind, 'MONITOR_NOT_FOUND_ERROR', 'no such monitor');
  t.is((await call('DELETE', '/live/1/stop', 'viewer')).status, 204);
});

test.serial(
  'LL-HLS: reference names, real parts and a preload hint, content types and caching, ffprobe-readable segments',
  async (t) => {
    await startHls(1);
    const master = await fetch(app.api('/live/1/hls/master.m3u8'), { headers: auth('viewer') });
    t.is(master.status, 200);
    t.is(master.headers.get('content-type'), 'application/vnd.apple.mpegurl; charset=utf-8');
    t.is(master.headers.get('cache-control'), 'no-cache, no-store, must-revalidate');
    t.is(master.headers.get('content-encoding'), null);
    const masterText = await master.text();
    t.regex(masterText, /#EXT-X-STREAM-INF:.*CODECS="avc1\.42[0-9a-f]{4}".*RESOLUTION=320x180/);
    t.regex(masterText, /^live\.m3u8\?s=[a-z0-9]+$/m, 'relative, no token when the header was used');

    const text = await playlist(1, 7);
    t.regex(text, /^#EXT-X-PART-INF:PART-TARGET=0\.2/m);
    t.regex(text, /^#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES/m);
    t.regex(text, /^#EXT-X-MAP:URI="init-0\.mp4\?s=/m);
    const { parts, hint, segments } = playlistParts(text);
    t.truthy(hint, 'a preload hint');
    t.true(segments.length >= 1);
    t.regex(text, /^segment_00000\.m4s\?s=/m, 'segments are segment_%05d.m4s from 0');
    t.true(parts.some((p) => p.msn === 0 && p.part === 0));
    for (const uri of playlistUris(text)) t.notRegex(uri, /token=/);

    const get = (name: string) => fetch(app.api(`/live/1/hls/${name}`), { headers: auth('viewer') });
    const init = await get('init.mp4');
    t.is(init.status, 200);
    t.is(init.headers.get('content-type'), 'video/mp4');
    t.is(
      init.headers.get('cache-control'),
      'no-cache',
      'the init.mp4 alias follows the current generation: revalidated',
    );
    const initBytes = Buffer.from(await init.arrayBuffer());
    const numbered = await get('init-0.mp4');
    t.is(numbered.headers.get('cache-control'), 'max-age=31536000', 'a numbered init never changes');
    t.deepEqual(Buffer.from(await numbered.arrayBuffer()), initBytes, 'init.mp4 is the current numbered init');
    const seg = await get(`segment_00000.m4s`);
    t.is(seg.status, 200);
    t.is(seg.headers.get('content-type'), 'video/iso.segment');
    t.is(seg.headers.get('cache-control'), 'max-age=31536000');
    const segBytes = Buffer.from(await seg.arrayBuffer());
    const part0 = Buffer.from(await (await get('segment_00000.0.m4s')).arrayBuffer());
    t.deepEqual(segBytes.subarray(0, part0.length), part0, 'a segment is its parts back to back');
    t.deepEqual(Buffer.from(await (await get('segment_00000_x.m4s')).arrayBuffer()), segBytes, 'a tolerated _x suffix');

    const dir = mkdtempSync(join(tmpdir(), 'live_seg_'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'seg.mp4'), Buffer.concat([initBytes, segBytes]));
    const probe = await probeFile(join(dir, 'seg.mp4'));
    t.is(probe.errors, '');
    t.is(probe.codec, 'h264');
    t.is(probe.width, 320);
    t.true(probe.frames >= 25, `a 1 s segment at 25 fps: ${probe.frames} frames`);

    for (const bad of [
      'segment_.m4s',
      'segment_1.mp4',
      'Segment_00001.m4s',
      'seg-0.m4s',
      'part-0.0.m4s',
      'init-x.mp4',
      '..%2F..%2Fetc%2Fpasswd',
      'segment_1.2.3.m4s',
    ]) {
      const res = await get(bad);
      t.is(res.status, 400, bad);
      const body = await res.json();
      t.is(body.kind, 'BAD_REQUEST_ERROR', bad);
      t.regex(body.error_message, /^Invalid segment name: /);
    }
    for (const unknown of ['segment_99999999.m4s', 'segment_99999999999999999999.m4s', 'init-7.mp4']) {
      const res = await get(unknown);
      t.is(res.status, 404, unknown);
      t.is((await res.json()).kind, 'NOT_FOUND_ERROR', unknown);
    }
    const head = await fetch(app.api('/live/1/hls/segment_00000.m4s'), { method: 'HEAD', headers: auth('viewer') });
    t.is(head.status, 200);
    t.is(Number(head.headers.get('content-length')), segBytes.length);
  },
);

test.serial(
  'blocking reload waits for the requested part (and segment), then answers the current playlist',
  async (t) => {
    await startHls(1);
    const before = await playlist(1, 3);
    const { hint } = playlistParts(before);
    t.truthy(hint);
    t.false(
      playlistParts(before).parts.some((p) => p.msn === hint!.msn && p.part === hint!.part),
      'the hinted part is not listed yet',
    );
    const blocked = await call('GET', `/live/1/hls/live.m3u8?_HLS_msn=${hint!.msn}&_HLS_part=${hint!.part}`, 'viewer');
    t.is(blocked.status, 200);
    t.true(
      playlistParts(blocked.text).parts.some((p) => p.msn === hint!.msn && p.part === hint!.part),
      'the answer lists the part asked for',
    );

    // _HLS_msn alone: until that segment is complete (its EXTINF line is there).
    const open = playlistParts(blocked.text).hint!.msn; // the segment being made now
    t.false(playlistParts(blocked.text).segments.includes(open));
    const whole = await call('GET', `/live/1/hls/live.m3u8?_HLS_msn=${open + 1}`, 'viewer');
    t.true(playlistParts(whole.text).segments.includes(open), `segment ${open} is complete`);

    // The hinted part itself is waited for rather than answered 404.
    const next = playlistParts((await call('GET', '/live/1/hls/live.m3u8', 'viewer')).text).hint!;
    const part = await fetch(app.api(`/live/1/hls/${next.uri.split('?')[0]}`), { headers: auth('viewer') });
    t.is(part.status, 200);
    t.true((await part.arrayBuffer()).byteLength > 0);

    for (const q of [
      '_HLS_msn=abc',
      '_HLS_msn=-1',
      '_HLS_part=1',
      '_HLS_msn=1&_HLS_part=x',
      '_HLS_msn=1.5',
      '_HLS_msn=0&_HLS_part=9999999',
      '_HLS_msn=99999999999999999',
    ]) {
      const res = await call('GET', `/live/1/hls/live.m3u8?${q}`, 'viewer');
      t.is(res.status, 400, q);
      t.true(isEnvelope(res.body), q);
      t.is(res.body.kind, 'INVALID_INPUT_ERROR', q);
    }
    const far = await call('GET', `/live/1/hls/live.m3u8?_HLS_msn=${open + 50}`, 'viewer');
    t.is(far.status, 400, 'more than two segments ahead');
    t.is(far.body.kind, 'BAD_REQUEST_ERROR');
  },
);

test.serial(
  'a playlist requested with ?token= carries the token in every URI, and those URIs work without a header',
  async (t) => {
    await startHls(1);
    const token = tokens.viewer;
    const master = await fetch(app.api(`/live/1/hls/master.m3u8?token=${token}`));
    t.is(master.status, 200);
    const masterUris = playlistUris(await master.text());
    t.true(masterUris.length > 0);
    for (const uri of masterUris) t.true(uri.includes(`token=${token}`), uri);
    const text = await playlist(1, 3, `?token=${token}`);
    const uris = playlistUris(text);
    t.true(uris.length > 5);
    for (const uri of uris) t.true(uri.includes(`token=${token}`), uri);
    // Fetch the init and a listed part exactly as a header-less player resolves them.
    for (const uri of [uris.find((u) => u.startsWith('init-'))!, uris.find((u) => /^segment_\d+\.\d+\.m4s/.test(u))!]) {
      const res = await fetch(new URL(uri, app.api('/live/1/hls/live.m3u8')));
      t.is(res.status, 200, uri);
    }
  },
);

test.serial(
  'the global limiter (prod profile settings) never answers 429 to playlists or segments; JSON routes are limited',
  async (t) => {
    // The prod profile turns the limiter on; its burst is made small so the JSON side shows it.
    const limited = await startLiveApp(db, fx, {
      APP_PROFILE: 'prod',
      APP_SERVER__MIDDLEWARE__RATE_LIMIT__BURST_SIZE: '3',
      APP_SERVER__MIDDLEWARE__RATE_LIMIT__RATE_LIMIT_PERIOD_SECS: '600',
    });
    t.teardown(() => limited.close());
    const token = await login(limited, 'viewer');
    const h = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    t.is((await fetch(limited.api('/live/5/start'), { method: 'POST', headers: h, body: '{}' })).status, 200);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      for (const p of ['master.m3u8', 'live.m3u8', 'init.mp4', 'segment_00000.0.m4s']) {
        const res = await fetch(limited.api(`/live/5/hls/${p}${i % 2 ? `?token=${token}` : ''}`), {
          headers: i % 2 ? {} : h,
        });
        statuses.push(res.status);
        await res.arrayBuffer();
      }
    }
    t.deepEqual([...new Set(statuses)], [200]);
    const json: number[] = [];
    for (let i = 0; i < 5; i++) json.push((await fetch(limited.api('/live/sessions'), { headers: h })).status);
    t.true(json.includes(429));
    for (const r of LIVE_ROUTES)
      t.true(isMediaPath(r.path.replace('{monitor_id}', '5').replace('{segment}', 'segment_00001.m4s')), r.path);
  },
);

test.serial(
  'master.m3u8 before the first keyframe: after the wait, a master from the HELLO codecs rather than a 404 (fatal to hls.js)',
  async (t) => {
    // Monitor 4 gets a zmc that says HELLO at once but sends its first media after 8 s.
    const slow = await FakeZmc.start({
      clip: await mediaClip(LIVE_CLIP),
      monitorId: 4,
      dir: fx.sockDir,
      pace: 'realtime',
      mediaDelayMs: 8000,
    });
    t.teardown(async () => {
      await call('DELETE', '/live/4/stop', 'viewer');
      await slow.close();
    });
    const early = await call('GET', `/live/4/hls/master.m3u8?token=${tokens.viewer}`);
    t.is(early.status, 200, early.text);
    const lines = early.text.trim().split('\n');
    t.deepEqual(
      lines.slice(0, 2),
      ['#EXTM3U', '#EXT-X-VERSION:6'],
      'no INDEPENDENT-SEGMENTS: a long GOP can force a mid-GOP cut',
    );
    t.regex(
      lines[2],
      /^#EXT-X-STREAM-INF:BANDWIDTH=\d+,CODECS="avc1\.42[0-9a-f]{4}"$/,
      "the HELLO's codec; no RESOLUTION before the init",
    );
    t.regex(
      lines[3],
      new RegExp(`^live\\.m3u8\\?s=[a-z0-9]+&token=${tokens.viewer}$`),
      'the media playlist, token carried',
    );
    t.is(lines.length, 4);
    // Once media flows, the packager's own master (with the picture size) takes over.
    let later = '';
    for (let i = 0; i < 100 && !/RESOLUTION=/.test(later); i++) {
      later = (await call('GET', '/live/4/hls/master.m3u8', 'viewer')).text;
      if (!/RESOLUTION=/.test(later)) await new Promise((r) => setTimeout(r, 200));
    }
    t.regex(later, /CODECS="avc1\.42[0-9a-f]{4}",RESOLUTION=320x180/);
  },
);

test('streaming.enabled = false: the live routes answer 503', async (t) => {
  const off = await startLiveApp(db, fx, { APP_STREAMING__ENABLED: 'false' });
  t.teardown(() => off.close());
  const token = await login(off, 'viewer');
  for (const [method, path] of [
    ['POST', '/live/1/start'],
    ['DELETE', '/live/1/stop'],
    ['GET', '/live/1/stats'],
    ['GET', '/live/sessions'],
    ['GET', '/live/sources'],
    ['GET', '/live/1/hls/live.m3u8'],
    ['GET', '/live/1/hls/segment_00000.m4s'],
  ]) {
    const res = await request(off.api(path), {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: method === 'POST' ? '{}' : undefined,
    });
    t.is(res.status, 503, `${method} ${path}`);
    t.is(res.body?.kind, 'SERVICE_UNAVAILABLE_ERROR');
  }
});

test('streaming.hls.ll_hls_enabled = false: a plain live playlist (no parts, hints or server control); _HLS_msn is not waited on', async (t) => {
  const plain = await startLiveApp(db, fx, {
    APP_STREAMING__HLS__LL_HLS_ENABLED: 'false',
    APP_STREAMING__HLS__PLAYLIST_SIZE: '3',
  });
  t.teardown(() => plain.close());
  const h = { authorization: `Bearer ${await login(plain, 'viewer')}` };
  t.is(
    (
      await fetch(plain.api('/live/5/start'), {
        method: 'POST',
        headers: { ...h, 'content-type': 'application/json' },
        body: '{}',
      })
    ).status,
    200,
  );
  let text = '';
  for (let i = 0; i < 100 && !/^#EXT-X-MEDIA-SEQUENCE:[1-9]/m.test(text); i++) {
    text = await (await fetch(plain.api('/live/5/hls/live.m3u8'), { headers: h })).text();
    await new Promise((r) => setTimeout(r, 100));
  }
  t.is(playlistParts(text).segments.length, 3, `playlist_size 3: ${text}`);
  t.notRegex(text, /#EXT-X-(PART|PART-INF|SERVER-CONTROL|PRELOAD-HINT)[:]/);
  t.regex(text, /^#EXT-X-TARGETDURATION:2$/m);
  // Nothing of the open segment: no DISCONTINUITY/MAP/PROGRAM-DATE-TIME without a URI after it.
  t.regex(text.trimEnd().split('\n').at(-1)!, /^segment_\d{5}\.m4s\?s=/, text);
  const next = Math.max(...playlistParts(text).segments) + 2;
  const res = await fetch(plain.api(`/live/5/hls/live.m3u8?_HLS_msn=${next}`), { headers: h });
  t.is(res.status, 200);
  t.false(playlistParts(await res.text()).segments.includes(next), 'answered at once, not after segment was made');
});

test('OpenAPI: the live operations of the reference surface (but the WebSocket) are served with their operationIds, Stream View and parameters', async (t) => {
  const doc = await servedDocument(app.url);
  const ops = referenceOperations((op) => op.path.startsWith('/api/v3/live') && !op.path.endsWith('/webrtc/ws'));
  t.is(ops.length, 9);
  for (const op of ops.filter((o) => !o.path.includes('/hls/'))) checkOperation(t, doc, op, 'stream:View');
  // The media operations: checkOperation reads JSON bodies only.
  for (const ref of ops.filter((o) => o.path.includes('/hls/'))) {
    const op = doc.paths[ref.path]?.get;
    t.is(op?.operationId, ref.operationId, ref.path);
    t.deepEqual(op?.security, [{ jwt: ['stream:View'] }], ref.path);
    t.truthy(
      op?.parameters.find((p: any) => p.in === 'path' && p.name === 'monitor_id' && p.schema.minimum === 0),
      ref.path,
    );
    const [type] = ref.responses['200'].split(':');
    t.truthy(op?.responses['200'].content[type], `${ref.path} ${type}`);
    for (const status of ['401', '403', '404']) t.truthy(op?.responses[status], `${ref.path} ${status}`);
  }
  for (const r of LIVE_ROUTES) {
    const op = doc.paths[r.path]?.get;
    t.is(op?.operationId, r.operationId, r.path);
    t.true(
      op?.parameters.some((p: any) => p.in === 'query' && p.name === 'token'),
      `${r.path} documents ?token=`,
    );
  }
});

test.serial('ffmpeg reads live.m3u8?token=… for 10 s without errors', async (t) => {
  await startHls(5);
  await playlist(5, 3, '', 3); // ffmpeg starts three segments from the live edge
  const url = app.api(`/live/5/hls/live.m3u8?token=${tokens.viewer}`);
  // Every URI of both playlists (segments, parts, preload hints, init, the media playlist) ends
  // in an extension ffmpeg's HLS demuxer accepts with its defaults.
  const allowed = await ffmpegHlsExtensions();
  if (allowed) {
    for (const name of ['master.m3u8', 'live.m3u8']) {
      const text = await (await fetch(app.api(`/live/5/hls/${name}?token=${tokens.viewer}`))).text();
      t.deepEqual(urisWithoutAllowedExtension(text, allowed), [], name);
    }
  }
  const { stderr } = await run('ffmpeg', ['-nostdin', '-v', 'error', '-i', url, '-t', '10', '-f', 'null', '-'], {
    timeout: 60_000,
  });
  t.is(stderr.trim(), '');
  // The session was touched all along.
  t.like((await call('GET', '/live/5/stats', 'viewer')).body, { status: 'active' });
});
