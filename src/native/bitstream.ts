// Stateless bitstream helpers: codec details from parameter sets / audio configs, ADTS headers,
// Annex B → length-prefixed conversion, NAL unit types.

import type { RawAdtsHeader } from './binding.js';
import { callNative, loadBinding } from './load.js';
import type { CodecInfo, CodecName } from './types.js';
import { requireBytes } from './validate.js';

const CODECS: readonly string[] = ['h264', 'h265', 'av1', 'aac', 'opus', 'pcmu', 'pcma'];

function requireCodec(codec: unknown, allowed: readonly string[] = CODECS): string {
  if (typeof codec !== 'string' || !allowed.includes(codec)) {
    throw new RangeError(`codec must be one of ${allowed.join(', ')}, got ${JSON.stringify(codec)}`);
  }
  return codec;
}

/**
 * Codec details (picture size after cropping, profile/level, RFC 6381 string, parameter sets)
 * from `bitstream`: video extradata (Annex B, avcC, hvcC) or an access unit carrying SPS/PPS;
 * an AAC AudioSpecificConfig; an OpusHead; an av1C. Null when nothing could be derived.
 */
export function describeCodec(codec: Exclude<CodecName, 'unknown'>, bitstream: Uint8Array): CodecInfo | null {
  const c = requireCodec(codec);
  const data = requireBytes('bitstream', bitstream);
  return callNative(describeCodec, () => loadBinding().describeCodec(c, data));
}

export type AdtsHeader = RawAdtsHeader;

/** The ADTS header at the start of `data`, or null when there is none. */
export function parseAdtsHeader(data: Uint8Array): AdtsHeader | null {
  const d = requireBytes('data', data);
  return callNative(parseAdtsHeader, () => loadBinding().parseAdtsHeader(d));
}

/** An Annex B access unit as MP4 sample data: [u32 length][NAL]…, AUD and parameter sets left out. */
export function annexBToLengthPrefixed(codec: 'h264' | 'h265', accessUnit: Uint8Array): Buffer {
  const c = requireCodec(codec, ['h264', 'h265']);
  const d = requireBytes('accessUnit', accessUnit);
  return callNative(annexBToLengthPrefixed, () => loadBinding().annexBToLengthPrefixed(c, d));
}

/** NAL unit types of an Annex B buffer, in order (H.264: 5 IDR, 7 SPS …; H.265: 19 IDR_W_RADL, 33 SPS …). */
export function nalUnitTypes(codec: 'h264' | 'h265', accessUnit: Uint8Array): number[] {
  const c = requireCodec(codec, ['h264', 'h265']);
  const d = requireBytes('accessUnit', accessUnit);
  return callNative(nalUnitTypes, () => loadBinding().nalUnitTypes(c, d));
}
