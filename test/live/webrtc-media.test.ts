// WebRTC media: a node-datachannel peer plays the browser over the real signalling socket and
// receives RTP that ffmpeg decodes (cached keyframe first, timestamps from the source pts, PCMU in
// 20 ms packets), across a zmc restart; and the per-viewer sender over a real StreamClient: a
// stalled viewer loses only its own frames and resumes at a keyframe, a generation bump waits
// for a keyframe, RTP timestamps never run backwards.
import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import test from 'ava';
import { ViewerSender, type RtpOutput } from '../../src/features/live/webrtc/media-sender.js';
import { StreamClient } from '../../src/native/index.js';
import { FakeZmc } from '../helpers/fake-zmc.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { mediaClip, splitAnnexB, type MediaClip } from '../helpers/media.js';
import { addUser, login } from '../helpers/rest.js';
import { NodeViewer } from '../helpers/rtc-peer.js';
import { H264Depacketizer, H265Depacketizer } from '../helpers/rtp.js';
import { startWebRtcApp, type WebRtcApp } from '../helpers/webrtc.js';
import { SignalClient } from '../helpers/ws-client.js';
import { zmDatabase } from '../helpers/zmdb.js';

const run = promisify(execFile);
let db: FreshDatabase;
let token: string;
let app: WebRtcApp;
let dir: string;
let clip: MediaClip;

test.before(async () => {
  db = await zmDatabase('webrtc_media');
  await addUser(db, 'viewer', { Stream: 'View' });
  dir = mkdtempSync(join(tmpdir(), 'zm_rtcm_'));
  clip = await mediaClip({ video: 'h264-baseline', audio: 'pcmu', seconds: 6, width: 320, height: 180 });
  app = await startWebRtcApp(db, dir);
  token = await login(app, 'viewer');
});

test.after.always(async () => {
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const isKeyframe = (au: Buffer) => splitAnnexB(au).some((n) => (n[0] & 0x1f) === 5);
/** Forward distance between two RTP timestamps (mod 2^32). */
const forward = (a: number, b: number) => (b - a + 2 ** 32) % 2 ** 32;

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** ffmpeg's decode errors and the frame count of an Annex B file. */
async function decode(file: string, format: 'h264' | 'hevc' = 'h264'): Promise<{ errors: string; frames: number }> {
  const errors = await run('ffmpeg', ['-v', 'error', '-f', format, '-i', file, '-f', 'null', '-']).then(
    (r) => r.stderr,
    (e) => String(e.stderr ?? e),
  );
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-f',
    format,
    '-count_frames',
    '-select_streams',
    'v:0',
    '-show_entries',
    'stream=nb_read_frames',
    '-of',
    'csv=p=0',
    file,
  ]);
  return { errors: errors.trim(), frames: Number(stdout.trim()) };
}

test.serial(
  'a node peer gets decodable H.264 (cached keyframe first) and PCMU, and keeps it across a zmc restart',
  async (t) => {
    const zmcDir = dir;
    let zmc = await FakeZmc.start({ clip, monitorId: 1, dir: zmcDir, pace: 'realtime' });
    t.teardown(() => zmc.close());
    // Warm the reader so a keyframe is cached before the viewer arrives.
    const warm = await SignalClient.connect(app.ws(1, token));
    await warm.next('offer');
    await sleep(1500);

    const signal = await SignalClient.connect(app.ws(1, token));
    warm.close();
    const viewer = await NodeViewer.answer(signal);
    t.teardown(() => {
      viewer.close();
      signal.close();
    });
    const ready = await signal.next('ready');
    t.like(ready, { type: 'ready', monitor_id: 1, has_audio: true });
    t.is(ready.session_id, signal.messages[0].session_id);
    await until(() => viewer.packets.video.length > 0, 5000, 'the first video packet');
    // The first access unit is the cached keyframe, sent at once (zmc is mid-GOP by now).
    const firstUnits = new H264Depacketizer();
    for (const p of viewer.packets.video) firstUnits.push(p);
    t.true(firstUnits.units.length === 0 || firstUnits.units[0].keyframe);

    await until(() => new Set(viewer.packets.video.map((p) => p.timestamp)).size >= 60, 10_000, '60 access units');
    // zmc restarts: the socket goes away and comes back; the clip starts over (its clock rewinds).
    await zmc.close();
    await sleep(300);
    zmc = await FakeZmc.start({ clip, monitorId: 1, dir: zmcDir, pace: 'realtime' });
    const beforeRestart = viewer.packets.video.length;
    await until(() => viewer.packets.video.length > beforeRestart + 100, 10_000, 'video after the restart');
    await sleep(500);

    const depack = new H264Depacketizer();
    for (const p of viewer.packets.video) depack.push(p);
    const units = depack.units;
    t.true(units[0].keyframe, 'the stream starts with a keyframe');
    t.true(
      viewer.packets.video.every((p) => p.payloadType === 96),
      'PT 96 (42e01f; a baseline source)',
    );
    for (let i = 1; i < units.length; i++) {
      const d = forward(units[i - 1].timestamp, units[i].timestamp);
      t.true(d > 0 && d < 2 ** 31, `timestamps move forward at unit ${i} (${d})`);
    }
    // Within a contiguous run the spacing is the source's: 30 fps = 3000 ticks at 90 kHz.
    const steps = units.slice(1).map((u, i) => forward(units[i].timestamp, u.timestamp));
    t.true(
      steps.filter((d) => Math.abs(d - 3000) <= 1).length >= units.length - 6,
      `steps ${JSON.stringify(steps.slice(0, 20))}`,
    );
    // The first unit after the break is a keyframe: the reader resumed at one.
    const gapAt = steps.findIndex((d) => d > 3001 * 3) + 1;
    t.true(gapAt > 0, 'the restart shows as a gap');
    t.true(units[gapAt].keyframe);

    const file = join(dir, 'received.h264');
    writeFileSync(file, Buffer.concat(units.map((u) => u.data)));
    const decoded = await decode(file);
    t.is(decoded.errors, '', 'ffmpeg decodes the received stream without errors');
    t.is(decoded.frames, units.length);

    const audio = viewer.packets.audio;
    t.true(audio.length > 50);
    t.true(
      audio.every((p) => p.payloadType === 0 && p.payload.length <= 160 && p.payload.length > 0),
      'PCMU, at most 20 ms per packet',
    );
    // One byte per sample: each packet starts where the previous one ended (zmc's packets are contiguous).
    const contiguous = audio
      .slice(1)
      .filter((p, i) => forward(audio[i].timestamp, p.timestamp) === audio[i].payload.length).length;
    t.true(contiguous >= audio.length - 4, `PCMU timestamps count samples (${contiguous} of ${audio.length - 1})`);
    t.true(app.feeds.startups.some((s) => s.monitorId === 1 && s.startup.first_rtp_ms !== null));
    const last = app.feeds.startups.at(-1)!.startup;
    const order = [last.get_source_ms, last.offer_ms, last.connected_ms, last.first_rtp_ms] as number[];
    t.deepEqual(
      [...order].sort((a, b) => a - b),
      order,
      `startup timings are ordered ${JSON.stringify(last)}`,
    );
  },
);

test.serial('an H.265 source is passed through: the node peer’s RTP (RFC 7798) decodes as HEVC', async (t) => {
  const hevc = await mediaClip({ video: 'h265', seconds: 4, width: 320, height: 180 });
  const zmc = await FakeZmc.start({ clip: hevc, monitorId: 2, dir, pace: 'realtime' });
  t.teardown(() => zmc.close());
  const signal = await SignalClient.connect(app.ws(2, token));
  const viewer = await NodeViewer.answer(signal);
  t.teardown(() => {
    viewer.close();
    signal.close();
  });
  t.like(await signal.next('ready'), { monitor_id: 2, has_audio: false });
  await until(() => new Set(viewer.packets.video.map((p) => p.timestamp)).size >= 45, 10_000, '45 access units');
  await sleep(200);
  const depack = new H265Depacketizer();
  for (const p of viewer.packets.video) depack.push(p);
  t.true(depack.units[0].keyframe, 'starts with a keyframe (IRAP)');
  t.true(viewer.packets.video.every((p) => p.payloadType === 96));
  const file = join(dir, 'received.hevc');
  writeFileSync(file, Buffer.concat(depack.units.map((u) => u.data)));
  const decoded = await decode(file, 'hevc');
  t.is(decoded.errors, '', 'ffmpeg decodes the received H.265 without errors');
  t.is(decoded.frames, depack.units.length);
  t.true(viewer.packets.audio.length === 0);
});

/** A track stand-in that records what it is given, and can refuse (a stalled viewer). */
class RecordingOutput implements RtpOutput {
  readonly clockRate = 90000;
  readonly startTimestamp = 2 ** 32 - 100_000; // wraps after ~33 frames: timestamps are taken modulo 2^32
  readonly sent: Array<{ keyframe: boolean; timestamp: number; size: number }> = [];
  accepting = true;
  send(data: Buffer, rtpTimestamp: number): boolean {
    if (!this.accepting) return false;
    this.sent.push({ keyframe: isKeyframe(data), timestamp: rtpTimestamp, size: data.length });
    return true;
  }
}

async function senderFixture(t: import('ava').ExecutionContext, pace: 'fast' | 'realtime', monitorId: number) {
  const zdir = mkdtempSync(join(tmpdir(), 'zm_snd_'));
  const zmc = await FakeZmc.start({ clip, monitorId, dir: zdir, pace });
  const client = new StreamClient({ socketDir: zdir, monitorId, reconnect: { initialDelayMs: 50 } });
  t.teardown(async () => {
    await client.close();
    await zmc.close();
    rmSync(zdir, { recursive: true, force: true });
  });
  return { zmc, client };
}

test('a stalled viewer drops its own frames and resumes at a keyframe; a healthy one gets every frame', async (t) => {
  const { client } = await senderFixture(t, 'realtime', 11);
  const healthy = new RecordingOutput();
  const stalled = new RecordingOutput();
  stalled.accepting = false;
  const a = new ViewerSender(client, { video: healthy });
  const b = new ViewerSender(client, { video: stalled });
  a.start();
  b.start();
  t.teardown(() => {
    a.stop();
    b.stop();
  });
  await until(() => healthy.sent.length >= 45, 10_000, '45 frames');
  stalled.accepting = true; // the viewer is back
  await until(() => healthy.sent.length >= clip.video.frames.length, 15_000, 'the whole clip');
  t.is(healthy.sent.length, clip.video.frames.length, 'the healthy viewer got every frame');
  t.true(healthy.sent[0].keyframe);
  t.true(b.stats.dropped >= 45, `the stalled viewer dropped its frames (${b.stats.dropped})`);
  t.true(stalled.sent.length > 0 && stalled.sent[0].keyframe, 'and resumed at a keyframe');
  t.true(stalled.sent.length < healthy.sent.length);
});

/** Stands in for the shared reader's delivery: emits real clip frames as 'media' records, in bursts or paced. */
class BurstSource extends EventEmitter {
  readonly closed = false;
  latestKeyframe() {
    return null;
  }
  emitFrames(from: number, to: number): void {
    clip.video.frames.slice(from, to).forEach((f, i) =>
      this.emit('media', {
        type: 'media',
        stream: 'video',
        sequence: from + i,
        generation: 1,
        ptsUs: 1e12 + f.ptsUs,
        keyframe: f.keyframe,
        cached: false,
        gap: 0,
        data: f.data,
      }),
    );
  }
}

test('a viewer whose queue overflows sheds it and resumes at the next keyframe; others get everything', async (t) => {
  const source = new BurstSource();
  const client = source as unknown as StreamClient;
  const tight = new RecordingOutput();
  const roomy = new RecordingOutput();
  const small = new ViewerSender(client, { video: tight, maxQueuedFrames: 10 });
  const large = new ViewerSender(client, { video: roomy });
  small.start();
  large.start();
  t.teardown(() => {
    small.stop();
    large.stop();
  });
  const gop = clip.video.frames.findIndex((f, i) => i > 0 && f.keyframe);
  t.is(gop, 30);
  // 50 frames at once (a reader batch after a stall): 10 fit, the rest overflow.
  source.emitFrames(0, 50);
  await new Promise((resolve) => setImmediate(resolve));
  for (let i = 50; i < clip.video.frames.length; i++) {
    source.emitFrames(i, i + 1);
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.is(roomy.sent.length, clip.video.frames.length, 'the roomy viewer got every frame');
  t.true(small.stats.overflows >= 1);
  // Shed at frame 10, skipped to the keyframe at 30, shed again at 40; resumed at the keyframe at 60.
  // (Each viewer has its own RTP origin: frames are compared by size and spacing.)
  t.deepEqual(
    tight.sent.map((s) => s.size),
    roomy.sent.slice(2 * gop).map((s) => s.size),
  );
  t.deepEqual(
    tight.sent.map((s) => forward(tight.sent[0].timestamp, s.timestamp)),
    roomy.sent.slice(2 * gop).map((s) => forward(roomy.sent[2 * gop].timestamp, s.timestamp)),
  );
  t.true(tight.sent[0].keyframe);
  t.is(small.stats.dropped, 2 * gop);
  // RTP timestamps are taken modulo 2^32 (the start is just below it) and step 3000 at 30 fps.
  t.true(
    roomy.sent.some((s, i) => i > 0 && s.timestamp < roomy.sent[i - 1].timestamp),
    'the timestamps wrapped past 2^32',
  );
  for (let i = 1; i < roomy.sent.length; i++)
    t.true(Math.abs(forward(roomy.sent[i - 1].timestamp, roomy.sent[i].timestamp) - 3000) <= 1);
});

test('audio: Opus packets go out one per RTP packet at 48 kHz; PCMA is split into 20 ms packets at 8 kHz', async (t) => {
  for (const codec of ['opus', 'pcma'] as const) {
    const source = new BurstSource();
    const video = new RecordingOutput();
    const sent: Array<{ ts: number; size: number }> = [];
    const audio: RtpOutput = {
      clockRate: codec === 'opus' ? 48000 : 8000,
      startTimestamp: 1000,
      send: (data, ts) => (sent.push({ ts, size: data.length }), true),
    };
    const sender = new ViewerSender(source as unknown as StreamClient, { video, audio: { output: audio, codec } });
    sender.start();
    const emitAudio = (i: number, size: number, durUs: number) =>
      source.emit('media', {
        type: 'media',
        stream: 'audio',
        sequence: i,
        generation: 1,
        ptsUs: 1e12 + i * durUs,
        keyframe: true,
        cached: false,
        gap: 0,
        data: Buffer.alloc(size, i),
      });
    emitAudio(0, 100, 20_000); // before any picture: dropped (the timeline starts with video)
    source.emitFrames(0, 1);
    for (let i = 1; i <= 5; i++) {
      if (codec === 'opus') emitAudio(i, 80, 20_000);
      else emitAudio(i, 400, 50_000);
    }
    await new Promise((resolve) => setImmediate(resolve));
    sender.stop();
    t.is(video.sent.length, 1);
    if (codec === 'opus') {
      t.deepEqual(
        sent.map((s) => s.size),
        [80, 80, 80, 80, 80],
      );
      t.deepEqual(
        sent.slice(1).map((s, i) => forward(sent[i].ts, s.ts)),
        [960, 960, 960, 960],
      );
    } else {
      // 400 samples (50 ms) each: 160 + 160 + 80, timestamps counting samples.
      t.deepEqual(
        sent.map((s) => s.size),
        [160, 160, 80, 160, 160, 80, 160, 160, 80, 160, 160, 80, 160, 160, 80],
      );
      t.deepEqual(
        sent.slice(1).map((s, i) => forward(sent[i].ts, s.ts)),
        [160, 160, 80, 160, 160, 80, 160, 160, 80, 160, 160, 80, 160, 160],
      );
    }
  }
});

test('a generation bump: video waits for the next keyframe and RTP time keeps moving forward', async (t) => {
  const { zmc, client } = await senderFixture(t, 'realtime', 13);
  const out = new RecordingOutput();
  const sender = new ViewerSender(client, { video: out });
  sender.start();
  t.teardown(() => sender.stop());
  await until(() => out.sent.length >= 20, 10_000, '20 frames');
  zmc.bumpGeneration();
  const at = out.sent.length;
  await until(() => out.sent.length >= at + 20, 10_000, '20 frames after the bump');
  const after = out.sent.slice(at);
  t.true(after[0].keyframe, 'the first frame of the new generation is a keyframe');
  for (let i = 1; i < out.sent.length; i++) {
    const d = forward(out.sent[i - 1].timestamp, out.sent[i].timestamp);
    t.true(d > 0 && d < 90000 * 5, `forward at ${i}: ${d}`);
  }
});
