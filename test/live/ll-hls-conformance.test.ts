// LL-HLS conformance (RFC 8216bis) of the packager's media playlist as a client sees it: a real
// H.264 clip is fed as stream records with camera-like timing (jittered frame intervals, a zmc
// restart that lowers the frame rate, a GOP longer than the target duration), and the playlist is
// reloaded after every few frames. Every reload is checked on its own (parts within PART-TARGET,
// EXTINF within TARGETDURATION, parts summing to their segment, PART-HOLD-BACK, the preload hint,
// nothing after the last URI but the hint) and against the previous ones (TARGETDURATION and
// PART-TARGET constant, media and discontinuity sequence consistent as the window slides).

import test, { type ExecutionContext } from 'ava';

import { LlHlsPackager, type StreamRecord, describeCodec } from '../../src/native/index.js';
import { type MediaClip, mediaClip } from '../helpers/media.js';

interface Segment {
  msn: number;
  /** Discontinuity sequence number of this segment (EXT-X-DISCONTINUITY-SEQUENCE + tags before it). */
  cc: number;
  parts: { duration: number; uri: string }[];
  extinf?: number;
  uri?: string;
}

interface Playlist {
  targetDuration: number;
  partTarget: number;
  partHoldBack: number;
  mediaSequence: number;
  segments: Segment[];
  hint?: string;
  lines: string[];
}

const attrs = (s: string) =>
  Object.fromEntries(s.split(/,(?=[A-Z-]+=)/).map((kv) => kv.split(/=(.*)/s).slice(0, 2) as [string, string]));
const unquote = (s: string | undefined) => (s ?? '').replace(/^"|"$/g, '');

function parse(text: string): Playlist {
  const lines = text.trimEnd().split('\n');
  const tag = (name: string) => lines.find((l) => l.startsWith(`#${name}:`))?.slice(name.length + 2);
  const mediaSequence = Number(tag('EXT-X-MEDIA-SEQUENCE'));
  let cc = Number(tag('EXT-X-DISCONTINUITY-SEQUENCE') ?? 0);
  const segments: Segment[] = [];
  let current: Segment = { msn: mediaSequence, cc, parts: [] };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l === '#EXT-X-DISCONTINUITY') current.cc = ++cc;
    if (l.startsWith('#EXT-X-PART:')) {
      const a = attrs(l.slice(12));
      current.parts.push({ duration: Number(a.DURATION), uri: unquote(a.URI) });
    }
    if (l.startsWith('#EXTINF:')) {
      current.extinf = Number(l.slice(8).split(',')[0]);
      current.uri = lines[++i]!;
      segments.push(current);
      current = { msn: current.msn + 1, cc, parts: [] };
    }
  }
  if (current.parts.length > 0) segments.push(current);
  const hint = tag('EXT-X-PRELOAD-HINT');
  return {
    targetDuration: Number(tag('EXT-X-TARGETDURATION')),
    partTarget: Number(attrs(tag('EXT-X-PART-INF') ?? '')['PART-TARGET']),
    partHoldBack: Number(attrs(tag('EXT-X-SERVER-CONTROL') ?? '')['PART-HOLD-BACK']),
    mediaSequence,
    segments,
    hint: hint === undefined ? undefined : unquote(attrs(hint).URI),
    lines,
  };
}

/** Deterministic jitter in [-1, 1). */
function jitter(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return (x / 2 ** 31) * 2 - 1;
  };
}

function codecRecords(clip: MediaClip): StreamRecord[] {
  const v = clip.video;
  return [
    {
      type: 'codec',
      stream: 'video',
      generation: 1,
      inBand: false,
      codec: { ...describeCodec('h264', v.extradata)!, codecId: v.codecId, extradata: v.extradata },
    },
  ];
}

interface Phase {
  /** Nominal frame interval (µs) and how far (± µs) each interval strays from it. */
  intervalUs: number;
  jitterUs: number;
  frames: number;
  /** A keyframe every this many frames (a multiple of the clip's GOP). */
  gop: number;
}

/**
 * Reloads and checks the playlist (see the file comment); the state carried between reloads
 * lives here. Returns the reload function and what was seen.
 */
function conformance(t: ExecutionContext, packager: LlHlsPackager) {
  let reloads = 0;
  let first: Playlist | undefined;
  const ccOf = new Map<number, number>(); // msn → discontinuity sequence, as first seen
  const extinfOf = new Map<number, number>();
  let lastMediaSequence = 0;
  let sawNonIndependentSegment = false;
  let sawDiscontinuity = false;

  const reload = (where: string) => {
    const text = packager.playlist({ query: '?s=1' });
    if (text === null) return;
    reloads++;
    const p = parse(text);
    first ??= p;
    t.is(p.targetDuration, first.targetDuration, `${where}: TARGETDURATION never changes`);
    t.is(p.partTarget, first.partTarget, `${where}: PART-TARGET never changes`);
    t.true(
      p.partHoldBack >= 3 * p.partTarget - 1e-9,
      `${where}: PART-HOLD-BACK ${p.partHoldBack} vs PART-TARGET ${p.partTarget}`,
    );
    t.true(p.mediaSequence >= lastMediaSequence, `${where}: MEDIA-SEQUENCE does not go back`);
    lastMediaSequence = p.mediaSequence;
    if (!p.lines.includes('#EXT-X-INDEPENDENT-SEGMENTS')) sawNonIndependentSegment = true;
    if (p.lines.includes('#EXT-X-DISCONTINUITY')) sawDiscontinuity = true;

    for (const s of p.segments) {
      for (const part of s.parts) {
        t.true(
          part.duration > 0 && part.duration <= p.partTarget,
          `${where}: ${part.uri} lasts ${part.duration} > PART-TARGET ${p.partTarget}`,
        );
        t.truthy(packager.get(part.uri.split('?')[0]!), `${where}: ${part.uri} can be fetched`);
      }
      t.is(ccOf.get(s.msn) ?? s.cc, s.cc, `${where}: segment ${s.msn} keeps its discontinuity sequence`);
      ccOf.set(s.msn, s.cc);
      if (s.extinf === undefined) continue;
      t.is(s.uri, `seg-${s.msn}.m4s?s=1`);
      t.true(
        Math.round(s.extinf) <= p.targetDuration,
        `${where}: EXTINF ${s.extinf} rounds above TARGETDURATION ${p.targetDuration}`,
      );
      t.is(extinfOf.get(s.msn) ?? s.extinf, s.extinf, `${where}: segment ${s.msn} keeps its EXTINF`);
      extinfOf.set(s.msn, s.extinf);
      if (s.parts.length > 0) {
        const sum = s.parts.reduce((a, x) => a + x.duration, 0);
        t.true(
          Math.abs(sum - s.extinf) <= 1e-5 * (s.parts.length + 1),
          `${where}: segment ${s.msn} parts sum to ${sum}, EXTINF ${s.extinf}`,
        );
      }
    }
    // The preload hint names the part after the last one listed.
    const last = p.segments.at(-1)!;
    const expected =
      last.extinf === undefined ? `part-${last.msn}.${last.parts.length}.m4s?s=1` : `part-${last.msn + 1}.0.m4s?s=1`;
    t.is(p.hint, expected, `${where}: preload hint`);
    // After the last URI line only the preload hint (or rendition reports) may follow.
    let lastUri = p.lines.length - 1;
    while (lastUri >= 0 && p.lines[lastUri]!.startsWith('#') && !/^#EXT-X-PART:/.test(p.lines[lastUri]!)) lastUri--;
    for (const l of p.lines.slice(lastUri + 1))
      t.regex(l, /^#EXT-X-(PRELOAD-HINT|RENDITION-REPORT):/, `${where}: trailing tag`);
  };

  return {
    reload,
    get reloads() {
      return reloads;
    },
    get first() {
      return first;
    },
    get sawNonIndependentSegment() {
      return sawNonIndependentSegment;
    },
    get sawDiscontinuity() {
      return sawDiscontinuity;
    },
  };
}

test('the playlist stays RFC 8216bis-conformant across reloads: jitter, a generation bump with a lower frame rate, a long GOP', async (t) => {
  // 10 fps, a keyframe every 10 frames; phases reuse the clip's frames in order, so every
  // keyframe flag falls on a real IDR (a "longer GOP" leaves some IDRs unmarked).
  const clip = await mediaClip({ video: 'h264-baseline', width: 160, height: 96, fps: 10, seconds: 6, gopFrames: 10 });
  const frames = clip.video.frames;
  t.is(frames.filter((f) => f.keyframe).length, 6);

  const packager = new LlHlsPackager({ windowSegments: 4 });
  const phases: Phase[] = [
    { intervalUs: 100_000, jitterUs: 30_000, frames: 60, gop: 10 }, // 10 fps, jittered
    { intervalUs: 125_000, jitterUs: 20_000, frames: 60, gop: 10 }, // zmc restarted at 8 fps
    { intervalUs: 100_000, jitterUs: 10_000, frames: 60, gop: 30 }, // restarted again: a 3 s GOP
  ];
  const rnd = jitter(7);
  let ptsUs = 1_700_000_000_000_000;
  let seq = 0;
  const check = conformance(t, packager);
  const reload = check.reload;

  packager.pushRecords([{ type: 'connected', attempt: 1 }, ...codecRecords(clip)]);
  for (const [n, phase] of phases.entries()) {
    if (n > 0) packager.pushRecords([{ type: 'generation', previous: n, current: n + 1 }, ...codecRecords(clip)]);
    for (let i = 0; i < phase.frames; i++) {
      const f = frames[i]!;
      packager.push({
        type: 'media',
        stream: 'video',
        sequence: seq++,
        generation: n + 1,
        ptsUs,
        keyframe: f.keyframe && i % phase.gop === 0,
        cached: false,
        gap: 0,
        data: f.data,
      });
      ptsUs += phase.intervalUs + Math.round(rnd() * phase.jitterUs);
      if (i % 6 === 5) reload(`phase ${n} frame ${i}`);
    }
  }
  t.true(check.reloads >= 28, `${check.reloads} reloads`);
  t.is(check.first!.targetDuration, 2);
  t.true(check.sawDiscontinuity, 'the generation bumps are in the playlist');
  t.true(check.sawNonIndependentSegment, 'the 3 s GOP was split within TARGETDURATION');
  const stats = packager.stats();
  t.is(stats.epochs, 0, '8 fps fits the PART-TARGET advertised at 10 fps');
  t.is(stats.stalls, 0);
  t.true(stats.forcedCuts >= 2);
  t.true(stats.evictedSegments > 0, 'the window slid');

  // The same stream without LL-HLS: complete segments only, a URI last.
  const plain = packager.playlist({ lowLatency: false })!;
  t.notRegex(plain, /#EXT-X-(PART|PART-INF|SERVER-CONTROL|PRELOAD-HINT)[:]/);
  t.regex(plain.trimEnd().split('\n').at(-1)!, /^seg-\d+\.m4s$/);
  t.throws(() => packager.playlist({ lowLatency: 'no' as unknown as boolean }), { instanceOf: TypeError });
});

test('B-frames with jittered capture times: parts stay within PART-TARGET across reloads', async (t) => {
  // Decode order differs from presentation order: each frame's jittered capture time is looked
  // up by its presentation index, as a camera's timestamps would be.
  const clip = await mediaClip({
    video: 'h264-high-bframes',
    width: 160,
    height: 96,
    fps: 10,
    seconds: 4,
    gopFrames: 10,
  });
  const frames = clip.video.frames;
  const rnd = jitter(11);
  const capture: number[] = [];
  for (let k = 0, at = 5_000_000; k < frames.length; k++, at += 100_000 + Math.round(rnd() * 30_000)) capture.push(at);
  const packager = new LlHlsPackager({ windowSegments: 3 });
  const check = conformance(t, packager);
  packager.pushRecords([{ type: 'connected', attempt: 1 }, ...codecRecords(clip)]);
  frames.forEach((f, i) => {
    const ptsUs = capture[Math.round(f.ptsUs / 100_000)]!;
    packager.push({
      type: 'media',
      stream: 'video',
      sequence: i,
      generation: 1,
      ptsUs,
      keyframe: f.keyframe,
      cached: false,
      gap: 0,
      data: f.data,
    });
    if (i % 4 === 3) check.reload(`frame ${i}`);
  });
  t.true(
    frames.some((f, i) => i > 0 && f.ptsUs < frames[i - 1]!.ptsUs),
    'the clip has B-frames',
  );
  t.true(check.reloads >= 8);
  t.is(packager.stats().stalls, 0);
});

test('a restart at a frame rate too low for the advertised PART-TARGET starts a new epoch that clients can follow', async (t) => {
  const clip = await mediaClip({ video: 'h264-baseline', width: 160, height: 96, fps: 10, seconds: 3, gopFrames: 10 });
  const packager = new LlHlsPackager();
  let ptsUs = 1_000_000_000;
  let seq = 0;
  const feed = (generation: number, intervalUs: number, count: number) => {
    for (let i = 0; i < count; i++) {
      const f = clip.video.frames[i]!;
      packager.push({
        type: 'media',
        stream: 'video',
        sequence: seq++,
        generation,
        ptsUs,
        keyframe: f.keyframe,
        cached: false,
        gap: 0,
        data: f.data,
      });
      ptsUs += intervalUs;
    }
  };
  packager.pushRecords([{ type: 'connected', attempt: 1 }, ...codecRecords(clip)]);
  feed(1, 100_000, 30); // 10 fps: PART-TARGET 0.25
  const before = parse(packager.playlist()!);
  t.is(before.partTarget, 0.25);
  packager.pushRecords([{ type: 'generation', previous: 1, current: 2 }, ...codecRecords(clip)]);
  feed(2, 400_000, 12); // 2.5 fps: 400 ms frames cannot be parts of at most 250 ms
  const after = parse(packager.playlist()!);
  t.is(packager.stats().epochs, 1);
  t.is(after.partTarget, 0.6); // one 400 ms frame + half a frame
  t.true(after.mediaSequence > before.segments.at(-1)!.msn, 'only the new epoch is listed; numbering carries on');
  t.is(after.segments[0]!.cc, 1, 'its first segment is after the discontinuity');
  t.false(after.lines.includes('#EXT-X-DISCONTINUITY'));
  for (const s of after.segments) for (const p of s.parts) t.true(p.duration <= after.partTarget);
  t.is(packager.get(before.segments[0]!.uri!.split('?')[0]!), null, 'the old epoch is gone');
});
