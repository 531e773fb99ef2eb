// Smoke test of the WebRTC viewer of bench/live-viewers.ts (bench/_rtc-viewer.ts) against the
// real server: it gets `ready`, receives RTP, and tells each frame by its RTP timestamp — the
// mapping agrees with the content of every keyframe checked after the anchor. No timings checked.
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { BenchRtcViewer, clipIndex } from '../../bench/_rtc-viewer.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { LIVE_CLIP, liveEnv, liveFixture, seedLive, type LiveFixture } from '../helpers/live.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { mediaClip } from '../helpers/media.js';
import { login } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';

let db: FreshDatabase;
let fixture: LiveFixture;
let app: TestApp;

test.before(async () => {
  db = await zmDatabase('bench_rtc');
  await seedLive(db, 2);
  fixture = await liveFixture([1]);
  app = await startTestApp({ db, env: liveEnv(fixture) });
});

test.after.always(async () => {
  await app?.close();
  await fixture?.close();
});

test('the bench WebRTC viewer receives RTP and maps RTP timestamps to clip frames', async (t) => {
  const token = await login(app, 'viewer');
  const frames: number[] = [];
  const url = `${app.url.replace(/^http/, 'ws')}/api/v3/live/1/webrtc/ws?token=${token}`;
  const viewer = await BenchRtcViewer.connect(url, clipIndex(await mediaClip(LIVE_CLIP)), LIVE_CLIP.fps!, (u) =>
    frames.push(u.frame),
  );
  t.teardown(() => viewer.close());
  t.true(viewer.ready);
  // Until at least one keyframe after the anchor was checked (the clip has one every second or so).
  for (let i = 0; i < 50 && (viewer.checked < 1 || frames.length < 25); i++) await sleep(100);
  t.true(viewer.packets > frames.length, `${viewer.packets} RTP packets for ${frames.length} frames`);
  t.true(frames.length >= 25, `${frames.length} frames told`);
  t.true(viewer.checked >= 1, 'a keyframe was checked against the timestamp mapping');
  t.is(viewer.reanchored, 0, 'the RTP timestamp mapping agreed with the content of every keyframe');
  t.is(viewer.unmatched, 1, 'only the fast-start keyframe (stamped at the live edge) is not told');
  // Loopback, no B-frames: consecutive frames, in order.
  t.true(
    frames.slice(1).every((f, i) => f === frames[i]! + 1),
    JSON.stringify(frames.slice(0, 30)),
  );
  t.is(viewer.error, null);
});
