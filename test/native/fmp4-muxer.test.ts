// Fmp4Muxer with real ffmpeg media, fed the way the stream socket delivers it (pts only, Annex B
// access units, raw AAC), cut at keyframes like an HLS segmenter. The output is checked by
// ffprobe and by walking its boxes.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import test from 'ava';

import {
  Fmp4Muxer,
  type Fragment,
  type MuxTrack,
  ZmNativeError,
  describeCodec,
  loadBinding,
} from '../../src/native/index.js';
import { type ClipSpec, type MediaClip, type MediaFrame, mediaClip, probeFile } from '../helpers/media.js';

const scratch = mkdtempSync(join(tmpdir(), 'zmgate-13-'));
test.after.always(() => rmSync(scratch, { recursive: true, force: true }));

interface Box {
  type: string;
  offset: number;
  size: number;
  children: Box[];
}
const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'dinf', 'mvex', 'moof', 'traf']);

/** Walks boxes; throws unless every size adds up exactly inside its parent. */
function walk(buf: Buffer, begin = 0, end = buf.length): Box[] {
  const out: Box[] = [];
  for (let pos = begin; pos < end;) {
    if (end - pos < 8) throw new Error(`truncated box header at ${pos}`);
    const size = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    if (size < 8 || pos + size > end) throw new Error(`box ${type} at ${pos} overruns its parent`);
    out.push({ type, offset: pos, size, children: CONTAINERS.has(type) ? walk(buf, pos + 8, pos + size) : [] });
    pos += size;
  }
  return out;
}
const child = (b: Box, type: string) => b.children.find((c) => c.type === type);

interface Item {
  track: number;
  frame: MediaFrame;
}

/** Feeds a clip like zmc delivers it and cuts one fragment per GOP. */
function muxClip(clip: MediaClip, withAudio: boolean): { init: Buffer; fragments: Fragment[]; muxer: Fmp4Muxer } {
  const tracks: MuxTrack[] = [{ codec: clip.video.codec as 'h264' | 'h265', extradata: clip.video.extradata }];
  if (withAudio && clip.audio) tracks.push({ codec: 'aac', extradata: clip.audio.extradata });
  const muxer = new Fmp4Muxer(tracks);
  const items: Item[] = clip.video.frames.map((frame) => ({ track: 0, frame }));
  if (withAudio && clip.audio) items.push(...clip.audio.frames.map((frame) => ({ track: 1, frame })));
  items.sort((a, b) => a.frame.dtsUs - b.frame.dtsUs || a.track - b.track);
  const fragments: Fragment[] = [];
  let pushedVideo = 0;
  for (const { track, frame } of items) {
    if (track === 0 && frame.keyframe && pushedVideo > 0) {
      const f = muxer.cut({ endUs: frame.ptsUs });
      if (f) fragments.push(f);
    }
    muxer.addSample(track, { ptsUs: frame.ptsUs, keyframe: frame.keyframe, data: frame.data });
    if (track === 0) pushedVideo++;
  }
  const frameUs = Math.round(1e6 / clip.spec.fps);
  const lastPts = Math.max(...clip.video.frames.map((f) => f.ptsUs));
  const last = muxer.cut({ endUs: lastPts + frameUs });
  if (last) fragments.push(last);
  return { init: muxer.initSegment(), fragments, muxer };
}

for (const [name, spec, withAudio] of [
  ['H.264 baseline', { video: 'h264-baseline' }, false],
  ['H.264 high with B-frames', { video: 'h264-high-bframes' }, false],
  ['H.265 main', { video: 'h265' }, false],
  ['H.264 + AAC', { video: 'h264-high', audio: 'aac' }, true],
] as Array<[string, ClipSpec, boolean]>) {
  test(`${name}: ffprobe reads the fMP4 cleanly; frames, duration and boxes check out`, async (t) => {
    const clip = await mediaClip(spec);
    const { init, fragments, muxer } = muxClip(clip, withAudio);
    const file = join(scratch, `${name.replace(/\W+/g, '_')}.mp4`);
    writeFileSync(file, Buffer.concat([init, ...fragments.map((f) => f.data)]));

    const probe = await probeFile(file);
    t.is(probe.errors, '', 'ffprobe -v error prints nothing');
    t.is(probe.frames, clip.video.frames.length);
    const frameUs = 1e6 / clip.spec.fps;
    t.true(
      Math.abs(probe.durationUs - clip.video.probe.durationUs) <= frameUs,
      `duration ${probe.durationUs} vs ${clip.video.probe.durationUs}`,
    );
    t.is(probe.width, clip.video.width!);
    t.is(probe.height, clip.video.height!);
    if (withAudio) t.is(probe.audioFrames, clip.audio!.frames.length);

    // Codec strings agree with a separate parse of the same parameter sets.
    const described = describeCodec(clip.video.codec as 'h264' | 'h265', clip.video.extradata)!;
    t.is(muxer.info().tracks[0]!.codecString, described.codecString);
    t.is(muxer.codecs(), withAudio ? `${described.codecString},mp4a.40.2` : described.codecString);

    // Box walk: init = ftyp + moov; each fragment = moof + mdat; tfdt grows; trun counts add up.
    const initBoxes = walk(init);
    t.deepEqual(
      initBoxes.map((b) => b.type),
      ['ftyp', 'moov'],
    );
    const trackCount = withAudio ? 2 : 1;
    t.is(initBoxes[1]!.children.filter((b) => b.type === 'trak').length, trackCount);
    const lastTfdt = new Map<number, number>();
    const samples = new Map<number, number>();
    for (const [i, frag] of fragments.entries()) {
      const boxes = walk(frag.data);
      t.deepEqual(
        boxes.map((b) => b.type),
        ['moof', 'mdat'],
      );
      t.is(frag.sequence, i + 1);
      t.true(frag.independent, 'every fragment starts with a keyframe');
      const moof = boxes[0]!;
      t.is(frag.data.readUInt32BE(child(moof, 'mfhd')!.offset + 12), i + 1);
      let dataBytes = 0;
      for (const traf of moof.children.filter((b) => b.type === 'traf')) {
        const trackId = frag.data.readUInt32BE(child(traf, 'tfhd')!.offset + 12);
        const tfdt = Number(frag.data.readBigUInt64BE(child(traf, 'tfdt')!.offset + 12));
        if (lastTfdt.has(trackId)) t.true(tfdt > lastTfdt.get(trackId)!, 'tfdt increases');
        lastTfdt.set(trackId, tfdt);
        const trun = child(traf, 'trun')!;
        const count = frag.data.readUInt32BE(trun.offset + 12);
        samples.set(trackId, (samples.get(trackId) ?? 0) + count);
        const flags = frag.data.readUInt32BE(trun.offset + 8) & 0xffffff;
        const entry = 12 + (flags & 0x800 ? 4 : 0);
        for (let s = 0; s < count; s++) dataBytes += frag.data.readUInt32BE(trun.offset + 20 + s * entry + 4);
        t.is(frag.tracks.find((x) => x.trackId === trackId)!.sampleCount, count);
      }
      t.is(boxes[1]!.size, 8 + dataBytes, 'mdat holds exactly the trun sample sizes');
    }
    t.is(samples.get(1), clip.video.frames.length);
    if (withAudio)
      t.is(samples.get(2), clip.audio!.frames.filter((f) => f.ptsUs >= clip.audio!.frames[0]!.ptsUs).length);
    if (spec.video === 'h264-high-bframes') {
      const trun = child(child(walk(fragments[0]!.data)[0]!, 'traf')!, 'trun')!;
      t.is(fragments[0]!.data[trun.offset + 8], 1, 'trun version 1: signed composition offsets');
    }
    // Segment durations on the source clock: one per GOP, 1 s each.
    for (const f of fragments)
      t.true(
        Math.abs(f.tracks[0]!.endUs - f.tracks[0]!.startUs - 1e6) <= frameUs,
        `${f.tracks[0]!.startUs}..${f.tracks[0]!.endUs}`,
      );
  });
}

test('ready mode emits only final samples (an LL-HLS part), then the rest', async (t) => {
  const clip = await mediaClip({ video: 'h264-high-bframes' });
  const muxer = new Fmp4Muxer([{ codec: 'h264', extradata: clip.video.extradata }]);
  const parts: Fragment[] = [];
  for (const f of clip.video.frames.slice(0, 30)) {
    muxer.addSample(0, { ptsUs: f.ptsUs, keyframe: f.keyframe, data: f.data });
    const part = muxer.cut({ mode: 'ready' });
    if (part) parts.push(part);
  }
  const rest = muxer.cut({ endUs: clip.video.frames[30]!.ptsUs });
  const total = parts.reduce((a, p) => a + p.tracks[0]!.sampleCount, 0) + rest!.tracks[0]!.sampleCount;
  t.is(total, 30);
  t.true(parts.length > 20, 'most samples are final soon after arrival');
  t.true(parts[0]!.independent);
  const file = join(scratch, 'parts.mp4');
  writeFileSync(file, Buffer.concat([muxer.initSegment(), ...parts.map((p) => p.data), rest!.data]));
  const probe = await probeFile(file);
  t.is(probe.errors, '');
  t.is(probe.frames, 30);
});

test('G.711 is refused (fMP4 for MSE cannot carry it), parameter sets can come in-band, input is validated', async (t) => {
  t.false(Fmp4Muxer.supports('pcmu'));
  t.false(Fmp4Muxer.supports('av1'));
  t.true(Fmp4Muxer.supports('opus'));
  t.throws(() => new Fmp4Muxer([{ codec: 'pcmu' as never }]), { instanceOf: RangeError, message: /G\.711/ });
  const raw = loadBinding();
  const err = t.throws(() => new raw.Fmp4Muxer([{ codec: 'pcma' }]), { instanceOf: ZmNativeError });
  t.is(err.code, 'ERR_ZM_MUX_CODEC_UNSUPPORTED');

  const clip = await mediaClip({ video: 'h264-high', audio: 'pcmu' });
  t.is(Fmp4Muxer.trackFromCodec(describeCodec('pcmu', Buffer.alloc(0))!), null);
  const muxer = new Fmp4Muxer([{ codec: 'h264' }]); // no extradata: learnt from the first keyframe
  t.false(muxer.initReady);
  const notReady = t.throws(() => muxer.initSegment(), { instanceOf: ZmNativeError });
  t.is(notReady.code, 'ERR_ZM_MUX_NOT_READY');
  const f0 = clip.video.frames[0]!;
  muxer.addSample(0, { ptsUs: f0.ptsUs, keyframe: true, data: f0.data });
  t.true(muxer.initReady);
  t.is(muxer.info().tracks[0]!.width, 640);

  t.throws(() => new Fmp4Muxer([]), { instanceOf: TypeError });
  t.throws(() => new Fmp4Muxer([{ codec: 'aac' }]), {
    instanceOf: TypeError,
    message: /AudioSpecificConfig\) or sampleRate/,
  });
  t.throws(() => new Fmp4Muxer([{ codec: 'h264', widht: 3 } as never]), {
    instanceOf: TypeError,
    message: /unknown option "widht"/,
  });
  t.throws(() => muxer.addSample(1, { ptsUs: 0, data: f0.data }), { instanceOf: RangeError });
  t.throws(() => muxer.addSample(0, { ptsUs: 1.5, data: f0.data }), { instanceOf: TypeError });
  t.throws(() => muxer.addSample(0, { ptsUs: 0, data: 'x' as never }), { instanceOf: TypeError });
  t.throws(() => muxer.cut({ mode: 'some' as never }), { instanceOf: RangeError });
  const bad = t.throws(() => new Fmp4Muxer([{ codec: 'aac', extradata: Buffer.from([0xf8]) }]), {
    instanceOf: ZmNativeError,
  });
  t.is(bad.code, 'ERR_ZM_BITSTREAM');
});
