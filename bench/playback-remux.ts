// Recorded playback of a one-hour 1080p30 event through the NativeRemuxer, over HTTP (the
// byte-range server of the media routes; no auth or database in the way):
//   - /stream/video.mp4 of a plain MP4 (moov at the end, as ZoneMinder 1.36 writes): time to the
//     first byte cold (open + index + layout) and warm, of a seek to the middle (a Range request),
//     and a whole download: MB/s and CPU seconds;
//   - HLS VOD: the playlist, a segment cold and from the segment cache.
// The event is a 60 s clip (x264 ultrafast, ~4 Mbit/s, AAC) concatenated with -c copy, cached
// in <tmpdir>/zmgate-media-cache/bench-events.
//
// Run: npx tsx bench/playback-remux.ts [minutes=60] [Mbit/s=4]
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import express from 'express';
import { serveBytes } from '../src/media/byte-ranges.js';
import { SegmentCache } from '../src/media/segment-cache.js';
import type { EventRecord } from '../src/features/playback/event-media.js';
import type { RemuxInput } from '../src/features/playback/event-remux.js';
import { NativeRemuxer } from '../src/features/playback/native-remuxer.js';
import { RecordingCache } from '../src/features/playback/recording-cache.js';

const run = promisify(execFile);
const minutes = Number(process.argv[2] ?? 60);
const mbits = Number(process.argv[3] ?? 4);

const dir = join(process.env.ZMGATE_MEDIA_CACHE ?? join(tmpdir(), 'zmgate-media-cache'), 'bench-events');
mkdirSync(dir, { recursive: true });
const clip = join(dir, `clip-60s-1080p-${mbits}M.mp4`);
const event = join(dir, `event-${minutes}min-1080p-${mbits}M-plain.mp4`);
if (!existsSync(clip)) {
  console.log(`(encoding a 60 s 1080p30 clip at ${mbits} Mbit/s with x264 ultrafast)`);
  const tmp = `${clip}.tmp.mp4`;
  await run('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=1920x1080:rate=30',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:sample_rate=48000',
    '-t',
    '60',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-g',
    '30',
    '-b:v',
    `${mbits}M`,
    '-minrate',
    `${mbits}M`,
    '-maxrate',
    `${mbits}M`,
    '-bufsize',
    `${2 * mbits}M`,
    '-x264-params',
    'nal-hrd=cbr',
    '-c:a',
    'aac',
    '-b:a',
    '64k',
    tmp,
  ]);
  await rename(tmp, clip);
}
if (!existsSync(event)) {
  console.log(`(concatenating it into a ${minutes}-minute plain MP4)`);
  const list = join(dir, 'concat.txt');
  writeFileSync(list, Array.from({ length: minutes }, () => `file '${clip}'`).join('\n'));
  const tmp = `${event}.tmp.mp4`;
  await run('ffmpeg', ['-v', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', tmp]);
  await rename(tmp, event);
  await rm(list);
}

const record: EventRecord = {
  id: 1n,
  monitorId: 1,
  inProgress: false,
  orientation: 'ROTATE_0' as EventRecord['orientation'],
  lengthSeconds: minutes * 60,
  width: 1920,
  height: 1080,
  frames: 0,
  defaultVideo: '',
  dir,
};
const input: RemuxInput = { event: record, video: { path: event, name: 'bench.mp4', container: 'mp4' } };

const newRemuxer = () => new NativeRemuxer(new RecordingCache(), new SegmentCache(64 << 20));
let remuxer = newRemuxer();
const app = express();
app.get('/video.mp4', async (req, res) =>
  serveBytes(req, res, (await remuxer.fragmentedMp4(input))!, { cacheControl: 'no-cache' }),
);
app.get('/playlist.m3u8', async (_req, res) =>
  res.type('application/vnd.apple.mpegurl').send(await remuxer.vodPlaylist(input)),
);
app.get('/segment/:n', async (req, res) =>
  serveBytes(req, res, (await remuxer.mediaSegment(input, Number(req.params.n)))!, { cacheControl: 'no-cache' }),
);
const server = http.createServer(app);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** Time to the first body byte; the rest is cancelled unless `drain`. */
async function fetchTimed(path: string, headers: Record<string, string> = {}, drain = false) {
  const t0 = performance.now();
  const res = await fetch(base + path, { headers });
  const reader = res.body!.getReader();
  const first = await reader.read();
  const ttfb = performance.now() - t0;
  let bytes = first.value?.length ?? 0;
  if (drain) {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      bytes += r.value.length;
    }
  } else {
    await reader.cancel();
  }
  return {
    status: res.status,
    ttfb,
    ms: performance.now() - t0,
    bytes,
    length: Number(res.headers.get('content-length')),
  };
}

const size = statSync(event).size;
const cold = await fetchTimed('/video.mp4');
const warm = await fetchTimed('/video.mp4');
const seek = await fetchTimed('/video.mp4', { range: `bytes=${Math.floor(cold.length / 2)}-` });
const c0 = process.cpuUsage();
const whole = await fetchTimed('/video.mp4', {}, true);
const cpu = process.cpuUsage(c0);

console.log(
  `\n### /stream/video.mp4 of a ${minutes}-minute 1080p30 plain MP4 (${(size / 1e6).toFixed(0)} MB, ${mbits} Mbit/s + AAC), remuxed to fMP4`,
);
console.log(
  '| TTFB cold ms | TTFB warm ms | seek to middle TTFB ms | remux size MB | download s | MB/s | CPU s (server+client) |',
);
console.log(
  '|-------------:|-------------:|-----------------------:|--------------:|-----------:|-----:|----------------------:|',
);
console.log(
  `| ${cold.ttfb.toFixed(1).padStart(12)} | ${warm.ttfb.toFixed(1).padStart(12)} | ${seek.ttfb.toFixed(1).padStart(22)} | ${(whole.bytes / 1e6).toFixed(0).padStart(13)} | ${(whole.ms / 1000).toFixed(2).padStart(10)} | ${(whole.bytes / 1e6 / (whole.ms / 1000)).toFixed(0).padStart(4)} | ${((cpu.user + cpu.system) / 1e6).toFixed(2).padStart(21)} |`,
);
if (whole.bytes !== whole.length || seek.status !== 206)
  console.log(`!! unexpected: ${whole.bytes} bytes of ${whole.length}, seek status ${seek.status}`);

remuxer = newRemuxer(); // cold again
const p0 = performance.now();
const playlist = await (await fetch(`${base}/playlist.m3u8`)).text();
const playlistMs = performance.now() - p0;
const segments = playlist.split('\n').filter((l) => l.startsWith('segment/')).length;
const mid = Math.floor(segments / 2);
const segCold = await fetchTimed(`/segment/${mid}`, {}, true);
const segWarm = await fetchTimed(`/segment/${mid}`, {}, true);
console.log(`\n### HLS VOD of the same event (${segments} segments of ~4 s)`);
console.log('| playlist cold ms | segment cold ms | segment cached ms | segment KB |');
console.log('|-----------------:|----------------:|------------------:|-----------:|');
console.log(
  `| ${playlistMs.toFixed(1).padStart(16)} | ${segCold.ms.toFixed(1).padStart(15)} | ${segWarm.ms.toFixed(1).padStart(17)} | ${(segCold.bytes / 1024).toFixed(0).padStart(10)} |`,
);

server.closeAllConnections();
server.close();
remuxer.recordings.clear();
