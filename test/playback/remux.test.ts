// The native remuxer behind /events/{id}/stream/*: video.mp4 of a plain MP4 is a real fragmented
// MP4 (moof boxes, the recorded durations; ffprobe and a full decode are clean) whose size and
// bytes are known up front, so byte ranges work on it; the HLS playlist plays end to end in
// ffmpeg over HTTP with ?token=; segments out of range are 404; an event in progress gets an
// EVENT playlist that grows with the file; the segment cache stays under its configured budget.
import test from 'ava';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { layoutOf, predictRemuxLayout } from '../../src/media/remux-layout.js';
import { RemuxSource } from '../../src/media/remux-source.js';
import { SegmentCache } from '../../src/media/segment-cache.js';
import { Recording } from '../../src/features/playback/recording-cache.js';
import { Mp4File, remux } from '../../src/native/mp4-file.js';
import bcrypt from 'bcryptjs';
import { insertEventUsers, login, sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { displayMatrixOf, ffmpegHlsExtensions, probeFile, urisWithoutAllowedExtension } from '../helpers/media.js';
import {
  bytesOf,
  fixture,
  insertMediaEvent,
  makeStorages,
  startPlaybackApp,
  type MediaEvent,
  type PlaybackApp,
  type StorageRoots,
} from '../helpers/playback.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';

const run = promisify(execFile);
const ENV = (roots: StorageRoots) => ({
  APP_AUTH__RATE_LIMIT__ENABLED: 'false',
  APP_ZONEMINDER__DIR_EVENTS: roots.defaultDir,
});

let db: FreshDatabase;
let roots: StorageRoots;
let app: PlaybackApp;
let token: string;
let work: string;
const ev: Record<string, MediaEvent> = {};

test.before(async () => {
  db = await zmDatabase('pbremux');
  await insertEventUsers(db);
  roots = await makeStorages(db, 'pbremux');
  work = mkdtempSync(path.join(tmpdir(), 'zmgate-remux-test-'));
  ev.baseline = await insertMediaEvent(db, roots, {
    defaultVideo: '{id}-video.mp4',
    files: { '{id}-video.mp4': { fixture: 'h264.mp4' } },
  });
  ev.bframes = await insertMediaEvent(db, roots, {
    scheme: 'Deep',
    defaultVideo: '{id}-video.mp4',
    files: { '{id}-video.mp4': { fixture: 'h264-bf-aac.mp4' } },
  });
  ev.hevc = await insertMediaEvent(db, roots, {
    scheme: 'Shallow',
    files: { '{id}-video.hevc.mp4': { fixture: 'h265.mp4' } },
  });
  // zmc with Orientation ROTATE_90: the camera's packets, the stream tagged with a display matrix.
  ev.rotated = await insertMediaEvent(db, roots, {
    orientation: 'ROTATE_90',
    defaultVideo: '{id}-video.mp4',
    files: { '{id}-video.mp4': { fixture: 'h264-rotate90.mp4' } },
  });
  ev.live = await insertMediaEvent(db, roots, {
    end: null,
    defaultVideo: 'incomplete.h264.mp4',
    files: { 'incomplete.h264.mp4': { fixture: 'h264-frag-long.mp4' } },
  });
  app = await startPlaybackApp(db, { ...ENV(roots), APP_PLAYBACK__SEGMENT_CACHE_BYTES: String(200_000) }, {});
  token = await login({ api: app.api } as never, 'evview');
});
test.after.always(async () => {
  await app?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

function get(route: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> {
  return fetch(app.api(route), { method, headers: { authorization: `Bearer ${token}`, ...headers } });
}

async function saved(name: string, data: Buffer): Promise<string> {
  const file = path.join(work, name);
  writeFileSync(file, data);
  return file;
}

/** Top-level box types of an ISO BMFF buffer. */
function topBoxes(data: Buffer): string[] {
  const out: string[] = [];
  for (let at = 0; at + 8 <= data.length;) {
    const size = data.readUInt32BE(at);
    out.push(data.toString('latin1', at + 4, at + 8));
    if (size < 8) break;
    at += size;
  }
  return out;
}

async function whole(file: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of remux(file)) parts.push(p);
  return Buffer.concat(parts);
}

for (const [name, fixtureName] of [
  ['baseline', 'h264.mp4'],
  ['bframes', 'h264-bf-aac.mp4'],
  ['hevc', 'h265.mp4'],
  ['rotated', 'h264-rotate90.mp4'],
] as const) {
  test(`video.mp4 of a plain MP4 (${fixtureName}) is fragmented MP4 that ffprobe reads cleanly with the source's duration and frames`, async (t) => {
    const res = await get(`/events/${ev[name].id}/stream/video.mp4`);
    t.is(res.status, 200);
    t.is(res.headers.get('content-type'), 'video/mp4');
    t.is(res.headers.get('accept-ranges'), 'bytes');
    const body = await bytesOf(res);
    t.is(res.headers.get('content-length'), String(body.length));
    const boxes = topBoxes(body);
    t.deepEqual(boxes.slice(0, 2), ['ftyp', 'moov']);
    t.true(boxes.includes('moof'), boxes.join(','));
    t.is(boxes.filter((b) => b === 'moof').length, boxes.filter((b) => b === 'mdat').length);
    // Exactly the native remux, byte for byte.
    t.true(body.equals(await whole(await fixture(fixtureName))));

    const source = await probeFile(await fixture(fixtureName));
    const out = await probeFile(await saved(`${name}.mp4`, body));
    t.is(out.errors, '');
    t.is(out.frames, source.frames);
    t.is(out.codec, source.codec);
    t.is(out.audioFrames > 0, source.audioFrames > 0);
    t.true(Math.abs(out.durationUs - source.durationUs) <= 1000, `${out.durationUs} vs ${source.durationUs}`);
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration',
      '-of',
      'csv=p=0',
      path.join(work, `${name}.mp4`),
    ]);
    t.true(Math.abs(Number(stdout) * 1e6 - source.durationUs) < 100_000, `format duration ${stdout}`);
  });
}

test('the predicted layout equals the produced remux (fragment by fragment) for each fixture', async (t) => {
  for (const name of ['h264.mp4', 'h264-bf-aac.mp4', 'h265.mp4', 'h264-frag-long.mp4', 'h264-rotate90.mp4']) {
    const file = await Mp4File.open(await fixture(name));
    try {
      const plan = file.remuxPlan();
      const layout = predictRemuxLayout(file, plan, file.vodInit().length, false);
      t.truthy(layout, name);
      const sizes: number[] = [];
      for (let i = 0; i < plan.length; i++) sizes.push((await file.remuxFragment(i)).length);
      t.deepEqual(layout, layoutOf(file.vodInit().length, sizes), name);
    } finally {
      file.close();
    }
  }
});

test("a rotated recording (zmc's Orientation) keeps its display matrix in video.mp4 and in the VOD init.mp4; an unrotated one keeps the identity", async (t) => {
  const source = await displayMatrixOf(await fixture('h264-rotate90.mp4'));
  t.is(source?.rotation, 90, 'the fixture is tagged rotate=90');
  const videoMp4 = await saved(
    'rotated-video.mp4',
    await bytesOf(await get(`/events/${ev.rotated.id}/stream/video.mp4`)),
  );
  const init = await bytesOf(await get(`/events/${ev.rotated.id}/stream/init.mp4`));
  const segment = await bytesOf(await get(`/events/${ev.rotated.id}/stream/segment/0`));
  const vod = await saved('rotated-vod.mp4', Buffer.concat([init, segment]));
  for (const file of [videoMp4, vod]) {
    t.deepEqual(await displayMatrixOf(file), source, file);
    t.is((await probeFile(file)).errors, '');
  }

  // ffprobe shows no Display Matrix for the identity; the remux's own tkhd says so exactly.
  const plainMp4 = await saved(
    'plain-video.mp4',
    await bytesOf(await get(`/events/${ev.baseline.id}/stream/video.mp4`)),
  );
  const plainVod = await saved(
    'plain-vod.mp4',
    Buffer.concat([
      await bytesOf(await get(`/events/${ev.baseline.id}/stream/init.mp4`)),
      await bytesOf(await get(`/events/${ev.baseline.id}/stream/segment/0`)),
    ]),
  );
  for (const file of [plainMp4, plainVod]) {
    t.is(await displayMatrixOf(file), null, file);
    const opened = await Mp4File.open(file);
    t.deepEqual(opened.tracks[0]!.matrix, [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000]);
    opened.close();
  }
});

test('a layout that cannot be trusted is measured instead, with the same result', async (t) => {
  const file = await Mp4File.open(await fixture('h264-bf-aac.mp4'));
  try {
    const rec = new Recording(file, 'v1', new Date());
    const predicted = await rec.layout();
    rec.distrustPrediction();
    t.deepEqual(await rec.layout(), predicted);
  } finally {
    file.close();
  }
});

test('RemuxSource: a fragment of another size than its layout ends the stream in an error, reports it and releases the recording', async (t) => {
  const events: string[] = [];
  const source = new RemuxSource(
    layoutOf(4, [10, 10]),
    {
      init: () => Buffer.from('init'),
      fragment: async (i) => Buffer.alloc(i === 1 ? 9 : 10, i),
      mismatch: (i, expected, actual) => events.push(`mismatch ${i} ${expected} ${actual}`),
      release: () => events.push('release'),
    },
    '"x"',
    new Date(),
  );
  t.is(source.size, 24);
  const got: Buffer[] = [];
  const err = await t.throwsAsync(async () => {
    for await (const chunk of source.read(2, 23)) got.push(chunk as Buffer);
  });
  t.regex(err!.message, /layout mismatch/);
  // Whatever arrived before the error is a prefix of the right bytes (buffered chunks may be dropped).
  const sent = Buffer.concat(got);
  t.true(
    Buffer.concat([Buffer.from('it'), Buffer.alloc(10, 0)])
      .subarray(0, sent.length)
      .equals(sent),
  );
  t.deepEqual(events.slice(0, 2), ['mismatch 1 10 9', 'release']);
});

test('byte ranges on the remux: closed, open-ended, suffix and fragment-crossing ranges are slices of the whole; beyond the end is 416; HEAD; If-Range', async (t) => {
  const route = `/events/${ev.bframes.id}/stream/video.mp4`;
  const full = await bytesOf(await get(route));
  const size = full.length;
  const cases: Array<[string, number, number]> = [
    ['bytes=0-99', 0, 99],
    [`bytes=${size - 1000}-`, size - 1000, size - 1],
    ['bytes=-777', size - 777, size - 1],
    [`bytes=1000-${Math.floor(size / 2)}`, 1000, Math.floor(size / 2)],
    [
      `bytes=${Math.floor(size / 3)}-${Math.floor(size / 3) + 50_000}`,
      Math.floor(size / 3),
      Math.floor(size / 3) + 50_000,
    ],
  ];
  for (const [range, start, end] of cases) {
    const res = await get(route, { range });
    t.is(res.status, 206, range);
    t.is(res.headers.get('content-range'), `bytes ${start}-${end}/${size}`, range);
    t.true((await bytesOf(res)).equals(full.subarray(start, end + 1)), range);
  }
  const beyond = await get(route, { range: `bytes=${size}-` });
  t.is(beyond.status, 416);
  t.is(beyond.headers.get('content-range'), `bytes */${size}`);
  t.is((await beyond.json()).kind, 'RANGE_NOT_SATISFIABLE_ERROR');
  const head = await get(route, {}, 'HEAD');
  t.is(head.status, 200);
  t.is(head.headers.get('content-length'), String(size));
  const etag = head.headers.get('etag')!;
  t.regex(etag, /^"fmp4-/);
  t.is((await get(route, { range: 'bytes=0-9', 'if-range': etag })).status, 206);
  const stale = await get(route, { range: 'bytes=0-9', 'if-range': '"other"' });
  t.is(stale.status, 200);
  await bytesOf(stale);
});

test('the VOD playlist: ~4 s segments at keyframes, relative URIs, ENDLIST; ffmpeg plays it end to end over HTTP with ?token=', async (t) => {
  const res = await get(`/events/${ev.bframes.id}/stream/playlist.m3u8`);
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'application/vnd.apple.mpegurl; charset=utf-8');
  t.is(res.headers.get('cache-control'), 'no-cache');
  const text = await res.text();
  const lines = text.trim().split('\n');
  t.deepEqual(lines.slice(0, 3), ['#EXTM3U', '#EXT-X-VERSION:7', '#EXT-X-TARGETDURATION:4']);
  t.true(lines.includes('#EXT-X-PLAYLIST-TYPE:VOD'));
  t.true(lines.includes('#EXT-X-MAP:URI="init.mp4"'));
  t.is(lines.at(-1), '#EXT-X-ENDLIST');
  const uris = lines.filter((l) => !l.startsWith('#'));
  t.deepEqual(uris, ['segment/0.m4s', 'segment/1.m4s', 'segment/2.m4s']);
  const durations = lines.filter((l) => l.startsWith('#EXTINF:')).map((l) => Number(l.slice(8, -1)));
  t.deepEqual(durations, [4, 4, 1]);

  // With ?token= the URIs carry it, so a player without headers can fetch them.
  const url = `${app.api(`/events/${ev.bframes.id}/stream/playlist.m3u8`)}?token=${token}`;
  const viaQuery = await (await fetch(url)).text();
  t.true(viaQuery.includes(`#EXT-X-MAP:URI="init.mp4?token=${token}"`));
  t.true(viaQuery.includes(`\nsegment/2.m4s?token=${token}\n`));
  const allowed = await ffmpegHlsExtensions();
  if (allowed)
    t.deepEqual(urisWithoutAllowedExtension(viaQuery, allowed), [], 'every URI has an extension ffmpeg fetches');
  const out = path.join(work, 'hls.mp4');
  // ffmpeg with its defaults: its HLS demuxer refuses segment URIs without an allowed media extension.
  const { stderr } = await run('ffmpeg', ['-v', 'error', '-y', '-i', url, '-c', 'copy', out]);
  t.is(stderr.trim(), '');
  const source = await probeFile(await fixture('h264-bf-aac.mp4'));
  const played = await probeFile(out);
  t.is(played.errors, '');
  t.is(played.frames, source.frames);
  t.true(played.audioFrames > 0);
  t.true(Math.abs(played.durationUs - source.durationUs) <= 1000, `${played.durationUs} vs ${source.durationUs}`);
});

test('init and segments: fMP4 pieces with immutable caching; out of range is 404 with event_id and segment', async (t) => {
  const init = await get(`/events/${ev.bframes.id}/stream/init.mp4`);
  t.is(init.status, 200);
  t.is(init.headers.get('cache-control'), 'private, max-age=31536000, immutable');
  t.deepEqual(topBoxes(await bytesOf(init)), ['ftyp', 'moov']);
  const seg = await get(`/events/${ev.bframes.id}/stream/segment/1`);
  t.is(seg.status, 200);
  t.is(seg.headers.get('cache-control'), 'private, max-age=31536000, immutable', 'a closed event');
  const segBytes = await bytesOf(seg);
  t.deepEqual(topBoxes(segBytes), ['moof', 'mdat']);
  t.true(
    (await bytesOf(await get(`/events/${ev.bframes.id}/stream/segment/1.m4s`))).equals(segBytes),
    'N.m4s (as listed) and plain N are the same segment',
  );
  for (const bad of ['1.mp4', '1.m4s.m4s', 'x.m4s'])
    t.is((await get(`/events/${ev.bframes.id}/stream/segment/${bad}`)).status, 400, bad);
  for (const seq of ['3', '3.m4s', '999999999']) {
    const res = await get(`/events/${ev.bframes.id}/stream/segment/${seq}`);
    t.is(res.status, 404, seq);
    t.like(await res.json(), {
      kind: 'FILE_NOT_FOUND_ERROR',
      details: [
        ['event_id', String(ev.bframes.id)],
        ['segment', seq],
      ],
    });
  }
  t.is((await get(`/events/${ev.bframes.id}/stream/segment/1`, { range: 'bytes=0-7' })).status, 206);
});

test('an event in progress: an EVENT playlist without ENDLIST and without the growing last segment; it grows with the file and its numbering holds', async (t) => {
  const file = path.join(ev.live.dir, 'incomplete.h264.mp4');
  const full = readFileSync(await fixture('h264-frag-long.mp4'));
  // The recording as it was ~5.5 s in: the tail cut mid-fragment.
  writeFileSync(file, full.subarray(0, Math.floor(full.length * 0.55)));
  const early = await (await get(`/events/${ev.live.id}/stream/playlist.m3u8`)).text();
  t.true(early.includes('#EXT-X-PLAYLIST-TYPE:EVENT'));
  t.false(early.includes('#EXT-X-ENDLIST'));
  t.deepEqual(
    early.split('\n').filter((l) => l.startsWith('segment/')),
    ['segment/0.m4s'],
  );
  const seg0Res = await get(`/events/${ev.live.id}/stream/segment/0`);
  // Not provably final while the file grows: revalidated, never kept for a year.
  t.is(seg0Res.headers.get('cache-control'), 'no-cache');
  const seg0 = await bytesOf(seg0Res);
  const initRes = await get(`/events/${ev.live.id}/stream/init.mp4`);
  t.is(initRes.headers.get('cache-control'), 'no-cache');
  await bytesOf(initRes);
  t.is((await get(`/events/${ev.live.id}/stream/segment/1`)).status, 404, 'the growing segment is not served yet');

  copyFileSync(await fixture('h264-frag-long.mp4'), file);
  const later = await (await get(`/events/${ev.live.id}/stream/playlist.m3u8`)).text();
  t.deepEqual(
    later.split('\n').filter((l) => l.startsWith('segment/')),
    ['segment/0.m4s', 'segment/1.m4s'],
  );
  t.false(later.includes('#EXT-X-ENDLIST'));
  t.true((await bytesOf(await get(`/events/${ev.live.id}/stream/segment/0`))).equals(seg0), 'segment 0 unchanged');

  // What a player gets so far decodes cleanly.
  const init = await bytesOf(await get(`/events/${ev.live.id}/stream/init.mp4`));
  const seg1 = await bytesOf(await get(`/events/${ev.live.id}/stream/segment/1`));
  const played = await probeFile(await saved('live.mp4', Buffer.concat([init, seg0, seg1])));
  t.is(played.errors, '');
  t.is(played.frames, 80);
  // The file itself (fragmented, growing) is what video.mp4 serves.
  const direct = await get(`/events/${ev.live.id}/stream/video.mp4`);
  t.is(direct.headers.get('cache-control'), 'no-cache');
  t.true((await bytesOf(direct)).equals(full));
});

test('a truncated plain MP4 being written (no moov yet) is 404 saying so, not a 500', async (t) => {
  const e = await insertMediaEvent(db, roots, { end: null, files: { 'incomplete.h264.mp4': { fixture: 'h264.mp4' } } });
  const file = path.join(e.dir, 'incomplete.h264.mp4');
  // moov at the end (a 1.36-style MP4): cut before it.
  truncateSync(file, 2000);
  for (const route of ['video.mp4', 'playlist.m3u8', 'init.mp4', 'segment/0']) {
    const res = await get(`/events/${e.id}/stream/${route}`);
    t.is(res.status, 404, route);
    const body = await res.json();
    t.is(body.kind, 'FILE_NOT_FOUND_ERROR', route);
    t.false(JSON.stringify(body).includes(roots.base), 'no path in the body');
  }
});

test.serial(
  'the segment cache stays under playback.segment_cache_bytes after reading many events, evicting the oldest',
  async (t) => {
    const stats0 = app.playback.segments.stats();
    t.is(stats0.budgetBytes, 200_000);
    const events: MediaEvent[] = [];
    for (let i = 0; i < 8; i++)
      events.push(await insertMediaEvent(db, roots, { files: { '{id}-video.mp4': { fixture: 'h264-bf-aac.mp4' } } }));
    let served = 0;
    for (const e of events) {
      for (let seq = 0; seq < 3; seq++) {
        const res = await get(`/events/${e.id}/stream/segment/${seq}`);
        t.is(res.status, 200);
        served += (await bytesOf(res)).length;
        t.true(app.playback.segments.stats().bytes <= 200_000);
      }
    }
    const stats = app.playback.segments.stats();
    t.true(served > 2 * stats.budgetBytes, `served ${served}`);
    t.true(stats.bytes <= stats.budgetBytes, JSON.stringify(stats));
    t.true(stats.evictions > 0, JSON.stringify(stats));
    t.true(stats.entries > 0);
    // The newest segment is still there: a hit, not another read.
    const before = app.playback.segments.stats().hits;
    await bytesOf(await get(`/events/${events.at(-1)!.id}/stream/segment/2`));
    t.is(app.playback.segments.stats().hits, before + 1);
  },
);

test("401/403/404 on the remuxed routes: no token, no Events permission, a hidden monitor's event exactly like a missing one", async (t) => {
  const limited = await insertUser(db, {
    username: 'rlimited',
    password: 'rlimited',
    stored: bcrypt.hashSync('rlimited', 4),
    perms: { Events: 'View', Monitors: 'View' },
  });
  await sql(db, "INSERT INTO Monitors (Id, Name) VALUES (2, 'Hidden')");
  await sql(db, 'INSERT INTO Monitors_Permissions (UserId, MonitorId, Permission) VALUES (?, 2, ?)', [limited, 'None']);
  const hidden = await insertMediaEvent(db, roots, {
    monitorId: 2,
    files: { '{id}-video.mp4': { fixture: 'h264-bf-aac.mp4' } },
  });
  const tokens = {
    limited: await login({ api: app.api } as never, 'rlimited'),
    none: await login({ api: app.api } as never, 'evnone'),
  };
  const routes = (id: number) =>
    ['video.mp4', 'media.mp4', 'playlist.m3u8', 'init.mp4', 'segment/0', 'segment/99'].map(
      (r) => `/events/${id}/stream/${r}`,
    );
  for (const route of routes(ev.bframes.id)) {
    const anonymous = await fetch(app.api(route));
    t.is(anonymous.status, 401, route);
    t.is((await anonymous.json()).kind, 'UNAUTHORIZED_ERROR');
    t.is((await fetch(`${app.api(route)}?token=not-a-token`)).status, 401, route);
    const denied = await fetch(`${app.api(route)}?token=${tokens.none}`);
    t.is(denied.status, 403, route);
    t.is((await denied.json()).kind, 'PERMISSION_DENIED_ERROR');
  }
  const missingId = 987_654_321;
  const [hiddenRoutes, missingRoutes] = [routes(hidden.id), routes(missingId)];
  for (let i = 0; i < hiddenRoutes.length; i++) {
    const a = await fetch(app.api(hiddenRoutes[i]), { headers: { authorization: `Bearer ${tokens.limited}` } });
    const b = await fetch(app.api(missingRoutes[i]), { headers: { authorization: `Bearer ${tokens.limited}` } });
    t.is(a.status, 404, hiddenRoutes[i]);
    t.is(b.status, 404, missingRoutes[i]);
    const [ja, jb] = [await a.json(), await b.json()];
    t.is(ja.kind, 'EVENT_NOT_FOUND_ERROR', hiddenRoutes[i]);
    t.is(ja.error_message.replace(String(hidden.id), 'N'), jb.error_message.replace(String(missingId), 'N'));
  }
  // The unrestricted user plays it.
  const open = await get(`/events/${hidden.id}/stream/segment/0`);
  t.is(open.status, 200);
  await bytesOf(open);
});

test('SegmentCache: LRU order, budget, oversize values served but not kept, concurrent misses share one production', async (t) => {
  const cache = new SegmentCache(100);
  const buf = (n: number) => Buffer.alloc(n);
  await cache.getOrMake('a', async () => buf(20));
  await cache.getOrMake('b', async () => buf(20));
  await cache.getOrMake('a', async () => buf(99)); // hit: a becomes the newest
  await cache.getOrMake('c', async () => buf(25));
  await cache.getOrMake('d', async () => buf(25)); // 90 bytes
  await cache.getOrMake('e', async () => buf(20)); // 110 → evicts b (the oldest)
  t.like(cache.stats(), { bytes: 90, entries: 4, evictions: 1, hits: 1 });
  let produced = 0;
  await cache.getOrMake('b', async () => (produced++, buf(1)));
  t.is(produced, 1, 'b was evicted');
  const big = await cache.getOrMake('big', async () => buf(60));
  t.is(big.length, 60);
  t.false(cache.stats().entries > 5);
  let calls = 0;
  const slow = () => new Promise<Buffer>((resolve) => setTimeout(() => resolve(buf(5)), 20, calls++));
  const [x, y] = await Promise.all([cache.getOrMake('same', slow), cache.getOrMake('same', slow)]);
  t.is(calls, 1);
  t.is(x, y);
  t.throws(() => new SegmentCache(-1));
});

test('the configured budget is validated', async (t) => {
  const { loadConfig } = await import('../../src/config/index.js');
  const load = (value: string) =>
    loadConfig({
      env: { APP_ZONEMINDER__CONFIG_PATH: '/nonexistent/zm.conf', APP_PLAYBACK__SEGMENT_CACHE_BYTES: value },
      defaultOperatorFile: '/nonexistent/prod.toml',
    });
  t.is(load('1048576').config.playback.segment_cache_bytes, 1_048_576);
  t.throws(() => load('-5'), { message: /playback\.segment_cache_bytes/ });
});

test('RecordingCache: one version per file is kept; a grown file replaces its old version, which closes once its lease ends', async (t) => {
  const { RecordingCache } = await import('../../src/features/playback/recording-cache.js');
  const cache = new RecordingCache();
  const file = path.join(work, 'growing.mp4');
  const full = readFileSync(await fixture('h264-frag-long.mp4'));
  writeFileSync(file, full.subarray(0, Math.floor(full.length / 2)));
  const first = await cache.acquire(file);
  const again = await cache.acquire(file);
  t.is(again.recording, first.recording, 'same version: shared');
  again.release();
  writeFileSync(file, full);
  const grown = await cache.acquire(file);
  t.not(grown.recording, first.recording);
  t.true(first.recording.evicted);
  t.false(first.recording.file.closed, 'still leased');
  t.true(grown.recording.file.remuxPlan().length > first.recording.file.remuxPlan().length);
  first.release();
  t.true(first.recording.file.closed);
  grown.release();
  cache.clear();
  await new Promise((resolve) => setImmediate(resolve));
  t.true(grown.recording.file.closed);
});

test('RecordingCache: a symlink where the checked file was (swapped in after the lookup) is missing, not followed', async (t) => {
  const { RecordingCache } = await import('../../src/features/playback/recording-cache.js');
  const cache = new RecordingCache();
  const link = path.join(work, 'swapped.mp4');
  symlinkSync(await fixture('h264.mp4'), link);
  await t.throwsAsync(cache.acquire(link), { code: 'ENOENT' });
  cache.clear();
});
