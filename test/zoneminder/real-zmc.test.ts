// zmgate on the files of a real ZoneMinder: Debian's zmc 1.36 captures an ffmpeg-made local file
// (grey, a red marker in the top-left corner) on monitors of Type `Ffmpeg` with several
// Orientations, camera passthrough and encode, SaveJPEGs on and off and 10 s sections, against a
// throwaway database created with the real 1.36.33 schema and bridged to 1.39.22 by zmgate-db.
// zmgate then serves, from zmc's real shared memory and real events: the snapshot and MJPEG,
// thumbnails and frame images (each orientation case checked by size and by where the marker
// went), /video with ranges, /stream/video.mp4, the HLS VOD played by ffmpeg and by hls.js in
// Chromium, /info, an event
// still being recorded, the deletion of a real event, and an alarm forced through TriggerData
// that zmc turns into an event with the forced cause.
//
// Skipped with a message when /usr/bin/zmc is missing or the tests do not run as root.
import test from 'ava';
import bcrypt from 'bcryptjs';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { hlsPlayToEnd, launchChromium } from '../helpers/browser.js';
import { probeFile } from '../helpers/media.js';
import { bytesOf, markerCorner, startPlaybackApp, type PlaybackApp } from '../helpers/playback.js';
import { login } from '../helpers/rest.js';
import { RealZm, realZmcUnavailable, waitFor } from '../helpers/real-zmc.js';
import { database136, zmgateDb } from '../helpers/zm136.js';
import { insertUser } from '../helpers/zmdb.js';

const run = promisify(execFile);
const unavailable = realZmcUnavailable();
if (unavailable) console.log(`# real-zmc tests skipped: ${unavailable}`);
const serial = unavailable ? test.serial.skip : test.serial;

/** The source: 640×360 with the marker top-left. */
const W = 640;
const H = 360;
interface MonitorCase {
  id: number;
  orientation: string;
  /** 1 encode, 2 camera passthrough. */
  videoWriter: number;
  saveJpegs: number;
  fn: 'Record' | 'Nodect';
  /** Where the marker is in an upright picture. */
  corner: string;
}
const M: Record<string, MonitorCase> = {
  pass90: { id: 961, orientation: 'ROTATE_90', videoWriter: 2, saveJpegs: 3, fn: 'Record', corner: 'top-right' },
  enc90: { id: 962, orientation: 'ROTATE_90', videoWriter: 1, saveJpegs: 0, fn: 'Record', corner: 'top-right' },
  pass180: { id: 963, orientation: 'ROTATE_180', videoWriter: 2, saveJpegs: 0, fn: 'Record', corner: 'bottom-right' },
  flip: { id: 964, orientation: 'FLIP_HORI', videoWriter: 2, saveJpegs: 0, fn: 'Record', corner: 'top-right' },
  alarm: { id: 965, orientation: 'ROTATE_0', videoWriter: 2, saveJpegs: 0, fn: 'Nodect', corner: 'top-left' },
};
const upright = (m: MonitorCase, w = W, h = H) =>
  m.orientation === 'ROTATE_90' || m.orientation === 'ROTATE_270' ? { width: h, height: w } : { width: w, height: h };

let db: FreshDatabase;
let zm: RealZm;
let app: PlaybackApp;
let token: string;
/** The first closed event of each monitor. */
const closed: Record<string, number> = {};

test.before(async () => {
  if (unavailable) return;
  db = await database136('realzmc');
  zm = new RealZm(db);
  await zm.freshen();
  const clip = await zm.clip(
    'marker.mp4',
    [`color=c=gray:s=${W}x${H}:r=10:d=60`],
    'drawbox=x=0:y=0:w=40:h=20:color=red:t=fill',
  );
  for (const m of Object.values(M)) {
    await sql(
      db,
      'INSERT INTO Monitors (Id, Name, Type, `Function`, Enabled, Method, Path, Width, Height, Colours, Orientation, VideoWriter, SaveJPEGs, SectionLength, MaxFPS, ImageBufferCount) ' +
        "VALUES (?, ?, 'Ffmpeg', ?, 1, 'rtpRtsp', ?, ?, ?, 4, ?, ?, ?, 10, 10, 10)",
      [m.id, `real-${m.id}`, m.fn, clip, W, H, m.orientation, m.videoWriter, m.saveJpegs],
    );
  }
  // A deliberate conversion under ZoneMinder 1.36's daemons (what the bridge now refuses by
  // default): these tests need 1.39's tables for zmgate's routes, not ZoneMinder's own zones.
  const bridged = await zmgateDb(['bridge', '--allow-older-zoneminder', '-u', db.url, '--yes']);
  if (bridged.code !== 0) throw new Error(`zmgate-db bridge failed: ${bridged.stderr}`);
  // The bridge adds 1.39's Config options; zmc 1.36 refuses a Config table of another size
  // ("Config mismatch"), and --freshen puts back exactly its own set.
  await zm.freshen();
  await insertUser(db, {
    username: 'realzm',
    password: 'realzm',
    stored: bcrypt.hashSync('realzm', 4),
    perms: { Stream: 'View', Events: 'Edit', Monitors: 'Edit', Control: 'Edit', System: 'View' },
  });
  for (const m of Object.values(M)) zm.start(m.id);
  app = await startPlaybackApp(
    db,
    {
      APP_AUTH__RATE_LIMIT__ENABLED: 'false',
      APP_ZONEMINDER__DIR_EVENTS: zm.paths.events,
      APP_ZONEMINDER__PATH_MAP: zm.paths.map,
      APP_ZONEMINDER__PATH_SOCKS: zm.paths.socks,
    },
    {},
  );
  token = await login({ api: app.api } as never, 'realzm');
  // Every Record monitor closes a first 10 s section.
  for (const [name, m] of Object.entries(M)) {
    if (m.fn !== 'Record') continue;
    closed[name] = await waitFor(
      `a closed event of monitor ${m.id} (zmc said: ${zm.log(m.id).slice(-500)})`,
      90_000,
      async () => {
        const [row] = await sql(
          db,
          'SELECT Id FROM Events WHERE MonitorId = ? AND EndDateTime IS NOT NULL ORDER BY Id LIMIT 1',
          [m.id],
        );
        return row ? Number(row.Id) : null;
      },
    );
  }
});

test.after.always(async () => {
  await app?.close();
  await zm?.stop();
});

const get = (route: string, headers: Record<string, string> = {}) =>
  fetch(app.api(route), { headers: { authorization: `Bearer ${token}`, ...headers } });

async function jpeg(route: string): Promise<Buffer> {
  const res = await get(route);
  const body = await bytesOf(res);
  if (res.status !== 200) throw new Error(`${route}: ${res.status} ${body.toString().slice(0, 300)}`);
  return body;
}

/** The first complete JPEG of a multipart MJPEG response. */
async function firstMjpegFrame(route: string): Promise<Buffer> {
  const abort = new AbortController();
  const res = await fetch(app.api(route), { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
  if (res.status !== 200) throw new Error(`${route}: ${res.status}`);
  const reader = res.body!.getReader();
  let buf = Buffer.alloc(0);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended before a whole frame');
      buf = Buffer.concat([buf, Buffer.from(value)]);
      const start = buf.indexOf(Buffer.from([0xff, 0xd8]));
      const end = start < 0 ? -1 : buf.indexOf(Buffer.from([0xff, 0xd9]), start);
      if (end > 0) return buf.subarray(start, end + 2);
    }
  } finally {
    abort.abort();
    await reader.cancel().catch(() => undefined);
  }
}

async function eventFile(id: number, name: string): Promise<string> {
  const [row] = await sql(
    db,
    "SELECT MonitorId, DATE_FORMAT(StartDateTime, '%Y-%m-%d') AS day FROM Events WHERE Id = ?",
    [id],
  );
  return path.join(zm.paths.events, String(row.MonitorId), row.day as string, String(id), name);
}

serial(
  'shared memory: the snapshot and the first MJPEG frame are upright as zmc stored them (size and marker), for 90, 180 and a flip',
  async (t) => {
    for (const name of ['pass90', 'enc90', 'pass180', 'flip']) {
      const m = M[name];
      // A 503 is possible for a moment while zmc reopens the file at its end.
      const snapshot = await waitFor(`snapshot of ${m.id}`, 20_000, () =>
        jpeg(`/monitors/${m.id}/snapshot`).catch(() => null),
      );
      t.deepEqual(await markerCorner(snapshot), { ...upright(m), corner: m.corner }, `snapshot ${name}`);
      t.deepEqual(
        await markerCorner(await firstMjpegFrame(`/live/${m.id}/mjpeg?maxfps=5`)),
        { ...upright(m), corner: m.corner },
        `mjpeg ${name}`,
      );
    }
  },
);

serial(
  '/live/sources offers the shared-memory MJPEG of each capturing monitor (stock zmc has no stream socket)',
  async (t) => {
    const res = await get('/live/sources');
    t.is(res.status, 200);
    const { sources } = (await res.json()) as { sources: Array<{ monitor_id: number; codec: string; mjpeg?: string }> };
    for (const m of Object.values(M)) {
      t.like(
        sources.find((s) => s.monitor_id === m.id),
        { codec: 'MJPEG', mjpeg: `/api/v3/live/${m.id}/mjpeg` },
        String(m.id),
      );
    }
  },
);

serial(
  "zmc's JPEGs (SaveJPEGs 3, ROTATE_90) are served as stored: thumbnail (snapshot.jpg) and frame images, never turned again",
  async (t) => {
    const m = M.pass90;
    const id = closed.pass90;
    t.true(existsSync(await eventFile(id, 'snapshot.jpg')), 'zmc wrote snapshot.jpg');
    const thumb = await jpeg(`/events/${id}/thumbnail`);
    t.true(thumb.equals(readFileSync(await eventFile(id, 'snapshot.jpg'))), "the thumbnail is zmc's snapshot.jpg");
    t.deepEqual(await markerCorner(thumb), { ...upright(m), corner: m.corner });
    t.deepEqual(
      await markerCorner(await jpeg(`/events/${id}/frames/1/image`)),
      { ...upright(m), corner: m.corner },
      'capture JPEG of frame 1',
    );
  },
);

serial(
  'frames of recordings: passthrough turned once (90, 180, flip), encode served as decoded; the recording itself is unturned or turned as zmc wrote it',
  async (t) => {
    for (const name of ['pass90', 'enc90', 'pass180', 'flip']) {
      const m = M[name];
      const id = closed[name];
      const video = await probeFile(await eventFile(id, `${id}-video.mp4`));
      // Passthrough keeps the camera's 640×360; encode writes zmc's turned images.
      t.like(video, m.videoWriter === 2 ? { width: W, height: H } : upright(m), `recording of ${name}`);
      const frameId = m.saveJpegs ? 1 : 2; // with SaveJPEGs 0 every frame comes from the recording
      t.deepEqual(
        await markerCorner(await jpeg(`/events/${id}/frames/${frameId}/image`)),
        { ...upright(m), corner: m.corner },
        `frame image ${name}`,
      );
      // zmc 1.36 writes snapshot.jpg even with SaveJPEGs 0; the thumbnail prefers it to the recording.
      const snapshot = existsSync(await eventFile(id, 'snapshot.jpg'));
      const thumbSize = snapshot ? upright(m) : upright(m, 320, 180);
      t.deepEqual(
        await markerCorner(await jpeg(`/events/${id}/thumbnail`)),
        { ...thumbSize, corner: m.corner },
        `thumbnail ${name}`,
      );
    }
  },
);

serial('/info, /video with ranges and /stream/video.mp4 of a real closed event', async (t) => {
  const id = closed.enc90;
  const file = await eventFile(id, `${id}-video.mp4`);
  const info = (await (await get(`/events/${id}/info`)).json()) as Record<string, unknown>;
  t.like(info, {
    event_id: id,
    has_video: true,
    in_progress: false,
    container: 'mp4',
    file_size: statSync(file).size,
    ...upright(M.enc90),
  });
  // zmc 1.36's encoder picks H.265 or H.264 (OutputCodec auto).
  t.true(['H264', 'H265'].includes(info.video_codec as string), String(info.video_codec));
  const ranged = await get(`/events/${id}/video`, { range: 'bytes=100-1099' });
  t.is(ranged.status, 206);
  t.is(ranged.headers.get('content-range'), `bytes 100-1099/${statSync(file).size}`);
  t.true((await bytesOf(ranged)).equals(readFileSync(file).subarray(100, 1100)));
  const fmp4 = path.join(zm.paths.base, `${id}-fragmented.mp4`);
  writeFileSync(fmp4, await bytesOf(await get(`/events/${id}/stream/video.mp4`)));
  const [source, remuxed] = [await probeFile(file), await probeFile(fmp4)];
  // The remux adds no diagnostic of its own: a clean recording gives a clean remux, and one that
  // ffmpeg already complains about (a run once reported a repeated DTS here) gives the same.
  const strip = (errors: string) => errors.replace(/ @ 0x[0-9a-f]+/g, '');
  if (source.errors === '') t.is(remuxed.errors, '');
  else t.is(strip(remuxed.errors), strip(source.errors));
  t.is(remuxed.frames, source.frames);
});

serial(
  'HLS VOD of a real event: ffmpeg with its default settings decodes every frame from playlist.m3u8?token=',
  async (t) => {
    const id = closed.pass90;
    const source = await probeFile(await eventFile(id, `${id}-video.mp4`));
    const { stderr, stdout } = await run(
      'ffmpeg',
      [
        '-nostdin',
        '-v',
        'error',
        '-i',
        `${app.api(`/events/${id}/stream/playlist.m3u8`)}?token=${token}`,
        '-map',
        '0:v',
        '-f',
        'framemd5',
        '-',
      ],
      { maxBuffer: 16 << 20 },
    );
    t.is(stderr.trim(), '');
    const frames = stdout.split('\n').filter((l) => l && !l.startsWith('#')).length;
    t.is(frames, source.frames);
  },
);

serial('HLS VOD of a real event: hls.js in Chromium plays it to the end', async (t) => {
  const id = closed.pass90;
  const browser = await launchChromium();
  try {
    const played = await hlsPlayToEnd(browser, app.api(`/events/${id}/stream/playlist.m3u8`), token);
    t.is(played.error, null, JSON.stringify(played));
    t.false(played.timedOut, JSON.stringify(played));
    t.true(played.ended, JSON.stringify(played));
    // Passthrough: the camera's 640×360 as recorded (live video and recordings are not turned).
    t.like(played, { width: W, height: H });
  } finally {
    await browser.close();
  }
});

serial('an event still being recorded: /info says in progress and its recording is served as it grows', async (t) => {
  const m = M.pass90;
  const [open] = await sql(
    db,
    'SELECT Id FROM Events WHERE MonitorId = ? AND EndDateTime IS NULL ORDER BY Id DESC LIMIT 1',
    [m.id],
  );
  t.truthy(open, 'zmc has an open event');
  const id = Number(open.Id);
  const info = (await (await get(`/events/${id}/info`)).json()) as Record<string, unknown>;
  t.like(info, { event_id: id, in_progress: true, recommended_mode: 'event' });
  const res = await get(`/events/${id}/video`);
  t.is(res.status, 200);
  t.true((await bytesOf(res)).length > 0);
});

serial('deleting a real closed event removes its row and its directory', async (t) => {
  const id = closed.flip;
  const dir = path.dirname(await eventFile(id, 'x'));
  t.true(existsSync(dir));
  const res = await fetch(app.api(`/events/${id}`), {
    method: 'DELETE',
    headers: { authorization: `Bearer ${token}` },
  });
  t.is(res.status, 204, await res.text());
  t.deepEqual(await sql(db, 'SELECT Id FROM Events WHERE Id = ?', [id]), []);
  t.false(existsSync(dir));
});

serial(
  'an alarm forced through TriggerData: zmc opens an event with the forced cause, and cancel ends the alarm',
  async (t) => {
    const m = M.alarm;
    const patch = (body: unknown) =>
      fetch(app.api(`/monitors/${m.id}/alarm`), {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const on = await waitFor(
      'on answered 200',
      20_000,
      async () =>
        (await patch({ action: 'on', cause: 'zmgate-real', score: 50, text: 'forced by the test' })).status === 200,
    );
    t.true(on);
    const event = await waitFor(
      `an event of monitor ${m.id} with the forced cause (zmc said: ${zm.log(m.id).slice(-300)})`,
      60_000,
      async () => {
        const [row] = await sql(db, 'SELECT Id, Cause FROM Events WHERE MonitorId = ? ORDER BY Id DESC LIMIT 1', [
          m.id,
        ]);
        return row ?? null;
      },
    );
    t.regex(String(event.Cause), /zmgate-real/);
    // zmc reopens the file at its end, and its shared memory says "starting" for a moment then.
    const cancelled = await waitFor('cancel answered 200', 20_000, async () => {
      const res = await patch({ action: 'cancel' });
      const body = await res.text();
      return res.status === 200 ? body : null;
    });
    t.truthy(cancelled);
  },
);
