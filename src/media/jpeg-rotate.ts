// Orientation for still images (spec "Live streaming and playback": thumbnails and snapshots are
// turned per Orientation; live video never is). ROTATE_90 and ROTATE_270 are clockwise, as
// ZoneMinder means them; FLIP_HORI mirrors left-right, FLIP_VERT top-bottom.
//
// The transform sits behind JpegRotator so the native lossless transform (DCT-domain, being
// written in the native core) can replace the ffmpeg fallback here without touching callers:
// implement the interface, set `perFrame` (cheap enough for every frame of an MJPEG stream),
// and pass it to createPlayback() (src/features/playback/playback.ts).
import type { Orientation } from '../api/wrappers.js';
import type { FfmpegRunner } from './ffmpeg.js';
import { transformJpeg } from '../native/index.js';

export type { Orientation } from '../api/wrappers.js';

export interface JpegRotator {
  /** True when cheap enough to apply to every frame of a paced MJPEG stream. */
  readonly perFrame: boolean;
  /** The JPEG turned per `orientation`; ROTATE_0 returns the input unchanged. Throws on failure. */
  rotateJpeg(jpeg: Buffer, orientation: Orientation): Promise<Buffer>;
}

/** Whether the orientation swaps width and height. */
export function swapsAxes(orientation: Orientation): boolean {
  return orientation === 'ROTATE_90' || orientation === 'ROTATE_270';
}

/** The ffmpeg filter for an orientation; null for ROTATE_0 (and anything unknown). */
export function orientationFilter(orientation: Orientation): string | null {
  switch (orientation) {
    case 'ROTATE_90':
      return 'transpose=clock';
    case 'ROTATE_180':
      return 'hflip,vflip';
    case 'ROTATE_270':
      return 'transpose=cclock';
    case 'FLIP_HORI':
      return 'hflip';
    case 'FLIP_VERT':
      return 'vflip';
    default:
      return null;
  }
}

/** The fallback: one ffmpeg decode + filter + re-encode at high quality (not lossless). */
export class FfmpegJpegRotator implements JpegRotator {
  readonly perFrame = false;

  constructor(private readonly runner: FfmpegRunner) {}

  async rotateJpeg(jpeg: Buffer, orientation: Orientation): Promise<Buffer> {
    const filter = orientationFilter(orientation);
    if (!filter) return jpeg;
    return this.runner.ffmpeg(
      ['-f', 'jpeg_pipe', '-i', 'pipe:0', '-vf', filter, '-frames:v', '1', '-q:v', '2', '-f', 'mjpeg', 'pipe:1'],
      jpeg,
    );
  }
}

/**
 * The native lossless transform (libjpeg-turbo, DCT domain; edges that do not fill a whole MCU
 * are trimmed). Cheap enough for every frame of an MJPEG stream.
 */
export class NativeJpegRotator implements JpegRotator {
  readonly perFrame = true;

  async rotateJpeg(jpeg: Buffer, orientation: Orientation): Promise<Buffer> {
    if (orientation === 'ROTATE_0' || !orientationFilter(orientation)) return jpeg;
    return transformJpeg(jpeg, orientation);
  }
}
