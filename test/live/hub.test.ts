// The live hub against the fake zmc: one reader per monitor shared and reference-counted, the
// 404 without a socket, HLS session status (starting → active → error), a zmc restart inside a
// session (discontinuity + new init), and idle reaping.
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { LiveHub, type LiveHubOptions } from '../../src/live-hub/hub.js';
import { createLogger } from '../../src/log.js';
import { FakeZmc } from '../helpers/fake-zmc.js';
import { LIVE_CLIP } from '../helpers/live.js';
import { mediaClip } from '../helpers/media.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HLS = {
  segment_duration_seconds: 1,
  partial_segment_ms: 200,
  playlist_size: 6,
  ll_hls_enabled: true,
  idle_timeout_seconds: 90,
};

function hub(t: any, dir: string, extra: Partial<LiveHubOptions> = {}): LiveHub {
  const h = new LiveHub({
    socketDir: dir,
    hls: HLS,
    log: createLogger({ level: 'fatal' }),
    reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
    ...extra,
  });
  t.teardown(() => h.close());
  return h;
}

async function until(what: string, cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function tempDir(t: any): string {
  const dir = mkdtempSync(join(tmpdir(), 'zm_hub_'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('open without a socket is 404 MONITOR_NOT_FOUND naming the reason', (t) => {
  const h = hub(t, tempDir(t));
  const err = t.throws(() => h.open(7)) as any;
  t.is(err.status, 404);
  t.is(err.kind, 'MONITOR_NOT_FOUND_ERROR');
  t.deepEqual(err.details, [
    ['monitor_id', '7'],
    ['reason', 'stream socket not available'],
  ]);
  t.throws(() => h.startHls(7), { message: /not found/ });
  t.deepEqual(h.sessionIds(), []);
});

test('one reader per monitor, shared and counted; closed when the last viewer lets go', async (t) => {
  const zmc = await FakeZmc.start({
    clip: await mediaClip({ video: 'h264-baseline', seconds: 4 }),
    pace: 'realtime',
    monitorId: 3,
  });
  t.teardown(() => zmc.close());
  const h = hub(t, zmc.dir);
  const a = h.open(3);
  const b = h.open(3);
  t.is(a, b);
  const releaseA = a.retain('webrtc', { audio: true });
  const releaseB = b.retain('mjpeg');
  await zmc.waitForConnections(1);
  // 'connected' is the socket; the codec is known once zmc's stream header has been read.
  await until('connected with its codec', () => h.sources()[0]?.active === true && h.sources()[0]?.codec !== 'Unknown');
  t.like(h.sources()[0], {
    monitor_id: 3,
    codec: 'H264',
    active: true,
    video_subscribers: 2,
    audio_subscribers: 1,
    has_audio: false,
  });
  releaseA();
  releaseA(); // a second call is harmless
  t.like(h.sources()[0], { video_subscribers: 1, audio_subscribers: 0 });
  t.false(a.client.closed);
  releaseB();
  t.true(a.client.closed, 'the last release closes the reader');
  t.deepEqual(h.sources(), []);
  t.is(zmc.accepted, 1, 'both viewers shared one connection');
  const c = h.open(3);
  t.not(c, a, 'a new reader after the old one closed');
  c.retain('hls')();
});

test('an HLS session goes starting → active, packages parts, survives a zmc restart, and reports error when media stops', async (t) => {
  const dir = tempDir(t);
  const clip = await mediaClip(LIVE_CLIP);
  let zmc = await FakeZmc.start({ clip, pace: 'realtime', dir, monitorId: 2 });
  t.teardown(() => zmc.close());
  const h = hub(t, dir, { noPacketMs: 1500 });
  const s = h.startHls(2);
  t.is(s.stats().status, 'starting');
  t.throws(() => h.startHls(2), { message: /already exists/ });
  t.deepEqual(h.sessionIds(), [2]);
  await until('active', () => s.stats().status === 'active');
  t.true(await s.packager.waitFor(1, 0, 5000), 'segment 1 begins');
  const before = s.packager.playlist()!;
  t.regex(before, /#EXT-X-PART:/);
  t.notRegex(before, /#EXT-X-DISCONTINUITY\n/);
  t.is(s.packager.stats().initId, 0);

  // zmc restarts: the socket goes away and comes back; the session keeps going.
  await zmc.close();
  zmc = await FakeZmc.start({ clip, pace: 'realtime', dir, monitorId: 2 });
  await zmc.waitForConnections(1);
  await until('a new init after the restart', () => s.packager.stats().initId >= 1);
  const next = s.packager.stats().nextMsn;
  t.true(await s.packager.waitFor(next + 1, undefined, 8000), 'new segments after the restart');
  t.regex(s.packager.playlist()!, /#EXT-X-DISCONTINUITY\n/);
  t.regex(s.packager.playlist()!, /init-1\.mp4/);
  t.is(s.stats().status, 'active');
  t.true(s.stats().packets_processed > 0);

  // A generation bump on the same connection (new parameters): another init after a discontinuity.
  const inits = s.packager.stats().initId;
  zmc.bumpGeneration();
  await until('a new init after the generation bump', () => s.packager.stats().initId > inits);
  t.true(await s.packager.waitFor(s.packager.stats().nextMsn + 1, undefined, 8000), 'segments after the bump');
  t.is(zmc.accepted, 1, 'no reconnect for a generation bump');
  t.is(s.stats().errors, 0);

  // zmc goes quiet (connection held open, no media): error after noPacketMs, still registered.
  await zmc.close();
  await until('error', () => s.stats().status === 'error', 8000);
  t.deepEqual(h.sessionIds(), [2]);
  t.true(h.stopHls(2));
  t.false(h.stopHls(2));
  t.deepEqual(h.sessionIds(), []);
  t.deepEqual(h.sources(), [], 'the reader closed with the session');
});

test('idle sessions are reaped; touched ones are kept', async (t) => {
  const zmc = await FakeZmc.start({
    clip: await mediaClip({ video: 'h264-baseline', seconds: 4 }),
    pace: 'realtime',
    monitorId: 1,
  });
  t.teardown(() => zmc.close());
  const zmc2 = await FakeZmc.start({
    clip: await mediaClip({ video: 'h264-baseline', seconds: 4 }),
    pace: 'realtime',
    monitorId: 2,
    dir: zmc.dir,
  });
  t.teardown(() => zmc2.close());
  const h = hub(t, zmc.dir, { hls: { ...HLS, idle_timeout_seconds: 1 }, reapIntervalMs: 200 });
  const idle = h.startHls(1);
  const busy = h.startHls(2);
  const deadline = Date.now() + 3500; // idle 1 s, checked every second: reaped within ~2 s
  while (Date.now() < deadline) {
    busy.touch();
    await sleep(100);
  }
  t.deepEqual(h.sessionIds(), [2]);
  t.true(idle.stopped);
  t.is(idle.packager.stats().state, 'ended');
  t.false(busy.stopped);
});
