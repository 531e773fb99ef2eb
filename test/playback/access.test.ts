// Who may reach recorded media, and what a request can reach: 401/403/404 on every playback
// route, `?token=` accepted there (GET and HEAD) and refused elsewhere, the row ACL (a hidden
// monitor's event is exactly as missing), path-escape attempts (DefaultVideo, symlinks, encoded
// ids), the media-route list (no compression, no global limiter), the OpenAPI declaration of the
// routes against PLAYBACK_ROUTES and the reference surface, and the remux seam.
import test from 'ava';
import bcrypt from 'bcryptjs';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isMediaPath } from '../../src/http/media-table.js';
import { PLAYBACK_ROUTES } from '../../src/features/playback/playback-routes.js';
import { BufferSource } from '../../src/media/byte-source.js';
import type { EventRemuxer } from '../../src/features/playback/event-remux.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertEventUsers, login, sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import {
  bytesOf,
  captures,
  fixture,
  insertMediaEvent,
  makeStorages,
  startPlaybackApp,
  type MediaEvent,
  type StorageRoots,
} from '../helpers/playback.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
let roots: StorageRoots;
const tokens: Record<string, string> = {};
const ev: Record<string, MediaEvent> = {};
let hiddenFrameRow: number;
let outside: string;

/** Every playback route (and /info) for event `id`, as a client calls it. */
function routes(id: number, frameRow = hiddenFrameRow): string[] {
  return [
    `/events/${id}/video`,
    `/events/${id}/info`,
    `/events/${id}/thumbnail`,
    `/events/${id}/stream/video.mp4`,
    `/events/${id}/stream/media.mp4`,
    `/events/${id}/stream/playlist.m3u8`,
    `/events/${id}/stream/init.mp4`,
    `/events/${id}/stream/segment/0`,
    `/events/${id}/stream/mjpeg?speed=16`,
    `/events/${id}/frames/1/image`,
    `/frames/${frameRow}/image`,
  ];
}

test.before(async () => {
  db = await zmDatabase('pbaccess');
  await insertEventUsers(db);
  // Events View on monitor 1 only: a None row hides monitor 2.
  const limited = await insertUser(db, {
    username: 'limited',
    password: 'limited',
    stored: bcrypt.hashSync('limited', 4),
    perms: { Events: 'View', Monitors: 'View' },
  });
  roots = await makeStorages(db, 'pbaccess');
  await sql(db, "INSERT INTO Monitors (Id, Name) VALUES (2, 'Hidden')");
  await sql(db, 'INSERT INTO Monitors_Permissions (UserId, MonitorId, Permission) VALUES (?, 2, ?)', [limited, 'None']);
  const full = {
    '{id}-video.mp4': { fixture: 'h264-frag.mp4' },
    'snapshot.jpg': { fixture: 'snapshot.jpg' },
    ...captures([1]),
  };
  ev.visible = await insertMediaEvent(db, roots, { monitorId: 1, files: full, frameRows: [[1, 0]] });
  ev.hidden = await insertMediaEvent(db, roots, { monitorId: 2, files: full, frameRows: [[1, 0]] });
  [{ Id: hiddenFrameRow }] = await sql(db, 'SELECT Id FROM Frames WHERE EventId = ?', [ev.hidden.id]);
  hiddenFrameRow = Number(hiddenFrameRow);

  // Path-escape fixtures: a secret file beside the storage roots.
  outside = path.join(roots.base, 'secret.mp4');
  writeFileSync(outside, readFileSync(await fixture('h264.mp4')));
  writeFileSync(path.join(roots.base, 'secret.jpg'), readFileSync(await fixture('alarm.jpg')));
  ev.traversal = await insertMediaEvent(db, roots, { defaultVideo: '../../../secret.mp4' });
  ev.absolute = await insertMediaEvent(db, roots, { defaultVideo: outside.slice(0, 64) });
  ev.etcPasswd = await insertMediaEvent(db, roots, { defaultVideo: '../../etc/passwd' });
  ev.symlinkVideo = await insertMediaEvent(db, roots, { defaultVideo: '{id}-video.mp4' });
  symlinkSync(outside, path.join(ev.symlinkVideo.dir, `${ev.symlinkVideo.id}-video.mp4`));
  ev.symlinkStill = await insertMediaEvent(db, roots, {});
  symlinkSync(path.join(roots.base, 'secret.jpg'), path.join(ev.symlinkStill.dir, 'snapshot.jpg'));
  symlinkSync('../../../../../secret.jpg', path.join(ev.symlinkStill.dir, '00001-capture.jpg'));
  ev.innerLink = await insertMediaEvent(db, roots, {
    defaultVideo: 'link.mp4',
    files: { 'real.mp4': { fixture: 'h264.mp4' } },
  });
  symlinkSync('real.mp4', path.join(ev.innerLink.dir, 'link.mp4'));

  app = await startTestApp({
    db,
    env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_ZONEMINDER__DIR_EVENTS: roots.defaultDir },
  });
  for (const name of ['evview', 'evnone', 'limited']) tokens[name] = await login(app, name);
});
test.after.always(async () => app?.close());

function get(
  route: string,
  opts: { token?: string; query?: string; method?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const url = new URL(app.api(route));
  if (opts.query) url.searchParams.set('token', opts.query);
  return fetch(url, {
    method: opts.method ?? 'GET',
    headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...opts.headers },
  });
}

/** Reads at most a little of a body (an MJPEG stream never ends by itself). */
async function settle(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => undefined);
}

test('no token: 401 UNAUTHORIZED_ERROR on every playback route', async (t) => {
  for (const route of routes(ev.visible.id)) {
    const res = await get(route);
    t.is(res.status, 401, route);
    t.is((await res.json()).kind, 'UNAUTHORIZED_ERROR');
  }
});

/** The routes a browser element loads itself: all but /info (JSON, fetched with the header). */
const mediaOnly = (list: string[]) => list.filter((r) => !r.endsWith('/info'));

test('?token= is accepted on every playback route, for GET and HEAD', async (t) => {
  for (const route of mediaOnly(routes(ev.visible.id, 0))) {
    for (const method of ['GET', 'HEAD']) {
      const res = await get(route, { query: tokens.evview, method });
      t.not(res.status, 401, `${method} ${route}`);
      t.not(res.status, 403, `${method} ${route}`);
      await settle(res);
    }
  }
  const video = await get(`/events/${ev.visible.id}/video`, { query: tokens.evview });
  t.is(video.status, 200);
  t.is(video.headers.get('content-type'), 'video/mp4');
  await settle(video);
});

test('?token= is refused off the media routes, and a bad query token is 401', async (t) => {
  for (const route of [
    `/events/${ev.visible.id}`,
    `/events/${ev.visible.id}/info`,
    '/events',
    '/frames',
    `/frames/${hiddenFrameRow}`,
  ]) {
    const res = await get(route, { query: tokens.evview });
    t.is(res.status, 401, route);
    t.regex((await res.json()).error_message, /media routes only/);
  }
  t.is((await get(`/events/${ev.visible.id}/thumbnail`, { query: 'not-a-jwt' })).status, 401);
  t.is((await get(`/events/${ev.visible.id}/thumbnail`, { query: '' })).status, 401);
});

test('no Events permission: 403 on every playback route, header or query token', async (t) => {
  for (const route of routes(ev.visible.id)) {
    const res = await get(route, { token: tokens.evnone });
    t.is(res.status, 403, route);
    t.is((await res.json()).kind, 'PERMISSION_DENIED_ERROR');
    if (!route.endsWith('/info')) t.is((await get(route, { query: tokens.evnone })).status, 403, `${route} ?token=`);
  }
});

test('row ACL: an event of a hidden monitor is 404 exactly like a missing one; the unrestricted user sees it', async (t) => {
  const missingId = 987_654_321;
  for (const [hidden, missing] of routes(ev.hidden.id).map((r, i) => [r, routes(missingId, 987_654_321)[i]])) {
    const a = await get(hidden, { token: tokens.limited });
    const b = await get(missing, { token: tokens.limited });
    t.is(a.status, 404, hidden);
    t.is(b.status, 404, missing);
    const [ja, jb] = [await a.json(), await b.json()];
    t.is(ja.kind, jb.kind, hidden);
    t.is(ja.code, jb.code, hidden);
    t.is(
      ja.error_message.replace(String(ev.hidden.id), 'N').replace(String(hiddenFrameRow), 'N'),
      jb.error_message.replace(String(missingId), 'N'),
      hidden,
    );
  }
  t.is((await get(`/events/${ev.visible.id}/video`, { token: tokens.limited })).status, 200);
  const open = await get(`/events/${ev.hidden.id}/thumbnail`, { token: tokens.evview });
  t.is(open.status, 200);
  await settle(open);
});

test('path escapes: DefaultVideo with .. or an absolute path, and symlinks out of the event directory, are 404', async (t) => {
  for (const e of [ev.traversal, ev.absolute, ev.etcPasswd, ev.symlinkVideo]) {
    const res = await get(`/events/${e.id}/video`, { token: tokens.evview });
    t.is(res.status, 404, String(e.id));
    const body = await res.json();
    t.is(body.kind, 'FILE_NOT_FOUND_ERROR');
    t.false(JSON.stringify(body).includes(roots.base), 'no path in the body');
  }
  // The outside snapshot.jpg and capture are skipped: nothing else to show.
  t.is((await get(`/events/${ev.symlinkStill.id}/thumbnail`, { token: tokens.evview })).status, 404);
  t.is((await get(`/events/${ev.symlinkStill.id}/frames/1/image`, { token: tokens.evview })).status, 404);
  t.is((await get(`/events/${ev.symlinkStill.id}/frames/snapshot/image`, { token: tokens.evview })).status, 404);
  // A link that stays inside the directory is fine.
  const inner = await get(`/events/${ev.innerLink.id}/video`, { token: tokens.evview });
  t.is(inner.status, 200);
  t.true((await bytesOf(inner)).equals(readFileSync(await fixture('h264.mp4'))));
});

test('path escapes in the URL never reach the filesystem: ids must be plain integers', async (t) => {
  for (const route of [
    '/events/..%2F..%2Fetc/video',
    '/events/1%2F..%2F2/thumbnail',
    '/events/0x10/video',
    '/events/1e3/info',
    '/frames/..%2F1/image',
  ]) {
    const res = await get(route, { token: tokens.evview });
    t.true([400, 404].includes(res.status), `${route}: ${res.status}`);
    t.notRegex(await res.text(), /secret|etc\/passwd/);
  }
});

test('a Storage row with an unusable path is a 500 that names no path', async (t) => {
  await sql(db, "INSERT INTO Storage (Id, Path, Name, Scheme) VALUES (9, '/tmp/../etc', 'bad', 'Medium')");
  const id = (await insertMediaEvent(db, roots, { storageId: 2 })).id;
  await sql(db, 'UPDATE Events SET StorageId = 9 WHERE Id = ?', [id]);
  const res = await get(`/events/${id}/video`, { token: tokens.evview });
  t.is(res.status, 500);
  t.notRegex(await res.text(), /\/tmp|\/etc/);
});

test('media routes are never compressed and never count against the global limiter; JSON routes do', async (t) => {
  const limited = await startTestApp({
    db,
    env: {
      APP_AUTH__RATE_LIMIT__ENABLED: 'false',
      APP_ZONEMINDER__DIR_EVENTS: roots.defaultDir,
      APP_SERVER__MIDDLEWARE__RATE_LIMIT__ENABLED: 'true',
      APP_SERVER__MIDDLEWARE__RATE_LIMIT__BURST_SIZE: '3',
      APP_SERVER__MIDDLEWARE__RATE_LIMIT__RATE_LIMIT_PERIOD_SECS: '600',
    },
  });
  try {
    const token = await login(limited, 'evview');
    const media: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await fetch(limited.api(`/events/${ev.visible.id}/thumbnail`), {
        headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip, br' },
      });
      media.push(res.status);
      t.is(res.headers.get('content-encoding'), null);
      await res.arrayBuffer();
    }
    t.deepEqual([...new Set(media)], [200]);
    const json: number[] = [];
    for (let i = 0; i < 5; i++)
      json.push((await fetch(limited.api('/events'), { headers: { authorization: `Bearer ${token}` } })).status);
    t.true(json.includes(429));
  } finally {
    await limited.close();
  }
});

test('the media-route list holds every playback route, and only them', (t) => {
  for (const r of PLAYBACK_ROUTES) t.true(isMediaPath(r.path.replace(/\{\w+\}/g, '12')), r.path);
  t.false(isMediaPath('/api/v3/events/12/info'), 'info is JSON: compressed, rate limited, header token only');
  for (const p of ['/api/v3/events/12', '/api/v3/frames/12', '/api/v3/events', '/api/v3/events/12/frames'])
    t.false(isMediaPath(p), p);
});

test('OpenAPI: every playback route is declared with its operationId and the Events policy; the reference operations are served alike', async (t) => {
  const doc = await (await fetch(`${app.url}/api-docs/openapi.json`)).json();
  for (const r of PLAYBACK_ROUTES) {
    const op = doc.paths[r.path]?.get;
    t.truthy(op, r.path);
    t.is(op?.operationId, r.operationId, r.path);
    t.deepEqual(op?.security, [{ jwt: ['events'] }], r.path);
    t.true(
      op?.parameters.some((p: any) => p.in === 'query' && p.name === 'token'),
      `${r.path} documents ?token=`,
    );
    for (const status of ['401', '403', '404']) t.truthy(op?.responses[status], `${r.path} ${status}`);
  }
  const declared = Object.entries(doc.paths).filter(
    ([p]) => /\/(video|thumbnail|stream\/|image|synopsis)/.test(p) && p !== '/api/v3/events/{id}/info',
  );
  t.deepEqual(declared.map(([p]) => p).sort(), PLAYBACK_ROUTES.map((r) => r.path).sort());

  const here = path.dirname(new URL(import.meta.url).pathname);
  const surface = JSON.parse(
    readFileSync(path.join(here, '..', '..', 'data', 'contract', 'v3-reference-surface.json'), 'utf8'),
  );
  const reference = (
    surface.operations as Array<{ method: string; path: string; operationId: string; params: string[] }>
  ).filter((o) => /^\/api\/v3\/events\/\{id\}\/(video|thumbnail|info|stream\/.+)$/.test(o.path));
  t.is(reference.length, 8);
  for (const ref of reference) {
    const op = doc.paths[ref.path]?.[ref.method.toLowerCase()];
    t.is(op?.operationId, ref.operationId, ref.path);
    const names = new Set((op?.parameters ?? []).map((p: any) => `${p.in}:${p.name}`));
    for (const param of ref.params) {
      const [where, name] = param.split(':');
      t.true(names.has(`${where}:${name.replace(/\?$/, '')}`), `${ref.operationId} ${param}`);
    }
  }
});

test('the remux seam: a plugged-in EventRemuxer serves video.mp4 with ranges, the playlist, init and segments', async (t) => {
  const seen: string[] = [];
  const remuxer: EventRemuxer = {
    fragmentedMp4: async (input) => {
      seen.push(`fmp4:${input.video.name}`);
      return new BufferSource(Buffer.from('0123456789'), 'video/mp4', '"remuxed"');
    },
    vodPlaylist: async () => '#EXTM3U\n#EXT-X-ENDLIST\n',
    initSegment: async () => new BufferSource(Buffer.from('init'), 'video/mp4'),
    mediaSegment: async (_input, seq) => (seq === 0 ? new BufferSource(Buffer.from('seg0'), 'video/mp4') : null),
  };
  const plain = await insertMediaEvent(db, roots, { files: { '{id}-video.mp4': { fixture: 'h264.mp4' } } });
  const other = await startPlaybackApp(
    db,
    { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_ZONEMINDER__DIR_EVENTS: roots.defaultDir },
    { remuxer },
  );
  try {
    const token = await login({ api: other.api } as never, 'evview');
    const call = (route: string, headers: Record<string, string> = {}) =>
      fetch(other.api(`/events/${plain.id}${route}`), { headers: { authorization: `Bearer ${token}`, ...headers } });
    const part = await call('/stream/video.mp4', { range: 'bytes=2-4' });
    t.is(part.status, 206);
    t.is(part.headers.get('content-range'), 'bytes 2-4/10');
    t.is(await part.text(), '234');
    t.deepEqual(seen, [`fmp4:${plain.id}-video.mp4`]);
    const playlist = await call('/stream/playlist.m3u8');
    t.is(playlist.headers.get('content-type'), 'application/vnd.apple.mpegurl; charset=utf-8');
    t.is(await playlist.text(), '#EXTM3U\n#EXT-X-ENDLIST\n');
    t.is(await (await call('/stream/init.mp4')).text(), 'init');
    t.is((await call('/stream/init.mp4')).headers.get('cache-control'), 'private, max-age=31536000, immutable');
    t.is(await (await call('/stream/segment/0')).text(), 'seg0');
    const beyond = await call('/stream/segment/5');
    t.is(beyond.status, 404);
    t.deepEqual((await beyond.json()).details, [
      ['event_id', String(plain.id)],
      ['segment', '5'],
    ]);
  } finally {
    await other.close();
  }
});
