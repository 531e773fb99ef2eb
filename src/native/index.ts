// The one TypeScript facade over the native addon (zmgate.node, built from CMakeLists.txt).
// The addon is loaded lazily on first use, so importing this module never throws: commands
// that need no native code (e.g. `zmgate --help`) work without a build. Input validation lives
// here; the C++ side only re-checks as a backstop. The areas live in their own modules
// (stream-client.ts, fmp4-muxer.ts, ll-hls.ts, mp4-file.ts, bitstream.ts, shared-memory.ts,
// jpeg.ts) and are re-exported
// from here.

import { callNative, loadBinding } from './load.js';

export { ZmNativeError } from './errors.js';
export type { NativeBinding } from './binding.js';
export { PACKAGE_ROOT, loadBinding, nativeInfo, type NativeInfo } from './load.js';
export * from './bitstream.js';
export * from './datagram.js';
export * from './fmp4-muxer.js';
export * from './jpeg.js';
export * from './ll-hls.js';
export * from './mp4-file.js';
export * from './shared-memory.js';
export * from './stream-client.js';
export * from './types.js';

/** The addon's version; always equals package.json's (CMakeLists.txt bakes it in). */
export function nativeVersion(): string {
  return callNative(nativeVersion, () => loadBinding().version());
}

const BOX_TYPE = /^[\x20-\x7e]{4}$/;
const MAX_U32 = 0xffff_ffff;

/**
 * An 8-byte ISO-BMFF box header: big-endian u32 `size` (the whole box, header included)
 * then the 4-character `type`.
 * @throws TypeError if `type` is not 4 printable ASCII characters
 * @throws RangeError if `size` is not an integer in 8..2^32-1
 */
export function boxHeader(type: string, size: number): Buffer {
  if (typeof type !== 'string' || !BOX_TYPE.test(type)) {
    throw new TypeError(`box type must be 4 printable ASCII characters, got ${JSON.stringify(type)}`);
  }
  if (!Number.isInteger(size) || size < 8 || size > MAX_U32) {
    throw new RangeError(`box size must be an integer in 8..${MAX_U32}, got ${size}`);
  }
  return callNative(boxHeader, () => loadBinding().boxHeader(type, size));
}
