// Track descriptions (MuxTrack) checked and converted for the native side; shared by Fmp4Muxer
// and LlHlsPackager. The types are re-exported by fmp4-muxer.ts; the rest is internal.

import type { RawMuxTrack } from './binding.js';
import {
  optionalInteger,
  rejectUnknownKeys,
  requireBoolean,
  requireBytes,
  requireInteger,
  requireObject,
} from './validate.js';

export type MuxCodec = 'h264' | 'h265' | 'aac' | 'opus';

export interface MuxTrack {
  codec: MuxCodec;
  /** Video: SPS/PPS(/VPS) as Annex B, avcC or hvcC; AAC: AudioSpecificConfig; Opus: OpusHead. Optional: learnt in-band. */
  extradata?: Uint8Array;
  /** Only used when no SPS can be parsed. */
  width?: number;
  height?: number;
  /** AAC without an AudioSpecificConfig needs sampleRate (or ADTS input). */
  sampleRate?: number;
  channels?: number;
  /** Default 90000 for video, the sample rate for audio (48000 for Opus). */
  timescale?: number;
  /** Only for the duration of a lone last sample when nothing better is known. */
  fps?: { num: number; den: number };
  /** B-frame reorder depth override (default: from the SPS, else 2). */
  reorderDepth?: number;
  /** Video samples are already [u32 length][NAL]… (e.g. from an MP4 demuxer) instead of Annex B. */
  lengthPrefixed?: boolean;
}

export const MUX_CODECS: readonly string[] = ['h264', 'h265', 'aac', 'opus'];
const TRACK_KEYS = [
  'codec',
  'extradata',
  'width',
  'height',
  'sampleRate',
  'channels',
  'timescale',
  'fps',
  'reorderDepth',
  'lengthPrefixed',
] as const;
export const MAX_SAFE_US = Number.MAX_SAFE_INTEGER;

export function toRawTrack(track: MuxTrack, index: number): RawMuxTrack {
  const name = `tracks[${index}]`;
  const t = requireObject(name, track);
  rejectUnknownKeys(name, t, TRACK_KEYS);
  if (typeof t.codec !== 'string' || !MUX_CODECS.includes(t.codec)) {
    const hint =
      t.codec === 'pcmu' || t.codec === 'pcma'
        ? ' (G.711 cannot be carried in fMP4 for HLS/MSE: mux the video alone)'
        : '';
    throw new RangeError(
      `${name}.codec must be one of ${MUX_CODECS.join(', ')}, got ${JSON.stringify(t.codec)}${hint}`,
    );
  }
  const raw: RawMuxTrack = { codec: t.codec };
  if (t.extradata !== undefined) raw.extradata = requireBytes(`${name}.extradata`, t.extradata);
  raw.width = optionalInteger(`${name}.width`, t.width, 0, 65535);
  raw.height = optionalInteger(`${name}.height`, t.height, 0, 65535);
  raw.sampleRate = optionalInteger(`${name}.sampleRate`, t.sampleRate, 1, 768_000);
  raw.channels = optionalInteger(`${name}.channels`, t.channels, 1, 255);
  raw.timescale = optionalInteger(`${name}.timescale`, t.timescale, 1, 2 ** 32 - 1);
  raw.reorderDepth = optionalInteger(`${name}.reorderDepth`, t.reorderDepth, 0, 16);
  if (t.fps !== undefined) {
    const fps = requireObject(`${name}.fps`, t.fps);
    raw.fpsNum = requireInteger(`${name}.fps.num`, fps.num, 1, 2 ** 32 - 1);
    raw.fpsDen = requireInteger(`${name}.fps.den`, fps.den, 1, 2 ** 32 - 1);
  }
  if (t.lengthPrefixed !== undefined) raw.lengthPrefixed = requireBoolean(`${name}.lengthPrefixed`, t.lengthPrefixed);
  if (raw.codec === 'aac' && raw.extradata === undefined && raw.sampleRate === undefined) {
    throw new TypeError(`${name}: an AAC track needs extradata (AudioSpecificConfig) or sampleRate`);
  }
  return Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)) as RawMuxTrack;
}
