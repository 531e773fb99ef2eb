// GET /events/{id}/info for every kind of event, and the MP4 probe behind it (from the demuxer's index).
import test from 'ava';
import { statSync } from 'node:fs';
import { probeOf } from '../../src/features/playback/recording-cache.js';
import { Mp4File } from '../../src/native/mp4-file.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { caller, insertEventUsers, login } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import {
  CLIP_SECONDS,
  captures,
  fixture,
  insertMediaEvent,
  makeStorages,
  type MediaEvent,
} from '../helpers/playback.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
let call: ReturnType<typeof caller>;
const ev: Record<string, MediaEvent> = {};

test.before(async () => {
  db = await zmDatabase('pbinfo');
  await insertEventUsers(db);
  const roots = await makeStorages(db, 'pbinfo');
  ev.h264 = await insertMediaEvent(db, roots, {
    length: '3.00',
    defaultVideo: '{id}-video.mp4',
    files: { '{id}-video.mp4': { fixture: 'h264.mp4' } },
  });
  ev.frag = await insertMediaEvent(db, roots, {
    scheme: 'Deep',
    length: '3.10',
    defaultVideo: '{id}-video.h264.mp4',
    files: { '{id}-video.h264.mp4': { fixture: 'h264-frag.mp4' } },
  });
  ev.h265 = await insertMediaEvent(db, roots, {
    scheme: 'Shallow',
    files: { '{id}-video.h265.mp4': { fixture: 'h265.mp4' } },
  });
  ev.mkv = await insertMediaEvent(db, roots, {
    defaultVideo: '{id}-video.mkv',
    files: { '{id}-video.mkv': { fixture: 'h264.mkv' } },
  });
  ev.live = await insertMediaEvent(db, roots, {
    end: null,
    length: '0.00',
    defaultVideo: 'incomplete.h264.mp4',
    files: { 'incomplete.h264.mp4': { fixture: 'h264-frag.mp4' } },
    frameRows: [
      [1, 0],
      [20, 1.25],
      [40, 2.5],
    ],
  });
  ev.jpeg = await insertMediaEvent(db, roots, {
    length: '4.50',
    width: 352,
    height: 288,
    files: { ...captures([1, 2, 3, 4]), 'snapshot.jpg': { fixture: 'snapshot.jpg' } },
  });
  ev.analyseOnly = await insertMediaEvent(db, roots, { files: captures([5, 6], 'analyse') });
  ev.none = await insertMediaEvent(db, roots, { length: '7.00' });
  app = await startTestApp({
    db,
    env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_ZONEMINDER__DIR_EVENTS: roots.defaultDir },
  });
  call = caller(app, await login(app, 'evview'));
});
test.after.always(async () => app?.close());

const info = async (e: MediaEvent) => {
  const res = await call('GET', `/events/${e.id}/info`);
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return res.body;
};

test('a closed H.264 MP4 (1.36): probed codec, size and duration; direct', async (t) => {
  t.deepEqual(await info(ev.h264), {
    event_id: ev.h264.id,
    video_codec: 'H264',
    width: 640,
    height: 360,
    duration_seconds: CLIP_SECONDS,
    file_size: statSync(await fixture('h264.mp4')).size,
    playable_direct: true,
    recommended_mode: 'direct',
    in_progress: false,
    has_video: true,
    container: 'mp4',
    fragmented: false,
    jpeg_frames: 0,
    mjpeg_url: null,
  });
});

test('a fragmented MP4 (1.39): direct and fragmented; the duration from Events.Length when the file has none', async (t) => {
  t.like(await info(ev.frag), {
    video_codec: 'H264',
    fragmented: true,
    recommended_mode: 'direct',
    playable_direct: true,
    duration_seconds: 3.1,
    width: 640,
  });
});

test('H.265: not playable directly, recommended HLS', async (t) => {
  t.like(await info(ev.h265), {
    video_codec: 'H265',
    playable_direct: false,
    recommended_mode: 'hls',
    duration_seconds: 2,
    width: 640,
    height: 360,
  });
});

test('H.264 in Matroska: probed by ffprobe; HLS because browsers do not play the container', async (t) => {
  const i = await info(ev.mkv);
  // HLS is cut from MP4 only: a Matroska recording can only be offered as written.
  t.like(i, {
    video_codec: 'H264',
    container: 'mkv',
    playable_direct: false,
    recommended_mode: 'direct',
    width: 640,
    height: 360,
    fragmented: false,
  });
  t.true(Math.abs(i.duration_seconds - 2) < 0.2);
});

test('in progress: mode event, the growing file size, codec from the fMP4 header, duration from the last frame row', async (t) => {
  t.like(await info(ev.live), {
    in_progress: true,
    recommended_mode: 'event',
    video_codec: 'H264',
    file_size: statSync(await fixture('h264-frag.mp4')).size,
    duration_seconds: 2.5,
    fragmented: true,
  });
});

test('JPEG-only: mode mjpeg with the stream URL and the frame count; sizes from the event row', async (t) => {
  t.deepEqual(await info(ev.jpeg), {
    event_id: ev.jpeg.id,
    video_codec: 'Unknown',
    width: 352,
    height: 288,
    duration_seconds: 4.5,
    file_size: 0,
    playable_direct: false,
    recommended_mode: 'mjpeg',
    in_progress: false,
    has_video: false,
    container: null,
    fragmented: false,
    jpeg_frames: 4,
    mjpeg_url: `/api/v3/events/${ev.jpeg.id}/stream/mjpeg`,
  });
  t.like(await info(ev.analyseOnly), { recommended_mode: 'mjpeg', jpeg_frames: 2 });
});

test('no media at all: mode none', async (t) => {
  t.like(await info(ev.none), {
    recommended_mode: 'none',
    has_video: false,
    jpeg_frames: 0,
    mjpeg_url: null,
    duration_seconds: 7,
  });
});

test('errors: 400 for a bad id, 404 EVENT_NOT_FOUND for a missing event, 403 without Events', async (t) => {
  const bad = await call('GET', '/events/x/info');
  t.is(bad.status, 400);
  const missing = await call('GET', '/events/424242/info');
  t.is(missing.status, 404);
  t.is(missing.body.kind, 'EVENT_NOT_FOUND_ERROR');
  t.is((await call('GET', `/events/${ev.h264.id}/info`, undefined, await login(app, 'evnone'))).status, 403);
});

test('the served schema names the reference fields, plus the additions', async (t) => {
  const doc = await (await fetch(`${app.url}/api-docs/openapi.json`)).json();
  const schema = doc.components.schemas.EventVideoInfo;
  for (const f of [
    'event_id',
    'video_codec',
    'width',
    'height',
    'duration_seconds',
    'file_size',
    'playable_direct',
    'recommended_mode',
    'in_progress',
  ]) {
    t.true(schema.required.includes(f), f);
  }
  t.is(doc.paths['/api/v3/events/{id}/info'].get.operationId, 'get_event_info');
});

/** The probe of a fixture, or null when the demuxer refuses it. */
async function probeMp4File(file: string) {
  const opened = await Mp4File.open(file).catch(() => null);
  if (!opened) return null;
  try {
    return probeOf(opened);
  } finally {
    opened.close();
  }
}

test('mp4 probe: plain, fragmented, H.265, and a file that is not MP4', async (t) => {
  t.like(await probeMp4File(await fixture('h264.mp4')), {
    fragmented: false,
    codec: 'H264',
    sampleEntry: 'avc1',
    width: 640,
    height: 360,
    durationSeconds: CLIP_SECONDS,
  });
  t.like(await probeMp4File(await fixture('h264-frag.mp4')), {
    fragmented: true,
    codec: 'H264',
    width: 640,
    height: 360,
    durationSeconds: 0, // the event's Length says it
  });
  t.like(await probeMp4File(await fixture('h265.mp4')), { codec: 'H265', sampleEntry: 'hvc1' });
  t.is(await probeMp4File(await fixture('h264.mkv')), null);
  t.is(await probeMp4File(await fixture('snapshot.jpg')), null);
});
