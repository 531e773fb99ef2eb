// Cost of a JPEG still from shared memory, per frame, at 1080p: copying the newest image out of a
// zm.mmap file (retry rule included) and encoding it (libjpeg-turbo, quality 80). The map is a
// synthetic 1.39.17 file (helpers/shm-fixture.ts) in /dev/shm when it exists, as zmc's would be.
// The slot holds a gradient with mild noise (≈ 200–300 KB at q80, like a camera frame) rather
// than the flat test picture. Also the lossless 90° rotation of the resulting JPEG. Wall time on the caller's side (the work
// runs on the libuv pool; one frame at a time, so this is latency, not pool throughput).
// Run: npx tsx bench/native-shm.ts [frames=60]

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type PixelFormat, SharedMemory, encodeJpeg, transformJpeg } from '../src/native/index.js';
import { buildShm } from '../test/helpers/shm-fixture.js';
import { report } from './_results.js';

const frames = Number(process.argv[2] ?? 60);
const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
const dir = mkdtempSync(join(base, 'zmbench-shm-'));
const width = 1920;
const height = 1080;

async function time<T>(fn: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const t0 = process.hrtime.bigint();
  const result = await fn();
  return { result, ms: Number(process.hrtime.bigint() - t0) / 1e6 };
}

/** Gradient + noise over every plane byte (xorshift: deterministic). */
function texture(buf: Buffer, at: number, length: number, rowBytes: number): void {
  let seed = 0x12345678;
  for (let i = 0; i < length; i++) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    const x = i % rowBytes;
    const y = Math.floor(i / rowBytes);
    buf[at + i] = (((x >> 3) + (y >> 2)) & 0xff) ^ (seed & 0x1f);
  }
}

interface Row {
  format: PixelFormat;
  step: string;
  ms: number;
  bytes: number;
}

async function run(format: PixelFormat): Promise<Row[]> {
  const path = join(dir, `zm.mmap.${format}`);
  const fx = buildShm({
    layout: 888,
    width,
    height,
    format,
    imageBufferCount: 10,
    zoneCount: 2,
    images: [{ slot: 3, timestampUs: 1 }],
  });
  texture(fx.buffer, fx.offsets.images + 3 * fx.slotSize, fx.slotImage(3).length, fx.linesize[0]!);
  writeFileSync(path, fx.buffer);
  const shm = SharedMemory.open({ path, width, height, imageBufferCount: 10, zoneCount: 2 });
  try {
    // Warm-up: first-touch page faults, pool threads, libjpeg-turbo SIMD dispatch.
    const warm = (await shm.newestImage())!;
    const warmJpeg = await encodeJpeg(warm);
    await transformJpeg(warmJpeg, 'ROTATE_90');
    let read = 0;
    let encode = 0;
    let rotate = 0;
    let both = 0;
    let jpegBytes = 0;
    for (let i = 0; i < frames; i++) {
      const r = await time(async () => (await shm.newestImage())!);
      const e = await time(() => encodeJpeg(r.result));
      const x = await time(() => transformJpeg(e.result, 'ROTATE_90'));
      const b = await time(async () => encodeJpeg((await shm.newestImage())!));
      read += r.ms;
      encode += e.ms;
      rotate += x.ms;
      both += b.ms;
      jpegBytes = e.result.length;
    }
    return [
      { format, step: 'read (copy newest slot)', ms: read / frames, bytes: warm.data.length },
      { format, step: 'encode (quality 80)', ms: encode / frames, bytes: jpegBytes },
      { format, step: 'read + encode', ms: both / frames, bytes: jpegBytes },
      { format, step: 'rotate 90° (lossless)', ms: rotate / frames, bytes: jpegBytes },
    ];
  } finally {
    shm.close();
  }
}

try {
  const rows: Row[] = [];
  for (const format of ['rgb24', 'yuv420p'] as const) rows.push(...(await run(format)));
  console.log(`shared memory → JPEG, ${width}×${height}, ${frames} frames each (mean wall time per frame)\n`);
  console.log('| format  | step                     |  ms/frame | frames/s | bytes      |');
  console.log('|---------|--------------------------|----------:|---------:|-----------:|');
  for (const r of rows) {
    console.log(
      `| ${r.format.padEnd(7)} | ${r.step.padEnd(24)} | ${r.ms.toFixed(2).padStart(9)} | ${(1000 / r.ms).toFixed(0).padStart(8)} | ${String(r.bytes).padStart(10)} |`,
    );
    if (r.step === 'read + encode')
      report({
        measure: `shared-memory read + JPEG encode, ${width}×${height} ${r.format}`,
        unit: 'ms per frame',
        value: r.ms,
        decimals: 2,
      });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
