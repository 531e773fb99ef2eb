// StreamClient: the consumer of zmc's per-monitor stream socket (stream_<id>.sock, protocol v1).
// Reading, parsing, reconnecting and back-off happen on a native thread; records reach JS in
// batches (at most one callback per batch, i.e. never more than one per access unit), media
// payloads without a copy. Failures are reported, never thrown: the client keeps reconnecting
// until close().

import { EventEmitter } from 'node:events';
import { isAbsolute, join } from 'node:path';
import type { RawStreamClient, RawStreamClientOptions } from './binding.js';
import { ZmNativeError } from './errors.js';
import { streamClientInternals } from './internal.js';
import { callNative, loadBinding } from './load.js';
import type {
  ByeRecord,
  CodecInfo,
  CodecRecord,
  ConnectedRecord,
  DisconnectedRecord,
  EventRecord,
  GenerationRecord,
  KeyframeSnapshot,
  MediaRecord,
  StatsRecord,
  StreamClientStats,
  StreamErrorCode,
  StreamRecord,
} from './types.js';
import { optionalInteger, rejectUnknownKeys, requireInteger, requireObject } from './validate.js';

/** bunyan-compatible (src/log.ts); only warn and info are used. */
export interface StreamLogger {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

export interface StreamClientOptions {
  /** The socket path. Alternatively `socketDir` + `monitorId`. */
  path?: string;
  /** ZM_PATH_SOCKS (Debian: /run/zm); the socket is `<socketDir>/stream_<monitorId>.sock`. */
  socketDir?: string;
  monitorId?: number;
  /** Exponential back-off between connection attempts (default 500 ms doubling to 5000 ms). */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number };
  /** Reconnect when nothing (not even STATS, sent every 5 s) arrives for this long; 0 = never. Default 30000. */
  stallTimeoutMs?: number;
  /** Undelivered bytes at which the native thread stops reading (zmc then drops, visible as gaps). Default 64 MiB. */
  maxPendingBytes?: number;
  /** Connection problems are logged here: a warning when the failure changes, info on recovery (next HELLO). */
  log?: StreamLogger;
}

/** A disconnect as delivered to listeners: the record, plus its error as a ZmNativeError when abnormal. */
export interface StreamDisconnect extends DisconnectedRecord {
  error?: ZmNativeError;
}

export interface StreamClientEvents {
  /** Every record of one native batch, in order. */
  batch: [records: StreamRecord[]];
  codec: [record: CodecRecord];
  media: [record: MediaRecord];
  event: [record: EventRecord];
  stats: [record: StatsRecord];
  generation: [record: GenerationRecord];
  bye: [record: ByeRecord];
  connected: [record: ConnectedRecord];
  disconnected: [info: StreamDisconnect];
}

const SUN_PATH_MAX = 107; // sockaddr_un.sun_path is 108 bytes including the NUL
const OPTION_KEYS = [
  'path',
  'socketDir',
  'monitorId',
  'reconnect',
  'stallTimeoutMs',
  'maxPendingBytes',
  'log',
] as const;

/** `<socketDir>/stream_<monitorId>.sock` (docs/zoneminder/stream-socket.md). */
export function streamSocketPath(socketDir: string, monitorId: number): string {
  requireInteger('monitorId', monitorId, 1, 0xffff_ffff);
  return join(socketDir, `stream_${monitorId}.sock`);
}

function resolveOptions(options: StreamClientOptions): RawStreamClientOptions {
  const o = requireObject('options', options);
  rejectUnknownKeys('options', o, OPTION_KEYS);
  let path: string;
  if (o.path !== undefined) {
    if (typeof o.path !== 'string' || o.path === '') throw new TypeError('options.path must be a non-empty string');
    if (o.socketDir !== undefined || o.monitorId !== undefined) {
      throw new TypeError('give either options.path or options.socketDir + options.monitorId, not both');
    }
    path = o.path;
  } else {
    if (typeof o.socketDir !== 'string' || o.socketDir === '') {
      throw new TypeError('options.socketDir must be a non-empty string (or give options.path)');
    }
    path = streamSocketPath(o.socketDir, o.monitorId as number);
  }
  if (!isAbsolute(path)) throw new RangeError(`stream socket path must be absolute, got ${JSON.stringify(path)}`);
  if (path.includes('\0')) throw new TypeError('stream socket path must not contain NUL');
  if (Buffer.byteLength(path) > SUN_PATH_MAX) {
    throw new RangeError(`stream socket path is longer than ${SUN_PATH_MAX} bytes (a unix socket limit): ${path}`);
  }
  const raw: RawStreamClientOptions = { path };
  if (o.reconnect !== undefined) {
    const r = requireObject('options.reconnect', o.reconnect);
    rejectUnknownKeys('options.reconnect', r, ['initialDelayMs', 'maxDelayMs']);
    raw.initialDelayMs = optionalInteger('reconnect.initialDelayMs', r.initialDelayMs, 1, 600_000);
    raw.maxDelayMs = optionalInteger('reconnect.maxDelayMs', r.maxDelayMs, 1, 3_600_000);
    const initial = raw.initialDelayMs ?? 500;
    const max = raw.maxDelayMs ?? Math.max(5000, initial);
    if (max < initial)
      throw new RangeError(`reconnect.maxDelayMs (${max}) is below reconnect.initialDelayMs (${initial})`);
    raw.maxDelayMs = max;
  }
  raw.stallTimeoutMs = optionalInteger('stallTimeoutMs', o.stallTimeoutMs, 0, 3_600_000);
  raw.maxPendingBytes = optionalInteger('maxPendingBytes', o.maxPendingBytes, 64 * 1024, 2 ** 32 - 1);
  if (o.log !== undefined) {
    const log = o.log as Partial<StreamLogger> | null;
    if (typeof log?.warn !== 'function' || typeof log?.info !== 'function') {
      throw new TypeError('options.log must have warn(fields, msg) and info(fields, msg)');
    }
  }
  // Undefined keys are dropped so the native side sees only what was set.
  return Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)) as RawStreamClientOptions;
}

// Backstop for clients that are dropped without close(): stop the native thread after GC. The
// held value is the native handle, never the StreamClient, so the registration does not keep
// the client alive.
const leaked = new FinalizationRegistry<RawStreamClient>((native) => {
  native.close().catch(() => {});
});

/**
 * With a native tap attached (LlHlsPackager.attach), media crosses into JS only while a JS
 * listener wants it: each crossing is a JS wake-up, costlier than the tap's whole work.
 */
function trackMediaListeners(client: StreamClient, native: RawStreamClient): void {
  let taps = 0;
  const update = (adding: number) => {
    const listeners = client.listenerCount('media') + client.listenerCount('batch') + adding;
    if (!client.closed) native.setMediaToJs(taps === 0 || listeners > 0);
  };
  const untyped = client as unknown as EventEmitter; // the typed events do not list newListener
  untyped.on('newListener', (event: string | symbol) => (event === 'media' || event === 'batch') && update(1));
  untyped.on('removeListener', (event: string | symbol) => (event === 'media' || event === 'batch') && update(0));
  streamClientInternals.set(client, {
    raw: native,
    retainTap: () => {
      taps++;
      update(0);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        taps--;
        update(0);
      };
    },
  });
}

export class StreamClient extends EventEmitter<StreamClientEvents> {
  /** The socket this client reads. */
  readonly path: string;
  #native: RawStreamClient;
  #closing: Promise<void> | undefined;
  #log: StreamLogger | undefined;
  #lastLoggedCode: string | undefined;

  /**
   * Starts connecting at once, in the background; watch 'connected'/'disconnected'.
   * @throws TypeError / RangeError for invalid options (before any native work)
   */
  constructor(options: StreamClientOptions) {
    super();
    const raw = resolveOptions(options);
    this.path = raw.path;
    this.#log = options.log;
    // Only a WeakRef reaches the native callback, so a forgotten client can still be collected.
    const self = new WeakRef(this);
    const binding = loadBinding();
    this.#native = callNative(
      StreamClient,
      () =>
        new binding.StreamClient(raw, (records) => {
          const client = self.deref();
          if (client) client.#dispatch(records as StreamRecord[]);
        }),
    );
    leaked.register(this, this.#native, this);
    // In a function of its own: closures created here would share this constructor's context with
    // the native callback above, and `this` in that context would keep the client alive forever.
    trackMediaListeners(this, this.#native);
  }

  /** Stops reading and joins the native thread (off the event loop). Idempotent; no events after it is called. */
  close(): Promise<void> {
    if (!this.#closing) {
      leaked.unregister(this);
      this.#closing = this.#native.close();
    }
    return this.#closing;
  }

  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /** Counters since the client was created. */
  stats(): StreamClientStats {
    return this.#native.stats();
  }

  /** The latest video keyframe (from MEDIA or zmc's KEYFRAME), or null; reset by a generation bump. */
  latestKeyframe(): KeyframeSnapshot | null {
    return this.#native.latestKeyframe();
  }

  /** The current codec details per stream (after HELLO). */
  codecs(): { video?: CodecInfo; audio?: CodecInfo } {
    return this.#native.codecs();
  }

  /** Like net.Socket: an open client keeps the event loop alive unless unref()'d. */
  ref(): this {
    if (!this.closed) this.#native.ref();
    return this;
  }

  unref(): this {
    if (!this.closed) this.#native.unref();
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #dispatch(records: StreamRecord[]): void {
    if (this.closed) return;
    this.emit('batch', records);
    for (const r of records) {
      if (this.closed) return; // a listener may close mid-batch
      switch (r.type) {
        case 'disconnected':
          this.#onDisconnected(r);
          break;
        case 'connected':
          this.emit('connected', r);
          break;
        case 'codec':
          // A HELLO means the link works: report recovery from a logged failure once.
          if (this.#lastLoggedCode && this.#log) this.#log.info({ path: this.path }, 'stream socket recovered');
          this.#lastLoggedCode = undefined;
          this.emit('codec', r);
          break;
        case 'media':
          this.emit('media', r);
          break;
        case 'event':
          this.emit('event', r);
          break;
        case 'stats':
          this.emit('stats', r);
          break;
        case 'generation':
          this.emit('generation', r);
          break;
        case 'bye':
          this.emit('bye', r);
          break;
      }
    }
  }

  #onDisconnected(r: DisconnectedRecord): void {
    const info: StreamDisconnect = { ...r };
    if (r.code) info.error = new ZmNativeError(r.message, r.code satisfies StreamErrorCode);
    // One warning per kind of failure, not one per retry; info once it works again.
    if (this.#log && r.code && r.code !== this.#lastLoggedCode) {
      this.#log.warn({ path: this.path, code: r.code, retryMs: r.retryMs, attempt: r.attempt }, r.message);
    }
    if (r.code) this.#lastLoggedCode = r.code;
    this.emit('disconnected', info);
  }
}
