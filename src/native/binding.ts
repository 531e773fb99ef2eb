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
  StreamClient: new (options: RawStreamClientOptions, onRecords: (records: object[]) => void) => RawStreamClient;
  Fmp4Muxer: new (tracks: RawMuxTrack[], originUs?: number | null) => RawFmp4Muxer;
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
