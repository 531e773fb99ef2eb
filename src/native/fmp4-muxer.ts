// Fmp4Muxer: fragmented MP4 for live HLS/LL-HLS and MSE. A packager pushes access units per
// track and decides where fragments end:
//   cut()                → everything pushed so far (call just before pushing the keyframe that
//                          starts the next segment, with endUs = that keyframe's pts)
//   cut({mode:'ready'})  → only samples whose decode time and duration are final (an LL-HLS part)
// Durations come from the real timestamps (not a nominal frame rate); B-frames get signed
// composition offsets (trun v1). Video timescale 90 kHz, audio its sample rate.
// G.711 (pcmu/pcma) cannot be carried (see native/include/zm/fmp4_init.h): check
// Fmp4Muxer.supports() and mux such streams video-only.

import type { RawFmp4Muxer } from './binding.js';
import { callNative, loadBinding } from './load.js';
import { MAX_SAFE_US, MUX_CODECS, toRawTrack, type MuxCodec, type MuxTrack } from './mux-track.js';
import type { CodecInfo, CodecName } from './types.js';
import {
  optionalInteger,
  rejectUnknownKeys,
  requireBoolean,
  requireBytes,
  requireInteger,
  requireObject,
} from './validate.js';

export type { MuxCodec, MuxTrack } from './mux-track.js';

export interface MuxSample {
  /** Microseconds on the source clock (e.g. MediaRecord.ptsUs). */
  ptsUs: number;
  /** When the source knows decode times; otherwise derived from pts order (video) or = pts (audio). */
  dtsUs?: number;
  keyframe?: boolean;
  /** Video: one access unit (Annex B unless lengthPrefixed); audio: one frame (raw or ADTS AAC, Opus packet). */
  data: Uint8Array;
}

export interface CutOptions {
  mode?: 'all' | 'ready';
  /** Where the next fragment starts (µs): the last video sample lasts until then. */
  endUs?: number;
}

export interface FragmentTrack {
  trackId: number;
  timescale: number;
  /** tfdt, in timescale units from the origin. */
  baseDecodeTime: number;
  duration: number;
  sampleCount: number;
  /** Presentation span on the source clock (µs). */
  startUs: number;
  endUs: number;
}

export interface Fragment {
  /** moof + mdat. */
  data: Buffer;
  /** mfhd sequence number (1, 2, …). */
  sequence: number;
  /** Starts with a video sync sample (or has no video): an HLS part with INDEPENDENT=YES. */
  independent: boolean;
  tracks: FragmentTrack[];
}

export interface MuxTrackInfo {
  trackId: number;
  codec: MuxCodec;
  codecString: string;
  timescale: number;
  width: number;
  height: number;
  sampleRate: number;
  channels: number;
  /** The init segment can describe this track (parameter sets / AudioSpecificConfig known). */
  ready: boolean;
  /** Samples pushed but not yet cut. */
  pending: number;
  /** Samples dropped: before the origin, or empty once AUD/parameter sets were removed. */
  dropped: number;
  /** In-band SPS differing from the init segment's: start a new init segment. */
  parameterSetChanges: number;
  reorderDepth: number;
}

export interface MuxerOptions {
  /** Time zero of the fragment timeline (µs); default: the first sample pushed. */
  originUs?: number;
}

export class Fmp4Muxer {
  readonly tracks: readonly MuxTrack[];
  #native: RawFmp4Muxer;

  /** Whether a stream of this codec can be muxed (false for G.711, AV1, unknown). */
  static supports(codec: CodecName | string): codec is MuxCodec {
    return MUX_CODECS.includes(codec);
  }

  /**
   * A track description from stream-client codec details, or null when the codec cannot be
   * muxed (G.711, AV1): the packager then leaves that stream out.
   */
  static trackFromCodec(info: CodecInfo): MuxTrack | null {
    if (!Fmp4Muxer.supports(info.codec)) return null;
    const track: MuxTrack = { codec: info.codec };
    if (info.extradata.length > 0) track.extradata = info.extradata;
    if (info.width > 0) track.width = info.width;
    if (info.height > 0) track.height = info.height;
    if (info.sampleRate > 0) track.sampleRate = info.sampleRate;
    if (info.channels > 0 && info.channels <= 255) track.channels = info.channels;
    if (info.fpsNum > 0 && info.fpsDen > 0) track.fps = { num: info.fpsNum, den: info.fpsDen };
    return track;
  }

  /** @throws TypeError/RangeError for invalid tracks; ZmNativeError (e.g. ERR_ZM_BITSTREAM) for unusable extradata */
  constructor(tracks: MuxTrack[], options: MuxerOptions = {}) {
    if (!Array.isArray(tracks) || tracks.length === 0 || tracks.length > 8) {
      throw new TypeError('tracks must be an array of 1..8 track descriptions');
    }
    const raw = tracks.map(toRawTrack);
    const o = requireObject('options', options);
    rejectUnknownKeys('options', o, ['originUs']);
    const origin = optionalInteger('options.originUs', o.originUs, -MAX_SAFE_US, MAX_SAFE_US);
    const binding = loadBinding();
    this.#native = callNative(Fmp4Muxer, () => new binding.Fmp4Muxer(raw, origin ?? null));
    this.tracks = tracks.map((t) => ({ ...t }));
  }

  /** Adds one access unit / audio frame to `track` (index into the constructor's list). */
  addSample(track: number, sample: MuxSample): void {
    requireInteger('track', track, 0, this.tracks.length - 1);
    const s = requireObject('sample', sample);
    const pts = requireInteger('sample.ptsUs', s.ptsUs, -MAX_SAFE_US, MAX_SAFE_US);
    const dts = optionalInteger('sample.dtsUs', s.dtsUs, -MAX_SAFE_US, MAX_SAFE_US);
    const keyframe = s.keyframe === undefined ? false : requireBoolean('sample.keyframe', s.keyframe);
    const data = requireBytes('sample.data', s.data);
    if (data.length === 0) throw new RangeError('sample.data is empty');
    callNative(this.addSample, () => this.#native.addSample(track, pts, dts ?? null, keyframe, data));
  }

  /** True once every track's codec parameters are known (initSegment() works). */
  get initReady(): boolean {
    return this.#native.initReady();
  }

  /** ftyp + moov. @throws ZmNativeError ERR_ZM_MUX_NOT_READY until initReady */
  initSegment(): Buffer {
    return callNative(this.initSegment, () => this.#native.initSegment());
  }

  /** Cuts a fragment; null when no track has a sample to emit. */
  cut(options: CutOptions = {}): Fragment | null {
    const o = requireObject('options', options);
    rejectUnknownKeys('options', o, ['mode', 'endUs']);
    const mode = o.mode ?? 'all';
    if (mode !== 'all' && mode !== 'ready')
      throw new RangeError(`options.mode must be "all" or "ready", got ${JSON.stringify(mode)}`);
    const end = optionalInteger('options.endUs', o.endUs, -MAX_SAFE_US, MAX_SAFE_US);
    return callNative(this.cut, () => this.#native.cut(mode, end ?? null));
  }

  info(): { tracks: MuxTrackInfo[]; initReady: boolean; originUs?: number } {
    return this.#native.info() as { tracks: MuxTrackInfo[]; initReady: boolean; originUs?: number };
  }

  /** RFC 6381 codec list for an HLS CODECS attribute / MSE type, e.g. "avc1.64001f,mp4a.40.2". */
  codecs(): string {
    return this.info()
      .tracks.map((t) => t.codecString)
      .filter(Boolean)
      .join(',');
  }
}
