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

export interface NativeBinding {
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
