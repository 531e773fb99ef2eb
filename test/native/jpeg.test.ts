// encodeJpeg for every shared-memory pixel format and transformJpeg for every Monitors.Orientation,
// checked by decoding with ffmpeg (an independent decoder): sizes, and pixel values against the
// known test picture or against ffmpeg's own rotation of the source.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import test from 'ava';

import {
  ORIENTATIONS,
  type Orientation,
  PIXEL_FORMATS,
  SharedMemory,
  ZmNativeError,
  encodeJpeg,
  jpegHeader,
  transformJpeg,
} from '../../src/native/index.js';
import { patternImage, patternRgb, planesOf, writeShmFixture } from '../helpers/shm-fixture.js';

const scratch = mkdtempSync(join(tmpdir(), 'zmgate-jpeg-'));
test.after.always(() => rmSync(scratch, { recursive: true, force: true }));
let fileNo = 0;

interface Decoded {
  width: number;
  height: number;
  rgb: Buffer;
}

/** Decodes with ffmpeg to packed RGB24 (optionally through a filter such as transpose=clock). */
function ffDecode(jpeg: Uint8Array, filter?: string): Decoded {
  const file = join(scratch, `${fileNo++}.jpg`);
  writeFileSync(file, jpeg);
  const probe = spawnSync(
    'ffprobe',
    ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'json', file],
    { encoding: 'utf8' },
  );
  if (probe.status !== 0) throw new Error(`ffprobe: ${probe.stderr}`);
  let { width, height } = (JSON.parse(probe.stdout) as { streams: Array<{ width: number; height: number }> })
    .streams[0]!;
  if (filter?.startsWith('transpose')) [width, height] = [height, width];
  const args = [
    '-v',
    'error',
    '-i',
    file,
    ...(filter ? ['-vf', filter] : []),
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    'pipe:1',
  ];
  const r = spawnSync('ffmpeg', args, { maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`ffmpeg: ${r.stderr.toString()}`);
  return { width, height, rgb: r.stdout };
}

function pixel(d: Decoded, x: number, y: number): [number, number, number] {
  const at = (y * d.width + x) * 3;
  return [d.rgb[at]!, d.rgb[at + 1]!, d.rgb[at + 2]!];
}

function meanAbsDiff(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

/** The four quadrant centres of the test picture must decode close to their colours. */
function checkQuadrants(
  t: { true(v: boolean, m?: string): void },
  d: Decoded,
  width: number,
  height: number,
  what: string,
  tolerance: number,
): void {
  for (const [fx, fy] of [
    [0.25, 0.25],
    [0.75, 0.25],
    [0.25, 0.75],
    [0.75, 0.75],
  ] as const) {
    const x = Math.floor(width * fx);
    const y = Math.floor(height * fy);
    const want = patternRgb(x, y, width, height);
    const got = pixel(d, x, y);
    const isGrey = (format: string) => format.startsWith('gray8');
    const expect = isGrey(what)
      ? (Array(3).fill(Math.round(0.299 * want[0] + 0.587 * want[1] + 0.114 * want[2])) as [number, number, number])
      : want;
    const off = Math.max(...got.map((v, k) => Math.abs(v - expect[k]!)));
    t.true(off <= tolerance, `${what} at (${x},${y}): got ${got}, want ${expect}`);
  }
}

for (const format of PIXEL_FORMATS) {
  test(`encodeJpeg ${format}: packed and 32-aligned rows, even and odd sizes`, async (t) => {
    for (const [width, height, rowAlign] of [
      [64, 48, 1],
      [33, 17, 32],
    ] as const) {
      const data = patternImage(format, width, height, rowAlign);
      const linesize = planesOf(format, width, height, rowAlign).map((p) => p.linesize);
      const jpeg = await encodeJpeg({ format, width, height, data, linesize }, { quality: 95 });
      t.is(jpeg[0], 0xff);
      t.is(jpeg[1], 0xd8);
      const header = jpegHeader(jpeg);
      t.is(header.width, width);
      t.is(header.height, height);
      t.is(header.subsampling, format === 'gray8' ? 3 : format.includes('422') ? 1 : 2);
      const d = ffDecode(jpeg);
      t.is(d.width, width);
      t.is(d.height, height);
      checkQuadrants(t, d, width, height, `${format} ${width}×${height}`, 14);
    }
  });
}

test('encodeJpeg: quality changes the size; default is 80', async (t) => {
  const data = patternImage('rgb24', 320, 240);
  // Noise makes size depend on quality.
  for (let i = 0; i < data.length; i += 7) data[i] = (i * 31) & 0xff;
  const image = { format: 'rgb24' as const, width: 320, height: 240, data };
  const low = await encodeJpeg(image, { quality: 20 });
  const high = await encodeJpeg(image, { quality: 95 });
  const dflt = await encodeJpeg(image);
  t.true(low.length < dflt.length && dflt.length < high.length, `${low.length} < ${dflt.length} < ${high.length}`);
  t.deepEqual(dflt, await encodeJpeg(image, { quality: 80 }));
});

test('newest shared-memory image → JPEG, in the slot format zmc stored (yuv420p, 1.39.17)', async (t) => {
  const path = join(scratch, 'zm.mmap.1');
  writeShmFixture(path, {
    layout: 888,
    width: 96,
    height: 64,
    format: 'yuv420p',
    imageBufferCount: 3,
    zoneCount: 2,
    images: [{ slot: 2, timestampUs: 1 }],
  });
  const shm = SharedMemory.open({ path, width: 96, height: 64 });
  t.teardown(() => shm.close());
  const img = await shm.newestImage();
  const jpeg = await encodeJpeg(img!);
  const d = ffDecode(jpeg);
  t.deepEqual([d.width, d.height], [96, 64]);
  // Slot 2's grey quadrant differs from slot 0's: check the red one.
  const got = pixel(d, 20, 16);
  t.true(Math.abs(got[0] - 200) < 14 && got[1] < 50 && got[2] < 50, `${got}`);
});

// ffmpeg's own rotation of the decoded source is the reference for each lossless transform.
const REFERENCE: Record<Exclude<Orientation, 'ROTATE_0'>, string> = {
  ROTATE_90: 'transpose=clock',
  ROTATE_180: 'hflip,vflip',
  ROTATE_270: 'transpose=cclock',
  FLIP_HORI: 'hflip',
  FLIP_VERT: 'vflip',
};

test('transformJpeg matches ffmpeg rotating the decoded source, for every orientation (MCU-aligned 64×48)', async (t) => {
  const source = await encodeJpeg(
    { format: 'rgb24', width: 64, height: 48, data: patternImage('rgb24', 64, 48) },
    { quality: 95 },
  );
  for (const orientation of ORIENTATIONS) {
    if (orientation === 'ROTATE_0') continue;
    const out = await transformJpeg(source, orientation, { edges: 'perfect' });
    const ours = ffDecode(out);
    const ref = ffDecode(source, REFERENCE[orientation]);
    const swapped = orientation === 'ROTATE_90' || orientation === 'ROTATE_270';
    t.deepEqual([ours.width, ours.height], swapped ? [48, 64] : [64, 48], orientation);
    t.deepEqual([ref.width, ref.height], [ours.width, ours.height]);
    const diff = meanAbsDiff(ours.rgb, ref.rgb);
    t.true(diff < 2, `${orientation}: mean difference ${diff.toFixed(2)}`);
    t.not(out.length, 0);
  }
});

test('transformJpeg ROTATE_0 returns the input untouched', async (t) => {
  const source = await encodeJpeg({ format: 'gray8', width: 40, height: 24, data: patternImage('gray8', 40, 24) });
  t.is(await transformJpeg(source, 'ROTATE_0'), source, 'the same Buffer');
  const view = new Uint8Array(source.buffer, source.byteOffset, source.length);
  const out = await transformJpeg(view, 'ROTATE_0');
  t.true(Buffer.isBuffer(out));
  t.is(out.buffer, source.buffer, 'no copy');
  t.deepEqual(out, source);
});

test("partial MCUs: 'trim' drops them (1920×1080 4:2:0 rotated → 1072×1920), 'perfect' refuses", async (t) => {
  const data = patternImage('rgb24', 1920, 1080);
  const source = await encodeJpeg({ format: 'rgb24', width: 1920, height: 1080, data });
  t.like(jpegHeader(source), { width: 1920, height: 1080, mcuWidth: 16, mcuHeight: 16 });
  const expected: Record<Exclude<Orientation, 'ROTATE_0'>, [number, number]> = {
    ROTATE_90: [1072, 1920], // the source's bottom partial MCU row goes
    ROTATE_270: [1080, 1920], // 1920 is whole MCUs: nothing to trim on the right
    ROTATE_180: [1920, 1072],
    FLIP_HORI: [1920, 1080],
    FLIP_VERT: [1920, 1072],
  };
  for (const [orientation, [w, h]] of Object.entries(expected) as Array<[Orientation, [number, number]]>) {
    const out = await transformJpeg(source, orientation);
    t.like(jpegHeader(out), { width: w, height: h }, orientation);
  }
  const err = await t.throwsAsync(transformJpeg(source, 'ROTATE_90', { edges: 'perfect' }), {
    instanceOf: ZmNativeError,
  });
  t.is(err.code, 'ERR_ZM_JPEG_NOT_PERFECT');
  t.true(err.stack?.includes('jpeg.test'), 'stack points at the caller');
  t.like(jpegHeader(await transformJpeg(source, 'ROTATE_270', { edges: 'perfect' })), { width: 1080, height: 1920 });
});

test('corrupt JPEG data rejects with ERR_ZM_JPEG_DECODE', async (t) => {
  const junk = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5, 6, 7, 8]);
  await t.throwsAsync(transformJpeg(junk, 'ROTATE_90'), { instanceOf: ZmNativeError, code: 'ERR_ZM_JPEG_DECODE' });
  t.is(t.throws(() => jpegHeader(junk), { instanceOf: ZmNativeError }).code, 'ERR_ZM_JPEG_DECODE');
});

test('arguments are validated before native code', (t) => {
  const data = Buffer.alloc(16 * 8 * 3);
  const ok = { format: 'rgb24' as const, width: 16, height: 8, data };
  const bad: Array<[() => unknown, typeof TypeError | typeof RangeError]> = [
    [() => encodeJpeg({ ...ok, format: 'nv12' as never }), TypeError],
    [() => encodeJpeg({ ...ok, width: 0 }), RangeError],
    [() => encodeJpeg({ ...ok, width: 70000 }), RangeError],
    [() => encodeJpeg({ ...ok, height: 1.5 }), TypeError],
    [() => encodeJpeg({ ...ok, data: data.subarray(1) }), RangeError],
    [() => encodeJpeg({ ...ok, data: [1, 2] as never }), TypeError],
    [() => encodeJpeg({ ...ok, linesize: [47] }), RangeError], // shorter than a row
    [() => encodeJpeg({ ...ok, linesize: [48, 24, 24] }), TypeError], // rgb24 has one plane
    [() => encodeJpeg({ ...ok, linesize: [64] }), RangeError], // 64·8 > data
    [() => encodeJpeg(ok, { quality: 0 }), RangeError],
    [() => encodeJpeg(ok, { quality: 101 }), RangeError],
    [() => encodeJpeg(ok, { qualty: 90 } as never), TypeError],
    [() => transformJpeg(Buffer.from('not a jpeg'), 'ROTATE_90'), RangeError],
    [() => transformJpeg(Buffer.from([0xff, 0xd8, 0, 0]), 'ROTATE_45' as never), TypeError],
    [() => transformJpeg(Buffer.from([0xff, 0xd8, 0, 0]), 'ROTATE_90', { edges: 'crop' as never }), TypeError],
    [() => transformJpeg('jpeg' as never, 'ROTATE_90'), TypeError],
  ];
  for (const [call, type] of bad) {
    const err = t.throws(call, { instanceOf: type });
    t.false(err instanceof ZmNativeError);
  }
});
