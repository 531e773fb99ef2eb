// The raw addon exports, as the C++ side defines them. No validation happens behind these: only
// the typed wrappers in this directory call them (and tests that check the native backstops).

import type { CodecInfo, KeyframeSnapshot, StreamClientStats } from './types.js';

export interface RawStreamClientOptions {
  path: string;
  initialDelayMs?: number;
  maxDelayMs?: number;
  stallTimeoutMs?: number;
  maxPendingBytes?: number;
  maxMessageLength?: number;
}

/** Records arrive as plain objects; the facade narrows them to StreamRecord. */
export interface RawStreamClient {
  close(): Promise<void>;
  stats(): StreamClientStats;
  latestKeyframe(): KeyframeSnapshot | null;
  codecs(): { video?: CodecInfo; audio?: CodecInfo };
  ref(): void;
  unref(): void;
  /** Whether media records are delivered to JS (native taps get them either way). */
  setMediaToJs(on: boolean): void;
}

export interface RawMuxTrack {
  codec: string;
  extradata?: Uint8Array;
  width?: number;
  height?: number;
  sampleRate?: number;
  channels?: number;
  timescale?: number;
  fpsNum?: number;
  fpsDen?: number;
  reorderDepth?: number;
  lengthPrefixed?: boolean;
}

export interface RawFragmentTrack {
  trackId: number;
  timescale: number;
  baseDecodeTime: number;
  duration: number;
  sampleCount: number;
  startUs: number;
  endUs: number;
}

export interface RawFragment {
  sequence: number;
  independent: boolean;
  tracks: RawFragmentTrack[];
  data: Buffer;
}

export interface RawMuxTrackInfo {
  trackId: number;
  codec: string;
  codecString: string;
  timescale: number;
  width: number;
  height: number;
  sampleRate: number;
  channels: number;
  ready: boolean;
  pending: number;
  dropped: number;
  parameterSetChanges: number;
  reorderDepth: number;
}

export interface RawFmp4Muxer {
  addSample(track: number, ptsUs: number, dtsUs: number | null, keyframe: boolean, data: Uint8Array): void;
  initReady(): boolean;
  initSegment(): Buffer;
  cut(mode: 'all' | 'ready', endUs?: number | null): RawFragment | null;
  info(): { tracks: RawMuxTrackInfo[]; initReady: boolean; originUs?: number };
}

export interface RawLlHlsOptions {
  partTargetUs?: number;
  segmentTargetUs?: number;
  windowSegments?: number;
  maxBytes?: number;
  programDateTime?: boolean;
}

export interface RawLlHlsStats {
  firstMsn: number;
  nextMsn: number;
  segments: number;
  parts: number;
  bytes: number;
  initId: number;
  discontinuities: number;
  evictedSegments: number;
  droppedSamples: number;
  skippedUntilKeyframe: number;
  ended: boolean;
  partTargetUs: number;
  targetDurationS: number;
  /** The stream's video codec cannot be packaged (e.g. AV1, MJPEG). */
  unsupported: boolean;
}

export interface RawLlHlsPackager {
  /** Feeds the packager from the client's reader thread; onChange runs (coalesced) when parts/segments/inits appear. */
  attach(client: RawStreamClient, onChange: () => void): void;
  detach(): void;
  /** onChange is called only while this is on (the facade turns it on while requests wait). */
  setWake(on: boolean): void;
  configure(video: RawMuxTrack, audio: RawMuxTrack | null): void;
  discontinuity(): void;
  end(): void;
  /** Change flags: 1 new part, 2 new segment, 4 new init. */
  pushVideo(ptsUs: number, keyframe: boolean, data: Uint8Array, afterGap: boolean, nowUs: number): number;
  pushAudio(ptsUs: number, data: Uint8Array): number;
  get(name: string): Buffer | null;
  available(msn: number, part: number): boolean;
  tooFarAhead(msn: number): boolean;
  playlist(query: string): string | null;
  master(query: string, mediaUri: string): string | null;
  codecs(): string;
  stats(): RawLlHlsStats;
}

export interface RawMp4Track {
  id: number;
  kind: 'video' | 'audio' | 'other';
  handler: string;
  sampleEntry: string;
  codec: string;
  codecString: string;
  timescale: number;
  width: number;
  height: number;
  sampleRate: number;
  channels: number;
  nalLengthSize: number;
  sampleCount: number;
  durationUs: number;
  config: Buffer;
}

export interface RawMp4Info {
  size: number;
  fragmented: boolean;
  truncated: boolean;
  fragments: number;
  durationUs: number;
  majorBrand: string;
  tracks: RawMp4Track[];
  vod: { codecs: string; durationUs: number; videoTrack: number; audioTrack?: number } | null;
  vodErrorCode?: string;
  vodError?: string;
}

export interface RawSampleTable {
  track: Uint8Array;
  index: Uint32Array;
  ptsUs: Float64Array;
  dtsUs: Float64Array;
  durationUs: Float64Array;
  size: Uint32Array;
  offset: Float64Array;
  keyframe: Uint8Array;
}

export interface RawVodSegment {
  index: number;
  startUs: number;
  durationUs: number;
  firstSample: number;
  lastSample: number;
}

export interface RawMp4File {
  open(path: string): Promise<void>;
  info(): RawMp4Info;
  sampleTable(): RawSampleTable;
  readSample(track: number, index: number): Promise<Buffer>;
  vodPlan(targetUs: number): RawVodSegment[];
  vodInit(): Buffer;
  vodSegment(targetUs: number, index: number): Promise<Buffer>;
  close(): void;
}

export interface RawAdtsHeader {
  objectType: number;
  sampleRate: number;
  channels: number;
  headerSize: number;
  frameSize: number;
  audioSpecificConfig?: Buffer;
}

export interface NativeBinding {
  version(): string;
  napiVersion(): number;
  initialize(errorClass: new (message: string, code: string) => Error): void;
  boxHeader(type: string, size: number): Buffer;
  StreamClient: new (options: RawStreamClientOptions, onRecords: (records: object[]) => void) => RawStreamClient;
  Fmp4Muxer: new (tracks: RawMuxTrack[], originUs?: number | null) => RawFmp4Muxer;
  LlHlsPackager: new (options: RawLlHlsOptions) => RawLlHlsPackager;
  Mp4File: new () => RawMp4File;
  describeCodec(codec: string, bitstream: Uint8Array): CodecInfo | null;
  parseAdtsHeader(data: Uint8Array): RawAdtsHeader | null;
  annexBToLengthPrefixed(codec: string, accessUnit: Uint8Array): Buffer;
  nalUnitTypes(codec: string, accessUnit: Uint8Array): number[];
}
