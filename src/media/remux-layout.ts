// The byte layout of Mp4File.remux() — init segment, then one moof+mdat fragment per GOP —
// computed from the sample index alone, without reading media data. It lets /stream/video.mp4
// announce its exact size and serve any byte range at once: a range maps to the fragments that
// hold it, and only those are read and muxed (a one-hour event starts playing in milliseconds).
//
// The native writer (native/src/core/mp4_vod.cc + fmp4_fragment.cc) is deterministic:
//   moof = 8 + mfhd 16 + per track with samples: traf 8 + tfhd 16 + tfdt(v1) 20 + trun 20
//          + 12 bytes per sample (16 when any composition offset in that trun is non-zero)
//   mdat = 8 + the sample bytes, copied unchanged
// The sample bytes are unchanged only when the video's NAL lengths are already 4 bytes and the
// audio carries no ADTS headers; composition offsets and dropped samples follow the muxer's
// integer clock (microseconds from the first presented frame, rescaled with rounding). Files
// outside that model get `predicted: false` and are measured instead
// (src/features/playback/recording-cache.ts); RemuxSource checks every produced fragment against
// its predicted size anyway.
import type { Mp4File, VodSegmentInfo } from '../native/mp4-file.js';

export interface RemuxLayout {
  initSize: number;
  /** Byte offset of each fragment (the first equals initSize). */
  offsets: number[];
  sizes: number[];
  total: number;
}

interface TrackSamples {
  ptsUs: number[];
  dtsUs: number[];
  size: number[];
}

const MOOF_FIXED = 8 + 16;
const TRAF_FIXED = 8 + 16 + 20 + 20;
const MDAT_HEADER = 8;

/** Round half away from zero of a·mul/div for integers (the native Scale()). */
function scale(a: number, mul: number, div: number): number {
  const v = a * mul;
  const half = Math.floor(div / 2);
  return v >= 0 ? Math.floor((v + half) / div) : -Math.floor((-v + half) / div);
}

export function layoutOf(initSize: number, sizes: number[]): RemuxLayout {
  const offsets: number[] = [];
  let at = initSize;
  for (const size of sizes) {
    offsets.push(at);
    at += size;
  }
  return { initSize, offsets, sizes, total: at };
}

/** Per-track sample columns, indexed by the sample's index within its track. */
function columns(file: Mp4File): TrackSamples[] {
  const out = file.tracks.map((t) => ({
    ptsUs: new Array<number>(t.sampleCount),
    dtsUs: new Array<number>(t.sampleCount),
    size: new Array<number>(t.sampleCount),
  }));
  for (const s of file.samples()) {
    const c = out[s.track];
    if (!c) continue;
    c.ptsUs[s.index] = s.ptsUs;
    c.dtsUs[s.index] = s.dtsUs;
    c.size[s.index] = s.size;
  }
  return out;
}

function lowerBound(a: number[], t: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Sizes of one traf's trun payload and its samples' bytes, as the muxer writes them. */
function runSize(pts: number[], dts: number[], sizes: number[]): { header: number; data: number } {
  let offsets = false;
  let kept = 0;
  let data = 0;
  for (let i = 0; i < pts.length; i++) {
    offsets ||= pts[i] !== dts[i];
    kept++;
    data += sizes[i];
  }
  return kept === 0 ? { header: 0, data: 0 } : { header: TRAF_FIXED + kept * (offsets ? 16 : 12), data };
}

/**
 * The predicted layout of `file`'s remux, or null when the file is outside the model (NAL length
 * prefixes other than 4 bytes, a timescale above 1 MHz, ADTS-framed audio) and must be measured.
 * `adtsAudio` says whether the audio samples carry ADTS headers (the caller reads one to know).
 */
export function predictRemuxLayout(
  file: Mp4File,
  plan: VodSegmentInfo[],
  initSize: number,
  adtsAudio: boolean,
): RemuxLayout | null {
  const vod = file.vod;
  if (!vod || plan.length === 0) return null;
  const video = file.tracks[vod.videoTrack];
  const audio = vod.audioTrack === undefined ? undefined : file.tracks[vod.audioTrack];
  if (!video || video.nalLengthSize !== 4 || video.timescale <= 0 || video.timescale > 1e6) return null;
  if (audio && (adtsAudio || audio.timescale <= 0 || audio.timescale > 1e6)) return null;

  const cols = columns(file);
  const v = cols[vod.videoTrack];
  const T = video.timescale;
  const ticks = (us: number) => scale(us, T, 1e6); // exact inverse of the demuxer's ToUs for T <= 1 MHz
  const first = plan[0].firstSample;
  const n = video.sampleCount;
  let minPts = Infinity;
  for (let i = first; i < n; i++) minPts = Math.min(minPts, ticks(v.ptsUs[i]));
  // Mp4Vod: decode times shifted so that none precedes the first presented frame.
  const shift = Math.max(0, minPts - ticks(v.dtsUs[first]));
  const originUs = scale(minPts, 1e6, T);
  const muxTicks = (us: number, ts: number) => scale(us - originUs, ts, 1e6);

  let aPts: number[] = [];
  if (audio) {
    const a = cols[vod.audioTrack!];
    aPts = a.ptsUs.slice();
    for (let i = 1; i < aPts.length; i++) aPts[i] = Math.max(aPts[i], aPts[i - 1]);
  }

  const sizes: number[] = [];
  for (let k = 0; k < plan.length; k++) {
    const seg = plan[k];
    let moof = MOOF_FIXED;
    let mdat = MDAT_HEADER;
    // Video: samples with bytes; strictly increasing decode ticks; none before the origin.
    {
      const pts: number[] = [];
      const dts: number[] = [];
      const sz: number[] = [];
      let prev = -Infinity;
      for (let i = seg.firstSample; i <= seg.lastSample; i++) {
        if (v.size[i] === 0) continue;
        const p = muxTicks(v.ptsUs[i], T);
        let d = muxTicks(scale(ticks(v.dtsUs[i]) + shift, 1e6, T), T);
        if (d <= prev) d = prev + 1;
        prev = d;
        if (d < 0) continue;
        pts.push(p);
        dts.push(d);
        sz.push(v.size[i]);
      }
      const run = runSize(pts, dts, sz);
      moof += run.header;
      mdat += run.data;
    }
    if (audio) {
      const a = cols[vod.audioTrack!];
      const startAbs = seg.startUs + originUs;
      const first = k === 0 ? 0 : lowerBound(aPts, startAbs);
      let end = k + 1 < plan.length ? lowerBound(aPts, plan[k + 1].startUs + originUs) : aPts.length;
      end = Math.max(end, first);
      const pts: number[] = [];
      const dts: number[] = [];
      const sz: number[] = [];
      let prev = -Infinity;
      for (let i = first; i < end; i++) {
        if (a.size[i] === 0) continue;
        const p = muxTicks(aPts[i], audio.timescale);
        let d = p;
        if (d <= prev) d = prev + 1;
        prev = d;
        if (d < 0) continue; // audio before the first frame (AAC priming)
        pts.push(p);
        dts.push(d);
        sz.push(a.size[i]);
      }
      const run = runSize(pts, dts, sz);
      moof += run.header;
      mdat += run.data;
    }
    sizes.push(moof + mdat);
  }
  return layoutOf(initSize, sizes);
}
