// The WebRTC signalling socket /api/v3/live/{id}/webrtc/ws (docs/contract/clients.md): upgrade-time
// refusals as HTTP responses with the error envelope (401/403/404/400/503), the server's offer
// right after the upgrade (codecs per source, tracks and stream ids, trickle), trickled server
// candidates, ping/pong, a malformed answer answered with `error` (other malformed frames ignored,
// as an `error` ends WebRTC in the client), the exact fields of every server message and both
// candidate shapes a client may send, and the reader retention released when the socket closes.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import ndc from 'node-datachannel';
import { insertMonitor, sql } from '../helpers/events.js';
import { FakeZmc } from '../helpers/fake-zmc.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { mediaClip } from '../helpers/media.js';
import { addUser, login } from '../helpers/rest.js';
import { startWebRtcApp, type WebRtcApp } from '../helpers/webrtc.js';
import { NodeViewer } from '../helpers/rtc-peer.js';
import { refusedUpgrade, SignalClient } from '../helpers/ws-client.js';
import { zmDatabase } from '../helpers/zmdb.js';

let db: FreshDatabase;
let app: WebRtcApp;
let dir: string;
const zmcs: FakeZmc[] = [];
const tokens: Record<string, string> = {};
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test.before(async () => {
  db = await zmDatabase('webrtc_sig');
  for (const id of [1, 2, 3, 4, 5]) await insertMonitor(db, id);
  await addUser(db, 'viewer', { Stream: 'View' });
  await addUser(db, 'nostream', { Events: 'View' });
  const limited = await addUser(db, 'limited', { Stream: 'View', Monitors: 'View' });
  await sql(db, "INSERT INTO Monitors_Permissions (MonitorId, UserId, Permission) VALUES (2, ?, 'None')", [limited]);
  dir = mkdtempSync(join(tmpdir(), 'zm_rtc_'));
  const [pcmu, plain, aac, hevc] = await Promise.all([
    mediaClip({ video: 'h264-baseline', audio: 'pcmu' }),
    mediaClip({ video: 'h264-baseline' }),
    mediaClip({ video: 'h264-baseline', audio: 'aac' }),
    mediaClip({ video: 'h265' }),
  ]);
  // Monitor 3 has no socket at all.
  for (const [monitorId, clip] of [
    [1, pcmu],
    [2, plain],
    [4, aac],
    [5, hevc],
  ] as const) {
    zmcs.push(await FakeZmc.start({ clip, monitorId, dir, pace: 'realtime' }));
  }
  app = await startWebRtcApp(db, dir, { env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  for (const u of ['viewer', 'nostream', 'limited']) tokens[u] = await login(app, u);
});

test.after.always(async () => {
  await app?.close();
  for (const z of zmcs) await z.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const envelope = (body: any) => ({
  kind: body?.kind,
  code: body?.code,
  details: Object.fromEntries(body?.details ?? []),
});

test('no token, a bad token and a malformed header are 401 envelopes at upgrade', async (t) => {
  for (const [url, headers] of [
    [app.ws(1), {}],
    [app.ws(1, 'not-a-jwt'), {}],
    [app.ws(1), { authorization: 'Basic abc' }],
  ] as const) {
    const r = await refusedUpgrade(url, headers);
    t.is(r.status, 401, url);
    t.regex(r.contentType ?? '', /^application\/json/);
    t.is(r.body.kind, 'UNAUTHORIZED_ERROR');
    t.is(typeof r.body.error_message, 'string');
  }
});

test('Stream None is 403, before any monitor check', async (t) => {
  for (const id of [1, 3, 'x']) {
    const r = await refusedUpgrade(app.ws(id, tokens.nostream));
    t.is(r.status, 403);
    t.is(r.body.kind, 'PERMISSION_DENIED_ERROR');
  }
});

test('a hidden monitor is 404 MONITOR_NOT_FOUND like a missing one, though its socket exists', async (t) => {
  const r = await refusedUpgrade(app.ws(2, tokens.limited));
  t.is(r.status, 404);
  t.deepEqual(envelope(r.body), { kind: 'MONITOR_NOT_FOUND_ERROR', code: 4, details: { monitor_id: '2' } });
  // The same user sees monitor 1.
  const ok = await SignalClient.connect(app.ws(1, tokens.limited));
  t.is((await ok.next('offer')).type, 'offer');
  ok.close();
});

test('a monitor without a stream socket is 404 with reason "stream socket not available"', async (t) => {
  const r = await refusedUpgrade(app.ws(3, tokens.viewer));
  t.is(r.status, 404);
  t.deepEqual(envelope(r.body), {
    kind: 'MONITOR_NOT_FOUND_ERROR',
    code: 4,
    details: { monitor_id: '3', reason: 'stream socket not available' },
  });
});

test('a bad monitor id is 400 naming monitor_id; another WebSocket path is a 404 envelope', async (t) => {
  for (const id of ['abc', '-1', '1.5', '99999999999']) {
    const r = await refusedUpgrade(app.ws(id, tokens.viewer));
    t.is(r.status, 400, id);
    t.is(r.body.kind, 'INVALID_INPUT_ERROR');
    t.deepEqual(
      r.body.details.map((d: string[]) => d[0]),
      ['monitor_id'],
    );
  }
  const other = await refusedUpgrade(app.api('/live/1/other/ws'));
  t.is(other.status, 404);
  t.is(other.body.kind, 'NOT_FOUND_ERROR');
});

test('live streaming unavailable or switched off is 503 after the auth checks', async (t) => {
  for (const options of [{ feeds: null }, { streamingEnabled: () => false }]) {
    const off = await startWebRtcApp(db, dir, options);
    t.teardown(() => off.close());
    const token = await login(off, 'viewer');
    const r = await refusedUpgrade(off.ws(1, token));
    t.is(r.status, 503);
    t.is(r.body.kind, 'SERVICE_UNAVAILABLE_ERROR');
    t.is((await refusedUpgrade(off.ws(1))).status, 401);
  }
});

test('the server offers at once: H.264 (96 42e01f, 97 640c1f), PCMU audio, ids, trickle; candidates trickle after the answer', async (t) => {
  const c = await SignalClient.connect(app.ws(1, tokens.viewer));
  t.teardown(() => c.close());
  const offer = await c.next('offer');
  t.regex(offer.session_id, UUID_V4);
  const sdp: string = offer.sdp;
  t.true(sdp.startsWith('v=0'));
  t.regex(sdp, /^a=ice-options:.*trickle/m);
  t.regex(sdp, /^m=video \d+ UDP\/TLS\/RTP\/SAVPF 96 97\r?$/m);
  t.regex(sdp, /^a=fmtp:96 profile-level-id=42e01f;level-asymmetry-allowed=1;packetization-mode=1\r?$/m);
  t.regex(sdp, /^a=fmtp:97 profile-level-id=640c1f;level-asymmetry-allowed=1;packetization-mode=1\r?$/m);
  t.regex(sdp, /^a=sendonly\r?$/m);
  t.regex(sdp, /^a=msid:zm-live-1 video\r?$/m);
  t.regex(sdp, /^m=audio \d+ UDP\/TLS\/RTP\/SAVPF 0\r?$/m);
  t.regex(sdp, /^a=rtpmap:0 PCMU\/8000/m);
  t.regex(sdp, /^a=msid:zm-live-1 audio\r?$/m);
  t.regex(sdp, /^a=setup:actpass\r?$/m);
  // Our candidates wait for the answer (session.ts: a client checking before the answer is
  // applied can fail DTLS in libdatachannel), so none is inline or trickled before it.
  t.notRegex(sdp, /^a=candidate:/m);
  await sleep(300);
  t.deepEqual(
    c.messages.map((m) => m.type),
    ['offer'],
  );
  const pc = new ndc.PeerConnection('answerer', { iceServers: [], bindAddress: '127.0.0.1' });
  t.teardown(() => pc.close());
  pc.onLocalDescription(
    (answer, type) => type === 'answer' && c.send({ type: 'answer', session_id: offer.session_id, sdp: answer }),
  );
  pc.setRemoteDescription(sdp, 'offer');
  const cand = await c.next('icecandidate');
  t.is(cand.session_id, offer.session_id);
  t.regex(cand.candidate, /^candidate:/);
  t.true(['0', '1'].includes(cand.sdpMid));
  t.is(cand.sdpMLineIndex, Number(cand.sdpMid));
  t.is(c.messages[0].type, 'offer', 'the offer is the first message');
});

test('AAC audio is not offered (video only); an H.265 source gets an H.265-only offer', async (t) => {
  const aac = await SignalClient.connect(app.ws(4, tokens.viewer));
  const hevc = await SignalClient.connect(app.ws(5, tokens.viewer));
  t.teardown(() => {
    aac.close();
    hevc.close();
  });
  const a = (await aac.next('offer')).sdp as string;
  t.regex(a, /^m=video /m);
  t.notRegex(a, /^m=audio /m);
  t.regex(a, /^a=msid:zm-live-4 video\r?$/m);
  const h = (await hevc.next('offer')).sdp as string;
  t.regex(h, /^m=video \d+ UDP\/TLS\/RTP\/SAVPF 96\r?$/m);
  t.regex(h, /^a=rtpmap:96 H265\/90000\r?$/m);
  t.notRegex(h, /H264/);
});

test('exact message fields; toJSON() candidates without session_id and a null end-of-candidates connect', async (t) => {
  const c = await SignalClient.connect(app.ws(1, tokens.viewer));
  const viewer = await NodeViewer.answer(c, 'json');
  t.teardown(() => {
    viewer.close();
    c.close();
  });
  const ready = await c.next('ready', 20_000);
  const [offer] = c.messages;
  t.deepEqual(Object.keys(offer).sort(), ['sdp', 'session_id', 'type']);
  t.is(offer.type, 'offer');
  t.deepEqual(ready, { type: 'ready', session_id: offer.session_id, monitor_id: 1, has_audio: true });
  const candidates = c.messages.filter((m) => m.type === 'icecandidate');
  t.true(candidates.length > 0);
  for (const cand of candidates) {
    t.deepEqual(Object.keys(cand).sort(), ['candidate', 'sdpMLineIndex', 'sdpMid', 'session_id', 'type']);
    t.is(cand.session_id, offer.session_id);
    t.is(typeof cand.candidate, 'string');
    t.is(typeof cand.sdpMid, 'string');
    t.is(typeof cand.sdpMLineIndex, 'number');
  }
  // Only offer, candidates and ready: no `error` for the shape or the null candidate.
  t.deepEqual([...new Set(c.messages.map((m) => m.type))].sort(), ['icecandidate', 'offer', 'ready']);
  t.true(c.messages.findIndex((m) => m.type === 'ready') > 0, 'ready after the offer');
  for (let i = 0; i < 100 && viewer.packets.video.length === 0; i++) await sleep(50);
  t.true(viewer.packets.video.length > 0, 'media flows after ready');
  t.is(c.closed, null);
});

test('the Authorization header works on the upgrade too', async (t) => {
  const c = await SignalClient.connect(app.ws(1), { authorization: `Bearer ${tokens.viewer}` });
  t.teardown(() => c.close());
  t.is((await c.next('offer')).type, 'offer');
});

test('ping → pong; a malformed answer gets "Invalid SDP answer"; other malformed frames and ignored kinds get nothing', async (t) => {
  const c = await SignalClient.connect(app.ws(1, tokens.viewer));
  t.teardown(() => c.close());
  const offer = await c.next('offer');
  c.send({ type: 'ping' });
  t.deepEqual(await c.next('pong'), { type: 'pong' });
  // WebSocket-level Ping frames get Pong frames.
  const framePong = new Promise<string>((resolve) => c.ws.once('pong', (data) => resolve(data.toString())));
  c.ws.ping('hello');
  t.is(await framePong, 'hello');

  for (const message of [
    { type: 'answer', session_id: offer.session_id },
    { type: 'answer', session_id: offer.session_id, sdp: 42 },
    { type: 'answer', session_id: offer.session_id, sdp: 'v=0\r\nthis is not sdp\r\n' }, // the set-answer failure text
  ]) {
    const from = c.messages.length;
    c.send(message);
    const err = await c.next('error', 5000, from);
    t.regex(err.message, /^Invalid SDP answer: /, JSON.stringify(message));
    t.deepEqual(Object.keys(err).sort(), ['message', 'type']);
  }

  // The client takes any `error` as the end of WebRTC (and falls back to HLS), so frames that are
  // not a usable message are ignored, as the reference does; so are client-sent offer/ready/error,
  // unknown types and another session's answer. The session goes on: ping still gets its pong.
  const quiet = c.messages.length;
  for (const m of [
    'not json at all',
    '[1,2]',
    { kind: 'answer' },
    { type: 'icecandidate', session_id: offer.session_id, candidate: 7 },
    { type: 'icecandidate', session_id: offer.session_id, candidate: 'candidate:x', sdpMLineIndex: -1 },
    Buffer.from([1, 2, 3]),
    { type: 'offer', sdp: 'x' },
    { type: 'ready' },
    { type: 'error', message: 'x' },
    { type: 'bye' },
    { type: 'answer', session_id: 'someone-else', sdp: 'x' },
  ])
    c.send(m);
  c.send({ type: 'ping' });
  await c.next('pong', 5000, quiet);
  await sleep(200);
  t.deepEqual(
    c.messages
      .slice(quiet)
      .filter((m) => m.type !== 'icecandidate')
      .map((m) => m.type),
    ['pong'],
  );
  t.is(c.closed, null, 'the socket is still open');
});

test.serial('closing the socket releases the reader; the viewer was counted (with audio for PCMU)', async (t) => {
  const c = await SignalClient.connect(app.ws(1, tokens.viewer));
  await c.next('offer');
  const feed = app.feeds.feeds.get(1)!;
  t.true(feed.viewers.some((v) => v.kind === 'webrtc' && v.audio));
  const before = feed.viewers.length;
  c.close();
  await c.waitClosed();
  for (let i = 0; i < 100 && feed.viewers.length >= before; i++) await sleep(20);
  t.is(feed.viewers.length, before - 1);
});

test('no answer within the answer timeout → `error` and the socket closes', async (t) => {
  const quick = await startWebRtcApp(db, dir, { timeouts: { answerMs: 300 } });
  t.teardown(() => quick.close());
  const c = await SignalClient.connect(quick.ws(1, await login(quick, 'viewer')));
  await c.next('offer');
  t.regex((await c.next('error')).message, /^Connection timeout: no SDP answer/);
  t.is((await c.waitClosed()).code, 1011);
  for (let i = 0; i < 50 && quick.webrtc.sessionCount > 0; i++) await sleep(20);
  t.is(quick.webrtc.sessionCount, 0);
});

test('a valid answer but no connectivity → the DTLS timeout `error`, then the socket closes', async (t) => {
  const quick = await startWebRtcApp(db, dir, { timeouts: { connectMs: 500 } });
  t.teardown(() => quick.close());
  const c = await SignalClient.connect(quick.ws(1, await login(quick, 'viewer')));
  const offer = await c.next('offer');
  // A real answer from a peer that never exchanges candidates: ICE cannot start.
  const pc = new ndc.PeerConnection('silent', { iceServers: [], bindAddress: '127.0.0.1' });
  t.teardown(() => pc.close());
  pc.onLocalDescription(
    (sdp, type) => type === 'answer' && c.send({ type: 'answer', session_id: offer.session_id, sdp }),
  );
  pc.setRemoteDescription(offer.sdp, 'offer');
  t.is((await c.next('error')).message, 'Connection timeout: DTLS handshake did not complete within 1 seconds');
  t.is((await c.waitClosed()).code, 1011);
});

test.serial('the shared reader going away ends the session with "Video source stopped"', async (t) => {
  const c = await SignalClient.connect(app.ws(5, tokens.viewer));
  await c.next('offer');
  await app.feeds.feeds.get(5)!.client.close(); // as the hub does when it shuts down a reader
  t.is((await c.next('error')).message, 'Video source stopped');
  t.is((await c.waitClosed()).code, 1011);
});

test('a broken WebSocket handshake is a 400 envelope, not ws’s plain-text answer', async (t) => {
  const port = new URL(app.api('/')).port;
  const raw = (headers: Record<string, string>, method = 'GET') =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        method,
        path: `/api/v3/live/1/webrtc/ws?token=${tokens.viewer}`,
        headers: { connection: 'Upgrade', upgrade: 'websocket', ...headers },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('upgrade', () => reject(new Error('upgraded')));
      req.on('error', reject);
      req.end();
    });
  const key = { 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' };
  for (const [headers, method] of [
    [{ 'sec-websocket-version': '13' }, 'GET'],
    [{ ...key, 'sec-websocket-version': '7' }, 'GET'],
    [{ ...key, upgrade: 'h2c' }, 'GET'],
    [key, 'POST'],
  ] as const) {
    const r = await raw(headers, method);
    t.is(r.status, 400, JSON.stringify(headers));
    t.is(r.body.kind, 'BAD_REQUEST_ERROR');
  }
});
