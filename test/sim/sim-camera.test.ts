// The simulated camera (src/sim/) read by the real native readers: the stream socket with
// StreamClient (H.264 HELLO, keyframes, increasing timestamps, a restart = new generation), the
// shared memory with SharedMemory (888 layout, capturing, newest image), and its alarm loop.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import test from 'ava';

import { SharedMemory, StreamClient, encodeJpeg, isCaptureAlive, type StreamRecord } from '../../src/native/index.js';
import { SIM_CLIP, SimCamera } from '../../src/sim/camera.js';
import { layout888 } from '../../src/sim/shm-writer.js';
import { buildShm } from '../helpers/shm-fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'zmgate-sim-'));
test.after.always(() => rmSync(dir, { recursive: true, force: true }));

async function until(pred: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

test('the stream socket serves H.264 from the shipped clip: HELLO, keyframes, increasing timestamps; restart = new generation', async (t) => {
  const cam = await SimCamera.start({ monitorId: 1, socketDir: dir, mapDir: dir });
  t.teardown(() => cam.stop());
  const client = new StreamClient({ socketDir: dir, monitorId: 1, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
  t.teardown(() => client.close());
  const records: StreamRecord[] = [];
  client.on('batch', (batch) => records.push(...batch));
  const media = () =>
    records.filter((r) => r.type === 'media' && !r.cached) as Extract<StreamRecord, { type: 'media' }>[];
  await until(() => media().filter((m) => m.keyframe).length >= 2, 'two live keyframes');

  const codec = records.find((r) => r.type === 'codec') as Extract<StreamRecord, { type: 'codec' }>;
  t.is(codec.codec.codec, 'h264');
  t.is(codec.codec.width, SIM_CLIP.width);
  t.is(codec.codec.height, SIM_CLIP.height);
  t.regex(codec.codec.codecString, /^avc1\.4d/); // Main profile
  t.truthy(records.find((r) => r.type === 'event' && r.name === 'snapshot'));
  const live = media();
  t.true(live.every((m) => m.stream === 'video' && m.generation === 1));
  for (let i = 1; i < live.length; i++) {
    t.true(live[i]!.ptsUs > live[i - 1]!.ptsUs, 'pts increases');
    t.is(live[i]!.sequence, live[i - 1]!.sequence + 1, 'no gaps');
  }
  // 25 fps, 1 s GOP: keyframes 25 frames and 1 s of pts apart.
  const keys = live.filter((m) => m.keyframe);
  t.is(keys[1]!.sequence - keys[0]!.sequence, 25);
  t.is(keys[1]!.ptsUs - keys[0]!.ptsUs, 1_000_000);
  t.is(keys[0]!.data.readUInt32BE(0), 1, 'Annex B start code');

  const before = records.length;
  await cam.restart();
  await until(
    () => records.slice(before).some((r) => r.type === 'media' && r.generation === 2 && r.keyframe),
    'media of generation 2',
  );
  t.is(cam.generation, 2);
});

test('the shared memory is a capturing 888-layout monitor whose newest image is a moving rgb24 picture', async (t) => {
  const cam = await SimCamera.start({ monitorId: 2, socketDir: dir, mapDir: dir, shmFps: 10 });
  t.teardown(() => cam.stop());
  const shm = SharedMemory.open({ mapDir: dir, monitorId: 2, width: SIM_CLIP.width, height: SIM_CLIP.height });
  t.teardown(() => shm.close());
  const state = shm.read();
  t.is(state.layout, 888);
  t.true(state.valid);
  t.is(state.capturing, 'Always');
  t.is(state.state, 'Idle');
  t.true(isCaptureAlive(state));
  t.is(state.geometry?.imageBufferCount, 3);
  const first = await shm.newestImage();
  t.truthy(first);
  t.is(first!.format, 'rgb24');
  t.is(first!.width, SIM_CLIP.width);
  t.is(first!.height, SIM_CLIP.height);
  const firstBytes = Buffer.from(first!.data);
  await sleep(300);
  const later = await shm.newestImage();
  t.true(later!.timestampUs > first!.timestampUs, 'new images keep coming');
  t.false(Buffer.from(later!.data).equals(firstBytes), 'the picture moves');
  const jpeg = await encodeJpeg(later!);
  t.is(jpeg.readUInt16BE(0), 0xffd8);

  // A forced alarm through TriggerData turns the state to Alarm within a heartbeat; cancel ends it.
  shm.trigger({ action: 'on', score: 100, cause: 'API' });
  await until(() => shm.read().state === 'Alarm', 'state Alarm', 5000);
  t.is(shm.read().alarm.cause, 'API');
  shm.trigger({ action: 'cancel' });
  await until(() => shm.read().state === 'Idle', 'state Idle', 5000);

  await cam.stop();
  t.throws(() => shm.read(), { code: 'ERR_ZM_SHM_MISSING' }, 'stopping removes the file, as zmc does');
});

test('ROTATE_90: the shared-memory picture is 360×640, as zmc stores turned images', async (t) => {
  const cam = await SimCamera.start({ monitorId: 3, socketDir: dir, mapDir: dir, orientation: 'ROTATE_90' });
  t.teardown(() => cam.stop());
  const shm = SharedMemory.open({ mapDir: dir, monitorId: 3, width: SIM_CLIP.height, height: SIM_CLIP.width });
  t.teardown(() => shm.close());
  const image = await shm.newestImage();
  t.is(image!.width, 360);
  t.is(image!.height, 640);
  t.is(image!.linesize[0], Math.ceil((360 * 3) / 32) * 32);
});

test("the simulator's 888 arithmetic agrees with the test fixture's (both from docs/zoneminder/shared-memory.md)", (t) => {
  for (const [w, h, n] of [
    [640, 360, 3],
    [360, 640, 3],
    [1920, 1080, 5],
    [322, 182, 7],
  ] as const) {
    const sim = layout888(w, h, n);
    const fixture = buildShm({ layout: 888, format: 'rgb24', width: w, height: h, imageBufferCount: n });
    t.is(sim.total, fixture.buffer.length, `${w}x${h} n=${n}: file size`);
    t.is(sim.slotSize, fixture.slotSize);
    t.like(fixture.offsets, {
      trigger: sim.trigger,
      videoStore: sim.videoStore,
      timestamps: sim.timestamps,
      images: sim.images,
      formats: sim.formats,
    });
    t.is(sim.linesize, fixture.linesize[0]);
  }
});
