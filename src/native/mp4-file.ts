// Mp4File: recorded events (ZoneMinder's MP4s, including 1.39's fragmented `incomplete.*.mp4`
// while it grows) read through the native demuxer. Opening reads only the index boxes; sample
// data is read by offset; every disk access runs on the libuv pool (AsyncWorker), so the event
// loop never blocks. On top: a fragmented remux of the whole file (init, then one fragment per
// GOP) and HLS VOD segments cut at keyframes near a target duration.
// Keeping files open between requests, one per file version, is the playback feature's
// RecordingCache (src/features/playback/recording-cache.ts), not this facade's.

import type { RawMp4File, RawMp4Info, RawSampleTable } from './binding.js';
import type { MuxTrack } from './fmp4-muxer.js';
import { callNative, loadBinding } from './load.js';
import type { CodecName } from './types.js';
import { requireInteger } from './validate.js';

export interface Mp4TrackInfo {
  /** tkhd track_ID. */
  id: number;
  kind: 'video' | 'audio' | 'other';
  /** Sample entry type, e.g. "avc1", "hev1", "mp4a", "Opus". */
  sampleEntry: string;
  codec: CodecName;
  /** RFC 6381, e.g. "avc1.640028"; "" when the configuration is unknown. */
  codecString: string;
  timescale: number;
  durationUs: number;
  sampleCount: number;
  width: number;
  height: number;
  /**
   * tkhd transformation matrix {a, b, u, c, d, v, x, y, w} as signed 32-bit integers (a–d, x, y
   * 16.16; u, v, w 2.30); identity is [65536, 0, 0, 0, 65536, 0, 0, 0, 2^30]. zmc records a
   * monitor's Orientation here (ffmpeg's `rotate` tag); remux() and vodInit() carry the video
   * track's matrix over, while width/height stay the coded (unrotated) size.
   */
  matrix: number[];
  sampleRate: number;
  channels: number;
  /** Bytes of each NAL length prefix in the file's video samples (1, 2 or 4; 0 for other tracks). */
  nalLengthSize: number;
  /** The track as Fmp4Muxer takes it (readSample() data is length-prefixed), or null when fMP4 cannot carry it. */
  muxTrack: MuxTrack | null;
}

/** One sample in decode order (all tracks merged). Times in µs on the file's timeline (edit list applied to pts). */
export interface Mp4SampleInfo {
  track: number;
  /** Index within its track. */
  index: number;
  ptsUs: number;
  dtsUs: number;
  durationUs: number;
  keyframe: boolean;
  size: number;
  /** Byte offset in the file. */
  offset: number;
}

export interface VodSegmentInfo {
  index: number;
  /** Presentation start, from the first video frame (0 for the first segment). */
  startUs: number;
  durationUs: number;
  /** Video samples (decode order, inclusive) in this segment. */
  firstSample: number;
  lastSample: number;
}

export interface Mp4VodInfo {
  /** RFC 6381 list for CODECS / MSE, e.g. "avc1.640028,mp4a.40.2". */
  codecs: string;
  durationUs: number;
  /** Index into tracks of the video (and the audio carried along, if any). */
  videoTrack: number;
  audioTrack?: number;
}

const DEFAULT_TARGET_SEC = 4;

function targetUs(targetSec: number): number {
  if (typeof targetSec !== 'number' || !Number.isFinite(targetSec) || targetSec < 0.1 || targetSec > 60) {
    throw new RangeError(`targetSec must be a number in 0.1..60, got ${String(targetSec)}`);
  }
  return Math.round(targetSec * 1e6);
}

function muxTrackOf(t: RawMp4Info['tracks'][number]): MuxTrack | null {
  const config = t.config.length > 0 ? t.config : undefined;
  switch (t.codec) {
    case 'h264':
    case 'h265':
      if (!config) return null;
      return {
        codec: t.codec,
        extradata: config,
        width: t.width,
        height: t.height,
        timescale: t.timescale <= 1e6 ? t.timescale : undefined,
        lengthPrefixed: true,
      };
    case 'aac':
      return config
        ? {
            codec: 'aac',
            extradata: config,
            ...(t.sampleRate ? { sampleRate: t.sampleRate } : {}),
            ...(t.channels ? { channels: t.channels } : {}),
          }
        : null;
    case 'opus':
      return { codec: 'opus', ...(config ? { extradata: config } : {}) };
    default:
      return null;
  }
}

export class Mp4File {
  readonly path: string;
  /** File size when opened: later appends (a recording in progress) are not seen by this instance. */
  readonly size: number;
  readonly fragmented: boolean;
  /** Something at the end was ignored: an unfinished fragment (still recording) or a damaged tail. */
  readonly truncated: boolean;
  readonly fragments: number;
  readonly durationUs: number;
  readonly majorBrand: string;
  readonly tracks: readonly Mp4TrackInfo[];
  /** What remux/VOD work with; null when the file has no H.264/H.265 video (see vodError). */
  readonly vod: Mp4VodInfo | null;
  readonly vodError: string | undefined;
  #native: RawMp4File;
  #table: RawSampleTable | undefined;
  /** Segment counts per target (µs): the index never changes after open, so neither do plans. */
  #planLengths = new Map<number, number>();
  #closed = false;

  private constructor(path: string, native: RawMp4File) {
    this.path = path;
    this.#native = native;
    const info = native.info();
    this.size = info.size;
    this.fragmented = info.fragmented;
    this.truncated = info.truncated;
    this.fragments = info.fragments;
    this.durationUs = info.durationUs;
    this.majorBrand = info.majorBrand;
    this.tracks = info.tracks.map((t) => ({
      id: t.id,
      kind: t.kind,
      sampleEntry: t.sampleEntry,
      codec: t.codec as CodecName,
      codecString: t.codecString,
      timescale: t.timescale,
      durationUs: t.durationUs,
      sampleCount: t.sampleCount,
      width: t.width,
      height: t.height,
      matrix: t.matrix,
      sampleRate: t.sampleRate,
      channels: t.channels,
      nalLengthSize: t.nalLengthSize,
      muxTrack: muxTrackOf(t),
    }));
    this.vod = info.vod;
    this.vodError = info.vod ? undefined : info.vodError;
  }

  /**
   * Opens `path` and reads its index (on the libuv pool).
   * @throws ZmNativeError ERR_ZM_MP4_NOT_FOUND, ERR_ZM_MP4_PERMISSION, ERR_ZM_MP4_NOT_A_FILE,
   *   ERR_ZM_MP4_FORMAT (not an MP4 / broken index), ERR_ZM_MP4_NO_MOOV (a progressive MP4 still
   *   being written), ERR_ZM_MP4_IO
   */
  static async open(path: string): Promise<Mp4File> {
    if (typeof path !== 'string' || path === '' || path.includes('\0'))
      throw new TypeError('path must be a non-empty string without NUL');
    const binding = loadBinding();
    const native = callNative(Mp4File.open, () => new binding.Mp4File());
    await native.open(path);
    return new Mp4File(path, native);
  }

  /** Every sample's metadata in decode order (tracks merged). The index is fetched once, in one call. */
  *samples(): Generator<Mp4SampleInfo> {
    const t = (this.#table ??= this.#live().sampleTable());
    for (let i = 0; i < t.track.length; i++) {
      yield {
        track: t.track[i]!,
        index: t.index[i]!,
        ptsUs: t.ptsUs[i]!,
        dtsUs: t.dtsUs[i]!,
        durationUs: t.durationUs[i]!,
        keyframe: t.keyframe[i] === 1,
        size: t.size[i]!,
        offset: t.offset[i]!,
      };
    }
  }

  /** Drops the JS copy of the index that samples() keeps (~40 bytes a sample); samples() fetches it again. */
  releaseSampleTable(): void {
    this.#table = undefined;
  }

  /** One sample's bytes (pread on the pool). Video comes as [u32 length][NAL]… whatever the file's NAL length size. */
  readSample(sample: Pick<Mp4SampleInfo, 'track' | 'index'>): Promise<Buffer> {
    const track = requireInteger('sample.track', sample?.track, 0, this.tracks.length - 1);
    const index = requireInteger(
      'sample.index',
      sample.index,
      0,
      Math.max(0, (this.tracks[track]?.sampleCount ?? 1) - 1),
    );
    return this.#live().readSample(track, index);
  }

  /** HLS VOD segments: cut at the first keyframe once `targetSec` has passed. */
  vodSegments(targetSec = DEFAULT_TARGET_SEC): VodSegmentInfo[] {
    const us = targetUs(targetSec);
    return callNative(this.vodSegments, () => this.#live().vodPlan(us));
  }

  /** The fMP4 init segment for vodSegment()/remux(). @throws ZmNativeError ERR_ZM_MP4_NO_VIDEO */
  vodInit(): Buffer {
    return callNative(this.vodInit, () => this.#live().vodInit());
  }

  /** VOD segment `index` (moof + mdat), read and muxed on the pool. @throws RangeError for an index outside vodSegments(targetSec) */
  vodSegment(index: number, targetSec = DEFAULT_TARGET_SEC): Promise<Buffer> {
    const us = targetUs(targetSec);
    requireInteger('index', index, 0, this.#planLength(this.vodSegment, us) - 1);
    return this.#live().vodSegment(us, index);
  }

  /** The whole file as fragmented MP4: the init segment, then one fragment per GOP, each read when asked for. */
  async *remux(): AsyncGenerator<Buffer> {
    yield this.vodInit();
    const count = this.remuxPlan().length;
    for (let i = 0; i < count; i++) yield await this.remuxFragment(i);
  }

  /** The fragments of remux(): one per GOP (target 0 = a cut at every keyframe; the plan is cached natively). */
  remuxPlan(): VodSegmentInfo[] {
    return callNative(this.remuxPlan, () => this.#live().vodPlan(0));
  }

  /** Fragment `index` of remuxPlan() (moof + mdat), read and muxed on the pool: random access into remux(). */
  remuxFragment(index: number): Promise<Buffer> {
    requireInteger('index', index, 0, this.#planLength(this.remuxFragment, 0) - 1);
    return this.#live().vodSegment(0, index);
  }

  /** Releases the index; reads already running finish first (the descriptor closes after them). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#table = undefined;
    this.#native.close();
  }

  get closed(): boolean {
    return this.#closed;
  }

  // Counting via vodPlan() builds one JS object per segment: done once per target, not per read.
  #planLength(caller: (...args: never[]) => unknown, us: number): number {
    let n = this.#planLengths.get(us);
    if (n === undefined) {
      n = callNative(caller, () => this.#live().vodPlan(us)).length;
      this.#planLengths.set(us, n);
    }
    return n;
  }

  #live(): RawMp4File {
    if (this.#closed) throw new Error(`Mp4File ${this.path} is closed`);
    return this.#native;
  }
}

/** `path` as fragmented MP4: init, then one fragment per GOP (read lazily). */
export async function* remux(path: string): AsyncGenerator<Buffer> {
  const file = await Mp4File.open(path);
  try {
    yield* file.remux();
  } finally {
    file.close();
  }
}
