// Thumbnails (snapshot → alarm → capture → analyse → video frame), frame images, Orientation
// applied exactly once by source (zmc's JPEGs never; frames of passthrough recordings once;
// frames of encode-mode recordings never; checked on the decoded pixels: where the corner marker
// went, and the size), the still cache, and the bounds of the ffmpeg runner.
import test from 'ava';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ServiceUnavailableError } from '../../src/errors.js';
import { FfmpegError, FfmpegRunner, DEFAULT_FFMPEG_OPTIONS } from '../../src/media/ffmpeg.js';
import type { Orientation } from '../../src/media/jpeg-rotate.js';
import { recordingTurn } from '../../src/features/playback/event-stills.js';
import { StillCache } from '../../src/media/still-cache.js';
import { insertEventUsers, insertMonitor, login, sql } from '../helpers/events.js';
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
  ev.snapshot = await insertMediaEvent(db, roots, {
    files: {
      'snapshot.jpg': { fixture: 'snapshot.jpg' },
      'alarm.jpg': { fixture: 'alarm.jpg' },
      ...all,
      '{id}-video.mp4': { fixture: 'h264.mp4' },
    },
  });
  ev.alarm = await insertMediaEvent(db, roots, { files: { 'alarm.jpg': { fixture: 'alarm.jpg' }, ...all } });
  ev.capture = await insertMediaEvent(db, roots, {
    files: { ...captures([3, 4]), '{id}-video.mp4': { fixture: 'h264.mp4' } },
  });
  ev.analyse = await insertMediaEvent(db, roots, { files: captures([7], 'analyse') });
  ev.video = await insertMediaEvent(db, roots, {
    scheme: 'Deep',
    files: { '{id}-video.mp4': { fixture: 'h264.mp4' } },
    frameRows: [
      [1, 0],
      [31, 2],
    ],
  });
  ev.none = await insertMediaEvent(db, roots, {});
  ev.live = await insertMediaEvent(db, roots, { end: null, files: { 'snapshot.jpg': { fixture: 'snapshot.jpg' } } });
  ev.named = await insertMediaEvent(db, roots, {
    files: {
      'objdetect.jpg': { fixture: 'objdetect.jpg' },
      'snapshot.jpg': { fixture: 'snapshot.jpg' },
      'alarm.jpg': { fixture: 'alarm.jpg' },
    },
  });
  // Monitors 21 (VideoWriter 2, camera passthrough) and 22 (VideoWriter 1, encode), as zmc
  // records them: the Events row holds the turned size.
  await insertMonitor(db, 21, 'Passthrough', { VideoWriter: 2 });
  await insertMonitor(db, 22, 'Encode', { VideoWriter: 1 });
  for (const o of ORIENTATIONS) {
    const size = swapped(o, SIZES.video);
    ev[`snap-${o}`] = await insertMediaEvent(db, roots, {
      orientation: o,
      files: { 'snapshot.jpg': { fixture: 'snapshot.jpg' } },
    });
    ev[`frame-${o}`] = await insertMediaEvent(db, roots, { orientation: o, files: captures([1]) });
    ev[`pass-${o}`] = await insertMediaEvent(db, roots, {
      monitorId: 21,
      orientation: o,
      ...size,
      scheme: 'Shallow',
      files: { '{id}-video.mp4': { fixture: 'marker.mp4' } },
    });
    // The encoder got the images zmc had turned: a recording already upright.
    const turned =
      o === 'ROTATE_0' ? 'marker.mp4' : o === 'ROTATE_270' || o === 'FLIP_VERT' ? null : `marker-turned-${o}.mp4`;
    if (turned)
      ev[`enc-${o}`] = await insertMediaEvent(db, roots, {
        monitorId: 22,
        orientation: o,
        ...size,
        files: { '{id}-video.mp4': { fixture: turned } },
      });
  }
  // 1.38 tags a passthrough recording with a display matrix: the tag is not applied on top.
  ev.tagged = await insertMediaEvent(db, roots, {
    monitorId: 22,
    orientation: 'ROTATE_90',
    ...swapped('ROTATE_90', SIZES.video),
    scheme: 'Shallow',
    files: { '{id}-video.mp4': { fixture: 'marker-rotate90.mp4' } },
  });
  ev['tagged-180'] = await insertMediaEvent(db, roots, {
    monitorId: 22,
    orientation: 'ROTATE_180',
    files: { '{id}-video.mp4': { fixture: 'marker-rotate90.mp4' } },
  });
  const runner = new FfmpegRunner({ ...DEFAULT_FFMPEG_OPTIONS, maxConcurrent: 2 });
  app = await startPlaybackApp(
    db,
    { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_ZONEMINDER__DIR_EVENTS: roots.defaultDir },
    { runner },
  );
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

test("zmc's JPEGs are served byte for byte whatever the Orientation (zmc turned them already)", async (t) => {
  for (const o of ORIENTATIONS) {
    const snap = await jpegOf(`/events/${ev[`snap-${o}`].id}/thumbnail`);
    t.true(snap.equals(readFileSync(await fixture('snapshot.jpg'))), `snapshot.jpg ${o}`);
    t.deepEqual(await markerCorner(snap), { ...SIZES.snapshot, corner: 'top-left' }, `snapshot.jpg ${o}`);
    const frame = await jpegOf(`/events/${ev[`frame-${o}`].id}/frames/1/image`);
    t.deepEqual(await markerCorner(frame), { ...SIZES.capture, corner: 'top-left' }, `capture ${o}`);
  }
});

for (const o of ORIENTATIONS) {
  test(`Orientation ${o}: a frame of a passthrough recording is turned once (size and corner marker), thumbnail and frame image`, async (t) => {
    const e = ev[`pass-${o}`].id;
    t.deepEqual(
      await markerCorner(await jpegOf(`/events/${e}/frames/1/image`)),
      { ...swapped(o, SIZES.video), corner: CORNER[o] },
      'frame image',
    );
    t.deepEqual(
      await markerCorner(await jpegOf(`/events/${e}/thumbnail`)),
      { ...swapped(o, SIZES.videoThumb), corner: CORNER[o] },
      'thumbnail',
    );
  });
  if (!['ROTATE_270', 'FLIP_VERT'].includes(o)) {
    test(`Orientation ${o}: a frame of an encode-mode recording is served as decoded (already upright)`, async (t) => {
      const e = ev[`enc-${o}`].id;
      t.deepEqual(await markerCorner(await jpegOf(`/events/${e}/frames/1/image`)), {
        ...swapped(o, SIZES.video),
        corner: CORNER[o],
      });
    });
  }
}

test('a recording with its own rotate tag is decoded without it and turned once, by the Orientation', async (t) => {
  // ROTATE_90: the coded size (640×360) is the swap of the event's (360×640): passthrough.
  t.deepEqual(await markerCorner(await jpegOf(`/events/${ev.tagged.id}/frames/1/image`)), {
    ...swapped('ROTATE_90', SIZES.video),
    corner: 'top-right',
  });
  // ROTATE_180 on an encode monitor, but the tag shows the camera's packets: passthrough.
  t.deepEqual(await markerCorner(await jpegOf(`/events/${ev['tagged-180'].id}/frames/1/image`)), {
    ...SIZES.video,
    corner: 'bottom-right',
  });
});

test('recordingTurn: the coded size decides for 90/270; else a display matrix or VideoWriter 2', (t) => {
  const ev90 = { width: 360, height: 640 };
  const facts = (width: number, height: number, displayMatrix = false, videoWriter: number | null = null) => ({
    width,
    height,
    displayMatrix,
    videoWriter,
  });
  t.is(recordingTurn('ROTATE_90', ev90, facts(640, 360)), 'ROTATE_90');
  t.is(
    recordingTurn('ROTATE_270', ev90, facts(640, 360, false, 1)),
    'ROTATE_270',
    'the size wins over a changed VideoWriter',
  );
  t.is(recordingTurn('ROTATE_90', ev90, facts(360, 640, true, 2)), 'ROTATE_0', 'encoded at the turned size');
  t.is(
    recordingTurn('ROTATE_90', { width: 480, height: 480 }, facts(480, 480, false, 1)),
    'ROTATE_0',
    'square: VideoWriter 1',
  );
  t.is(
    recordingTurn('ROTATE_90', { width: 480, height: 480 }, facts(480, 480, false, 2)),
    'ROTATE_90',
    'square: VideoWriter 2',
  );
  t.is(recordingTurn('ROTATE_180', { width: 640, height: 360 }, facts(640, 360, false, 1)), 'ROTATE_0');
  t.is(recordingTurn('ROTATE_180', { width: 640, height: 360 }, facts(640, 360, true, 1)), 'ROTATE_180');
  t.is(recordingTurn('FLIP_VERT', { width: 640, height: 360 }, facts(640, 360, false, 2)), 'FLIP_VERT');
  t.is(
    recordingTurn('FLIP_HORI', { width: 640, height: 360 }, facts(0, 0, false, null)),
    'ROTATE_0',
    'nothing says passthrough',
  );
  t.is(recordingTurn('ROTATE_0', { width: 640, height: 360 }, facts(360, 640, true, 2)), 'ROTATE_0');
});

test.serial('frames taken from a recording are cached: a second request carries the same ETag and body', async (t) => {
  const route = `/events/${ev['pass-ROTATE_90'].id}/thumbnail`;
  const first = await get(route);
  const body = await bytesOf(first);
  const second = await get(route);
  t.true((await bytesOf(second)).equals(body));
  t.is(second.headers.get('etag'), first.headers.get('etag'));
  t.true(app.playback.cache.size.entries > 0);
});

test('frame images: capture by default, ?type=analyse, named stills, the video frame at its offset when no JPEG exists', async (t) => {
  const e = ev.snapshot.id;
  t.like(await probeBuffer(await jpegOf(`/events/${e}/frames/1/image`)), SIZES.capture);
  t.like(await probeBuffer(await jpegOf(`/events/${e}/frames/2/image?type=analyse`)), SIZES.analyse);
  t.like(await probeBuffer(await jpegOf(`/events/${e}/frames/2/image?type=capture`)), SIZES.capture);
  t.like(
    await probeBuffer(await jpegOf(`/events/${ev.analyse.id}/frames/7/image`)),
    SIZES.analyse,
    'capture missing: the analysis image',
  );
  t.like(await probeBuffer(await jpegOf(`/events/${ev.named.id}/frames/alarm/image`)), SIZES.alarm);
  t.like(await probeBuffer(await jpegOf(`/events/${ev.named.id}/frames/snapshot/image`)), SIZES.snapshot);
  t.like(await probeBuffer(await jpegOf(`/events/${ev.named.id}/frames/objdetect/image`)), SIZES.objdetect);
  // No JPEGs: frame 16 of the recording (between rows 1 @ 0 s and 31 @ 2 s: 1 s in), full size.
  t.like(await probeBuffer(await jpegOf(`/events/${ev.video.id}/frames/16/image`)), SIZES.video);
  const res = await get(`/events/${e}/frames/1/image`);
  t.is(res.headers.get('cache-control'), 'private, max-age=86400');
});

test('frame images: 404 when there is no such image, 400 for a bad fid or type', async (t) => {
  for (const route of [
    `/events/${ev.alarm.id}/frames/99/image`,
    `/events/${ev.none.id}/frames/alarm/image`,
    `/events/${ev.analyse.id}/frames/7/image?type=capture`,
    `/events/${ev.capture.id}/frames/3/image?type=analyse`,
  ]) {
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
  await sql(db, 'INSERT INTO Frames (EventId, FrameId, Type, Score, Delta) VALUES (?, 2, ?, 0, 0.2)', [
    ev.alarm.id,
    'Alarm',
  ]);
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
  for (let i = 0; i < 50; i++)
    events.push(
      (await insertMediaEvent(db, roots, { scheme: 'Shallow', files: { '{id}-video.mp4': { fixture: 'h264.mp4' } } }))
        .id,
    );
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
  const runner = new FfmpegRunner({
    ...DEFAULT_FFMPEG_OPTIONS,
    ffprobe: script,
    maxConcurrent: 2,
    maxQueued: 3,
    timeoutMs: 5000,
  });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, runner.running)), 5);
  const jobs = [1, 2, 3, 4, 5].map(() => runner.ffprobe([]));
  const refused = runner.ffprobe([]);
  t.true((await t.throwsAsync(refused)) instanceof ServiceUnavailableError);
  const out = await Promise.all(jobs);
  clearInterval(sampler);
  t.deepEqual(
    out.map((b) => b.toString().trim()),
    ['done', 'done', 'done', 'done', 'done'],
  );
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
