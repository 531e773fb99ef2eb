// Mp4File / remux / VOD segments over ffmpeg-made recordings: progressive (moov last), faststart,
// fragmented the way ZoneMinder 1.39 records (and other fragment layouts), QuickTime .mov; H.264
// with B-frames, H.265, AAC. ffprobe/ffmpeg must read every output cleanly, with the source's frame
// count and duration. In-progress (truncated) fragmented files and unusable inputs are covered too.

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import test from 'ava';

import { Fmp4Muxer, Mp4File, ZmNativeError, describeCodec, remux } from '../../src/native/index.js';
import { type ClipSpec, type MediaClip, displayMatrixOf, mediaClip, probeFile } from '../helpers/media.js';

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'zmgate-15-'));
test.after.always(() => {
  rmSync(scratch, { recursive: true, force: true });
});

type Layout = 'progressive' | 'faststart' | 'fragmented' | 'fragmented-separate' | 'fragmented-absolute' | 'mov';
const MOVFLAGS: Record<Layout, string[]> = {
  progressive: [],
  faststart: ['-movflags', '+faststart'],
  // What ZoneMinder 1.39's recorder produces: empty moov, a fragment per keyframe, moof-relative offsets.
  fragmented: ['-movflags', 'frag_keyframe+empty_moov+default_base_moof'],
  'fragmented-separate': ['-movflags', 'frag_keyframe+empty_moov+separate_moof+default_base_moof'],
  'fragmented-absolute': ['-movflags', 'frag_keyframe+empty_moov'], // tfhd base_data_offset
  mov: [],
};

/** The clip's reference .mov rewrapped (no re-encoding) in `layout`. */
async function variant(clip: MediaClip, layout: Layout, name: string): Promise<string> {
  if (layout === 'mov') return clip.file;
  const out = join(scratch, `${name}-${layout}.mp4`);
  await run('ffmpeg', ['-v', 'error', '-y', '-i', clip.file, '-c', 'copy', ...MOVFLAGS[layout], out]);
  return out;
}

async function collect(gen: AsyncGenerator<Buffer>): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const b of gen) out.push(b);
  return out;
}

/** The tkhd identity matrix (16.16 a, d; 2.30 w). */
const IDENTITY_MATRIX = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000];

const CASES: Array<[string, ClipSpec, Layout[]]> = [
  [
    'H.264 B-frames + AAC',
    { video: 'h264-high-bframes', audio: 'aac' },
    ['progressive', 'faststart', 'fragmented', 'fragmented-separate', 'fragmented-absolute', 'mov'],
  ],
  ['H.265 + AAC', { video: 'h265', audio: 'aac' }, ['progressive', 'fragmented']],
  ['H.264 baseline', { video: 'h264-baseline' }, ['faststart', 'fragmented']],
];

for (const [name, spec, layouts] of CASES) {
  for (const layout of layouts) {
    test(`${name}, ${layout}: remux to fMP4 reads cleanly with the same frames and duration`, async (t) => {
      const clip = await mediaClip(spec);
      const src = await variant(clip, layout, name.replace(/\W+/g, '_'));
      const file = await Mp4File.open(src);
      t.teardown(() => file.close());
      t.is(file.fragmented, layout.startsWith('fragmented'));
      t.false(file.truncated);
      const video = file.tracks[file.vod!.videoTrack]!;
      t.is(video.codec, clip.video.codec);
      t.is(video.sampleCount, clip.video.frames.length);
      t.is(video.width, clip.video.width!);
      t.is(video.height, clip.video.height!);
      t.deepEqual(video.matrix, IDENTITY_MATRIX, 'an unrotated source');
      t.truthy(video.muxTrack);
      t.is(file.vod!.codecs.split(',').length, spec.audio ? 2 : 1);
      const frameUs = 1e6 / clip.spec.fps;
      t.true(
        Math.abs(file.vod!.durationUs - clip.video.probe.durationUs) <= frameUs,
        `${file.vod!.durationUs} vs ${clip.video.probe.durationUs}`,
      );

      // Samples in decode order: every frame once, keyframes where the source has them.
      const samples = [...file.samples()];
      const videoSamples = samples.filter((s) => s.track === file.vod!.videoTrack);
      t.is(videoSamples.length, clip.video.frames.length);
      t.deepEqual(
        videoSamples.map((s) => s.keyframe),
        clip.video.frames.map((f) => f.keyframe),
      );
      for (let i = 1; i < samples.length; i++) t.true(samples[i]!.dtsUs >= samples[i - 1]!.dtsUs - 1, 'decode order');
      const first = await file.readSample(videoSamples[0]!);
      t.is(first.readUInt32BE(0) + 4 <= first.length, true, 'length-prefixed');

      const parts = await collect(remux(src));
      t.is(parts.length, 1 + clip.video.frames.filter((f) => f.keyframe).length, 'init + one fragment per GOP');
      const out = join(scratch, `${name.replace(/\W+/g, '_')}-${layout}.remux.mp4`);
      writeFileSync(out, Buffer.concat(parts));
      const probe = await probeFile(out);
      t.is(probe.errors, '', 'ffprobe and a full ffmpeg decode print nothing');
      t.is(probe.frames, clip.video.frames.length);
      t.true(
        Math.abs(probe.durationUs - clip.video.probe.durationUs) <= frameUs,
        `duration ${probe.durationUs} vs ${clip.video.probe.durationUs}`,
      );
      t.is(probe.width, clip.video.width!);
      if (spec.audio) {
        const original = await probeFile(src);
        // AAC priming before the first video frame may be left out.
        t.true(
          Math.abs(probe.audioFrames - original.audioFrames) <= 1,
          `audio ${probe.audioFrames} vs ${original.audioFrames}`,
        );
      }
    });
  }
}

test('VOD segments cut at keyframes near the target; init + segments play through ffmpeg', async (t) => {
  const clip = await mediaClip({ video: 'h264-high-bframes', audio: 'aac', seconds: 5 });
  const file = await Mp4File.open(await variant(clip, 'fragmented', 'vod'));
  t.teardown(() => file.close());
  const plan = file.vodSegments(2);
  t.deepEqual(
    plan.map((s) => [s.startUs, s.durationUs]),
    [
      [0, 2_000_000],
      [2_000_000, 2_000_000],
      [4_000_000, 1_000_000],
    ],
  );
  t.deepEqual(
    plan.map((s) => [s.firstSample, s.lastSample]),
    [
      [0, 59],
      [60, 119],
      [120, 149],
    ],
  );
  t.is(file.vodSegments(4).length, 2);
  // Any order (a player seeks): each segment continues the same timeline.
  const segments = await Promise.all([2, 0, 1].map((i) => file.vodSegment(i, 2)));
  const ordered = [segments[1]!, segments[2]!, segments[0]!];
  const out = join(scratch, 'vod.mp4');
  writeFileSync(out, Buffer.concat([file.vodInit(), ...ordered]));
  const probe = await probeFile(out);
  t.is(probe.errors, '');
  t.is(probe.frames, 150);
  t.true(Math.abs(probe.durationUs - 5_000_000) <= 34_000);
  t.throws(() => file.vodSegment(3, 2), { instanceOf: RangeError });
  t.throws(() => file.vodSegments(0), { instanceOf: RangeError });

  // And as an HLS VOD playlist read by ffmpeg's HLS demuxer from disk.
  const dir = mkdtempSync(join(scratch, 'hls-'));
  writeFileSync(join(dir, 'init.mp4'), file.vodInit());
  const lines = [
    '#EXTM3U',
    '#EXT-X-VERSION:7',
    '#EXT-X-TARGETDURATION:2',
    '#EXT-X-PLAYLIST-TYPE:VOD',
    '#EXT-X-MAP:URI="init.mp4"',
  ];
  for (const [i, s] of plan.entries()) {
    writeFileSync(join(dir, `${i}.mp4`), ordered[i]!);
    lines.push(`#EXTINF:${(s.durationUs / 1e6).toFixed(5)},`, `${i}.mp4`);
  }
  writeFileSync(join(dir, 'index.m3u8'), [...lines, '#EXT-X-ENDLIST', ''].join('\n'));
  const { stderr } = await run('ffmpeg', ['-v', 'error', '-i', join(dir, 'index.m3u8'), '-f', 'null', '-']);
  t.is(stderr.trim(), '');
});

test('a rotated recording (zmc tags the Orientation: a tkhd matrix) keeps its matrix through remux and VOD init; the size stays the coded one', async (t) => {
  const clip = await mediaClip({ video: 'h264-baseline', audio: 'aac' });
  for (const [layout, rotate] of [
    ['progressive', '90'],
    ['fragmented', '270'],
    ['faststart', '180'],
  ] as const) {
    const src = join(scratch, `rotated-${layout}.mp4`);
    await run('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-i',
      clip.file,
      '-c',
      'copy',
      '-metadata:s:v:0',
      `rotate=${rotate}`,
      ...MOVFLAGS[layout],
      src,
    ]);
    const source = await displayMatrixOf(src);
    t.truthy(source, `${layout}: the fixture carries a display matrix`);

    const file = await Mp4File.open(src);
    t.teardown(() => file.close());
    const video = file.tracks[file.vod!.videoTrack]!;
    t.notDeepEqual(video.matrix, IDENTITY_MATRIX, layout);
    t.is(video.width, clip.video.width!, 'width is the coded size, not the rotated one');
    for (const audio of file.tracks.filter((tr) => tr.kind === 'audio')) t.deepEqual(audio.matrix, IDENTITY_MATRIX);

    const remuxed = join(scratch, `rotated-${layout}-remux.mp4`);
    writeFileSync(remuxed, Buffer.concat(await collect(remux(src))));
    const vod = join(scratch, `rotated-${layout}-vod.mp4`);
    writeFileSync(vod, Buffer.concat([file.vodInit(), await file.vodSegment(0)]));
    for (const out of [remuxed, vod]) {
      t.deepEqual(await displayMatrixOf(out), source, `${layout} ${out}`);
      const probe = await probeFile(out);
      t.is(probe.errors, '');
      t.is(probe.width, clip.video.width!);
    }
    const again = await Mp4File.open(remuxed);
    t.deepEqual(again.tracks[again.vod!.videoTrack]!.matrix, video.matrix, 'the same 9 values, byte for byte');
    again.close();
  }
});

test('an in-progress fragmented recording: the unfinished last fragment is ignored', async (t) => {
  const clip = await mediaClip({ video: 'h264-high', audio: 'aac', seconds: 3 });
  const src = await variant(clip, 'fragmented', 'incomplete');
  const whole = readFileSync(src);
  const partial = join(scratch, 'incomplete.h264.mp4');
  writeFileSync(partial, whole);
  truncateSync(partial, whole.length - 5000); // mid-way through the last fragment's mdat
  const file = await Mp4File.open(partial);
  t.teardown(() => file.close());
  t.true(file.truncated);
  const video = file.tracks[file.vod!.videoTrack]!;
  t.true(video.sampleCount < 90 && video.sampleCount >= 60, `${video.sampleCount} frames`);
  const out = join(scratch, 'incomplete.remux.mp4');
  writeFileSync(out, Buffer.concat(await collect(file.remux())));
  const probe = await probeFile(out);
  t.is(probe.errors, '');
  t.is(probe.frames, video.sampleCount);
});

test('track details match what the muxer needs; muxTrack drives Fmp4Muxer directly', async (t) => {
  const clip = await mediaClip({ video: 'h265', audio: 'aac' });
  const file = await Mp4File.open(await variant(clip, 'faststart', 'tracks'));
  t.teardown(() => file.close());
  const [video, audio] = file.tracks;
  t.is(video!.kind, 'video');
  t.is(video!.sampleEntry, 'hvc1');
  t.is(video!.codecString, describeCodec('h265', clip.video.extradata)!.codecString);
  t.is(audio!.codec, 'aac');
  t.is(audio!.codecString, 'mp4a.40.2');
  t.is(audio!.sampleRate, 48000);
  t.is(audio!.channels, 2);
  const muxer = new Fmp4Muxer([video!.muxTrack!, audio!.muxTrack!]);
  t.true(muxer.initReady);
  t.is(muxer.codecs(), file.vod!.codecs);
  for (const s of [...file.samples()].slice(0, 40)) {
    muxer.addSample(s.track, { ptsUs: s.ptsUs, dtsUs: s.dtsUs, keyframe: s.keyframe, data: await file.readSample(s) });
  }
  const fragment = muxer.cut();
  t.truthy(fragment);
  t.true(fragment!.independent);
});

test('unusable inputs fail with stable codes; a closed file refuses work', async (t) => {
  const code = async (path: string) => (await t.throwsAsync(Mp4File.open(path), { instanceOf: ZmNativeError }))!.code;
  t.is(await code(join(scratch, 'missing.mp4')), 'ERR_ZM_MP4_NOT_FOUND');
  t.is(await code(scratch), 'ERR_ZM_MP4_NOT_A_FILE');
  const text = join(scratch, 'text.mp4');
  writeFileSync(text, 'this is not a video file at all, just text\n'.repeat(20));
  t.is(await code(text), 'ERR_ZM_MP4_FORMAT');
  // A progressive MP4 still being written has ftyp + mdat and no moov yet.
  const clip = await mediaClip({ video: 'h264-baseline' });
  const progressive = readFileSync(await variant(clip, 'progressive', 'nomoov'));
  const moov = progressive.indexOf('moov') - 4;
  const recording = join(scratch, 'recording.mp4');
  writeFileSync(recording, progressive.subarray(0, moov));
  t.is(await code(recording), 'ERR_ZM_MP4_NO_MOOV');
  await t.throwsAsync(Mp4File.open(''), { instanceOf: TypeError });

  const file = await Mp4File.open(await variant(clip, 'faststart', 'closed'));
  const pending = file.vodSegment(0, 1); // started before close(): still completes
  file.close();
  t.true((await pending).length > 0);
  t.throws(() => file.vodSegments(1), { message: /closed/ });
  t.throws(() => file.readSample({ track: 0, index: 10_000 }), { instanceOf: RangeError });
});
