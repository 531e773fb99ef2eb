// Turning a 4:2:2 shared-memory image that zmc left unturned (docs/zoneminder/orientation.md, "The
// 4:2:2 case"): development versions keep the decoder's pixel format per slot and cannot rotate
// yuv422p/yuvj422p by 90/270, so such a slot holds the camera's W×H picture while the monitor's
// size is the swapped H×W. The slot is read as W×H (planes laid out as FFmpeg's
// av_image_fill_arrays with 32-byte aligned rows) and turned here into a 4:2:0 picture of the
// swapped size, which the JPEG encoder takes as it is.
import type { Orientation, RawImage } from '../native/index.js';

const align32 = (v: number) => (v + 31) & ~31;

/** Whether zmc left this slot unturned: a 4:2:2 slot on a ROTATE_90/270 monitor. */
export function isUnturned422(format: string, orientation: Orientation): boolean {
  return (
    (format === 'yuv422p' || format === 'yuvj422p') && (orientation === 'ROTATE_90' || orientation === 'ROTATE_270')
  );
}

/**
 * The slot bytes `data` of an unturned `width`×`height` (the camera's size) 4:2:2 picture,
 * turned by `orientation` (90 or 270, clockwise as ZoneMinder means them) into a packed 4:2:0
 * image of height×width. Null when `data` is too short for such a picture.
 */
export function turnUnturned422(
  data: Uint8Array,
  format: 'yuv422p' | 'yuvj422p',
  width: number,
  height: number,
  orientation: 'ROTATE_90' | 'ROTATE_270',
): RawImage | null {
  const cw = (width + 1) >> 1;
  const ls = [align32(width), align32(cw)];
  const planeY = 0;
  const planeU = ls[0] * height;
  const planeV = planeU + ls[1] * height;
  if (data.length < planeV + ls[1] * height) return null;
  // Output: w×h with w = height, h = width.
  const w = height;
  const h = width;
  const ocw = (w + 1) >> 1;
  const och = (h + 1) >> 1;
  const out = new Uint8Array(w * h + 2 * ocw * och);
  const cw90 = orientation === 'ROTATE_90';
  // Destination (x, y) comes from source (sx, sy): clockwise sx = y, sy = H-1-x; else sx = W-1-y, sy = x.
  for (let y = 0; y < h; y++) {
    const sx = cw90 ? y : width - 1 - y;
    for (let x = 0; x < w; x++) {
      const sy = cw90 ? height - 1 - x : x;
      out[y * w + x] = data[planeY + sy * ls[0] + sx];
    }
  }
  const outU = w * h;
  const outV = outU + ocw * och;
  for (let cy = 0; cy < och; cy++) {
    const sx = cw90 ? 2 * cy : width - 1 - 2 * cy;
    for (let cx = 0; cx < ocw; cx++) {
      const sy = cw90 ? height - 1 - 2 * cx : 2 * cx;
      const at = sy * ls[1] + (sx >> 1);
      out[outU + cy * ocw + cx] = data[planeU + at];
      out[outV + cy * ocw + cx] = data[planeV + at];
    }
  }
  return {
    format: format === 'yuv422p' ? 'yuv420p' : 'yuvj420p',
    width: w,
    height: h,
    data: out,
    linesize: [w, ocw, ocw],
  };
}
