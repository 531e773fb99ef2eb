// LlHlsPackager: low-latency HLS for one monitor, fed by a StreamClient. The packaging itself is
// native (native/include/zm/ll_hls_packager.h): each media record costs one call, parts are cut
// there, and segments/parts come back as Buffers sharing the native bytes. This class adds the
// record routing (HELLO → track config, generation bumps and reconnects → discontinuities) and
// blocking playlist reloads (waitFor).
//
// Names served: init-<n>.mp4, seg-<msn>.m4s, part-<msn>.<i>.m4s, all relative to the playlist.
// A live route serves playlist() as is (it lists the URIs with the caller's `?token=…`), answers
// `_HLS_msn/_HLS_part` with `await waitFor(msn, part)` first, and a preload-hinted part with
// fetch(name), which waits for it.

import type { RawLlHlsOptions, RawLlHlsPackager, RawLlHlsStats } from './binding.js';
import { Fmp4Muxer, type MuxTrack } from './fmp4-muxer.js';
import { streamClientInternals } from './internal.js';
import { callNative, loadBinding } from './load.js';
import { toRawTrack } from './mux-track.js';
import type { StreamClient } from './stream-client.js';
import type { CodecInfo, StreamRecord } from './types.js';
import { optionalInteger, rejectUnknownKeys, requireBoolean, requireInteger, requireObject } from './validate.js';

export interface LlHlsOptions {
  /**
   * Partial segment target in ms (default 200): parts are cut at most this long, rounded to whole
   * frames once the frame rate is known; PART-TARGET advertises that plus half a frame of headroom.
   */
  partTargetMs?: number;
  /**
   * A segment ends at the first keyframe after this many ms (default 1000). TARGETDURATION is this
   * rounded up + 1 s; a GOP longer than that is split at a part boundary (not independent).
   */
  segmentTargetMs?: number;
  /** Complete segments kept and listed (default 6). */
  windowSegments?: number;
  /** Bytes held (init + segments + open parts) before the oldest segments go (default 64 MiB). */
  maxBytes?: number;
  /** EXT-X-PROGRAM-DATE-TIME on each segment: arrival wall clock carried along the media timeline (default false). */
  programDateTime?: boolean;
}

export interface PlaylistOptions {
  /** Appended to every URI, e.g. `?token=…` (query characters only). */
  query?: string;
}

export interface MediaPlaylistOptions extends PlaylistOptions {
  /**
   * false: a plain live playlist (no part, preload-hint or server-control tags, and nothing of
   * the open segment), for clients that must not use LL-HLS. Default true.
   */
  lowLatency?: boolean;
}

export interface MasterPlaylistOptions extends PlaylistOptions {
  /** The media playlist's URI relative to the master (default "live.m3u8"). */
  mediaUri?: string;
}

export type LlHlsState = 'waiting' | 'live' | 'unsupported' | 'ended';

export interface LlHlsStats extends RawLlHlsStats {
  state: LlHlsState;
  /** Blocking requests currently waiting. */
  waiting: number;
}

/** Blocking playlist reload parameters (RFC 8216bis §6.2.5.2). */
export interface BlockingRequest {
  msn: number;
  /** Omitted: wait for the whole segment. */
  part?: number;
}

const OPTION_KEYS = ['partTargetMs', 'segmentTargetMs', 'windowSegments', 'maxBytes', 'programDateTime'] as const;
// RFC 3986 query characters; no quote, space or control character can break out of a URI attribute.
const QUERY = /^(\?[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*)?$/;
const MEDIA_URI = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]+$/;
const NAME = /^(?:init-(\d{1,10})\.mp4|seg-(\d{1,15})\.m4s|part-(\d{1,15})\.(\d{1,6})\.m4s)$/;
const MAX_WAITERS = 10_000;
/** Highest part index waitFor() accepts (a segment never has nearly this many parts). */
const MAX_PART = 1_000_000;
const MAX_WAIT_MS = 60_000;

interface Waiter {
  msn: number;
  part: number;
  resolve: (ready: boolean) => void;
  timer: NodeJS.Timeout;
}

function requireQuery(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value !== 'string' || !QUERY.test(value)) {
    throw new TypeError('query must be empty or start with "?" and hold only URI query characters');
  }
  return value;
}

export class LlHlsPackager {
  #native: RawLlHlsPackager;
  #waiters = new Set<Waiter>();
  #video: MuxTrack | null = null;
  #audio: MuxTrack | null = null;
  #ended = false;
  #unsupported = false; // set by push(): the video codec cannot be packaged
  #detach: (() => void) | undefined;

  /** @throws TypeError/RangeError for invalid options */
  constructor(options: LlHlsOptions = {}) {
    const o = requireObject('options', options);
    rejectUnknownKeys('options', o, OPTION_KEYS);
    const part = optionalInteger('options.partTargetMs', o.partTargetMs, 10, 5000) ?? 200;
    const segment = optionalInteger('options.segmentTargetMs', o.segmentTargetMs, 100, 60_000) ?? 1000;
    if (segment < part)
      throw new RangeError(`options.segmentTargetMs (${segment}) is below options.partTargetMs (${part})`);
    const raw: RawLlHlsOptions = {
      partTargetUs: part * 1000,
      segmentTargetUs: segment * 1000,
      windowSegments: optionalInteger('options.windowSegments', o.windowSegments, 2, 1000) ?? 6,
      maxBytes: optionalInteger('options.maxBytes', o.maxBytes, 1 << 20, 2 ** 32 - 1) ?? 64 << 20,
      programDateTime:
        o.programDateTime === undefined ? false : requireBoolean('options.programDateTime', o.programDateTime),
    };
    const binding = loadBinding();
    this.#native = callNative(LlHlsPackager, () => new binding.LlHlsPackager(raw));
  }

  /**
   * Feeds this packager from `client` natively: on the client's reader thread, without the media
   * crossing into JS (unless a JS listener of the client wants it anyway). HELLOs already received
   * are taken over. Returns a function that stops feeding. Replaces an earlier attach().
   */
  attach(client: StreamClient): () => void {
    const internals = streamClientInternals.get(client);
    if (!internals) throw new TypeError('client must be a StreamClient');
    if (client.closed) throw new Error('the StreamClient is closed');
    this.#detach?.();
    callNative(this.attach, () => this.#native.attach(internals.raw, LlHlsPackager.#wakeCallback(new WeakRef(this))));
    const release = internals.retainTap();
    const detach = () => {
      if (this.#detach !== detach) return;
      this.#detach = undefined;
      this.#native.detach();
      release();
    };
    this.#detach = detach;
    return detach;
  }

  /**
   * One stream-client record, for feeding from JS (attach() does the same natively): HELLOs
   * configure, media is packaged, generation/reconnect start a new init.
   */
  push(record: StreamRecord): void {
    switch (record.type) {
      case 'codec':
        if (!record.inBand) this.#onCodec(record.stream, record.codec);
        return;
      case 'media': {
        if (this.#ended || record.cached) return; // zmc's cached keyframe is not followed by its GOP
        const flags =
          record.stream === 'video'
            ? this.#native.pushVideo(record.ptsUs, record.keyframe, record.data, record.gap > 0, Date.now() * 1000)
            : this.#native.pushAudio(record.ptsUs, record.data);
        if (flags !== 0) this.#wake();
        return;
      }
      case 'generation':
      case 'connected':
        // New parameters or a new connection: timestamps re-base, HELLOs follow.
        this.#audio = null;
        this.#native.discontinuity();
        this.#wake();
        return;
      default:
        return;
    }
  }

  pushRecords(records: readonly StreamRecord[]): void {
    for (const r of records) this.push(r);
  }

  /** Closes the open segment and ends the playlist (EXT-X-ENDLIST); waiting requests are answered. */
  end(): void {
    this.#detach?.();
    this.#native.end();
    this.#ended = true;
    this.#wake();
  }

  /** The media playlist, or null before the first part. */
  playlist(options: MediaPlaylistOptions = {}): string | null {
    const o = requireObject('options', options);
    rejectUnknownKeys('options', o, ['query', 'lowLatency']);
    const lowLatency = o.lowLatency === undefined ? true : requireBoolean('options.lowLatency', o.lowLatency);
    return this.#native.playlist(requireQuery(o.query), lowLatency);
  }

  /** The master playlist (one variant: CODECS, RESOLUTION, FRAME-RATE, BANDWIDTH), or null before the first init. */
  masterPlaylist(options: MasterPlaylistOptions = {}): string | null {
    const o = requireObject('options', options);
    rejectUnknownKeys('options', o, ['query', 'mediaUri']);
    const media = o.mediaUri ?? 'live.m3u8';
    if (typeof media !== 'string' || !MEDIA_URI.test(media))
      throw new TypeError('mediaUri must be a URI without quotes, spaces or control characters');
    return this.#native.master(requireQuery(o.query), media);
  }

  /**
   * An init segment, segment or part by name, or null (unknown, evicted or not there yet). The
   * Buffer shares the packager's bytes: do not modify it.
   */
  get(name: string): Buffer | null {
    if (typeof name !== 'string') throw new TypeError('name must be a string');
    return NAME.test(name) ? this.#native.get(name) : null;
  }

  /**
   * Like get(), but a segment or part that is next in line (e.g. the preload hint) is waited for,
   * up to `timeoutMs`. Null if it does not appear in time or is not a valid name.
   */
  async fetch(name: string, timeoutMs = 5000): Promise<Buffer | null> {
    const now = this.get(name);
    if (now) return now;
    const m = NAME.exec(name);
    if (!m || m[1] !== undefined) return null;
    const msn = Number(m[2] ?? m[3]);
    const part = m[4] === undefined ? undefined : Number(m[4]);
    if (!(await this.waitFor(msn, part, timeoutMs))) return null;
    return this.get(name);
  }

  /**
   * Resolves true once the playlist holds segment `msn` (and its part `part`, if given), false
   * after `timeoutMs`, at once when `msn` is too far ahead (check tooFarAhead() to answer 400).
   * A part index past the end of a finished segment means part 0 of the next segment.
   */
  waitFor(msn: number, part?: number, timeoutMs = 5000): Promise<boolean> {
    requireInteger('msn', msn, 0, Number.MAX_SAFE_INTEGER);
    if (part !== undefined) requireInteger('part', part, 0, MAX_PART);
    requireInteger('timeoutMs', timeoutMs, 0, MAX_WAIT_MS);
    const p = part ?? -1;
    if (this.#native.available(msn, p)) return Promise.resolve(true);
    if (this.#native.tooFarAhead(msn) || timeoutMs === 0 || this.#waiters.size >= MAX_WAITERS)
      return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        msn,
        part: p,
        resolve,
        timer: setTimeout(() => {
          this.#remove(waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.#waiters.add(waiter);
      if (this.#waiters.size === 1) {
        // The reader thread wakes JS only while someone waits; what it packaged just before
        // this is caught by the check below.
        this.#native.setWake(true);
        this.#wake();
      }
    });
  }

  /** RFC 8216bis: a blocking request for a segment beyond the last one + 2 gets 400 at once. */
  tooFarAhead(msn: number): boolean {
    requireInteger('msn', msn, 0, Number.MAX_SAFE_INTEGER);
    return this.#native.tooFarAhead(msn);
  }

  /**
   * `_HLS_msn` / `_HLS_part` from a playlist request's query, or null when absent.
   * @throws RangeError when present but not valid (answer 400)
   */
  static blockingRequest(query: URLSearchParams): BlockingRequest | null {
    const msn = query.get('_HLS_msn');
    const part = query.get('_HLS_part');
    if (msn === null) {
      if (part !== null) throw new RangeError('_HLS_part without _HLS_msn');
      return null;
    }
    // The bounds are waitFor()'s: a request past them is malformed (400), not a server fault.
    const int = (name: string, v: string, max: number) => {
      if (!/^\d{1,16}$/.test(v) || Number(v) > max) throw new RangeError(`${name} must be an integer from 0 to ${max}`);
      return Number(v);
    };
    const m = int('_HLS_msn', msn, Number.MAX_SAFE_INTEGER);
    return part === null ? { msn: m } : { msn: m, part: int('_HLS_part', part, MAX_PART) };
  }

  /** RFC 6381 codecs of the current init segment, e.g. "avc1.640028,mp4a.40.2" ("" before the first). */
  codecs(): string {
    return this.#native.codecs();
  }

  stats(): LlHlsStats {
    const s = this.#native.stats();
    const state: LlHlsState = this.#ended
      ? 'ended'
      : s.unsupported || this.#unsupported
        ? 'unsupported'
        : s.nextMsn > 0
          ? 'live'
          : 'waiting';
    return { ...s, state, waiting: this.#waiters.size };
  }

  #onCodec(stream: 'video' | 'audio', codec: CodecInfo): void {
    const track = Fmp4Muxer.trackFromCodec(codec);
    if (stream === 'video') {
      this.#video = track;
      this.#unsupported = !track || (track.codec !== 'h264' && track.codec !== 'h265'); // e.g. AV1, MJPEG
      if (this.#unsupported) {
        this.#video = null;
        return;
      }
    } else {
      this.#audio = track && (track.codec === 'aac' || track.codec === 'opus') ? track : null; // G.711: video-only
    }
    if (this.#video) {
      const video = toRawTrack(this.#video, 0);
      let audio = null;
      try {
        audio = this.#audio ? toRawTrack(this.#audio, 1) : null;
      } catch {
        audio = null; // e.g. AAC announced without an AudioSpecificConfig: video-only
      }
      callNative(this.push, () => this.#native.configure(video, audio));
    }
  }

  // The native side holds this callback strongly: it reaches the packager only through a WeakRef,
  // and is made in a scope of its own (closures share their scope's context), so a packager that
  // is dropped without detaching can still be collected; its native finalizer then detaches.
  static #wakeCallback(ref: WeakRef<LlHlsPackager>): () => void {
    return () => {
      const packager = ref.deref();
      if (packager) packager.#wake();
    };
  }

  #wake(): void {
    for (const w of this.#waiters) {
      if (this.#native.available(w.msn, w.part)) {
        clearTimeout(w.timer);
        this.#remove(w);
        w.resolve(true);
      }
    }
  }

  #remove(w: Waiter): void {
    if (this.#waiters.delete(w) && this.#waiters.size === 0) this.#native.setWake(false);
  }
}
