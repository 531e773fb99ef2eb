// SharedMemory (zm.mmap.<id>) against synthetic files laid out from docs/zoneminder/shared-memory.md by
// helpers/shm-fixture.ts: every layout (760, 768, 872 as 1.38 and as 1.39, 888), every slot
// format, re-opening after zmc restarts, refusals, and trigger writes.

import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import test from 'ava';

import {
  PIXEL_FORMATS,
  type PixelFormat,
  SharedMemory,
  type SharedMemoryOptions,
  ZmNativeError,
  isCaptureAlive,
  loadBinding,
  nativeInfo,
  sharedMemoryPath,
} from '../../src/native/index.js';
import { type ShmFixtureSpec, buildShm, fieldOffset, writeShmFixture } from '../helpers/shm-fixture.js';
import { LAYOUTS, SHARED_DATA, TRIGGER_DATA, type ShmLayoutSize } from '../helpers/shm-layouts.js';

const scratch = mkdtempSync(join(tmpdir(), 'zmgate-shm-'));
test.after.always(() => rmSync(scratch, { recursive: true, force: true }));
let nextId = 1;
/** A fresh `<dir>/zm.mmap.<id>` path per test (tests run concurrently). */
function freshPath(): { dir: string; id: number; path: string } {
  const id = nextId++;
  return { dir: scratch, id, path: sharedMemoryPath(scratch, id) };
}

function open(t: { teardown(fn: () => void): void }, options: SharedMemoryOptions): SharedMemory {
  const shm = SharedMemory.open(options);
  t.teardown(() => shm.close());
  return shm;
}

// One configuration per layout variant; 872 appears twice (1.38 packed slots, 1.39 per-slot formats).
const VARIANTS: Array<{ name: string; layout: ShmLayoutSize; variant?: '1.38' | '1.39' }> = [
  { name: '760 (1.36)', layout: 760 },
  { name: '768 (1.36.34+)', layout: 768 },
  { name: '872 (1.38)', layout: 872, variant: '1.38' },
  { name: '872 (1.39 ≤ .16, fork)', layout: 872, variant: '1.39' },
  { name: '888 (≥ 1.39.17)', layout: 888 },
];

test('the reader offset table is docs/zoneminder/shared-memory.md, field by field', (t) => {
  const native = loadBinding().shmLayoutTable();
  t.deepEqual(
    native.map((f) => f.name),
    SHARED_DATA.map((f) => f.name),
  );
  for (const facts of SHARED_DATA) {
    const mine = native.find((f) => f.name === facts.name)!;
    t.is(mine.type, facts.type, facts.name);
    t.is(mine.length, facts.length, facts.name);
    for (const l of LAYOUTS) t.is(mine.offsets[l], facts.offsets[l], `${facts.name} @ ${l}`);
  }
});

for (const v of VARIANTS) {
  test(`layout ${v.name}: state, heartbeat, modes, alarm, trigger and geometry`, async (t) => {
    const { path } = freshPath();
    const has138 = v.layout >= 872;
    const fields: Record<string, number | bigint | string> = {
      state: 3,
      capture_fps: 29.97,
      analysis_fps: 5.5,
      last_event_id: 123456789012n,
      action: 4,
      brightness: 11,
      hue: 12,
      colour: 13,
      contrast: 14,
      alarm_x: 320,
      alarm_y: 240,
      last_frame_score: 77,
      audio_frequency: 8000,
      audio_channels: 1,
      startup_time: 1_700_000_000n,
      heartbeat_time: 1_700_000_100n,
      last_write_time: 1_700_000_099n,
      last_read_time: 1_700_000_098n,
      last_read_index: 4242,
      alarm_cause: 'Motion: Yard',
      signal: 1,
    };
    if (v.layout !== 760) fields.image_count = 999;
    if (has138)
      Object.assign(fields, {
        latitude: 52.37,
        longitude: 4.89,
        capturing: 2,
        analysing: 2,
        recording: 3,
        last_viewed_time: 1_700_000_050n,
      });
    if (v.layout === 888) Object.assign(fields, { last_analysis_index: 1, analysis_image_count: 88 });
    const fx = writeShmFixture(path, {
      layout: v.layout,
      variant: v.variant,
      width: 64,
      height: 48,
      format: 'rgb24',
      imageBufferCount: 4,
      zoneCount: has138 ? 3 : undefined,
      images: [
        { slot: 1, timestampUs: 1_700_000_098_500_000 },
        { slot: 2, timestampUs: 1_700_000_099_250_000 },
      ],
      fields,
      trigger: { state: 1, score: 50, cause: 'Door', text: 'front door', showText: 'DOOR' },
    });
    const shm = open(t, { path, width: 64, height: 48 });
    const s = shm.read();
    t.is(s.layout, v.layout);
    t.true(s.valid);
    t.is(s.state, 'Alarm');
    t.is(s.stateId, 3);
    t.is(s.captureFps, 29.97);
    t.is(s.analysisFps, 5.5);
    t.is(s.lastEventId, 123456789012);
    t.is(s.action, 4);
    t.deepEqual([s.brightness, s.hue, s.colour, s.contrast], [11, 12, 13, 14]);
    t.deepEqual(s.alarm, { x: 320, y: 240, score: 77, cause: 'Motion: Yard' });
    t.deepEqual(s.audio, { frequency: 8000, channels: 1 });
    t.is(s.startupTime, 1_700_000_000);
    t.is(s.heartbeatTime, 1_700_000_100);
    t.is(s.lastWriteTime, 1_700_000_099);
    t.is(s.lastReadTime, 1_700_000_098);
    t.is(s.lastWriteIndex, 2);
    t.is(s.lastReadIndex, 4242);
    t.true(s.signal);
    t.is(s.imageSize, 64 * 48 * 3);
    t.is(s.subpixelOrder, 6);
    t.deepEqual(s.trigger, { state: 'on', stateId: 1, score: 50, cause: 'Door', text: 'front door', showText: 'DOOR' });
    if (has138) {
      t.is(s.active, null);
      t.is(s.capturing, 'Ondemand');
      t.is(s.analysing, 'Always');
      t.is(s.recording, 'Always');
      t.deepEqual(s.modes, { capturing: 2, analysing: 2, recording: 3 });
      t.is(s.latitude, 52.37);
      t.is(s.longitude, 4.89);
      t.is(s.lastViewedTime, 1_700_000_050);
    } else {
      t.is(s.active, true);
      t.is(s.capturing, null);
      t.is(s.analysing, null);
      t.is(s.latitude, null);
      t.is(s.lastViewedTime, null);
    }
    t.is(s.imageCount, v.layout === 760 ? null : 999);
    t.is(s.lastAnalysisIndex, v.layout === 888 ? 1 : null);
    t.is(s.analysisImageCount, v.layout === 888 ? 88 : null);
    // Slot and zone counts were solved from the file size (no hints given).
    t.is(s.geometryError, null);
    t.like(s.geometry, {
      variant: fx.variant,
      width: 64,
      height: 48,
      colours: 3,
      imageBufferCount: 4,
      zoneCount: has138 ? 3 : 0,
      slotSize: fx.slotSize,
    });
    t.is(s.versions.length > 0, true);
    t.true(isCaptureAlive(s, 45, 1_700_000_110_000));
    t.false(isCaptureAlive(s, 45, 1_700_000_200_000));

    const img = await shm.newestImage();
    t.truthy(img);
    t.is(img!.index, 2);
    t.is(img!.format, 'rgb24');
    t.is(img!.timestampUs, 1_700_000_099_250_000);
    t.is(img!.timestamp.getTime(), 1_700_000_099_250);
    t.deepEqual(img!.linesize, fx.linesize);
    t.deepEqual(img!.data, fx.slotImage(2), 'the copy is exactly slot 2');
  });
}

// Per-slot formats (1.39) take every format; packed layouts (1.36/1.38) the RGB family and grey.
const FORMAT_CASES: Array<{ layout: ShmLayoutSize; variant?: '1.38' | '1.39'; formats: readonly PixelFormat[] }> = [
  { layout: 888, formats: PIXEL_FORMATS },
  { layout: 872, variant: '1.39', formats: ['yuv420p', 'rgba', 'gray8'] },
  { layout: 760, formats: ['gray8', 'rgb24', 'bgr24', 'rgba', 'bgra', 'argb', 'abgr'] },
  { layout: 872, variant: '1.38', formats: ['rgb24', 'abgr'] },
];
for (const c of FORMAT_CASES) {
  test(`layout ${c.layout}${c.variant ? ` (${c.variant})` : ''}: newest image in every slot format, odd sizes included`, async (t) => {
    for (const format of c.formats) {
      for (const [width, height] of [
        [64, 48],
        [33, 17],
      ] as const) {
        const { path } = freshPath();
        const colours = format === 'gray8' ? 1 : ['rgba', 'bgra', 'argb', 'abgr'].includes(format) ? 4 : 3;
        const fx = writeShmFixture(path, {
          layout: c.layout,
          variant: c.variant,
          width,
          height,
          format,
          colours: c.layout === 888 || c.variant === '1.39' ? colours : undefined,
          imageBufferCount: 3,
          zoneCount: 1,
          images: [{ slot: 0, timestampUs: 5_000_001 }],
        });
        const shm = open(t, { path, width, height, imageBufferCount: 3, zoneCount: 1 });
        const img = await shm.newestImage();
        const what = `${format} ${width}×${height}`;
        t.is(img?.format, format, what);
        t.is(img?.width, width, what);
        t.deepEqual(img?.linesize, fx.linesize, what);
        t.deepEqual(img?.data, fx.slotImage(0), what);
      }
    }
  });
}

test('no image yet: last_write_index == n, or (1.39) the slot format is still AV_PIX_FMT_NONE', async (t) => {
  const a = freshPath();
  writeShmFixture(a.path, { layout: 760, width: 16, height: 8, format: 'rgb24', imageBufferCount: 3 });
  t.is(await open(t, { path: a.path, width: 16, height: 8 }).newestImage(), null);
  const b = freshPath();
  // Index points at slot 1, but no format was written for it (the fixture fills slot 0 only).
  writeShmFixture(b.path, {
    layout: 888,
    width: 16,
    height: 8,
    format: 'rgb24',
    imageBufferCount: 3,
    images: [{ slot: 0, timestampUs: 1 }],
    fields: { last_write_index: 1 },
  });
  t.is(await open(t, { path: b.path, width: 16, height: 8, imageBufferCount: 3 }).newestImage(), null);
});

test('mapDir + monitorId names <dir>/zm.mmap.<id>', (t) => {
  const { dir, id, path } = freshPath();
  writeShmFixture(path, { layout: 768, width: 16, height: 8, format: 'gray8', imageBufferCount: 2 });
  const shm = open(t, { mapDir: dir, monitorId: id });
  t.is(shm.path, join(dir, `zm.mmap.${id}`));
  t.is(shm.read().layout, 768);
  t.is(shm.read().geometry, null, 'no width/height: state only');
  t.regex(shm.read().geometryError ?? '', /width and height/);
});

test('unknown sizes are refused with ERR_ZM_SHM_LAYOUT naming the size', (t) => {
  for (const size of [1000, 864, 761]) {
    const { path } = freshPath();
    const fx = buildShm({ layout: 888, width: 16, height: 8, format: 'rgb24', imageBufferCount: 2 });
    fx.buffer.writeUInt32LE(size, 0);
    fx.buffer.writeUInt32LE(560, size); // a plausible TriggerData, so only the size word is wrong
    writeFileAtomic(path, fx.buffer);
    const err = t.throws(() => SharedMemory.open({ path }), { instanceOf: ZmNativeError });
    t.is(err.code, 'ERR_ZM_SHM_LAYOUT');
    t.true(err.message.includes(`SharedData.size is ${size}`), err.message);
    t.true(err.message.includes('760') && err.message.includes('888'), 'lists the known sizes');
    t.true(err.stack?.includes('shared-memory.test'), 'stack points at the caller');
  }
  const { path } = freshPath();
  const fx = buildShm({ layout: 872, width: 16, height: 8, format: 'rgb24', imageBufferCount: 2 });
  fx.buffer.writeUInt32LE(600, 872); // TriggerData.size
  writeFileAtomic(path, fx.buffer);
  const err = t.throws(() => SharedMemory.open({ path }), { instanceOf: ZmNativeError });
  t.is(err.code, 'ERR_ZM_SHM_LAYOUT');
  t.regex(err.message, /TriggerData\.size at offset 872 is 600/);
});

test('missing file → ERR_ZM_SHM_MISSING; size word 0 or valid = 0 → ERR_ZM_SHM_INVALID', (t) => {
  const missing = t.throws(() => SharedMemory.open({ path: join(scratch, 'zm.mmap.999999') }), {
    instanceOf: ZmNativeError,
  });
  t.is(missing.code, 'ERR_ZM_SHM_MISSING');
  t.regex(missing.message, /zmc is not running/);

  const a = freshPath();
  writeFileAtomic(a.path, Buffer.alloc(8000));
  t.is(t.throws(() => SharedMemory.open({ path: a.path }), { instanceOf: ZmNativeError }).code, 'ERR_ZM_SHM_INVALID');
  const b = freshPath();
  writeShmFixture(b.path, {
    layout: 888,
    width: 16,
    height: 8,
    format: 'rgb24',
    imageBufferCount: 2,
    fields: { valid: 0 },
  });
  const err = t.throws(() => SharedMemory.open({ path: b.path }), { instanceOf: ZmNativeError });
  t.is(err.code, 'ERR_ZM_SHM_INVALID');
  t.regex(err.message, /valid = 0/);
});

test('re-opens when valid drops to 0 and when zmc re-creates the file (new inode)', async (t) => {
  const { path } = freshPath();
  const spec: ShmFixtureSpec = {
    layout: 872,
    width: 32,
    height: 16,
    format: 'rgb24',
    imageBufferCount: 3,
    zoneCount: 0,
    images: [{ slot: 0, timestampUs: 1_000_000 }],
    fields: { state: 1 },
  };
  writeShmFixture(path, spec);
  const shm = open(t, { path, width: 32, height: 16, imageBufferCount: 3, zoneCount: 0 });
  t.is(shm.read().state, 'Idle');
  t.is(shm.read().opens, 1, 'no re-open while nothing changed');

  // zmc stops: valid = 0 in the mapped file → refused until it is valid again.
  pokeByte(path, fieldOffset(872, 'valid'), 0);
  t.is(t.throws(() => shm.read(), { instanceOf: ZmNativeError }).code, 'ERR_ZM_SHM_INVALID');
  await t.throwsAsync(shm.newestImage(), { code: 'ERR_ZM_SHM_INVALID' });
  pokeByte(path, fieldOffset(872, 'valid'), 1);
  t.is(shm.read().state, 'Idle');

  // zmc restarts: a new file (new inode) with another state and another image.
  const opens = shm.read().opens;
  const fx = writeShmFixture(path, { ...spec, fields: { state: 2 }, images: [{ slot: 1, timestampUs: 2_000_000 }] });
  const s = shm.read();
  t.is(s.state, 'Prealarm');
  t.is(s.opens, opens + 1);
  const img = await shm.newestImage();
  t.is(img?.index, 1);
  t.deepEqual(img?.data, fx.slotImage(1));

  // zmc exits for good: the file is unlinked.
  rmSync(path);
  t.is(t.throws(() => shm.read(), { instanceOf: ZmNativeError }).code, 'ERR_ZM_SHM_MISSING');
});

for (const layout of LAYOUTS) {
  test(`trigger on/off/cancel writes TriggerData at offset ${layout}`, (t) => {
    const { path } = freshPath();
    writeShmFixture(path, { layout, width: 16, height: 8, format: 'rgb24', imageBufferCount: 2 });
    const shm = open(t, { path });
    const before = readFileSync(path);

    shm.trigger({ action: 'on', score: 77, cause: 'Door', text: 'front door opened', showText: 'DOOR' });
    const on = readFileSync(path);
    const tf = TRIGGER_DATA.fields;
    t.is(on.readUInt32LE(layout + tf.size), 560, 'size untouched');
    t.is(on.readUInt32LE(layout + tf.trigger_state), 1);
    t.is(on.readUInt32LE(layout + tf.trigger_score), 77);
    t.is(cString(on, layout + tf.trigger_cause, 32), 'Door');
    t.is(cString(on, layout + tf.trigger_text, 256), 'front door opened');
    t.is(cString(on, layout + tf.trigger_showtext, 256), 'DOOR');
    // Nothing outside TriggerData changed.
    t.true(on.subarray(0, layout).equals(before.subarray(0, layout)));
    t.true(on.subarray(layout + 560).equals(before.subarray(layout + 560)));
    t.deepEqual(shm.read().trigger, {
      state: 'on',
      stateId: 1,
      score: 77,
      cause: 'Door',
      text: 'front door opened',
      showText: 'DOOR',
    });

    shm.trigger({ action: 'off' });
    t.deepEqual(shm.read().trigger, { state: 'off', stateId: 2, score: 0, cause: '', text: '', showText: '' });
    shm.trigger({ action: 'on', score: 1, cause: 'x'.repeat(31) });
    t.is(shm.read().trigger.cause, 'x'.repeat(31));
    shm.trigger({ action: 'cancel', showText: 'bye' });
    const cancelled = readFileSync(path);
    t.is(cancelled.readUInt32LE(layout + tf.trigger_state), 0);
    t.is(cancelled.readUInt32LE(layout + tf.trigger_score), 0);
    t.true(
      cancelled.subarray(layout + tf.trigger_cause, layout + tf.trigger_cause + 32).every((b) => b === 0),
      'cause cleared',
    );
    t.is(cString(cancelled, layout + tf.trigger_showtext, 256), 'bye');
  });
}

test('trigger requests are validated before native code', (t) => {
  const { path } = freshPath();
  writeShmFixture(path, { layout: 888, width: 16, height: 8, format: 'rgb24', imageBufferCount: 2 });
  const shm = open(t, { path });
  const bad: Array<[unknown, typeof TypeError | typeof RangeError]> = [
    [{ action: 'alarm' }, TypeError],
    [{ action: 'on', cause: 'x' }, TypeError], // no score
    [{ action: 'on', score: -1, cause: 'x' }, RangeError],
    [{ action: 'on', score: 1, cause: 'x'.repeat(32) }, RangeError], // 31 bytes + NUL
    [{ action: 'on', score: 1, cause: 'é'.repeat(16) }, RangeError], // 32 UTF-8 bytes
    [{ action: 'on', score: 1, cause: '' }, RangeError],
    [{ action: 'on', score: 1, cause: 'x', text: 'y'.repeat(256) }, RangeError],
    [{ action: 'on', score: 1, cause: 'a\0b' }, TypeError],
    [{ action: 'off', score: 3 }, TypeError], // score only with 'on'
    [{ action: 'cancel', showText: 5 }, TypeError],
    [null, TypeError],
  ];
  for (const [request, type] of bad)
    t.throws(() => shm.trigger(request as never), { instanceOf: type }, JSON.stringify(request));
  t.is(shm.read().trigger.state, 'cancel', 'nothing was written');
});

test('wrong or missing geometry: state still reads, images fail with ERR_ZM_SHM_GEOMETRY', async (t) => {
  const { path } = freshPath();
  writeShmFixture(path, {
    layout: 888,
    width: 64,
    height: 48,
    format: 'rgb24',
    imageBufferCount: 3,
    images: [{ slot: 0, timestampUs: 1 }],
  });
  // 12×256×3 still equals imagesize, but 1.39 slots hold a 32-aligned RGBA frame: 64·256 > 4·64·48.
  const wrong = open(t, { path, width: 12, height: 256, imageBufferCount: 3 });
  t.is(wrong.read().state, 'Idle');
  t.regex(wrong.read().geometryError ?? '', /fits no known/);
  await t.throwsAsync(wrong.newestImage(), { instanceOf: ZmNativeError, code: 'ERR_ZM_SHM_GEOMETRY' });
  const none = open(t, { path });
  const err = await t.throwsAsync(none.newestImage(), { instanceOf: ZmNativeError, code: 'ERR_ZM_SHM_GEOMETRY' });
  t.true(err.stack?.includes('shared-memory.test'), 'async stack points at the caller');
  const mismatch = open(t, { path, width: 50, height: 48 });
  t.regex(mismatch.read().geometryError ?? '', /imagesize 9216 is not 50×48/);
});

test('open options are validated before native code', (t) => {
  const bad: Array<[unknown, typeof TypeError | typeof RangeError]> = [
    [undefined, TypeError],
    [{}, TypeError],
    [{ path: 'relative/zm.mmap.1' }, RangeError],
    [{ path: '/dev/shm/zm.mmap.1', mapDir: '/dev/shm' }, TypeError],
    [{ mapDir: '/dev/shm', monitorId: 0 }, RangeError],
    [{ mapDir: '/dev/shm', monitorId: 1.5 }, TypeError],
    [{ path: '/x', width: 640 }, TypeError],
    [{ path: '/x', width: 0, height: 480 }, RangeError],
    [{ path: '/x', imageBufferCount: 0 }, RangeError],
    [{ path: '/x', maxAttempts: 0 }, RangeError],
    [{ path: '/x', widht: 640 }, TypeError],
  ];
  for (const [options, type] of bad) {
    const err = t.throws(
      () => SharedMemory.open(options as SharedMemoryOptions),
      { instanceOf: type },
      JSON.stringify(options),
    );
    t.false(err instanceof ZmNativeError);
  }
});

test('close() unmaps; later calls throw ERR_ZM_SHM_CLOSED; an image copy in flight still completes', async (t) => {
  const { path } = freshPath();
  const fx = writeShmFixture(path, {
    layout: 760,
    width: 64,
    height: 48,
    format: 'rgb24',
    imageBufferCount: 2,
    images: [{ slot: 1, timestampUs: 7 }],
  });
  const shm = SharedMemory.open({ path, width: 64, height: 48 });
  const pending = shm.newestImage();
  shm.close();
  shm.close();
  t.true(shm.closed);
  t.deepEqual((await pending)?.data, fx.slotImage(1));
  t.is(t.throws(() => shm.read(), { instanceOf: ZmNativeError }).code, 'ERR_ZM_SHM_CLOSED');
  await t.throwsAsync(shm.newestImage(), { code: 'ERR_ZM_SHM_CLOSED' });
});

test('permission denied names the file owner/group and the www-data/video hint (run as nobody)', (t) => {
  if (process.getuid?.() !== 0) {
    t.pass('needs root to run a child as nobody');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'zm_shm_perm_'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  chmodSync(dir, 0o755);
  const closed = join(dir, 'zm.mmap.1'); // 0660 root:root: nobody may not read it
  writeShmFixture(closed, { layout: 888, width: 16, height: 8, format: 'rgb24', imageBufferCount: 2 });
  chmodSync(closed, 0o660);
  const readOnly = join(dir, 'zm.mmap.2'); // 0644: readable, so only the trigger is refused
  writeShmFixture(readOnly, { layout: 888, width: 16, height: 8, format: 'rgb24', imageBufferCount: 2 });
  chmodSync(readOnly, 0o644);
  // The child loads a copy of the addon that nobody can read (this checkout may be under /root).
  const addon = join(dir, 'addon', 'zmgate.node');
  mkdirSync(join(dir, 'addon'));
  chmodSync(join(dir, 'addon'), 0o755);
  copyFileSync(nativeInfo().path, addon);
  chmodSync(addon, 0o755);
  const script = `
    const b = require(${JSON.stringify(addon)});
    const out = {};
    try { new b.SharedMemory({ path: ${JSON.stringify(closed)} }); } catch (e) { out.open = { code: e.code, message: e.message }; }
    const shm = new b.SharedMemory({ path: ${JSON.stringify(readOnly)} });
    out.state = shm.read().state;
    try { shm.trigger({ state: 1, score: 1, cause: 'x' }); } catch (e) { out.trigger = { code: e.code, message: e.message }; }
    console.log(JSON.stringify(out));
  `;
  const r = spawnSync(process.execPath, ['-e', script], { uid: 65534, gid: 65534, encoding: 'utf8', cwd: dir });
  t.is(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as {
    open: { code: string; message: string };
    state: number;
    trigger: { code: string; message: string };
  };
  t.is(out.open.code, 'ERR_ZM_SHM_PERMISSION');
  for (const needle of ['permission denied to read', 'mode 0660', 'owner root', 'www-data', 'video']) {
    t.true(out.open.message.includes(needle), `${needle} in: ${out.open.message}`);
  }
  t.is(out.state, 1, 'read-only access still reads the state');
  t.is(out.trigger.code, 'ERR_ZM_SHM_PERMISSION');
  t.regex(out.trigger.message, /write the trigger/);
});

function writeFileAtomic(path: string, data: Buffer): void {
  const fd = openSync(`${path}.tmp`, 'w', 0o660);
  writeSync(fd, data);
  closeSync(fd);
  rmSync(path, { force: true });
  copyFileSync(`${path}.tmp`, path);
  rmSync(`${path}.tmp`);
}

/** Writes one byte in place (same inode), as zmc does to its mapping. */
function pokeByte(path: string, offset: number, value: number): void {
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.from([value]), 0, 1, offset);
  closeSync(fd);
}

function cString(buf: Buffer, at: number, length: number): string {
  const field = buf.subarray(at, at + length);
  const nul = field.indexOf(0);
  return field.subarray(0, nul < 0 ? length : nul).toString('utf8');
}
