// StreamClient against the fake zmc serving real ffmpeg media over protocol v1.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import test, { type ExecutionContext } from 'ava';

import { StreamClient, type StreamClientOptions, type StreamRecord, ZmNativeError } from '../../src/native/index.js';
import { EVENT, FakeZmc, type FakeZmcOptions, MSG, encodeMessage } from '../helpers/fake-zmc.js';
import { type MediaClip, mediaClip } from '../helpers/media.js';
import { TIME_SCALE } from '../helpers/time-scale.js';

let h264aac: MediaClip;
let h265: MediaClip;
test.before(async () => {
  h264aac = await mediaClip({ video: 'h264-high', audio: 'aac' });
  h265 = await mediaClip({ video: 'h265' });
});

const scratch = mkdtempSync(join(tmpdir(), 'zmgate-11-'));
test.after.always(() => rmSync(scratch, { recursive: true, force: true }));

/** Records a client's output; `until` resolves when a predicate over everything so far holds. */
function collect(client: StreamClient) {
  const records: StreamRecord[] = [];
  let batches = 0;
  const waiters: Array<{ pred: (r: StreamRecord[]) => boolean; resolve: () => void }> = [];
  client.on('batch', (batch) => {
    batches++;
    records.push(...batch);
    for (const w of [...waiters]) {
      if (!w.pred(records)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  return {
    records,
    batches: () => batches,
    of: <T extends StreamRecord['type']>(type: T) =>
      records.filter((r): r is Extract<StreamRecord, { type: T }> => r.type === type),
    until(pred: (r: StreamRecord[]) => boolean, timeoutMs = 15_000): Promise<void> {
      if (pred(records)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out; got ${records.map((r) => r.type).join(',')}`)),
          timeoutMs,
        );
        waiters.push({ pred, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
  };
}

/** A client that is closed when the test ends, whatever happens. */
function open(t: ExecutionContext, options: StreamClientOptions): StreamClient {
  const client = new StreamClient({ reconnect: { initialDelayMs: 50, maxDelayMs: 400 }, ...options });
  t.teardown(() => client.close());
  return client;
}

async function serve(t: ExecutionContext, options: FakeZmcOptions): Promise<FakeZmc> {
  const zmc = await FakeZmc.start(options);
  t.teardown(() => zmc.close());
  return zmc;
}

test('receives HELLO codec details matching ffprobe, then every access unit in order with its timestamp', async (t) => {
  const zmc = await serve(t, { clip: h264aac });
  const client = open(t, { path: zmc.path });
  const c = collect(client);
  const total = h264aac.video.frames.length + h264aac.audio!.frames.length;
  await c.until((r) => r.filter((x) => x.type === 'media').length === total);

  const codecs = c.of('codec');
  const video = codecs.find((x) => x.stream === 'video')!.codec;
  const audio = codecs.find((x) => x.stream === 'audio')!.codec;
  t.is(video.codec, 'h264');
  t.is(video.width, h264aac.video.width!);
  t.is(video.height, h264aac.video.height!);
  t.regex(video.codecString, /^avc1\.6400/); // High
  t.is(video.level, h264aac.video.probe.level!);
  t.true(video.fromBitstream);
  t.is(video.parameterSets.sps.length, 1);
  t.is(audio.codec, 'aac');
  t.is(audio.codecString, 'mp4a.40.2');
  t.is(audio.sampleRate, 48000);
  t.is(audio.channels, 2);
  t.deepEqual(client.codecs().video?.codecString, video.codecString);

  const media = c.of('media');
  const videoIn = media.filter((m) => m.stream === 'video');
  t.is(videoIn.length, h264aac.video.frames.length);
  videoIn.forEach((m, i) => {
    const f = h264aac.video.frames[i]!;
    t.is(m.ptsUs, zmc.pts(f.ptsUs));
    t.is(m.keyframe, f.keyframe);
    t.is(m.sequence, i);
    t.is(m.gap, 0);
    t.true(m.data.equals(f.data));
  });
  const audioIn = media.filter((m) => m.stream === 'audio');
  t.deepEqual(
    audioIn.map((m) => m.ptsUs),
    h264aac.audio!.frames.map((f) => zmc.pts(f.ptsUs)),
  );
  t.true(c.batches() <= media.length, 'at most one JS callback per access unit');

  const snapshot = c.of('event')[0];
  t.is(snapshot.name, 'snapshot');
  t.is(snapshot.stateName, 'IDLE');
  const key = client.latestKeyframe();
  t.truthy(key);
  t.true(key!.data.equals(h264aac.video.frames[30].data));
  const stats = client.stats();
  t.is(stats.media, total);
  t.is(stats.lost, 0);
});

test('H.265: codec string and picture size from the SPS; a generation bump is reported and state resets', async (t) => {
  const zmc = await serve(t, { clip: h265, pace: 'realtime' });
  const client = open(t, { path: zmc.path });
  const c = collect(client);
  await c.until((r) => r.filter((x) => x.type === 'media').length >= 10);
  const codec = c.of('codec')[0].codec;
  t.is(codec.codec, 'h265');
  t.regex(codec.codecString, /^hvc1\.1\.6\.L\d+\.90$/);
  t.is(codec.width, 640);
  t.is(codec.height, 360);
  t.is(codec.parameterSets.vps.length, 1);

  zmc.bumpGeneration();
  await c.until(
    (r) =>
      r.some((x) => x.type === 'generation') && r.filter((x) => x.type === 'media' && x.generation === 2).length >= 3,
  );
  const bump = c.of('generation')[0];
  t.deepEqual([bump.previous, bump.current], [1, 2]);
  const after = c.of('media').filter((m) => m.generation === 2);
  t.true(after[0].keyframe, 'media resumes at a keyframe');
  t.is(after[0].sequence, 0);
  t.true(
    after.every((m) => m.gap === 0),
    'a sequence restart is not a gap',
  );
  t.is(c.of('codec').filter((x) => x.generation === 2).length, 1, 'HELLO re-sent');
  t.is(client.stats().generations, 1);
});

test('reconnects after a disconnect mid-stream, with back-off, and after BYE', async (t) => {
  const zmc = await serve(t, { clip: h264aac, disconnectAfter: 20, byeAtEnd: true });
  const client = open(t, { path: zmc.path });
  const c = collect(client);
  await c.until((r) => r.filter((x) => x.type === 'connected').length >= 3, 20_000);
  const downs = c.of('disconnected');
  t.is(downs[0].reason, 'eof');
  t.is(downs[0].code, undefined, 'a clean EOF after HELLO is not an error');
  t.is(downs[0].retryMs, 50);
  t.is(downs[1].reason, 'bye');
  t.true(c.of('bye').length >= 1);
  await zmc.waitForConnections(3);
  const s = client.stats();
  t.true(s.connects >= 3);
});

test('a missing socket is reported with ERR_ZM_STREAM_SOCKET_MISSING and retried with growing delays until it appears', async (t) => {
  const dir = mkdtempSync(join(scratch, 'missing-'));
  const logged: string[] = [];
  const log = {
    warn: (_f: object, m: string) => logged.push(`warn ${m}`),
    info: (_f: object, m: string) => logged.push(`info ${m}`),
  };
  const client = new StreamClient({
    socketDir: dir,
    monitorId: 7,
    reconnect: { initialDelayMs: 20, maxDelayMs: 160 },
    log,
  });
  t.teardown(() => client.close());
  t.is(client.path, join(dir, 'stream_7.sock'));
  const c = collect(client);
  const errors: ZmNativeError[] = [];
  client.on('disconnected', (d) => d.error && errors.push(d.error));
  await c.until((r) => r.filter((x) => x.type === 'disconnected').length >= 5);
  const delays = c.of('disconnected').map((d) => d.retryMs);
  t.deepEqual(delays.slice(0, 5), [20, 40, 80, 160, 160]);
  t.true(errors[0] instanceof ZmNativeError);
  t.is(errors[0].code, 'ERR_ZM_STREAM_SOCKET_MISSING');
  t.is(logged.filter((l) => l.startsWith('warn')).length, 1, 'one warning, not one per retry');

  await serve(t, { clip: h264aac, dir, monitorId: 7 });
  await c.until((r) => r.some((x) => x.type === 'codec'));
  t.true(logged.some((l) => l === 'info stream socket recovered'));
});

for (const [name, bytes, code] of [
  [
    'bad version',
    encodeMessage({ type: MSG.media, stream: 0, version: 2 }, Buffer.from([1, 2, 3])),
    'ERR_ZM_STREAM_PROTOCOL_VERSION',
  ],
  [
    'oversize length',
    encodeMessage({ type: MSG.media, stream: 0, length: 64 * 1024 * 1024 }),
    'ERR_ZM_STREAM_PROTOCOL_LENGTH',
  ],
] as const) {
  test(`protocol violation (${name}) → disconnect with ${code}, then reconnect`, async (t) => {
    const zmc = await serve(t, { clip: h264aac, pace: 'realtime' });
    const client = open(t, { path: zmc.path });
    const c = collect(client);
    await c.until((r) => r.some((x) => x.type === 'media'));
    zmc.sendRaw(bytes);
    await c.until((r) => r.some((x) => x.type === 'disconnected'));
    const d = c.of('disconnected')[0];
    t.is(d.reason, 'error');
    t.is(d.code, code);
    t.regex(d.message, /protocol violation/);
    await c.until((r) => r.filter((x) => x.type === 'connected').length === 2);
    await zmc.waitForConnections(2);
  });
}

test('EVENT messages reach JS with their fields', async (t) => {
  const zmc = await serve(t, { clip: h264aac, pace: 'realtime' });
  const client = open(t, { path: zmc.path });
  const c = collect(client);
  await c.until((r) => r.some((x) => x.type === 'media'));
  zmc.sendEvent(
    EVENT.stateChanged,
    {
      wallClockUs: 1_700_000_000_123_456n,
      stateId: 2,
      prevStateId: 1,
      stateName: 'ALARM',
      message: 'motion',
      healthCode: 0,
    },
    42,
  );
  zmc.sendEvent(0x0301, { jsonDetail: '{"label":"person"}' }, 43);
  await c.until((r) => r.filter((x) => x.type === 'event').length >= 3);
  const [, change, detection] = c.of('event');
  t.like(change, {
    name: 'state_changed',
    code: 0x0201,
    sequence: 42,
    stateId: 2,
    prevStateId: 1,
    stateName: 'ALARM',
    message: 'motion',
    wallClockUs: 1_700_000_000_123_456,
    healthCode: 0,
  });
  t.like(detection, { name: 'detection', jsonDetail: '{"label":"person"}' });
});

test('a slow reader: back-pressure reaches zmc, whose drops show up as sequence gaps', async (t) => {
  const zmc = await serve(t, {
    clip: await mediaClip({ video: 'h264-high', seconds: 4, bitrate: '8M', noise: true }),
    maxQueueBytes: 32 * 1024,
    statsIntervalMs: 200,
  });
  const client = open(t, { path: zmc.path, maxPendingBytes: 64 * 1024 });
  const c = collect(client);
  let slow = true;
  client.on('media', () => {
    if (!slow) return;
    const until = Date.now() + 15; // a JS thread busy with something else
    while (Date.now() < until);
  });
  // Wait for a STATS sent after zmc offered the whole clip: the socket is ordered, so every media
  // message zmc did send has arrived by then.
  await c.until(
    (r) =>
      zmc.connections[0]?.finished === true &&
      r.some((x) => x.type === 'stats' && x.messagesSent > zmc.connections[0]!.sentAtFinish),
    30_000,
  );
  slow = false;
  const media = c.of('media');
  const dropped = zmc.connections[0]!.dropped;
  t.true(dropped > 0, 'zmc had to drop');
  const lost = media.reduce((a, m) => a + m.gap, 0);
  // Drops between delivered messages are gaps; drops after the last one are not visible yet.
  t.is(lost + trailingDrops(), dropped, 'every drop is accounted for');
  t.is(media.length + dropped, 120);
  t.is(client.stats().lost, lost);

  function trailingDrops(): number {
    const seqs = c.of('media').map((m) => m.sequence);
    return seqs.length ? 119 - Math.max(...seqs) : 0;
  }
});

test('close() joins promptly, is idempotent, and silences the client', async (t) => {
  const zmc = await serve(t, { clip: h264aac, pace: 'realtime' });
  const client = open(t, { path: zmc.path });
  const c = collect(client);
  await c.until((r) => r.some((x) => x.type === 'media'));
  const t0 = performance.now();
  const p1 = client.close();
  const p2 = client.close();
  t.is(p1, p2);
  await p1;
  t.true(performance.now() - t0 < 500 * TIME_SCALE, `close took ${performance.now() - t0} ms`);
  t.true(client.closed);
  const n = c.records.length;
  await new Promise((r) => setTimeout(r, 150));
  t.is(c.records.length, n, 'no records after close');
});

test('invalid options are rejected in TypeScript before any native work', (t) => {
  t.throws(() => new StreamClient({} as StreamClientOptions), { instanceOf: TypeError });
  t.throws(() => new StreamClient({ path: 'relative.sock' }), { instanceOf: RangeError });
  t.throws(() => new StreamClient({ path: `/${'x'.repeat(120)}` }), { instanceOf: RangeError });
  t.throws(() => new StreamClient({ socketDir: '/run/zm', monitorId: 0 }), { instanceOf: RangeError });
  t.throws(() => new StreamClient({ socketDir: '/run/zm', monitorId: 1.5 }), { instanceOf: TypeError });
  t.throws(() => new StreamClient({ path: '/a.sock', reconnect: { initialDelayMs: 500, maxDelayMs: 100 } }), {
    instanceOf: RangeError,
  });
  t.throws(() => new StreamClient({ path: '/a.sock', reconnect: { initialDelay: 5 } as never }), {
    instanceOf: TypeError,
    message: /unknown option "initialDelay"/,
  });
  t.throws(() => new StreamClient({ path: '/a.sock', maxPendingBytes: 10 }), { instanceOf: RangeError });
  t.throws(() => new StreamClient({ path: '/a.sock', log: console as never, monitorId: 3 }), { instanceOf: TypeError });
});
