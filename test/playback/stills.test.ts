// Thumbnails (snapshot → alarm → capture → analyse → video frame), frame images, Orientation on
// every path (checked on the decoded pixels: where the corner marker went, and the size), the
// still cache, and the bounds of the ffmpeg runner.
import test from 'ava';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ServiceUnavailableError } from '../../src/errors.js';
import { FfmpegError, FfmpegRunner, DEFAULT_FFMPEG_OPTIONS } from '../../src/media/ffmpeg.js';
import { FfmpegJpegRotator, type JpegRotator, type Orientation } from '../../src/media/jpeg-rotate.js';
import { StillCache } from '../../src/media/still-cache.js';
import { insertEventUsers, login, sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import {
  SIZES,
  bytesOf,
  captures,
  fixture,
  insertMediaEvent,
  makeStorages,
  markerCorner,
  probeBuffer,
  startPlaybackApp,
  type MediaEvent,
  type PlaybackApp,
  type StorageRoots,
} from '../helpers/playback.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: PlaybackApp;
let db: FreshDatabase;
let roots: StorageRoots;
let token: string;
const ev: Record<string, MediaEvent> = {};
/** Counts rotations, to see the cache working; delegates to ffmpeg. Tests that compare it run serially. */
let rotations = 0;
const ORIENTATIONS: Orientation[] = ['ROTATE_0', 'ROTATE_90', 'ROTATE_180', 'ROTATE_270', 'FLIP_HORI', 'FLIP_VERT'];
/** Where the top-left marker lands under each orientation (90/270 clockwise, as ZoneMinder means them). */
const CORNER: Record<Orientation, string> = {
  ROTATE_0: 'top-left',
  ROTATE_90: 'top-right',
  ROTATE_180: 'bottom-right',
  ROTATE_270: 'bottom-left',
  FLIP_HORI: 'top-right',
  FLIP_VERT: 'bottom-left',
};
const swapped = (o: Orientation, s: { width: number; height: number }) =>
  o === 'ROTATE_90' || o === 'ROTATE_270' ? { width: s.height, height: s.width } : { width: s.width, height: s.height };

test.before(async () => {
  db = await zmDatabase('pbstills');
  await insertEventUsers(db);
  roots = await makeStorages(db, 'pbstills');
  const all = { ...captures([1, 2]), ...captures([1, 2], 'analyse') };
  ev.snapshot = await insertMediaEvent(db, roots, { files: { 'snapshot.jpg': { fixture: 'snapshot.jpg' }, 'alarm.jpg': { fixture: 'alarm.jpg' }, ...all, '{id}-video.mp4': { fixture: 'h264.mp4' } } });
  ev.alarm = await insertMediaEvent(db, roots, { files: { 'alarm.jpg': { fixture: 'alarm.jpg' }, ...all } });
  ev.capture = await insertMediaEvent(db, roots, { files: { ...captures([3, 4]), '{id}-video.mp4': { fixture: 'h264.mp4' } } });
  ev.analyse = await insertMediaEvent(db, roots, { files: captures([7], 'analyse') });
  ev.video = await insertMediaEvent(db, roots, { scheme: 'Deep', files: { '{id}-video.mp4': { fixture: 'h264.mp4' } }, frameRows: [[1, 0], [31, 2]] });
  ev.none = await insertMediaEvent(db, roots, {});
  ev.live = await insertMediaEvent(db, roots, { end: null, files: { 'snapshot.jpg': { fixture: 'snapshot.jpg' } } });
  ev.named = await insertMediaEvent(db, roots, { files: { 'objdetect.jpg': { fixture: 'objdetect.jpg' }, 'snapshot.jpg': { fixture: 'snapshot.jpg' }, 'alarm.jpg': { fixture: 'alarm.jpg' } } });
  for (const o of ORIENTATIONS) {
    ev[`snap-${o}`] = await insertMediaEvent(db, roots, { orientation: o, files: { 'snapshot.jpg': { fixture: 'snapshot.jpg' } } });
    ev[`video-${o}`] = await insertMediaEvent(db, roots, { orientation: o, scheme: 'Shallow', files: { '{id}-video.mp4': { fixture: 'h264.mp4' } } });
    ev[`frame-${o}`] = await insertMediaEvent(db, roots, { orientation: o, files: captures([1]) });
  }
  ev.tagged = await insertMediaEvent(db, roots, { orientation: 'ROTATE_90', scheme: 'Shallow', files: { '{id}-video.mp4': { fixture: 'h264-rotate90.mp4' } } });
  const runner = new FfmpegRunner({ ...DEFAULT_FFMPEG_OPTIONS, maxConcurrent: 2 });
  const ffmpegRotator = new FfmpegJpegRotator(runner);
  const rotator: JpegRotator = {
    perFrame: false,
    rotateJpeg: (jpeg, o) => {
      rotations++;
      return ffmpegRotator.rotateJpeg(jpeg, o);
    },
  };
  app = await startPlaybackApp(db, { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_ZONEMINDER__DIR_EVENTS: roots.defaultDir }, { runner, rotator });
  token = await login({ api: app.api } as never, 'evview');
});
test.after.always(async () => app?.close());

function get(route: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(app.api(route), { headers: { authorization: `Bearer ${token}`, ...headers } });
}

async function jpegOf(route: string): Promise<Buffer> {
  const res = await get(route);
  if (res.status !== 200) throw new Error(`${route}: ${res.status} ${await res.text()}`);
  if (res.headers.get('content-type') !== 'image/jpeg') throw new Error(`${route}: ${res.headers.get('content-type')}`);
  return bytesOf(res);
}

test('thumbnail fallbacks: snapshot.jpg, then alarm.jpg, then the first capture, then an analysis image, then a frame of the video (320 wide)', async (t) => {
  t.like(await probeBuffer(await jpegOf(`/events/${ev.snapshot.id}/thumbnail`)), SIZES.snapshot);
  t.like(await probeBuffer(await jpegOf(`/events/${ev.alarm.id}/thumbnail`)), SIZES.alarm);
  t.like(await probeBuffer(await jpegOf(`/events/${ev.capture.id}/thumbnail`)), SIZES.capture);
  t.like(await probeBuffer(await jpegOf(`/events/${ev.analyse.id}/thumbnail`)), SIZES.analyse);
  t.like(await probeBuffer(await jpegOf(`/events/${ev.video.id}/thumbnail`)), SIZES.videoThumb);
});

test('thumbnail: nothing to show is 404 FILE_NOT_FOUND; a closed event is cacheable, one in progress is not', async (t) => {
  const none = await get(`/events/${ev.none.id}/thumbnail`);
  t.is(none.status, 404);
  t.like(await none.json(), { kind: 'FILE_NOT_FOUND_ERROR', error_message: 'Thumbnail not found' });
  t.is((await get(`/events/${ev.snapshot.id}/thumbnail`)).headers.get('cache-control'), 'private, max-age=86400');
  t.is((await get(`/events/${ev.live.id}/thumbnail`)).headers.get('cache-control'), 'no-cache');
});

test.serial('ROTATE_0: the stored JPEG is streamed byte for byte (never decoded)', async (t) => {
  const before = rotations;
  const body = await jpegOf(`/events/${ev['snap-ROTATE_0'].id}/thumbnail`);
  t.true(body.equals(readFileSync(await fixture('snapshot.jpg'))));
  t.is(rotations, before);
});

for (const o of ORIENTATIONS) {
  test(`Orientation ${o}: stored thumbnail, video-frame thumbnail and frame image are turned (size and corner marker)`, async (t) => {
    const stored = await markerCorner(await jpegOf(`/events/${ev[`snap-${o}`].id}/thumbnail`));
    t.deepEqual(stored, { ...swapped(o, SIZES.snapshot), corner: CORNER[o] }, 'snapshot.jpg');
    t.like(await probeBuffer(await jpegOf(`/events/${ev[`video-${o}`].id}/thumbnail`)), swapped(o, SIZES.videoThumb), 'video frame');
    const frame = await markerCorner(await jpegOf(`/events/${ev[`frame-${o}`].id}/frames/1/image`));
    t.deepEqual(frame, { ...swapped(o, SIZES.capture), corner: CORNER[o] }, 'frame image');
  });
}

test.serial('a recording that carries its own rotate tag (as zmc writes it) is turned once, by the Orientation, not again by ffmpeg', async (t) => {
  t.like(await probeBuffer(await jpegOf(`/events/${ev.tagged.id}/thumbnail`)), swapped('ROTATE_90', SIZES.videoThumb));
});

test.serial('rotated stills are cached: a second request runs no transform and carries the same ETag', async (t) => {
  const route = `/events/${ev['snap-ROTATE_90'].id}/thumbnail`;
  const first = await get(route);
  await bytesOf(first);
  const before = rotations;
  const second = await get(route);
  t.deepEqual(await bytesOf(second), await jpegOf(route));
  t.is(rotations, before);
  t.is(second.headers.get('etag'), first.headers.get('etag'));
  t.true(app.playback.cache.size.entries > 0);
});

test('frame images: capture by default, ?type=analyse, named stills, the video frame at its offset when no JPEG exists', async (t) => {
  const e = ev.snapshot.id;
  t.like(await probeBuffer(await jpegOf(`/events/${e}/frames/1/image`)), SIZES.capture);
  t.like(await probeBuffer(await jpegOf(`/events/${e}/frames/2/image?type=analyse`)), SIZES.analyse);
  t.like(await probeBuffer(await jpegOf(`/events/${e}/frames/2/image?type=capture`)), SIZES.capture);
  t.like(await probeBuffer(await jpegOf(`/events/${ev.analyse.id}/frames/7/image`)), SIZES.analyse, 'capture missing: the analysis image');
  t.like(await probeBuffer(await jpegOf(`/events/${ev.named.id}/frames/alarm/image`)), SIZES.alarm);
  t.like(await probeBuffer(await jpegOf(`/events/${ev.named.id}/frames/snapshot/image`)), SIZES.snapshot);
  t.like(await probeBuffer(await jpegOf(`/events/${ev.named.id}/frames/objdetect/image`)), SIZES.objdetect);
  // No JPEGs: frame 16 of the recording (between rows 1 @ 0 s and 31 @ 2 s: 1 s in), full size.
  t.like(await probeBuffer(await jpegOf(`/events/${ev.video.id}/frames/16/image`)), SIZES.video);
  const res = await get(`/events/${e}/frames/1/image`);
  t.is(res.headers.get('cache-control'), 'private, max-age=86400');
});

test('frame images: 404 when there is no such image, 400 for a bad fid or type', async (t) => {
  for (const route of [`/events/${ev.alarm.id}/frames/99/image`, `/events/${ev.none.id}/frames/alarm/image`, `/events/${ev.analyse.id}/frames/7/image?type=capture`, `/events/${ev.capture.id}/frames/3/image?type=analyse`]) {
    const res = await get(route);
    t.is(res.status, 404, route);
    t.is((await res.json()).kind, 'FILE_NOT_FOUND_ERROR');
  }
  for (const [route, field] of [
    [`/events/${ev.alarm.id}/frames/0/image`, 'fid'],
    [`/events/${ev.alarm.id}/frames/abc/image`, 'fid'],
    [`/events/${ev.alarm.id}/frames/..%2F..%2Fetc/image`, 'fid'],
    [`/events/${ev.alarm.id}/frames/1/image?type=bogus`, 'type'],
    [`/events/${ev.alarm.id}/frames/1/image?type=capture&type=analyse`, 'type'],
  ]) {
    const res = await get(route);
    t.is(res.status, 400, route);
    t.is((await res.json()).details[0][0], field, route);
  }
});

test('/frames/{id}/image: the image of a Frames row; a missing row is 404', async (t) => {
  await sql(db, 'INSERT INTO Frames (EventId, FrameId, Type, Score, Delta) VALUES (?, 2, ?, 0, 0.2)', [ev.alarm.id, 'Alarm']);
  const [row] = await sql(db, 'SELECT Id FROM Frames WHERE EventId = ? AND FrameId = 2', [ev.alarm.id]);
  t.like(await probeBuffer(await jpegOf(`/frames/${row.Id}/image`)), SIZES.capture);
  t.like(await probeBuffer(await jpegOf(`/frames/${row.Id}/image?type=analyse`)), SIZES.analyse);
  const missing = await get('/frames/99999999/image');
  t.is(missing.status, 404);
  t.is((await missing.json()).kind, 'NOT_FOUND_ERROR');
  t.is((await get('/frames/x/image')).status, 400);
});

test('fifty thumbnails at once: all answered, never more ffmpeg processes than the bound', async (t) => {
  const events: number[] = [];
  for (let i = 0; i < 50; i++) events.push((await insertMediaEvent(db, roots, { scheme: 'Shallow', files: { '{id}-video.mp4': { fixture: 'h264.mp4' } } })).id);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, app.playback.runner.running)), 2);
  try {
    const results = await Promise.all(events.map(async (id) => (await get(`/events/${id}/thumbnail`)).status));
    t.deepEqual([...new Set(results)], [200]);
  } finally {
    clearInterval(sampler);
  }
  t.true(peak >= 1 && peak <= 2, `peak ${peak}`);
  t.is(app.playback.runner.running, 0);
});

test('the runner: concurrency bound, queue limit (503), timeout kill, failed exit', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'zmgate-runner-'));
  const script = path.join(dir, 'fake.sh');
  writeFileSync(script, '#!/bin/sh\nsleep "${ZMGATE_FAKE_SLEEP:-0.2}"\necho done\n');
  chmodSync(script, 0o755);
  const runner = new FfmpegRunner({ ...DEFAULT_FFMPEG_OPTIONS, ffprobe: script, maxConcurrent: 2, maxQueued: 3, timeoutMs: 5000 });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, runner.running)), 5);
  const jobs = [1, 2, 3, 4, 5].map(() => runner.ffprobe([]));
  const refused = runner.ffprobe([]);
  t.true((await t.throwsAsync(refused)) instanceof ServiceUnavailableError);
  const out = await Promise.all(jobs);
  clearInterval(sampler);
  t.deepEqual(out.map((b) => b.toString().trim()), ['done', 'done', 'done', 'done', 'done']);
  t.is(peak, 2);
  t.is(runner.running, 0);

  const slow = new FfmpegRunner({ ...DEFAULT_FFMPEG_OPTIONS, ffprobe: script, timeoutMs: 150 });
  process.env.ZMGATE_FAKE_SLEEP = '5';
  try {
    const started = Date.now();
    const err = await t.throwsAsync(slow.ffprobe([]));
    t.true(err instanceof FfmpegError);
    t.regex(err!.message, /timed out/);
    t.true(Date.now() - started < 3000);
  } finally {
    delete process.env.ZMGATE_FAKE_SLEEP;
  }
  const failing = new FfmpegRunner({ ...DEFAULT_FFMPEG_OPTIONS, ffprobe: '/nonexistent/ffprobe' });
  t.true((await t.throwsAsync(failing.ffprobe([]))) instanceof FfmpegError);
});

test('the still cache: byte budget, least recently used out, oversized results not kept, one computation for concurrent callers', async (t) => {
  const cache = new StillCache(10, 6);
  cache.put('a', Buffer.alloc(4));
  cache.put('b', Buffer.alloc(4));
  t.truthy(cache.get('a')); // a is now the most recent
  cache.put('c', Buffer.alloc(4));
  t.truthy(cache.get('a'));
  t.is(cache.get('b'), undefined);
  cache.put('big', Buffer.alloc(7));
  t.is(cache.get('big'), undefined);
  t.true(cache.size.bytes <= 10);
  let made = 0;
  const make = async () => {
    made++;
    await new Promise((r) => setTimeout(r, 20));
    return Buffer.from('x');
  };
  const [x, y] = await Promise.all([cache.getOrMake('k', make), cache.getOrMake('k', make)]);
  t.is(made, 1);
  t.true(x.equals(y));
  await t.throwsAsync(cache.getOrMake('bad', async () => Promise.reject(new Error('no'))));
  t.is(cache.get('bad'), undefined);
});

test('a failing rotation serves the still unrotated rather than nothing', async (t) => {
  const broken: JpegRotator = { perFrame: false, rotateJpeg: async () => Promise.reject(new Error('broken')) };
  const other = await startPlaybackApp(db, { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_ZONEMINDER__DIR_EVENTS: roots.defaultDir }, { rotator: broken });
  try {
    const own = await login({ api: other.api } as never, 'evview'); // its own signing keys
    const res = await fetch(other.api(`/events/${ev['snap-ROTATE_90'].id}/thumbnail`), { headers: { authorization: `Bearer ${own}` } });
    t.is(res.status, 200);
    t.true((await bytesOf(res)).equals(readFileSync(await fixture('snapshot.jpg'))));
  } finally {
    await other.close();
  }
});
