// SharedMemory: a monitor's zm.mmap.<id> (docs/zoneminder/shared-memory.md), mapped read-only. The layout is detected
// from SharedData.size (760 1.36, 768 1.36.34+, 872 1.38–1.39.16, 888 ≥ 1.39.17); unknown sizes
// are refused (ERR_ZM_SHM_LAYOUT). Every call re-opens by path first when zmc restarted (valid
// dropped to 0 or the path names another inode). Triggers open the file read-write just for the
// write. Image geometry comes from the Monitors row (width, height); slot and zone counts are
// solved from the file size unless given.

import { isAbsolute, join } from 'node:path';
import { callNativeAsync } from './async-call.js';
import type { RawShmGeometry, RawShmState, RawSharedMemory } from './binding.js';
import { ZmNativeError } from './errors.js';
import type { PixelFormat, RawImage } from './jpeg.js';
import { callNative, loadBinding } from './load.js';
import { describe, optionalInteger, rejectUnknownKeys, requireInteger, requireObject } from './validate.js';

export interface SharedMemoryOptions {
  /** The file. Alternatively `mapDir` + `monitorId`. */
  path?: string;
  /** ZM_PATH_MAP (Debian: /dev/shm); the file is `<mapDir>/zm.mmap.<monitorId>`. */
  mapDir?: string;
  monitorId?: number;
  /** Monitors.Width/Height: needed for images (not for read()). */
  width?: number;
  height?: number;
  /** Monitors.ImageBufferCount; solved from the file size when absent. */
  imageBufferCount?: number;
  /**
   * The monitor's Zones row count when zmc started (≥ 1.38 keep a score per zone; at most 256);
   * solved when absent. Give it with imageBufferCount: tiny images can otherwise fit several arrangements.
   */
  zoneCount?: number;
  /** Copies of the newest image tried before giving up with ERR_ZM_SHM_BUSY (default 5). */
  maxAttempts?: number;
}

/** The four supported SharedData sizes. */
export type ShmLayout = 760 | 768 | 872 | 888;
export type MonitorState = 'Unknown' | 'Idle' | 'Prealarm' | 'Alarm' | 'Alert' | 'Tape';
/** Monitors.Capturing/Analysing/Recording spellings; the bytes hold these enum values (1 = None), not booleans. */
export type CapturingMode = 'None' | 'Ondemand' | 'Always';
export type AnalysingMode = 'None' | 'Always';
export type RecordingMode = 'None' | 'OnMotion' | 'Always';
export type TriggerAction = 'on' | 'off' | 'cancel';

export interface ShmGeometry {
  /** Which arrangement the file size matched: "1.36", "1.36.34", "1.38", "1.39" (≤ 1.39.16, fork), "1.39.17". */
  variant: string;
  /** 'packed': one format per monitor, packed rows; 'avframe': an AVPixelFormat per slot, rows aligned to 32. */
  scheme: 'packed' | 'avframe';
  width: number;
  height: number;
  colours: number;
  imageBufferCount: number;
  zoneCount: number;
  slotSize: number;
}

export interface SharedMemoryState {
  layout: ShmLayout;
  /** ZoneMinder versions using this layout, e.g. "1.36.0–1.36.33". */
  versions: string;
  valid: boolean;
  state: MonitorState;
  stateId: number;
  /** 1.36 only ("active"); null on ≥ 1.38, which has `capturing` instead. */
  active: boolean | null;
  /** ≥ 1.38; null on 1.36 or for a value outside the enum (see `modes` for the bytes). */
  capturing: CapturingMode | null;
  analysing: AnalysingMode | null;
  recording: RecordingMode | null;
  /** The raw bytes behind active/capturing, analysing, recording. */
  modes: { capturing: number; analysing: number | null; recording: number | null };
  signal: boolean;
  captureFps: number;
  analysisFps: number;
  latitude: number | null;
  longitude: number | null;
  lastEventId: number;
  /** zmc's action bits: 1 GET, 2 SET, 4 RELOAD, 16 SUSPEND, 32 RESUME. */
  action: number;
  brightness: number;
  hue: number;
  colour: number;
  contrast: number;
  /** Alarm centre (null when zmc writes −1), the last frame's score and the alarm cause. */
  alarm: { x: number | null; y: number | null; score: number; cause: string };
  lastWriteIndex: number;
  /** An image counter, not a ring index. */
  lastReadIndex: number;
  /** Capture packet counter (≥ 1.36.34). */
  imageCount: number | null;
  lastAnalysisIndex: number | null;
  analysisImageCount: number | null;
  /** ZoneMinder subpixel order (SharedData.format) and imagesize (W·H·Colours). */
  subpixelOrder: number;
  imageSize: number;
  audio: { frequency: number; channels: number };
  /** Unix seconds. heartbeatTime is zmc_heartbeat_time on 1.36. */
  startupTime: number;
  heartbeatTime: number;
  lastWriteTime: number;
  lastReadTime: number;
  lastViewedTime: number | null;
  lastAnalysisViewedTime: number | null;
  trigger: {
    state: 'cancel' | 'on' | 'off' | null;
    stateId: number;
    score: number;
    cause: string;
    text: string;
    showText: string;
  };
  /** The image geometry, or null with the reason in geometryError. */
  geometry: ShmGeometry | null;
  geometryError: string | null;
  /** Successful opens of the file so far (a re-open after a zmc restart adds one). */
  opens: number;
}

export interface SharedMemoryImage extends RawImage {
  format: PixelFormat;
  data: Buffer;
  linesize: number[];
  /** The slot's capture time (µs since the epoch) and as a Date. */
  timestampUs: number;
  timestamp: Date;
  /** Ring slot, and how many copies the retry rule needed. */
  index: number;
  attempts: number;
}

export type TriggerRequest =
  | {
      action: 'on';
      /** Added to every analysed frame while the trigger is on (0..2^31-1). */
      score: number;
      /** Event cause, at most 31 UTF-8 bytes. */
      cause: string;
      /** Event note text, at most 255 UTF-8 bytes. */
      text?: string;
      /** Shown by %Q in Monitors.LabelFormat, at most 255 UTF-8 bytes. */
      showText?: string;
    }
  | { action: 'off' | 'cancel'; showText?: string };

const STATES: readonly MonitorState[] = ['Unknown', 'Idle', 'Prealarm', 'Alarm', 'Alert', 'Tape'];
const CAPTURING: Record<number, CapturingMode> = { 1: 'None', 2: 'Ondemand', 3: 'Always' };
const ANALYSING: Record<number, AnalysingMode> = { 1: 'None', 2: 'Always' };
const RECORDING: Record<number, RecordingMode> = { 1: 'None', 2: 'OnMotion', 3: 'Always' };
const TRIGGER_STATES = ['cancel', 'on', 'off'] as const;
const TRIGGER_CODES: Record<TriggerAction, number> = { cancel: 0, on: 1, off: 2 };
const OPTION_KEYS = [
  'path',
  'mapDir',
  'monitorId',
  'width',
  'height',
  'imageBufferCount',
  'zoneCount',
  'maxAttempts',
] as const;

/** `<mapDir>/zm.mmap.<monitorId>` (docs/zoneminder/shared-memory.md). */
export function sharedMemoryPath(mapDir: string, monitorId: number): string {
  requireInteger('monitorId', monitorId, 1, 0xffff_ffff);
  return join(mapDir, `zm.mmap.${monitorId}`);
}

function resolveOptions(options: SharedMemoryOptions) {
  const o = requireObject('options', options);
  rejectUnknownKeys('options', o, OPTION_KEYS);
  let path: string;
  if (o.path !== undefined) {
    if (typeof o.path !== 'string' || o.path === '') throw new TypeError('options.path must be a non-empty string');
    if (o.mapDir !== undefined || o.monitorId !== undefined) {
      throw new TypeError('give either options.path or options.mapDir + options.monitorId, not both');
    }
    path = o.path;
  } else {
    if (typeof o.mapDir !== 'string' || o.mapDir === '') {
      throw new TypeError('options.mapDir must be a non-empty string (or give options.path)');
    }
    path = sharedMemoryPath(o.mapDir, o.monitorId as number);
  }
  if (!isAbsolute(path)) throw new RangeError(`shared memory path must be absolute, got ${JSON.stringify(path)}`);
  if (path.includes('\0')) throw new TypeError('shared memory path must not contain NUL');
  const width = optionalInteger('options.width', o.width, 1, 65535);
  const height = optionalInteger('options.height', o.height, 1, 65535);
  if ((width === undefined) !== (height === undefined))
    throw new TypeError('give both options.width and options.height, or neither');
  const raw = {
    path,
    width,
    height,
    imageBufferCount: optionalInteger('options.imageBufferCount', o.imageBufferCount, 1, 1_000_000),
    zoneCount: optionalInteger('options.zoneCount', o.zoneCount, 0, 256),
    maxAttempts: optionalInteger('options.maxAttempts', o.maxAttempts, 1, 100),
  };
  return Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)) as typeof raw;
}

function requireText(name: string, value: unknown, maxBytes: number): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string, got ${describe(value)}`);
  if (value.includes('\0')) throw new TypeError(`${name} must not contain NUL`);
  const bytes = Buffer.byteLength(value);
  if (bytes > maxBytes) throw new RangeError(`${name} is ${bytes} UTF-8 bytes; zmc's field holds at most ${maxBytes}`);
  return value;
}

function geometryOf(g: RawShmGeometry | null): ShmGeometry | null {
  if (!g) return null;
  const { variant, scheme, width, height, colours, imageBufferCount, zoneCount, slotSize } = g;
  return { variant, scheme, width, height, colours, imageBufferCount, zoneCount, slotSize };
}

function toState(r: RawShmState): SharedMemoryState {
  const is136 = r.analysing === null; // 760/768 have neither analysing nor recording
  return {
    layout: r.size as ShmLayout,
    versions: r.info.versions ?? '',
    valid: r.valid !== 0,
    state: STATES[r.state] ?? 'Unknown',
    stateId: r.state,
    active: is136 ? r.capturing !== 0 : null,
    capturing: is136 ? null : (CAPTURING[r.capturing] ?? null),
    analysing: r.analysing === null ? null : (ANALYSING[r.analysing] ?? null),
    recording: r.recording === null ? null : (RECORDING[r.recording] ?? null),
    modes: { capturing: r.capturing, analysing: r.analysing, recording: r.recording },
    signal: r.signal !== 0,
    captureFps: r.captureFps,
    analysisFps: r.analysisFps,
    latitude: r.latitude,
    longitude: r.longitude,
    lastEventId: r.lastEventId,
    action: r.action,
    brightness: r.brightness,
    hue: r.hue,
    colour: r.colour,
    contrast: r.contrast,
    alarm: {
      x: r.alarmX < 0 ? null : r.alarmX,
      y: r.alarmY < 0 ? null : r.alarmY,
      score: r.lastFrameScore,
      cause: r.alarmCause,
    },
    lastWriteIndex: r.lastWriteIndex,
    lastReadIndex: r.lastReadIndex,
    imageCount: r.imageCount,
    lastAnalysisIndex: r.lastAnalysisIndex,
    analysisImageCount: r.analysisImageCount,
    subpixelOrder: r.format,
    imageSize: r.imageSize,
    audio: { frequency: r.audioFrequency, channels: r.audioChannels },
    startupTime: r.startupTime,
    heartbeatTime: r.heartbeatTime,
    lastWriteTime: r.lastWriteTime,
    lastReadTime: r.lastReadTime,
    lastViewedTime: r.lastViewedTime,
    lastAnalysisViewedTime: r.lastAnalysisViewedTime,
    trigger: {
      state: TRIGGER_STATES[r.trigger.state] ?? null,
      stateId: r.trigger.state,
      score: r.trigger.score,
      cause: r.trigger.cause,
      text: r.trigger.text,
      showText: r.trigger.showText,
    },
    geometry: geometryOf(r.info.geometry),
    geometryError: r.info.geometryError,
    opens: r.info.opens,
  };
}

/**
 * zmwatch's liveness rule: valid, and the heartbeat younger than ZM_WATCH_MAX_DELAY (default 45 s).
 */
export function isCaptureAlive(state: SharedMemoryState, maxDelaySeconds = 45, nowMs = Date.now()): boolean {
  return state.valid && nowMs / 1000 - state.heartbeatTime < maxDelaySeconds;
}

// Backstop for readers dropped without close(): unmap after GC. The held value is the native
// handle, never the SharedMemory, so the registration does not keep it alive.
const leaked = new FinalizationRegistry<RawSharedMemory>((native) => {
  try {
    native.close();
  } catch {
    // already closed
  }
});

export class SharedMemory {
  /** The zm.mmap file this reader follows. */
  readonly path: string;
  #native: RawSharedMemory;
  #closed = false;

  private constructor(path: string, native: RawSharedMemory) {
    this.path = path;
    this.#native = native;
    leaked.register(this, native, this);
  }

  /**
   * Maps the file read-only and checks its layout.
   * @throws TypeError / RangeError for invalid options (before any native work)
   * @throws ZmNativeError ERR_ZM_SHM_MISSING (no file: zmc not running), ERR_ZM_SHM_PERMISSION
   *   (with a www-data/video group hint), ERR_ZM_SHM_LAYOUT (unknown size word, named in the
   *   message), ERR_ZM_SHM_INVALID (valid = 0: zmc starting or stopping)
   */
  static open(options: SharedMemoryOptions): SharedMemory {
    const raw = resolveOptions(options);
    const binding = loadBinding();
    const native = callNative(SharedMemory.open, () => new binding.SharedMemory(raw));
    return new SharedMemory(raw.path, native);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** SharedData + TriggerData, decoded. Re-opens first if zmc restarted. Throws like open(). */
  read(): SharedMemoryState {
    this.#checkOpen(this.read);
    return toState(callNative(this.read, () => this.#native.read()));
  }

  /**
   * A copy of the newest captured image (retry rule of docs/zoneminder/shared-memory.md; the copy runs off the JS
   * thread), or null before zmc has written one. Feed it to encodeJpeg() as it is.
   * @throws ZmNativeError ERR_ZM_SHM_GEOMETRY (no or wrong width/height), ERR_ZM_SHM_FORMAT,
   *   ERR_ZM_SHM_BUSY (changed during every attempt), and what read() throws
   */
  async newestImage(): Promise<SharedMemoryImage | null> {
    this.#checkOpen(this.newestImage);
    const raw = await callNativeAsync(this.newestImage, () => this.#native.newestImage());
    if (!raw) return null;
    return { ...raw, format: raw.format as PixelFormat, timestamp: new Date(raw.timestampUs / 1000) };
  }

  /**
   * Forces ('on'), suppresses ('off') or cancels an alarm through TriggerData. For 'on' the
   * score, cause, text and showtext are written before the state, which zmc acts on; 'off' and
   * 'cancel' write the state first and then clear the fields. Needs write access to the file.
   * @throws TypeError / RangeError for an invalid request; ZmNativeError ERR_ZM_SHM_PERMISSION
   */
  trigger(request: TriggerRequest): void {
    this.#checkOpen(this.trigger);
    const r = requireObject('request', request);
    const action = r.action;
    if (action !== 'on' && action !== 'off' && action !== 'cancel') {
      throw new TypeError(`request.action must be 'on', 'off' or 'cancel', got ${describe(action)}`);
    }
    const raw: { state: number; score?: number; cause?: string; text?: string; showText?: string } = {
      state: TRIGGER_CODES[action],
    };
    if (action === 'on') {
      rejectUnknownKeys('request', r, ['action', 'score', 'cause', 'text', 'showText']);
      raw.score = requireInteger('request.score', r.score, 0, 2 ** 31 - 1);
      raw.cause = requireText('request.cause', r.cause, 31);
      if (raw.cause === '') throw new RangeError('request.cause must not be empty');
      raw.text = r.text === undefined ? '' : requireText('request.text', r.text, 255);
    } else {
      rejectUnknownKeys('request', r, ['action', 'showText']);
    }
    raw.showText = r.showText === undefined ? '' : requireText('request.showText', r.showText, 255);
    callNative(this.trigger, () => this.#native.trigger(raw));
  }

  /** Unmaps the file. Idempotent; an image copy already running finishes on its own mapping. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    leaked.unregister(this);
    this.#native.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #checkOpen(api: (...args: never[]) => unknown): void {
    if (this.#closed) {
      const err = new ZmNativeError(`shared memory reader for ${this.path} is closed`, 'ERR_ZM_SHM_CLOSED');
      Error.captureStackTrace(err, api);
      throw err;
    }
  }
}
