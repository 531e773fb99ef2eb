// Encoders for zmc's stream-socket protocol v1 (docs/zoneminder/stream-socket.md), the server side: a 24-byte
// little-endian header + payload per message, HELLO and EVENT payloads as TLVs. Used by the
// simulated camera and by the scripted fake zmc of the tests.

export const MSG = { hello: 0x01, media: 0x02, keyframe: 0x03, stats: 0x04, bye: 0x05, event: 0x06 } as const;
export const EVENT = { snapshot: 0x0001, connectionFailed: 0x0101, stateChanged: 0x0201 } as const;
/** FFmpeg AVCodecID (docs/zoneminder/stream-socket.md). */
export const CODEC_ID = { h264: 27, hevc: 173, aac: 86018, pcmMulaw: 65542, pcmAlaw: 65543, opus: 86076 } as const;

export interface Header {
  type: number;
  stream: number; // 0 video, 1 audio, 2 monitor
  flags?: number;
  sequence?: number;
  generation?: number;
  ptsUs?: number | bigint;
  version?: number;
  /** Override the length field (protocol-violation tests). */
  length?: number;
}

/** One wire message: 24-byte little-endian header + payload. */
export function encodeMessage(h: Header, payload: Buffer = Buffer.alloc(0)): Buffer {
  const b = Buffer.alloc(24 + payload.length);
  b.writeUInt32LE(h.length ?? 20 + payload.length, 0);
  b.writeUInt8(h.version ?? 1, 4);
  b.writeUInt8(h.type, 5);
  b.writeUInt8(h.stream, 6);
  b.writeUInt8(h.flags ?? 0, 7);
  b.writeUInt32LE(h.sequence ?? 0, 8);
  b.writeUInt32LE(h.generation ?? 0, 12);
  b.writeBigUInt64LE(BigInt(h.ptsUs ?? 0), 16);
  payload.copy(b, 24);
  return b;
}

export function tlv(tag: number, value: Buffer): Buffer {
  const h = Buffer.alloc(3);
  h.writeUInt8(tag, 0);
  h.writeUInt16LE(value.length, 1);
  return Buffer.concat([h, value]);
}

const u32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  return b;
};

/** What a HELLO describes; omitted (or 0) values are not sent. */
export interface HelloTrack {
  codecId: number;
  extradata: Buffer;
  width?: number;
  height?: number;
  fpsNum?: number;
  fpsDen?: number;
  sampleRate?: number;
  channels?: number;
}

export function helloPayload(t: HelloTrack): Buffer {
  const parts: Buffer[] = [tlv(0x01, u32(t.codecId))];
  if (t.extradata.length) parts.push(tlv(0x02, t.extradata));
  if (t.width) parts.push(tlv(0x03, u32(t.width)));
  if (t.height) parts.push(tlv(0x04, u32(t.height)));
  if (t.fpsNum) parts.push(tlv(0x05, u32(t.fpsNum)));
  if (t.fpsDen) parts.push(tlv(0x06, u32(t.fpsDen)));
  if (t.sampleRate) parts.push(tlv(0x07, u32(t.sampleRate)));
  if (t.channels) parts.push(tlv(0x08, u32(t.channels)));
  return Buffer.concat(parts);
}

export interface EventFields {
  wallClockUs?: bigint;
  message?: string;
  stateId?: number;
  prevStateId?: number;
  detail?: number;
  stateName?: string;
  healthCode?: number;
  jsonDetail?: string;
}

export function eventPayload(code: number, f: EventFields = {}): Buffer {
  const head = Buffer.alloc(2);
  head.writeUInt16LE(code);
  const parts: Buffer[] = [head];
  if (f.wallClockUs !== undefined) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(f.wallClockUs);
    parts.push(tlv(0x01, b));
  }
  if (f.message !== undefined) parts.push(tlv(0x02, Buffer.from(f.message)));
  if (f.stateId !== undefined) parts.push(tlv(0x03, u32(f.stateId)));
  if (f.prevStateId !== undefined) parts.push(tlv(0x04, u32(f.prevStateId)));
  if (f.detail !== undefined) parts.push(tlv(0x05, u32(f.detail)));
  if (f.stateName !== undefined) parts.push(tlv(0x06, Buffer.from(f.stateName)));
  if (f.healthCode !== undefined) {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(f.healthCode);
    parts.push(tlv(0x07, b));
  }
  if (f.jsonDetail !== undefined) parts.push(tlv(0x10, Buffer.from(f.jsonDetail)));
  return Buffer.concat(parts);
}

/** STATS payload: u64 messages_sent, u64 messages_dropped. */
export function statsPayload(sent: number, dropped: number): Buffer {
  const b = Buffer.alloc(16);
  b.writeBigUInt64LE(BigInt(sent), 0);
  b.writeBigUInt64LE(BigInt(dropped), 8);
  return b;
}
