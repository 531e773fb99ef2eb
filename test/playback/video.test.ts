// GET /events/{id}/video and /stream/*: locating the recording in every storage scheme and
// ZoneMinder naming, byte ranges (200/206/416, open-ended, suffix, multi-range, If-Range, HEAD),
// content types, the growing file of an event in progress, fragmented MP4 served as is and a
// plain MP4 remuxed (the remux itself is tested in test/playback/remux.test.ts).
import test from 'ava';
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ifRangeHolds, parseRange } from '../../src/media/byte-ranges.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertEventUsers, login } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import {
  bytesOf,
  captures,
  fixture,
  insertMediaEvent,
  makeStorages,
  type MediaEvent,
  type StorageRoots,
} from '../helpers/playback.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
let roots: StorageRoots;
let token: string;
const ev: Record<string, MediaEvent> = {};
let mp4: Buffer;
let frag: Buffer;

test.before(async () => {
  db = await zmDatabase('pbvideo');
  await insertEventUsers(db);
  roots = await makeStorages(db, 'pbvideo');
  mp4 = readFileSync(await fixture('h264.mp4'));
  frag = readFileSync(await fixture('h264-frag.mp4'));
  // 1.36: <Id>-video.mp4, DefaultVideo set; Medium scheme.
  ev.v136 = await insertMediaEvent(db, roots, {
    scheme: 'Medium',
    defaultVideo: '{id}-video.mp4',
    files: { '{id}-video.mp4': { fixture: 'h264.mp4' } },
  });
  // 1.39: <Id>-video.<codec>.<container>, fragmented; Deep scheme.
  ev.v139 = await insertMediaEvent(db, roots, {
    scheme: 'Deep',
    start: '2026-02-03 04:05:06',
    defaultVideo: '{id}-video.h264.mp4',
    files: { '{id}-video.h264.mp4': { fixture: 'h264-frag.mp4' } },
  });
  // Shallow, DefaultVideo empty: the fallback names.
  ev.shallow = await insertMediaEvent(db, roots, {
    scheme: 'Shallow',
    files: { '{id}-video.mp4': { fixture: 'h264.mp4' } },
  });
  // StorageId 0: the default events directory.
  ev.defaultStorage = await insertMediaEvent(db, roots, {
    storageId: 0,
    files: { '{id}-video.mp4': { fixture: 'h264.mp4' } },
  });
  // DefaultVideo names a missing file: the fallbacks still find the recording.
  ev.staleDefault = await insertMediaEvent(db, roots, {
    defaultVideo: 'gone.mp4',
    files: { '{id}.mp4': { fixture: 'h264.mp4' } },
  });
  // Codec in the name, DefaultVideo empty: found by pattern.
  ev.hevcName = await insertMediaEvent(db, roots, { files: { '{id}-video.hevc.mp4': { fixture: 'h265.mp4' } } });
  ev.mkv = await insertMediaEvent(db, roots, {
    defaultVideo: '{id}-video.mkv',
    files: { '{id}-video.mkv': { fixture: 'h264.mkv' } },
  });
  ev.webm = await insertMediaEvent(db, roots, {
    defaultVideo: '{id}-video.webm',
    files: { '{id}-video.webm': { fixture: 'vp8.webm' } },
  });
  // In progress (1.39): DefaultVideo points at incomplete.h264.mp4.
  ev.live = await insertMediaEvent(db, roots, {
    end: null,
    defaultVideo: 'incomplete.h264.mp4',
    files: { 'incomplete.h264.mp4': { fixture: 'h264-frag.mp4' } },
  });
  // In progress without DefaultVideo yet: the incomplete.* file is found by listing.
  ev.liveNoDefault = await insertMediaEvent(db, roots, {
    end: null,
    files: { 'incomplete.h264.mp4': { fixture: 'h264-frag.mp4' } },
  });
  ev.jpegOnly = await insertMediaEvent(db, roots, { files: captures([1, 2, 3]) });
  ev.empty = await insertMediaEvent(db, roots, {});
  ev.emptyFile = await insertMediaEvent(db, roots, {
    defaultVideo: '{id}-video.mp4',
    files: { '{id}-video.mp4': { text: '' } },
  });
  app = await startTestApp({
    db,
    env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_ZONEMINDER__DIR_EVENTS: roots.defaultDir },
  });
  token = await login(app, 'evview');
});
test.after.always(async () => app?.close());

function get(route: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> {
  return fetch(app.api(route), { method, headers: { authorization: `Bearer ${token}`, ...headers } });
}

const video = (e: MediaEvent) => `/events/${e.id}/video`;

test('parseRange: single, open-ended, suffix, clipping, unsatisfiable, and the cases that are ignored', (t) => {
  t.deepEqual(parseRange(undefined, 1000), { kind: 'none' });
  t.deepEqual(parseRange('bytes=0-99', 1000), { kind: 'range', start: 0, end: 99 });
  t.deepEqual(parseRange('bytes=100-', 1000), { kind: 'range', start: 100, end: 999 });
  t.deepEqual(parseRange('bytes=-500', 1000), { kind: 'range', start: 500, end: 999 });
  t.deepEqual(parseRange('bytes=-5000', 1000), { kind: 'range', start: 0, end: 999 });
  t.deepEqual(parseRange('bytes=990-5000', 1000), { kind: 'range', start: 990, end: 999 });
  t.deepEqual(parseRange('BYTES = 1-1', 1000), { kind: 'range', start: 1, end: 1 });
  t.deepEqual(parseRange('bytes=1000-', 1000), { kind: 'unsatisfiable' });
  t.deepEqual(parseRange('bytes=2000-3000', 1000), { kind: 'unsatisfiable' });
  t.deepEqual(parseRange('bytes=-0', 1000), { kind: 'unsatisfiable' });
  t.deepEqual(parseRange('bytes=0-', 0), { kind: 'unsatisfiable' });
  for (const ignored of [
    'bytes=0-1,5-6',
    'bytes=5-2',
    'bytes=abc',
    'items=0-1',
    'bytes=-',
    'bytes=',
    '0-1',
    'bytes=1.5-2',
  ]) {
    t.deepEqual(parseRange(ignored, 1000), { kind: 'none' }, ignored);
  }
});

test('ifRangeHolds: strong ETag match only; dates to the second', (t) => {
  const lm = new Date('2026-01-02T03:04:05.678Z');
  t.true(ifRangeHolds(undefined, '"a"', lm));
  t.true(ifRangeHolds('"a"', '"a"', lm));
  t.false(ifRangeHolds('"b"', '"a"', lm));
  t.false(ifRangeHolds('W/"a"', '"a"', lm));
  t.true(ifRangeHolds(lm.toUTCString(), '"a"', lm));
  t.false(ifRangeHolds(new Date(lm.getTime() + 2000).toUTCString(), '"a"', lm));
  t.false(ifRangeHolds('not a date', '"a"', lm));
});

test('no Range: 200 with the whole file, Accept-Ranges, Content-Length, validators and content type', async (t) => {
  const res = await get(video(ev.v136));
  t.is(res.status, 200);
  t.is(res.headers.get('accept-ranges'), 'bytes');
  t.is(res.headers.get('content-type'), 'video/mp4');
  t.is(res.headers.get('content-length'), String(mp4.length));
  t.regex(res.headers.get('etag') ?? '', /^"[0-9a-f]+-[0-9a-f]+-[0-9a-f]+"$/);
  t.truthy(res.headers.get('last-modified'));
  t.is(res.headers.get('cache-control'), 'private, max-age=86400');
  t.is(res.headers.get('content-encoding'), null);
  t.is(res.headers.get('content-disposition'), `inline; filename="${ev.v136.id}-video.mp4"`);
  t.true((await bytesOf(res)).equals(mp4));
});

test('206 for a closed range, an open-ended range and a suffix range; the bytes are the slice asked for', async (t) => {
  const size = mp4.length;
  for (const [header, start, end] of [
    ['bytes=0-99', 0, 99],
    ['bytes=100-', 100, size - 1],
    ['bytes=-500', size - 500, size - 1],
    [`bytes=-${size + 100}`, 0, size - 1],
    [`bytes=${size - 10}-${size + 1000}`, size - 10, size - 1],
    [`bytes=${size - 1}-${size - 1}`, size - 1, size - 1],
  ] as const) {
    const res = await get(video(ev.v136), { range: header });
    t.is(res.status, 206, header);
    t.is(res.headers.get('content-range'), `bytes ${start}-${end}/${size}`, header);
    t.is(res.headers.get('content-length'), String(end - start + 1), header);
    t.is(res.headers.get('accept-ranges'), 'bytes');
    t.true((await bytesOf(res)).equals(mp4.subarray(start, end + 1)), header);
  }
});

test('a range beyond the end is 416 with Content-Range: bytes */size and the error envelope', async (t) => {
  const size = mp4.length;
  for (const header of [`bytes=${size}-`, `bytes=${size + 5}-${size + 10}`, 'bytes=-0']) {
    const res = await get(video(ev.v136), { range: header });
    t.is(res.status, 416, header);
    t.is(res.headers.get('content-range'), `bytes */${size}`);
    // The envelope is JSON, not the video, and not cached for a day as if it were.
    t.regex(res.headers.get('content-type') ?? '', /^application\/json/, header);
    t.notRegex(res.headers.get('cache-control') ?? '', /max-age=[1-9]/, header);
    t.is(res.headers.get('etag'), null, header);
    t.is(res.headers.get('content-disposition'), null, header);
    const body = await res.json();
    t.is(body.kind, 'RANGE_NOT_SATISFIABLE_ERROR');
    t.deepEqual(body.details[0], ['size', String(size)]);
  }
  // An empty recording has no satisfiable range at all, but plays as an empty 200.
  t.is((await get(video(ev.emptyFile), { range: 'bytes=0-' })).status, 416);
  const whole = await get(video(ev.emptyFile));
  t.is(whole.status, 200);
  t.is(whole.headers.get('content-length'), '0');
});

test('multi-range and malformed ranges are ignored: 200 with the whole file', async (t) => {
  for (const header of ['bytes=0-1,5-6', 'bytes=5-2', 'bytes=x-y', 'items=0-10']) {
    const res = await get(video(ev.v136), { range: header });
    t.is(res.status, 200, header);
    t.is(res.headers.get('content-range'), null);
    t.is((await bytesOf(res)).length, mp4.length, header);
  }
});

test('If-Range: a matching ETag or date keeps the range; a changed one gives the whole file', async (t) => {
  const head = await get(video(ev.v136), {}, 'HEAD');
  const etag = head.headers.get('etag')!;
  const lastModified = head.headers.get('last-modified')!;
  t.is((await get(video(ev.v136), { range: 'bytes=0-9', 'if-range': etag })).status, 206);
  t.is((await get(video(ev.v136), { range: 'bytes=0-9', 'if-range': lastModified })).status, 206);
  const stale = await get(video(ev.v136), { range: 'bytes=0-9', 'if-range': '"0-0-0"' });
  t.is(stale.status, 200);
  t.is((await bytesOf(stale)).length, mp4.length);
  t.is((await get(video(ev.v136), { range: 'bytes=0-9', 'if-range': `W/${etag}` })).status, 200);
  t.is((await get(video(ev.v136), { range: 'bytes=0-9', 'if-range': 'Thu, 01 Jan 1970 00:00:00 GMT' })).status, 200);
});

test('HEAD: the same status and headers, no body', async (t) => {
  const whole = await get(video(ev.v136), {}, 'HEAD');
  t.is(whole.status, 200);
  t.is(whole.headers.get('content-length'), String(mp4.length));
  t.is(whole.headers.get('accept-ranges'), 'bytes');
  t.is((await bytesOf(whole)).length, 0);
  const part = await get(video(ev.v136), { range: 'bytes=10-19' }, 'HEAD');
  t.is(part.status, 206);
  t.is(part.headers.get('content-range'), `bytes 10-19/${mp4.length}`);
  t.is(part.headers.get('content-length'), '10');
  t.is((await get(video(ev.v136), { range: `bytes=${mp4.length}-` }, 'HEAD')).status, 416);
});

test('every scheme and naming: Medium 1.36, Deep 1.39, Shallow fallback, the default events directory, a stale DefaultVideo, a codec-named file', async (t) => {
  for (const [name, e, bytes] of [
    ['v136', ev.v136, mp4],
    ['v139', ev.v139, frag],
    ['shallow', ev.shallow, mp4],
    ['defaultStorage', ev.defaultStorage, mp4],
    ['staleDefault', ev.staleDefault, mp4],
  ] as const) {
    const res = await get(video(e));
    t.is(res.status, 200, name);
    t.true((await bytesOf(res)).equals(bytes), name);
  }
  t.true(
    ev.v139.dir.split(path.sep).slice(-7).join('/').startsWith('1/26/02/03/04/05/06'),
    'Deep layout M/yy/mm/dd/HH/MM/SS',
  );
  const hevc = await get(video(ev.hevcName));
  t.is(hevc.status, 200);
  t.is(Number(hevc.headers.get('content-length')), statSync(await fixture('h265.mp4')).size);
});

test('content type by container: mp4, mkv, webm', async (t) => {
  t.is((await get(video(ev.v136), {}, 'HEAD')).headers.get('content-type'), 'video/mp4');
  t.is((await get(video(ev.mkv), {}, 'HEAD')).headers.get('content-type'), 'video/x-matroska');
  t.is((await get(video(ev.webm), {}, 'HEAD')).headers.get('content-type'), 'video/webm');
});

test('an event in progress: the growing incomplete file, not cached; with or without DefaultVideo', async (t) => {
  const first = await get(video(ev.live), {}, 'HEAD');
  t.is(first.status, 200);
  t.is(first.headers.get('cache-control'), 'no-cache');
  t.is(first.headers.get('content-length'), String(frag.length));
  appendFileSync(path.join(ev.live.dir, 'incomplete.h264.mp4'), Buffer.alloc(1000, 1));
  const grown = await get(video(ev.live), { range: `bytes=${frag.length}-` });
  t.is(grown.status, 206);
  t.is(grown.headers.get('content-range'), `bytes ${frag.length}-${frag.length + 999}/${frag.length + 1000}`);
  t.true((await bytesOf(grown)).equals(Buffer.alloc(1000, 1)));
  t.is((await get(video(ev.liveNoDefault), {}, 'HEAD')).status, 200);
});

test('no recording: 404 FILE_NOT_FOUND_ERROR; a JPEG-only event says where to play it; a missing event is EVENT_NOT_FOUND', async (t) => {
  const none = await get(video(ev.empty));
  t.is(none.status, 404);
  t.like(await none.json(), { kind: 'FILE_NOT_FOUND_ERROR', code: 1 });
  const jpeg = await (await get(video(ev.jpegOnly))).json();
  t.is(jpeg.kind, 'FILE_NOT_FOUND_ERROR');
  t.regex(jpeg.error_message, /stream\/mjpeg/);
  const missing = await get('/events/987654/video');
  t.is(missing.status, 404);
  t.like(await missing.json(), { kind: 'EVENT_NOT_FOUND_ERROR', code: 8 });
  for (const bad of ['abc', '-1', '1.5']) {
    const res = await get(`/events/${bad}/video`);
    t.is(res.status, 400, bad);
    t.deepEqual((await res.json()).details, [['id', 'must be an integer >= 0']]);
  }
  // Beyond int64 the request-shape check answers first, naming the same parameter.
  const huge = await get('/events/99999999999999999999/video');
  t.is(huge.status, 400);
  t.is((await huge.json()).details[0][0], 'id');
});

test('stream/video.mp4 and media.mp4: a fragmented recording is served as is with ranges; a plain MP4 is remuxed; non-MP4 is served as written', async (t) => {
  for (const route of ['video.mp4', 'media.mp4']) {
    const fragmented = await get(`/events/${ev.v139.id}/stream/${route}`, { range: 'bytes=0-7' });
    t.is(fragmented.status, 206, route);
    t.is(fragmented.headers.get('content-type'), 'video/mp4');
    t.true((await bytesOf(fragmented)).equals(frag.subarray(0, 8)));
    t.is((await get(`/events/${ev.live.id}/stream/${route}`, {}, 'HEAD')).status, 200, `${route} in progress`);
    const plain = await get(`/events/${ev.v136.id}/stream/${route}`);
    t.is(plain.status, 200, route);
    const body = await bytesOf(plain);
    t.is(plain.headers.get('content-length'), String(body.length));
    t.false(body.equals(mp4), 'not the file as written');
    t.true(body.includes(Buffer.from('moof')), route);
    // Not MP4: cannot be remuxed, served as written (with ranges).
    for (const [other, type, fixtureName] of [
      [ev.mkv, 'video/x-matroska', 'h264.mkv'],
      [ev.webm, 'video/webm', 'vp8.webm'],
    ] as const) {
      const res = await get(`/events/${other.id}/stream/${route}`, { range: 'bytes=0-99' });
      t.is(res.status, 206, `${route} ${other.id}`);
      t.is(res.headers.get('content-type'), type);
      t.true((await bytesOf(res)).equals(readFileSync(await fixture(fixtureName)).subarray(0, 100)));
    }
    t.is((await get(`/events/${ev.jpegOnly.id}/stream/${route}`)).status, 404);
  }
});

test('playlist, init and segments: served for an MP4, 404 when there is no recording or it is not MP4; bad seq is 400', async (t) => {
  for (const route of ['playlist.m3u8', 'init.mp4', 'segment/0', 'segment/0.m4s']) {
    const res = await get(`/events/${ev.v139.id}/stream/${route}`);
    t.is(res.status, 200, route);
    await bytesOf(res);
    t.is((await get(`/events/${ev.empty.id}/stream/${route}`)).status, 404, route);
    const mkv = await get(`/events/${ev.mkv.id}/stream/${route}`);
    t.is(mkv.status, 404, route);
    t.regex((await mkv.json()).error_message, /Only MP4 recordings/);
  }
  const bad = await get(`/events/${ev.v139.id}/stream/segment/x1`);
  t.is(bad.status, 400);
  t.deepEqual((await bad.json()).details, [['seq', 'must be an integer >= 0, optionally followed by .m4s']]);
});

test('other methods on a media route are 405, unknown stream names 404', async (t) => {
  const post = await fetch(app.api(video(ev.v136)), { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  t.is(post.status, 405);
  t.is((await get(`/events/${ev.v136.id}/stream/other.bin`)).status, 404);
});
