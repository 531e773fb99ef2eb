// The paced MJPEG stream of JPEG-only events: multipart framing, frame order, recorded timing
// (loosely: lower bounds and relative speed, never tight windows), the speed bounds, the gap cap,
// stopping when the client leaves, and the frame timeline it is built on.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { MJPEG_BOUNDARY } from '../../src/media/mjpeg.js';
import { averageInterval, frameTimes } from '../../src/zm/event-timeline.js';
import { insertEventUsers, login } from '../helpers/events.js';
import { abandonRequest } from '../helpers/http.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import {
  captures,
  fixture,
  insertMediaEvent,
  makeStorages,
  startPlaybackApp,
  type MediaEvent,
  type PlaybackApp,
} from '../helpers/playback.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: PlaybackApp;
let db: FreshDatabase;
let token: string;
const ev: Record<string, MediaEvent> = {};
/** Frame files looked up by the streams (counted on the app's EventMediaLocator). */
let framesRead = 0;

test.before(async () => {
  db = await zmDatabase('pbmjpeg');
  await insertEventUsers(db);
  const roots = await makeStorages(db, 'pbmjpeg');
  const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  // 10 frames over 3 s; rows for 1, 4 and 10 only: the others are interpolated.
  ev.paced = await insertMediaEvent(db, roots, {
    files: captures(ten),
    frameRows: [
      [1, 0],
      [4, 1],
      [10, 3],
    ],
  });
  // Frame 2 comes 30 s after frame 1: the wait is shortened to 2 s.
  ev.gap = await insertMediaEvent(db, roots, {
    files: captures([1, 2]),
    frameRows: [
      [1, 0],
      [2, 30],
    ],
  });
  // 200 frames at 0.5 s: long enough to leave in the middle.
  ev.long = await insertMediaEvent(db, roots, {
    orientation: 'ROTATE_90',
    length: '100.00',
    frames: 200,
    files: captures(Array.from({ length: 200 }, (_, i) => i + 1)),
  });
  ev.analyse = await insertMediaEvent(db, roots, {
    files: captures([3, 5], 'analyse'),
    frameRows: [
      [3, 0],
      [5, 0.2],
    ],
  });
  ev.video = await insertMediaEvent(db, roots, { files: { '{id}-video.mp4': { fixture: 'h264.mp4' } } });
  app = await startPlaybackApp(
    db,
    { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_ZONEMINDER__DIR_EVENTS: roots.defaultDir },
    {},
  );
  const media = app.playback.media;
  const frameFile = media.frameFile.bind(media);
  media.frameFile = (event, n, kind) => {
    if (event.id === BigInt(ev.long.id)) framesRead++;
    return frameFile(event, n, kind);
  };
  token = await login({ api: app.api } as never, 'evview');
});
test.after.always(async () => app?.close());

interface Part {
  headers: Record<string, string>;
  body: Buffer;
}

/** Parses a complete multipart/x-mixed-replace body; throws on any framing error. */
function parseParts(data: Buffer): { parts: Part[]; closed: boolean } {
  const parts: Part[] = [];
  let pos = 0;
  const open = Buffer.from(`--${MJPEG_BOUNDARY}\r\n`);
  const close = Buffer.from(`--${MJPEG_BOUNDARY}--\r\n`);
  while (pos < data.length) {
    if (data.subarray(pos, pos + close.length).equals(close))
      return { parts, closed: pos + close.length === data.length };
    if (!data.subarray(pos, pos + open.length).equals(open)) throw new Error(`no boundary at ${pos}`);
    const headEnd = data.indexOf('\r\n\r\n', pos);
    const headers = Object.fromEntries(
      data
        .subarray(pos + open.length, headEnd)
        .toString()
        .split('\r\n')
        .map((l) => l.split(': ') as [string, string])
        .map(([k, v]) => [k.toLowerCase(), v]),
    );
    const length = Number(headers['content-length']);
    const body = data.subarray(headEnd + 4, headEnd + 4 + length);
    if (body.length !== length || data.toString('latin1', headEnd + 4 + length, headEnd + 6 + length) !== '\r\n')
      throw new Error('bad part length');
    parts.push({ headers, body });
    pos = headEnd + 6 + length;
  }
  return { parts, closed: false };
}

async function stream(route: string): Promise<{ status: number; type: string | null; data: Buffer; ms: number }> {
  const started = Date.now();
  const res = await fetch(app.api(route), { headers: { authorization: `Bearer ${token}` } });
  const data = Buffer.from(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get('content-type'), data, ms: Date.now() - started };
}

test('the whole stream: multipart with the boundary, every frame once and in order, JPEG parts, the closing boundary', async (t) => {
  const res = await stream(`/events/${ev.paced.id}/stream/mjpeg?speed=16`);
  t.is(res.status, 200);
  t.is(res.type, `multipart/x-mixed-replace; boundary=${MJPEG_BOUNDARY}`);
  const { parts, closed } = parseParts(res.data);
  t.true(closed);
  t.deepEqual(
    parts.map((p) => Number(p.headers['x-frame-number'])),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  );
  const capture = readFileSync(await fixture('capture.jpg'));
  for (const p of parts) {
    t.is(p.headers['content-type'], 'image/jpeg');
    t.true(p.body.equals(capture));
  }
  // Recorded offsets: rows at 1→0, 4→1, 10→3; frame 2 interpolated at 1/3 s, 7 at 2 s.
  t.deepEqual(
    parts.map((p) => Number(p.headers['x-timestamp'])),
    [0, 0.333, 0.667, 1, 1.333, 1.667, 2, 2.333, 2.667, 3],
  );
});

test('pacing: at speed 1 the 3 s event takes at least ~3 s; at speed 16 far less', async (t) => {
  const [normal, fast] = await Promise.all([
    stream(`/events/${ev.paced.id}/stream/mjpeg`),
    stream(`/events/${ev.paced.id}/stream/mjpeg?speed=16`),
  ]);
  t.is(parseParts(normal.data).parts.length, 10);
  t.true(normal.ms >= 2800, `speed 1 took ${normal.ms} ms`);
  t.true(fast.ms < normal.ms - 1000, `speed 16 took ${fast.ms} ms, speed 1 ${normal.ms} ms`);
});

test('a 30 s pause in the recording is shortened to 2 s', async (t) => {
  const res = await stream(`/events/${ev.gap.id}/stream/mjpeg`);
  t.is(parseParts(res.data).parts.length, 2);
  t.true(res.ms >= 1800 && res.ms < 15_000, `${res.ms} ms`);
});

test('parts arrive over time, and the stream stops when the client leaves (no further frames are read)', async (t) => {
  const abort = new AbortController();
  const res = await fetch(app.api(`/events/${ev.long.id}/stream/mjpeg`), {
    headers: { authorization: `Bearer ${token}` },
    signal: abort.signal,
  });
  t.is(res.status, 200);
  const reader = res.body!.getReader();
  let received = Buffer.alloc(0);
  const until = Date.now() + 1200;
  while (Date.now() < until) {
    const { value, done } = await reader.read();
    if (done) break;
    received = Buffer.concat([received, Buffer.from(value)]);
  }
  abort.abort();
  await reader.cancel().catch(() => undefined);
  // ~0.5 s per frame: a handful of parts in 1.2 s, never all 200.
  const count = received.toString('latin1').split(`--${MJPEG_BOUNDARY}\r\n`).length - 1;
  t.true(count >= 2 && count <= 10, `${count} parts`);
  t.true(framesRead >= count - 1, `${framesRead} frames read for ${count} parts`);
  // A ROTATE_90 event: zmc's JPEGs go out as stored (zmc turned them already).
  t.true(received.includes(readFileSync(await fixture('capture.jpg'))), 'the stored JPEG, unchanged');
  const atLeave = framesRead;
  await new Promise((r) => setTimeout(r, 2500));
  t.true(framesRead <= atLeave + 1, `${framesRead - atLeave} frames read after the client left`);
});

test.serial(
  'a client gone before the first byte: the stream ends instead of waiting for a drain forever',
  async (t) => {
    for (let i = 0; i < 3; i++)
      await abandonRequest(app.api(`/events/${ev.long.id}/stream/mjpeg`), { authorization: `Bearer ${token}` });
    await new Promise((r) => setTimeout(r, 1500)); // the handlers get past their awaits and start writing
    const end = Date.now() + 5000;
    while (app.playback.paced.count() > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    t.is(app.playback.paced.count(), 0);
  },
);

test('analysis JPEGs are streamed when there are no capture JPEGs', async (t) => {
  const { parts } = parseParts((await stream(`/events/${ev.analyse.id}/stream/mjpeg`)).data);
  t.deepEqual(
    parts.map((p) => p.headers['x-frame-number']),
    ['3', '5'],
  );
});

test('speed: 0.25 to 16; anything else is 400 naming speed', async (t) => {
  for (const speed of ['0.1', '17', 'abc', '-1', '1e1']) {
    const res = await fetch(app.api(`/events/${ev.paced.id}/stream/mjpeg?speed=${speed}`), {
      headers: { authorization: `Bearer ${token}` },
    });
    t.is(res.status, 400, speed);
    t.deepEqual((await res.json()).details, [['speed', 'must be a number from 0.25 to 16']]);
  }
  for (const speed of ['0.25', '16', '2.5']) {
    const abort = new AbortController();
    const res = await fetch(app.api(`/events/${ev.paced.id}/stream/mjpeg?speed=${speed}`), {
      headers: { authorization: `Bearer ${token}` },
      signal: abort.signal,
    });
    t.is(res.status, 200, speed);
    abort.abort();
  }
});

test('HEAD answers the headers only; no JPEG frames is 404; a missing event is 404', async (t) => {
  const head = await fetch(app.api(`/events/${ev.paced.id}/stream/mjpeg`), {
    method: 'HEAD',
    headers: { authorization: `Bearer ${token}` },
  });
  t.is(head.status, 200);
  t.regex(head.headers.get('content-type') ?? '', /^multipart\/x-mixed-replace; boundary=/);
  t.is((await head.arrayBuffer()).byteLength, 0);
  const video = await stream(`/events/${ev.video.id}/stream/mjpeg`);
  t.is(video.status, 404);
  t.is(JSON.parse(video.data.toString()).kind, 'FILE_NOT_FOUND_ERROR');
  t.is((await stream('/events/999999/stream/mjpeg')).status, 404);
});

test('frameTimes: exact rows, interpolation between rows, extrapolation before and after, never decreasing', (t) => {
  const rows = [
    { frameId: 10, delta: 1 },
    { frameId: 20, delta: 2 },
  ];
  t.deepEqual(frameTimes([10, 15, 20], rows, 0.1), [1, 1.5, 2]);
  t.deepEqual(
    frameTimes([5, 25], rows, 0.1).map((x) => Math.round(x * 100) / 100),
    [0.5, 2.5],
  );
  t.deepEqual(
    frameTimes([1, 2, 3], [], 0.2).map((x) => Math.round(x * 100) / 100),
    [0, 0.2, 0.4],
  );
  // A row out of order (a clock step) never makes time run backwards.
  t.deepEqual(
    frameTimes(
      [1, 2, 3],
      [
        { frameId: 1, delta: 1 },
        { frameId: 2, delta: 0.5 },
        { frameId: 3, delta: 2 },
      ],
      0.1,
    ),
    [1, 1, 2],
  );
  t.is(averageInterval(rows, 0, 0), 0.1);
  t.is(averageInterval([], 10, 100), 0.1);
  t.is(averageInterval([], 0, 0), 0.1);
  t.is(
    averageInterval(
      [
        { frameId: 1, delta: 0 },
        { frameId: 11, delta: 5 },
      ],
      0,
      0,
    ),
    0.5,
  );
});
