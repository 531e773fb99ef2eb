// Synthetic zm.mmap files, laid out from docs/zoneminder/shared-memory.md alone (shm-layouts.ts), never from the reader:
// SharedData with given values, TriggerData, zone scores, VideoStoreData, timestamps, image slots
// holding a known picture in a given pixel format, and the per-slot AVPixelFormat arrays of 1.39.

import { closeSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';

import type { PixelFormat } from '../../src/native/index.js';
import {
  AV_PIX_FMT,
  type ShmLayoutSize,
  SHARED_DATA,
  SUBPIX_ORDER,
  TRIGGER_DATA,
  VIDEO_STORE_DATA_SIZE,
  factsField,
} from './shm-layouts.js';

/** How the part after TriggerData is arranged (docs/zoneminder/shared-memory.md); 872 is either 1.38 or 1.39 (≤ .16, fork). */
export type ShmVariant = '1.36' | '1.36.34' | '1.38' | '1.39' | '1.39.17';

export interface ShmFixtureSpec {
  layout: ShmLayoutSize;
  /** Only for 872: '1.38' (packed slots) or '1.39' (default; per-slot AVPixelFormat). */
  variant?: '1.38' | '1.39';
  width: number;
  height: number;
  /** Format of the images in the slots. Packed variants need one with a ZM subpixel order + Colours. */
  format: PixelFormat;
  /** Monitors.Colours (imagesize = W·H·Colours). Packed: implied by the format; 1.39: default 3. */
  colours?: number;
  imageBufferCount: number;
  zoneCount?: number;
  /** Slots to fill with the test picture (slot number varies the picture), each with its capture time. */
  images?: Array<{ slot: number; timestampUs: number }>;
  /** SharedData values by field name (docs/zoneminder/shared-memory.md); defaults make a valid, capturing monitor whose newest image is the last of `images`. */
  fields?: Record<string, number | bigint | string>;
  /** TriggerData values. */
  trigger?: { state?: number; score?: number; cause?: string; text?: string; showText?: string };
}

export interface ShmFixture {
  buffer: Buffer;
  variant: ShmVariant;
  colours: number;
  slotSize: number;
  offsets: {
    trigger: number;
    zoneScores: number | null;
    videoStore: number;
    timestamps: number;
    images: number;
    formats: number | null;
  };
  /** Row strides of the slot images (packed rows, or 32-aligned for 1.39). */
  linesize: number[];
  /** Exactly the bytes of the image in a slot (all planes, padding included). */
  slotImage(slot: number): Buffer;
}

const align = (v: number, a: number) => Math.ceil(v / a) * a;
const PACKED_COLOURS: Partial<Record<PixelFormat, number>> = {
  gray8: 1,
  rgb24: 3,
  bgr24: 3,
  rgba: 4,
  bgra: 4,
  argb: 4,
  abgr: 4,
};

/** The test picture: four quadrants (red, green, blue, and a grey that depends on the slot). */
export function patternRgb(x: number, y: number, width: number, height: number, slot = 0): [number, number, number] {
  const right = x >= width / 2;
  const bottom = y >= height / 2;
  if (!right && !bottom) return [200, 30, 30];
  if (right && !bottom) return [30, 200, 30];
  if (!right && bottom) return [30, 30, 200];
  const g = 60 + ((slot * 37) % 160);
  return [g, g, g];
}

/** BT.601 full-range YCbCr (JPEG's), and the limited-range version used by yuv420p/yuv422p. */
export function rgbToYuv([r, g, b]: [number, number, number], limited: boolean): [number, number, number] {
  const y = 0.299 * r + 0.587 * g + 0.114 * b;
  const cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b;
  const cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b;
  const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));
  if (!limited) return [clamp(y), clamp(cb), clamp(cr)];
  return [clamp(16 + (y * 219) / 255), clamp(128 + ((cb - 128) * 224) / 255), clamp(128 + ((cr - 128) * 224) / 255)];
}

/** av_image_fill_arrays planes: row bytes, rows and (aligned) strides. */
export function planesOf(format: PixelFormat, width: number, height: number, rowAlign: number) {
  const bpp = PACKED_COLOURS[format];
  if (bpp !== undefined) return [{ rowBytes: width * bpp, rows: height, linesize: align(width * bpp, rowAlign) }];
  const cw = Math.ceil(width / 2);
  const ch = format.includes('420') ? Math.ceil(height / 2) : height;
  return [
    { rowBytes: width, rows: height, linesize: align(width, rowAlign) },
    { rowBytes: cw, rows: ch, linesize: align(cw, rowAlign) },
    { rowBytes: cw, rows: ch, linesize: align(cw, rowAlign) },
  ];
}

/** The test picture in `format`, planes back to back; row padding filled with 0x5A. */
export function patternImage(format: PixelFormat, width: number, height: number, rowAlign = 1, slot = 0): Buffer {
  const planes = planesOf(format, width, height, rowAlign);
  const out = Buffer.alloc(
    planes.reduce((s, p) => s + p.linesize * p.rows, 0),
    0x5a,
  );
  if (planes.length === 1) {
    const bpp = PACKED_COLOURS[format]!;
    const order: Record<string, string> = {
      rgb24: 'RGB',
      bgr24: 'BGR',
      rgba: 'RGBA',
      bgra: 'BGRA',
      argb: 'ARGB',
      abgr: 'ABGR',
    };
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const [r, g, b] = patternRgb(x, y, width, height, slot);
        const at = y * planes[0]!.linesize + x * bpp;
        if (format === 'gray8') {
          out[at] = rgbToYuv([r, g, b], false)[0];
          continue;
        }
        [...order[format]!].forEach((c, k) => {
          out[at + k] = c === 'R' ? r : c === 'G' ? g : c === 'B' ? b : 255;
        });
      }
    }
    return out;
  }
  const limited = !format.startsWith('yuvj');
  const [luma, cbPlane, crPlane] = planes as [(typeof planes)[0], (typeof planes)[0], (typeof planes)[0]];
  const cbAt = luma.linesize * luma.rows;
  const crAt = cbAt + cbPlane.linesize * cbPlane.rows;
  const sy = height / cbPlane.rows; // 2 for 4:2:0, 1 for 4:2:2
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++)
      out[y * luma.linesize + x] = rgbToYuv(patternRgb(x, y, width, height, slot), limited)[0];
  }
  for (let y = 0; y < cbPlane.rows; y++) {
    for (let x = 0; x < cbPlane.rowBytes; x++) {
      const [, cb, cr] = rgbToYuv(patternRgb(x * 2, y * sy, width, height, slot), limited);
      out[cbAt + y * cbPlane.linesize + x] = cb;
      out[crAt + y * crPlane.linesize + x] = cr;
    }
  }
  return out;
}

function variantOf(spec: ShmFixtureSpec): ShmVariant {
  switch (spec.layout) {
    case 760:
      return '1.36';
    case 768:
      return '1.36.34';
    case 872:
      return spec.variant ?? '1.39';
    case 888:
      return '1.39.17';
  }
}

function writeField(buf: Buffer, base: number, type: string, length: number, value: number | bigint | string): void {
  switch (type) {
    case 'u8':
      buf.writeUInt8(Number(value), base);
      break;
    case 'i32':
      buf.writeInt32LE(Number(value), base);
      break;
    case 'u32':
      buf.writeUInt32LE(Number(value), base);
      break;
    case 'u64':
      buf.writeBigUInt64LE(BigInt(value), base);
      break;
    case 'i64':
      buf.writeBigInt64LE(BigInt(value), base);
      break;
    case 'f64':
      buf.writeDoubleLE(Number(value), base);
      break;
    case 'chars': {
      buf.fill(0, base, base + length);
      buf.write(String(value), base, length - 1, 'utf8');
      break;
    }
  }
}

/** Builds the whole file in memory. */
export function buildShm(spec: ShmFixtureSpec): ShmFixture {
  const variant = variantOf(spec);
  const sd = spec.layout;
  const n = spec.imageBufferCount;
  const packed = variant === '1.36' || variant === '1.36.34' || variant === '1.38';
  const colours = packed ? PACKED_COLOURS[spec.format] : (spec.colours ?? 3);
  if (colours === undefined)
    throw new Error(`a ${variant} fixture needs an RGB-family or gray8 format, not ${spec.format}`);
  const z = variant.startsWith('1.36') ? 0 : (spec.zoneCount ?? 0);
  const { width: w, height: h } = spec;
  const imagesize = w * h * colours;
  // Slot stride: the camera image size, or (≥ 1.39.10 and the fork) at least an RGBA frame with 32-aligned rows.
  const slot = packed ? imagesize : Math.max(imagesize, align(4 * w, 32) * h);
  const rings = variant.startsWith('1.36') ? 1 : 2;

  const afterTrigger = sd + TRIGGER_DATA.size;
  const zoneScores = rings === 2 ? afterTrigger : null;
  const videoStore = afterTrigger + 4 * z;
  const timestamps = videoStore + VIDEO_STORE_DATA_SIZE;
  const images = align(timestamps + 16 * n, 64);
  let formats: number | null = null;
  let total: number;
  switch (variant) {
    case '1.36':
    case '1.36.34':
      total = sd + 560 + 4128 + 16 * n + n * slot + 64;
      break;
    case '1.38':
      total = 872 + 560 + 4 * z + 4128 + 16 * n + 2 * n * slot + 4 * n + 64;
      break;
    case '1.39':
      formats = align(images + 2 * n * slot, 4);
      total = 872 + 560 + 4 * z + 4128 + 16 * n + 2 * n * slot + 4 * n + 4 + 63 + 3;
      break;
    case '1.39.17':
      formats = align(images + 2 * n * slot, 4);
      total = 888 + 560 + 4 * z + 4128 + 16 * n + 2 * n * slot + 4 * n + 4 * n + 63 + 3;
      break;
  }
  const buffer = Buffer.alloc(total);

  const rowAlign = packed ? 1 : 32;
  const linesize = planesOf(spec.format, w, h, rowAlign).map((p) => p.linesize);
  const filled = spec.images ?? [];
  const newest = filled.length ? filled[filled.length - 1]!.slot : n; // n = nothing written yet
  const defaults: Record<string, number | bigint | string> = {
    size: sd,
    last_write_index: newest,
    last_read_index: 0,
    state: 1,
    valid: 1,
    capturing: variant.startsWith('1.36') ? 1 : 3,
    signal: 1,
    format: SUBPIX_ORDER[spec.format],
    imagesize,
    alarm_x: -1,
    alarm_y: -1,
  };
  if (!variant.startsWith('1.36')) Object.assign(defaults, { analysing: 2, recording: 2 });
  if (variant === '1.39.17') Object.assign(defaults, { last_analysis_index: n, analysis_image_count: 0 });
  const values = { ...defaults, ...spec.fields };
  for (const [name, value] of Object.entries(values)) {
    const field = factsField(name);
    const at = field.offsets[sd];
    if (at === null) throw new Error(`${name} does not exist in layout ${sd}`);
    writeField(buffer, at, field.type, field.length, value);
  }

  const t = TRIGGER_DATA.fields;
  buffer.writeUInt32LE(TRIGGER_DATA.size, sd + t.size);
  const trig = spec.trigger ?? {};
  buffer.writeUInt32LE(trig.state ?? 0, sd + t.trigger_state);
  buffer.writeUInt32LE(trig.score ?? 0, sd + t.trigger_score);
  writeField(buffer, sd + t.trigger_cause, 'chars', TRIGGER_DATA.lengths.trigger_cause, trig.cause ?? '');
  writeField(buffer, sd + t.trigger_text, 'chars', TRIGGER_DATA.lengths.trigger_text, trig.text ?? '');
  writeField(buffer, sd + t.trigger_showtext, 'chars', TRIGGER_DATA.lengths.trigger_showtext, trig.showText ?? '');

  buffer.writeUInt32LE(VIDEO_STORE_DATA_SIZE, videoStore); // VideoStoreData.size
  buffer.write('nothing', videoStore + 16);
  if (formats !== null) {
    const arrays = variant === '1.39.17' ? 2 : 1; // capture (+ analysis) formats
    for (let i = 0; i < n * arrays; i++) buffer.writeInt32LE(-1, formats + 4 * i);
  }
  for (const { slot: i, timestampUs } of filled) {
    buffer.writeBigInt64LE(BigInt(Math.floor(timestampUs / 1e6)), timestamps + 16 * i);
    buffer.writeBigInt64LE(BigInt(timestampUs % 1e6), timestamps + 16 * i + 8);
    patternImage(spec.format, w, h, rowAlign, i).copy(buffer, images + i * slot);
    if (formats !== null) buffer.writeInt32LE(AV_PIX_FMT[spec.format], formats + 4 * i);
  }

  const imageBytes = planesOf(spec.format, w, h, rowAlign).reduce((s, p) => s + p.linesize * p.rows, 0);
  return {
    buffer,
    variant,
    colours,
    slotSize: slot,
    offsets: { trigger: sd, zoneScores, videoStore, timestamps, images, formats },
    linesize,
    slotImage: (i) => Buffer.from(buffer.subarray(images + i * slot, images + i * slot + imageBytes)),
  };
}

/** Writes the fixture to `path` through a rename, so the path gets a new inode (as a restarted zmc makes). */
export function writeShmFixture(path: string, spec: ShmFixtureSpec): ShmFixture {
  const fixture = buildShm(spec);
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, fixture.buffer, { mode: 0o660 });
  renameSync(tmp, path);
  return fixture;
}

/**
 * zmc committing a new image into a written fixture (888 layout): the slot's timestamp, then
 * last_write_index (docs/zoneminder/shared-memory.md).
 */
export function commitImage(path: string, fixture: ShmFixture, slot: number, timestampUs: number): void {
  const fd = openSync(path, 'r+');
  try {
    const ts = Buffer.alloc(16);
    ts.writeBigInt64LE(BigInt(Math.floor(timestampUs / 1e6)), 0);
    ts.writeBigInt64LE(BigInt(timestampUs % 1e6), 8);
    writeSync(fd, ts, 0, 16, fixture.offsets.timestamps + 16 * slot);
    const idx = Buffer.alloc(4);
    idx.writeInt32LE(slot);
    writeSync(fd, idx, 0, 4, fieldOffset(888, 'last_write_index'));
  } finally {
    closeSync(fd);
  }
}

/** Byte offset of a SharedData field in `layout` (docs/zoneminder/shared-memory.md). */
export function fieldOffset(layout: ShmLayoutSize, name: string): number {
  const at = factsField(name).offsets[layout];
  if (at === null) throw new Error(`${name} does not exist in layout ${layout}`);
  return at;
}

export { SHARED_DATA };
