// GET /api/v3/monitors/{id}/recordings/still.jpg?at=: the instant resolved to the event covering
// it, then zmc's capture JPEG of the frame recorded then, else the frame decoded from the
// recording; ?width= scales either; every bad input a 4xx with the envelope. Sizes tell the
// sources apart (the capture JPEG fixture is 352x288, the video 640x360).
import test from 'ava';
import { insertEventUsers, login, sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import {
  SIZES,
  bytesOf,
  captures,
  insertMediaEvent,
  makeStorages,
  probeBuffer,
  startPlaybackApp,
  type PlaybackApp,
} from '../helpers/playback.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: PlaybackApp;
let db: FreshDatabase;
let token: string;
let noEvents: string;

test.before(async () => {
  db = await zmDatabase('recstill');
  await insertEventUsers(db);
  await sql(db, "INSERT INTO Config (Name, Value, Type) VALUES ('ZM_TIMEZONE', 'UTC', 'string')");
  const roots = await makeStorages(db, 'recstill');
  // 3 s at 15 fps: frame 1 at 0 s and frame 31 at 2 s recorded in Frames; zmc kept the capture
  // JPEG of frame 16 (1 s in) only.
  await insertMediaEvent(db, roots, {
    start: '2026-01-10 08:00:00',
    end: '2026-01-10 08:00:03',
    length: '3.00',
    frames: 45,
    defaultVideo: '{id}-video.mp4',
    files: { ...captures([16]), '{id}-video.mp4': { fixture: 'h264.mp4' } },
    frameRows: [
      [1, 0],
      [31, 2],
    ],
  });
  app = await startPlaybackApp(
    db,
    { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_ZONEMINDER__DIR_EVENTS: roots.defaultDir },
    {},
  );
  token = await login({ api: app.api } as never, 'evview');
  noEvents = await login({ api: app.api } as never, 'evnone');
});
test.after.always(async () => app?.close());

const STILL = '/monitors/1/recordings/still.jpg';
const get = (query: string, as = token) =>
  fetch(app.api(`${STILL}?${query}`), { headers: { authorization: `Bearer ${as}` } });

async function jpeg(query: string): Promise<{ width: number; height: number }> {
  const res = await get(query);
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${await res.text()}`);
  if (res.headers.get('content-type') !== 'image/jpeg') throw new Error(`${query}: ${res.headers.get('content-type')}`);
  return probeBuffer(await bytesOf(res));
}

test("zmc's capture JPEG of the frame recorded at that instant, else the frame decoded from the recording", async (t) => {
  // 1 s in: frame 16, between the Frames rows of frames 1 and 31.
  t.like(await jpeg('at=2026-01-10T08:00:01Z'), SIZES.capture);
  // Without an offset the instant is ZoneMinder local time (UTC here).
  t.like(await jpeg('at=2026-01-10T08:00:01'), SIZES.capture);
  // 2.5 s in: frame 39, which zmc kept no JPEG of.
  t.like(await jpeg('at=2026-01-10T08:00:02.500Z'), SIZES.video);
  // ?width= scales both down, aspect kept.
  t.like(await jpeg('at=2026-01-10T08:00:01Z&width=176'), { width: 176, height: 144 });
  t.like(await jpeg('at=2026-01-10T08:00:02.500Z&width=320'), { width: 320, height: 180 });
  // The token may come as ?token= (for <img>).
  const viaQuery = await fetch(app.api(`${STILL}?at=2026-01-10T08:00:01Z&token=${token}`));
  t.is(viaQuery.status, 200);
});

test('nothing recorded then, bad input, hidden or missing monitors: 4xx with the envelope', async (t) => {
  const outside = await get('at=2026-01-10T08:00:10Z');
  t.is(outside.status, 404);
  const body = await outside.json();
  t.like(body, { kind: 'FILE_NOT_FOUND_ERROR', code: 1 });
  t.regex(body.error_message, /recorded nothing at 2026-01-10T08:00:10Z/);

  for (const [query, field] of [
    ['', 'at'],
    ['at=soon', 'at'],
    ['at=2026-01-10T08:00:01Z&width=5', 'width'],
    ['at=2026-01-10T08:00:01Z&width=abc', 'width'],
    ['at=2026-01-10T08:00:01Z&width=100000', 'width'],
    ['at=2026-01-10T08:00:01Z&at=2026-01-10T08:00:02Z', 'at'],
  ]) {
    const res = await get(query);
    t.is(res.status, 400, query);
    t.true(JSON.stringify(await res.json()).includes(field), query);
  }
  const missing = await fetch(app.api('/monitors/99/recordings/still.jpg?at=2026-01-10T08:00:01Z'), {
    headers: { authorization: `Bearer ${token}` },
  });
  t.is(missing.status, 404);
  t.like(await missing.json(), { kind: 'MONITOR_NOT_FOUND_ERROR' });
  t.is((await get('at=2026-01-10T08:00:01Z', noEvents)).status, 403);
  t.is((await fetch(app.api(`${STILL}?at=2026-01-10T08:00:01Z`))).status, 401);
});
