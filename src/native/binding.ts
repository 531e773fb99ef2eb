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
  /** Frames later than PART-TARGET allows: segment closed, resumed at a keyframe after a discontinuity. */
  stalls: number;
  /** New generations whose frames did not fit the advertised PART-TARGET: the window restarted. */
  epochs: number;
  /** Segments closed at a part boundary to stay within TARGETDURATION (GOP too long). */
  forcedCuts: number;
  ended: boolean;
  /** The advertised PART-TARGET (0 before the first parts). */
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
  playlist(query: string, lowLatency: boolean): string | null;
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
  /** tkhd transformation matrix, 9 signed 32-bit fixed-point values. */
  matrix: number[];
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

export interface NativeBinding extends NativeShmJpegBinding {
  version(): string;
  napiVersion(): number;
  initialize(errorClass: new (message: string, code: string) => Error): void;
  boxHeader(type: string, size: number): Buffer;
  /** One datagram to a unix SOCK_DGRAM socket; returns the bytes sent. */
  sendUnixDatagram(path: string, bytes: Buffer): number;
  StreamClient: new (options: RawStreamClientOptions, onRecords: (records: object[]) => void) => RawStreamClient;
  Fmp4Muxer: new (tracks: RawMuxTrack[], originUs?: number | null) => RawFmp4Muxer;
  LlHlsPackager: new (options: RawLlHlsOptions) => RawLlHlsPackager;
  Mp4File: new () => RawMp4File;
  describeCodec(codec: string, bitstream: Uint8Array): CodecInfo | null;
  parseAdtsHeader(data: Uint8Array): RawAdtsHeader | null;
  annexBToLengthPrefixed(codec: string, accessUnit: Uint8Array): Buffer;
  nalUnitTypes(codec: string, accessUnit: Uint8Array): number[];
}

// --- Shared memory (zm.mmap.<id>) and JPEG -------------------------------------------------

export interface RawSharedMemoryOptions {
  path: string;
  width?: number;
  height?: number;
  imageBufferCount?: number;
  zoneCount?: number;
  maxAttempts?: number;
}

export interface RawShmGeometry {
  variant: string;
  scheme: 'packed' | 'avframe';
  width: number;
  height: number;
  colours: number;
  imageBufferCount: number;
  zoneCount: number;
  slotSize: number;
  timestampsOffset: number;
  imagesOffset: number;
  formatsOffset: number | null;
}

export interface RawShmInfo {
  path: string;
  closed: boolean;
  opens: number;
  layout: number | null;
  versions: string | null;
  geometry: RawShmGeometry | null;
  geometryError: string | null;
}

/** SharedData + TriggerData as numbers and strings; absent fields (older layouts) are null. */
export interface RawShmState {
  size: number;
  lastWriteIndex: number;
  lastReadIndex: number;
  imageCount: number | null;
  state: number;
  captureFps: number;
  analysisFps: number;
  latitude: number | null;
  longitude: number | null;
  lastEventId: number;
  action: number;
  brightness: number;
  hue: number;
  colour: number;
  contrast: number;
  alarmX: number;
  alarmY: number;
  valid: number;
  capturing: number;
  analysing: number | null;
  recording: number | null;
  signal: number;
  format: number;
  imageSize: number;
  lastFrameScore: number;
  audioFrequency: number;
  audioChannels: number;
  startupTime: number;
  heartbeatTime: number;
  lastWriteTime: number;
  lastReadTime: number;
  lastViewedTime: number | null;
  lastAnalysisViewedTime: number | null;
  alarmCause: string;
  lastAnalysisIndex: number | null;
  analysisImageCount: number | null;
  trigger: { state: number; score: number; cause: string; text: string; showText: string };
  info: RawShmInfo;
}

export interface RawShmImage {
  width: number;
  height: number;
  format: string;
  linesize: number[];
  timestampUs: number;
  index: number;
  attempts: number;
  data: Buffer;
}

export interface RawSharedMemory {
  read(): RawShmState;
  newestImage(): Promise<RawShmImage | null>;
  trigger(request: { state: number; score?: number; cause?: string; text?: string; showText?: string }): void;
  info(): RawShmInfo;
  close(): void;
}

export interface RawShmField {
  name: string;
  type: 'u8' | 'i32' | 'u32' | 'u64' | 'i64' | 'f64' | 'chars';
  length: number;
  offsets: Record<'760' | '768' | '872' | '888', number | null>;
}

export interface RawJpegImage {
  format: string;
  width: number;
  height: number;
  linesize?: number[];
  data: Uint8Array;
}

export interface RawJpegHeader {
  width: number;
  height: number;
  subsampling: number;
  mcuWidth: number;
  mcuHeight: number;
}

export interface NativeShmJpegBinding {
  SharedMemory: new (options: RawSharedMemoryOptions) => RawSharedMemory;
  shmLayoutTable(): RawShmField[];
  encodeJpeg(image: RawJpegImage, quality?: number): Promise<Buffer>;
  transformJpeg(jpeg: Uint8Array, orientation: string, edges?: 'trim' | 'perfect'): Promise<Buffer>;
  jpegHeader(jpeg: Uint8Array): RawJpegHeader;
}
