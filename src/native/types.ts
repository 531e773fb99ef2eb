// Public data shapes produced by the native addon (stream client records, codec details, muxer
// results). Plain data: safe to log, compare and serialise (Buffers aside).

/** Codec names used throughout the facade (FFmpeg AVCodecID → name is done natively). */
export type CodecName = 'h264' | 'h265' | 'av1' | 'aac' | 'opus' | 'pcmu' | 'pcma' | 'unknown';

export type StreamName = 'video' | 'audio';

/** What is known about one elementary stream: the HELLO fields plus details from the bitstream. */
export interface CodecInfo {
  /** FFmpeg AVCodecID as sent by zmc (27 H.264, 173 HEVC, 86018 AAC …). */
  codecId: number;
  codec: CodecName;
  /** RFC 6381 string for HLS CODECS / MSE, e.g. "avc1.640028", "hvc1.1.6.L93.B0", "mp4a.40.2", "opus". */
  codecString: string;
  /** Picture size after SPS cropping when an SPS was parsed, else as sent (0 = unknown). */
  width: number;
  height: number;
  fpsNum: number;
  fpsDen: number;
  sampleRate: number;
  channels: number;
  /** profile_idc/level_idc from the SPS, else the HELLO values; -1 = unknown. */
  profile: number;
  level: number;
  bitDepth: number;
  /** B-frame reorder depth from the SPS; -1 = unknown. */
  reorderDepth: number;
  /** True when width/height/codecString come from an SPS or AudioSpecificConfig. */
  fromBitstream: boolean;
  extradata: Buffer;
  parameterSets: { vps: Buffer[]; sps: Buffer[]; pps: Buffer[] };
}

/** A HELLO (inBand false), or better details learnt later from a keyframe/ADTS header (inBand true). */
export interface CodecRecord {
  type: 'codec';
  stream: StreamName;
  generation: number;
  inBand: boolean;
  codec: CodecInfo;
}

/** One video access unit (Annex B, as demuxed by zmc) or one audio packet (raw AAC, Opus, G.711). */
export interface MediaRecord {
  type: 'media';
  stream: StreamName;
  sequence: number;
  generation: number;
  /** Microseconds, one clock for audio and video (zmc's AV_TIME_BASE). */
  ptsUs: number;
  keyframe: boolean;
  /** zmc's cached keyframe, sent once right after connecting (its sequence is older). */
  cached: boolean;
  /** Messages zmc dropped for this client just before this one (sequence gap). */
  gap: number;
  /** Owned by the receiver (no native copy is kept). */
  data: Buffer;
}

export interface StatsRecord {
  type: 'stats';
  messagesSent: number;
  messagesDropped: number;
}

export interface ByeRecord {
  type: 'bye';
}

export type StreamEventName =
  | 'snapshot'
  | 'connection_failed'
  | 'connection_restored'
  | 'prime_capture_failed'
  | 'prime_capture_restored'
  | 'capture_failed'
  | 'capture_resumed'
  | 'state_changed'
  | 'detection'
  | 'description'
  | 'recording_saved'
  | 'recording_opening'
  | 'review_assets'
  | 'unknown';

/** A monitor EVENT (docs/zoneminder/stream-socket.md); optional fields are present only when zmc sent them. */
export interface EventRecord {
  type: 'event';
  sequence: number;
  generation: number;
  code: number;
  name: StreamEventName;
  wallClockUs?: number;
  message?: string;
  stateId?: number;
  prevStateId?: number;
  detail?: number;
  stateName?: string;
  healthCode?: number;
  jsonDetail?: string;
}

/** zmc changed parameters: re-initialise decoders/muxers and re-base timestamps. */
export interface GenerationRecord {
  type: 'generation';
  previous: number;
  current: number;
}

export interface ConnectedRecord {
  type: 'connected';
  attempt: number;
}

export type DisconnectReason = 'connect' | 'bye' | 'eof' | 'error' | 'stalled' | 'closed';

export interface DisconnectedRecord {
  type: 'disconnected';
  reason: DisconnectReason;
  /** ERR_ZM_* when abnormal (see StreamErrorCode). */
  code?: StreamErrorCode;
  message: string;
  /** Delay before the next connection attempt. */
  retryMs: number;
  /** Consecutive failed attempts (0 after a clean session). */
  attempt: number;
}

export type StreamRecord =
  | CodecRecord
  | MediaRecord
  | StatsRecord
  | ByeRecord
  | EventRecord
  | GenerationRecord
  | ConnectedRecord
  | DisconnectedRecord;

/** Stable codes of stream-socket failures (ZmNativeError.code). */
export type StreamErrorCode =
  | 'ERR_ZM_STREAM_SOCKET_PERMISSION'
  | 'ERR_ZM_STREAM_SOCKET_MISSING'
  | 'ERR_ZM_STREAM_SOCKET_REFUSED'
  | 'ERR_ZM_STREAM_SOCKET_PATH'
  | 'ERR_ZM_STREAM_CONNECT'
  | 'ERR_ZM_STREAM_CLOSED'
  | 'ERR_ZM_STREAM_TRUNCATED'
  | 'ERR_ZM_STREAM_STALLED'
  | 'ERR_ZM_STREAM_IO'
  | 'ERR_ZM_STREAM_PROTOCOL_LENGTH'
  | 'ERR_ZM_STREAM_PROTOCOL_VERSION'
  | 'ERR_ZM_STREAM_PROTOCOL_HELLO';

export interface StreamClientStats {
  attempts: number;
  connects: number;
  messages: number;
  bytes: number;
  media: number;
  /** Sequence gaps seen, and the messages lost in them. */
  gaps: number;
  lost: number;
  /** Unknown / control-extension messages skipped. */
  skipped: number;
  malformedEvents: number;
  generations: number;
  /** Bytes read but not yet delivered to JS (back-pressure stops reading at maxPendingBytes). */
  pendingBytes: number;
}

export interface KeyframeSnapshot {
  sequence: number;
  generation: number;
  ptsUs: number;
  /** A copy; the client keeps its own. */
  data: Buffer;
}
