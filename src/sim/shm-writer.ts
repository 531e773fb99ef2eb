// The simulated camera's shared memory: a zm.mmap.<id> file of the ≥ 1.39.17 layout (888,
// docs/zoneminder/shared-memory.md–§5.5), written the way zmc writes it, so the real reader (snapshot, live MJPEG,
// alarm control) cannot tell it from ZoneMinder's. Writes go through the file descriptor; the
// readers' MAP_SHARED mappings see them through the page cache. One capture ring of rgb24
// images (AVPixelFormat per slot), no analysis images, no zones.
//
// zmc's order is kept for each image: slot bytes and pixel format → slot timestamp →
// last_write_index (the commit) → last_write_time. On close it unlinks the file first and then
// writes valid = 0, as a cleanly exiting zmc does (docs/zoneminder/shared-memory.md).
import { closeSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { AV_PIX_FMT, SUBPIX_ORDER, TRIGGER_DATA, VIDEO_STORE_DATA_SIZE, factsField } from './shm-layouts.js';

const LAYOUT = 888;
const align = (v: number, a: number) => Math.ceil(v / a) * a;

export interface SimShmOptions {
  mapDir: string;
  monitorId: number;
  width: number;
  height: number;
  /** Monitors.ImageBufferCount (ring slots). */
  imageBufferCount: number;
  /** Shown as capture_fps. */
  fps: number;
}

/** Where things are in a 888-layout file with no zones (docs/zoneminder/shared-memory.md, ≥ 1.39.17 row). */
export function layout888(width: number, height: number, n: number) {
  const colours = 3;
  const slotSize = Math.max(width * height * colours, align(4 * width, 32) * height);
  const trigger = LAYOUT;
  const videoStore = trigger + TRIGGER_DATA.size; // + 4·zones, none here
  const timestamps = videoStore + VIDEO_STORE_DATA_SIZE;
  const images = align(timestamps + 16 * n, 64);
  const formats = align(images + 2 * n * slotSize, 4);
  const total = LAYOUT + TRIGGER_DATA.size + VIDEO_STORE_DATA_SIZE + 16 * n + 2 * n * slotSize + 4 * n + 4 * n + 63 + 3;
  return {
    colours,
    slotSize,
    linesize: align(width * colours, 32),
    trigger,
    videoStore,
    timestamps,
    images,
    formats,
    total,
  };
}

export type TriggerState = 'cancel' | 'on' | 'off';

export class SimSharedMemory {
  readonly path: string;
  readonly geometry: ReturnType<typeof layout888>;
  #fd: number;
  #n: number;
  #slot: number;
  #imageCount = 0;

  constructor(private readonly options: SimShmOptions) {
    this.path = join(options.mapDir, `zm.mmap.${options.monitorId}`);
    this.#n = options.imageBufferCount;
    this.#slot = this.#n - 1; // the first image goes to slot 0
    this.geometry = layout888(options.width, options.height, this.#n);
    // Built aside and renamed into place: a restarted camera is a new inode, as with zmc.
    const tmp = `${this.path}.sim-${process.pid}`;
    const fd = openSync(tmp, 'w+', 0o660);
    try {
      writeSync(fd, this.#initialBytes(), 0, this.geometry.total, 0);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    renameSync(tmp, this.path);
    this.#fd = fd;
  }

  #initialBytes(): Buffer {
    const g = this.geometry;
    const o = this.options;
    const b = Buffer.alloc(g.total);
    const now = BigInt(Math.floor(Date.now() / 1000));
    const set = (name: string, value: number | bigint) => writeField(b, name, value);
    set('size', LAYOUT);
    set('last_write_index', this.#n); // n = nothing written yet
    set('state', 1); // Idle
    set('capture_fps', o.fps);
    set('alarm_x', -1);
    set('alarm_y', -1);
    set('capturing', 3); // Always
    set('analysing', 1); // None
    set('recording', 1); // None
    set('signal', 1);
    set('format', SUBPIX_ORDER.rgb24);
    set('imagesize', o.width * o.height * g.colours);
    set('startup_time', now);
    set('heartbeat_time', now);
    set('last_analysis_index', this.#n);
    b.writeUInt32LE(TRIGGER_DATA.size, g.trigger);
    b.writeUInt32LE(VIDEO_STORE_DATA_SIZE, g.videoStore);
    b.write('nothing', g.videoStore + 16);
    for (let i = 0; i < 2 * this.#n; i++) b.writeInt32LE(-1, g.formats + 4 * i); // AV_PIX_FMT_NONE
    set('valid', 1); // last: the file is complete
    return b;
  }

  /** Commits one rgb24 image (rows of `linesize` bytes) captured at `timestampUs`. */
  writeImage(rgb: Buffer, timestampUs: number): void {
    const g = this.geometry;
    const slot = (this.#slot + 1) % this.#n;
    writeSync(this.#fd, rgb, 0, Math.min(rgb.length, g.slotSize), g.images + slot * g.slotSize);
    writeSync(this.#fd, i32(AV_PIX_FMT.rgb24), 0, 4, g.formats + 4 * slot);
    const ts = Buffer.alloc(16);
    ts.writeBigInt64LE(BigInt(Math.floor(timestampUs / 1e6)), 0);
    ts.writeBigInt64LE(BigInt(Math.floor(timestampUs % 1e6)), 8);
    writeSync(this.#fd, ts, 0, 16, g.timestamps + 16 * slot);
    this.#imageCount++;
    this.#field('image_count', this.#imageCount);
    this.#field('last_write_index', slot);
    this.#field('last_write_time', BigInt(Math.floor(timestampUs / 1e6)));
    this.#slot = slot;
  }

  heartbeat(): void {
    this.#field('heartbeat_time', BigInt(Math.floor(Date.now() / 1000)));
  }

  /** TriggerData.trigger_state as an alarm control left it, with the forced cause. */
  trigger(): { state: TriggerState | null; cause: string } {
    const b = Buffer.alloc(48);
    readSync(this.#fd, b, 0, 48, this.geometry.trigger);
    const state = (['cancel', 'on', 'off'] as const)[b.readUInt32LE(4)] ?? null;
    return { state, cause: b.subarray(16, 48).toString('utf8').replace(/\0.*$/s, '') };
  }

  /** SharedData.state (1 Idle, 3 Alarm) and the alarm cause zmc shows. */
  setState(state: number, cause = ''): void {
    this.#field('state', state);
    const c = Buffer.alloc(256);
    c.write(cause, 0, 255, 'utf8');
    writeSync(this.#fd, c, 0, 256, factsField('alarm_cause').offsets[LAYOUT]!);
  }

  /** As zmc on a clean exit: unlink, then valid = 0 in the memory readers still map. */
  close(): void {
    try {
      unlinkSync(this.path);
    } catch {
      // already gone (zmpkg's tidy-up, or a test)
    }
    try {
      this.#field('valid', 0);
    } finally {
      closeSync(this.#fd);
    }
  }

  #field(name: string, value: number | bigint): void {
    const f = factsField(name);
    const b = Buffer.alloc(f.length);
    writeValue(b, 0, f.type, value);
    writeSync(this.#fd, b, 0, f.length, f.offsets[LAYOUT]!);
  }
}

function i32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(v);
  return b;
}

function writeField(b: Buffer, name: string, value: number | bigint): void {
  const f = factsField(name);
  writeValue(b, f.offsets[LAYOUT]!, f.type, value);
}

function writeValue(b: Buffer, at: number, type: string, value: number | bigint): void {
  switch (type) {
    case 'u8':
      b.writeUInt8(Number(value), at);
      break;
    case 'i32':
      b.writeInt32LE(Number(value), at);
      break;
    case 'u32':
      b.writeUInt32LE(Number(value), at);
      break;
    case 'u64':
      b.writeBigUInt64LE(BigInt(value), at);
      break;
    case 'i64':
      b.writeBigInt64LE(BigInt(value), at);
      break;
    case 'f64':
      b.writeDoubleLE(Number(value), at);
      break;
    default:
      throw new Error(`cannot write a ${type} field`);
  }
}
