// Cost of the native media path for a 1080p30 H.264 stream at ~4 Mbit/s (ffmpeg-generated):
//   socket+parse  StreamClient reading protocol v1 from a unix socket (server in a child process)
//   mux           Fmp4Muxer: Annex B → fMP4, one fragment per GOP (samples already in memory)
//   parse+mux     both, records from the client fed straight into the muxer
// CPU is process.cpuUsage() (all threads: the native reader thread included) per second of media.
// Run: npx tsx bench/native-mux.ts [seconds=10]

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Fmp4Muxer, StreamClient } from '../src/native/index.js';
import { encodeMessage, helloPayload, MSG } from '../test/helpers/fake-zmc.js';
import { type MediaClip, mediaClip } from '../test/helpers/media.js';
import { report } from './_results.js';

const seconds = Number(process.argv[2] ?? 10);
const clip = await mediaClip({
  video: 'h264-high',
  width: 1920,
  height: 1080,
  fps: 30,
  seconds,
  bitrate: '4M',
  noise: true,
});
const frames = clip.video.frames;
const mediaBytes = frames.reduce((a, f) => a + f.data.length, 0);
const mediaSeconds = frames.length / clip.spec.fps;

function cpuMs<T>(fn: () => T): { result: T; ms: number } {
  const c0 = process.cpuUsage();
  const result = fn();
  const c = process.cpuUsage(c0);
  return { result, ms: (c.user + c.system) / 1000 };
}

function muxAll(input: MediaClip['video']['frames']): number {
  const muxer = new Fmp4Muxer([{ codec: 'h264', extradata: clip.video.extradata }]);
  let out = muxer.initSegment().length;
  let pushed = 0;
  for (const f of input) {
    if (f.keyframe && pushed > 0) out += muxer.cut({ endUs: f.ptsUs })?.data.length ?? 0;
    muxer.addSample(0, { ptsUs: f.ptsUs, keyframe: f.keyframe, data: f.data });
    pushed++;
  }
  return out + (muxer.cut()?.data.length ?? 0);
}

/** Serves the whole stream from a child process, so its CPU is not counted here. */
async function socketRun(withMux: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'zmbench-'));
  const path = join(dir, 'stream_1.sock');
  const file = join(dir, 'stream.bin');
  const parts = [encodeMessage({ type: MSG.hello, stream: 0, generation: 1 }, helloPayload(clip.video))];
  frames.forEach((f, i) =>
    parts.push(
      encodeMessage(
        { type: MSG.media, stream: 0, flags: f.keyframe ? 1 : 0, sequence: i, generation: 1, ptsUs: 1e12 + f.ptsUs },
        f.data,
      ),
    ),
  );
  writeFileSync(file, Buffer.concat(parts));
  const server = spawn(
    process.execPath,
    [
      '-e',
      `
    const net = require('node:net'), fs = require('node:fs');
    net.createServer((s) => fs.createReadStream(${JSON.stringify(file)}).pipe(s)).listen(${JSON.stringify(path)}, () => console.log('ready'));
  `,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise((r) => server.stdout!.once('data', r));

  const muxer = withMux ? new Fmp4Muxer([{ codec: 'h264', extradata: clip.video.extradata }]) : undefined;
  let received = 0;
  const c0 = process.cpuUsage();
  const client = new StreamClient({ path });
  await new Promise<void>((resolve) => {
    client.on('media', (m) => {
      if (muxer) {
        if (m.keyframe && received > 0) muxer.cut({ endUs: m.ptsUs });
        muxer.addSample(0, { ptsUs: m.ptsUs, keyframe: m.keyframe, data: m.data });
      }
      if (++received === frames.length) resolve();
    });
  });
  muxer?.cut();
  const c = process.cpuUsage(c0);
  await client.close();
  server.kill();
  rmSync(dir, { recursive: true, force: true });
  return (c.user + c.system) / 1000;
}

muxAll(frames.slice(0, 60)); // warm-up
const rows: Array<[string, number]> = [];
rows.push(['socket+parse', await socketRun(false)]);
rows.push(['mux', cpuMs(() => muxAll(frames)).ms]);
rows.push(['parse+mux', await socketRun(true)]);

const mbit = (mediaBytes * 8) / mediaSeconds / 1e6;
console.log(
  `input: ${frames.length} frames, ${clip.spec.width}x${clip.spec.height}@${clip.spec.fps}, ${mediaSeconds.toFixed(1)} s, ${mbit.toFixed(2)} Mbit/s, ${(mediaBytes / 1e6).toFixed(1)} MB`,
);
console.log('| stage        | CPU ms | CPU ms per media s | % of one core | MB/s per core |');
console.log('|--------------|-------:|-------------------:|--------------:|--------------:|');
for (const [name, ms] of rows) {
  const perSecond = ms / mediaSeconds;
  console.log(
    `| ${name.padEnd(12)} | ${ms.toFixed(1).padStart(6)} | ${perSecond.toFixed(2).padStart(18)} | ${(perSecond / 10).toFixed(3).padStart(12)}% | ${(mediaBytes / 1e6 / (ms / 1000)).toFixed(0).padStart(13)} |`,
  );
  if (name === 'socket+parse')
    report({
      measure: 'ingest into a JS listener (socket + parse), H.264',
      unit: 'MB/s per core',
      value: mediaBytes / 1e6 / (ms / 1000),
      decimals: 0,
    });
}
