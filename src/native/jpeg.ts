// JPEG stills: encodeJpeg (raw pictures as found in zm.mmap slots → baseline JPEG) and
// transformJpeg (lossless rotate/flip for Monitors.Orientation). Both run on the libuv pool
// (libjpeg-turbo, linked statically into the addon).

import { callNativeAsync } from './async-call.js';
import { callNative, loadBinding } from './load.js';
import {
  describe,
  optionalInteger,
  rejectUnknownKeys,
  requireBytes,
  requireInteger,
  requireObject,
} from './validate.js';

/** Pixel formats of shared-memory slots that the encoder takes (FFmpeg's names; yuv* are limited range, yuvj* full). */
export const PIXEL_FORMATS = [
  'gray8',
  'rgb24',
  'bgr24',
  'rgba',
  'bgra',
  'argb',
  'abgr',
  'yuv420p',
  'yuvj420p',
  'yuv422p',
  'yuvj422p',
] as const;
export type PixelFormat = (typeof PIXEL_FORMATS)[number];

/** A raw picture: planes back to back; `linesize` (bytes per row, one per plane) defaults to packed rows. */
export interface RawImage {
  format: PixelFormat;
  width: number;
  height: number;
  data: Uint8Array;
  linesize?: number[];
}

export interface EncodeJpegOptions {
  /** 1..100, default 80. */
  quality?: number;
}

/** ZoneMinder's Monitors.Orientation values. */
export const ORIENTATIONS = ['ROTATE_0', 'ROTATE_90', 'ROTATE_180', 'ROTATE_270', 'FLIP_HORI', 'FLIP_VERT'] as const;
export type Orientation = (typeof ORIENTATIONS)[number];

export interface TransformJpegOptions {
  /**
   * Partial MCU blocks (the last < 8/16 px at the right/bottom edge) cannot be moved losslessly.
   * 'trim' (default) drops them, so a 1920×1080 4:2:0 still rotated by 90° becomes 1072×1920;
   * 'perfect' rejects such images with ERR_ZM_JPEG_NOT_PERFECT instead.
   */
  edges?: 'trim' | 'perfect';
}

export interface JpegHeader {
  width: number;
  height: number;
  /** TurboJPEG TJSAMP_*: 0 4:4:4, 1 4:2:2, 2 4:2:0, 3 grey, 4 4:4:0, 5 4:1:1. */
  subsampling: number;
  /** MCU size in pixels: what 'trim' rounds down to. */
  mcuWidth: number;
  mcuHeight: number;
}

const PACKED_BYTES: Partial<Record<PixelFormat, number>> = {
  gray8: 1,
  rgb24: 3,
  bgr24: 3,
  rgba: 4,
  bgra: 4,
  argb: 4,
  abgr: 4,
};
const MAX_SIDE = 65535; // JPEG's 16-bit dimensions

interface Planes {
  rowBytes: number[];
  rows: number[];
}

/** Visible bytes per row and rows of each plane (chroma rounds up for odd sizes, as FFmpeg does). */
export function imagePlanes(format: PixelFormat, width: number, height: number): Planes {
  const bpp = PACKED_BYTES[format];
  if (bpp !== undefined) return { rowBytes: [width * bpp], rows: [height] };
  const cw = Math.ceil(width / 2);
  const ch = format.includes('420') ? Math.ceil(height / 2) : height;
  return { rowBytes: [width, cw, cw], rows: [height, ch, ch] };
}

function checkImage(image: RawImage): void {
  // Extra keys are fine here: a SharedMemoryImage (timestamp, index …) is passed as it is.
  const o = requireObject('image', image);
  if (typeof o.format !== 'string' || !(PIXEL_FORMATS as readonly string[]).includes(o.format)) {
    throw new TypeError(`image.format must be one of ${PIXEL_FORMATS.join(', ')}, got ${describe(o.format)}`);
  }
  const format = o.format as PixelFormat;
  const width = requireInteger('image.width', o.width, 1, MAX_SIDE);
  const height = requireInteger('image.height', o.height, 1, MAX_SIDE);
  const data = requireBytes('image.data', o.data);
  const planes = imagePlanes(format, width, height);
  let linesize = planes.rowBytes;
  if (o.linesize !== undefined) {
    if (!Array.isArray(o.linesize) || o.linesize.length !== planes.rowBytes.length) {
      throw new TypeError(`image.linesize must be an array of ${planes.rowBytes.length} integer(s) for ${format}`);
    }
    linesize = o.linesize.map((v: unknown, k) =>
      requireInteger(`image.linesize[${k}]`, v, planes.rowBytes[k]!, 2 ** 31 - 1),
    );
  }
  const needed = linesize.reduce((sum, ls, k) => sum + ls * planes.rows[k]!, 0);
  if (data.length < needed) {
    throw new RangeError(
      `image.data holds ${data.length} bytes; a ${width}×${height} ${format} image with linesize [${linesize.join(', ')}] needs ${needed}`,
    );
  }
}

/**
 * Encodes a raw picture as a baseline JPEG on the libuv pool. RGB-family input is coded 4:2:0,
 * gray8 as greyscale, planar YUV with its own subsampling; yuv420p/yuv422p (limited range) are
 * expanded to JPEG's full range, yuvj* are used as they are. Do not modify `image.data` until the
 * promise settles (it is read in place, not copied).
 * @throws TypeError / RangeError for an invalid image or options (synchronously)
 */
export function encodeJpeg(image: RawImage, options: EncodeJpegOptions = {}): Promise<Buffer> {
  checkImage(image);
  const o = requireObject('options', options);
  rejectUnknownKeys('options', o, ['quality']);
  const quality = optionalInteger('options.quality', o.quality, 1, 100) ?? 80;
  const raw = {
    format: image.format,
    width: image.width,
    height: image.height,
    data: image.data,
    linesize: image.linesize,
  };
  return callNativeAsync(encodeJpeg, () => loadBinding().encodeJpeg(raw, quality));
}

function requireJpeg(jpeg: unknown): Uint8Array {
  const bytes = requireBytes('jpeg', jpeg);
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) {
    throw new RangeError('jpeg does not start with a JPEG SOI marker (FF D8)');
  }
  return bytes;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Rotates or flips a JPEG losslessly (DCT domain, no re-encoding) for a monitor's Orientation.
 * ROTATE_0 resolves to the input itself (the same bytes, no copy). Markers (EXIF, ICC) are kept.
 * @throws TypeError / RangeError for invalid arguments (synchronously); the promise rejects with
 *   ZmNativeError ERR_ZM_JPEG_DECODE (corrupt data) or ERR_ZM_JPEG_NOT_PERFECT (edges: 'perfect').
 */
export function transformJpeg(
  jpeg: Uint8Array,
  orientation: Orientation,
  options: TransformJpegOptions = {},
): Promise<Buffer> {
  const bytes = requireJpeg(jpeg);
  if (typeof orientation !== 'string' || !(ORIENTATIONS as readonly string[]).includes(orientation)) {
    throw new TypeError(`orientation must be one of ${ORIENTATIONS.join(', ')}, got ${describe(orientation)}`);
  }
  const o = requireObject('options', options);
  rejectUnknownKeys('options', o, ['edges']);
  const edges = o.edges ?? 'trim';
  if (edges !== 'trim' && edges !== 'perfect')
    throw new TypeError(`options.edges must be 'trim' or 'perfect', got ${describe(edges)}`);
  if (orientation === 'ROTATE_0') return Promise.resolve(asBuffer(bytes));
  return callNativeAsync(transformJpeg, () => loadBinding().transformJpeg(bytes, orientation, edges));
}

/** Size and sampling of a JPEG (synchronous, header only). @throws ZmNativeError ERR_ZM_JPEG_DECODE */
export function jpegHeader(jpeg: Uint8Array): JpegHeader {
  const bytes = requireJpeg(jpeg);
  return callNative(jpegHeader, () => loadBinding().jpegHeader(bytes));
}
