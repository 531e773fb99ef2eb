// GET /monitors/{id}/snapshot and PATCH /monitors/{id}/alarm on synthetic zm.mmap files
// (helpers/shm-fixture.ts, laid out from docs/zoneminder/shared-memory.md): every layout, every Orientation (decoded with
// ffmpeg: size and corner colours), the 503 "not capturing" cases, the access rules
// (401/403/404, ?token=), and the TriggerData bytes the alarm actions leave behind.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import test from 'ava';
import bcrypt from 'bcryptjs';

import { sharedMemoryPath } from '../../src/native/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { isEnvelope } from '../helpers/http.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { caller, login } from '../helpers/rest.js';
import { type ShmFixtureSpec, writeShmFixture } from '../helpers/shm-fixture.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';

const run = promisify(execFile);
const W = 320;
const H = 240;
const mapDir = mkdtempSync(join(tmpdir(), 'zmgate-live-shm-'));
let app: TestApp;
let db: FreshDatabase;
const tokens: Record<string, string> = {};

const nowS = () => Math.floor(Date.now() / 1000);
const capturing = (extra: Record<string, number> = {}) => ({
  heartbeat_time: nowS(),
  startup_time: nowS() - 60,
  ...extra,
});

function shm(id: number, spec: Partial<ShmFixtureSpec> & Pick<ShmFixtureSpec, 'layout' | 'format'>) {
  return writeShmFixture(sharedMemoryPath(mapDir, id), {
    width: W,
    height: H,
    imageBufferCount: 3,
    images: [{ slot: 1, timestampUs: Date.now() * 1000 }],
    ...spec,
    fields: { ...capturing(), ...spec.fields },
  });
}

const LAYOUT_MONITORS = [
  { id: 1, name: '760 rgba', spec: { layout: 760, format: 'rgba' } },
  { id: 2, name: '768 bgr24', spec: { layout: 768, format: 'bgr24' } },
  { id: 3, name: '872 1.38 rgb24', spec: { layout: 872, variant: '1.38', format: 'rgb24' } },
  { id: 4, name: '872 1.39 yuv420p', spec: { layout: 872, variant: '1.39', format: 'yuv420p' } },
  { id: 5, name: '888 rgb24', spec: { layout: 888, format: 'rgb24' } },
] as const;

async function sql(q: string, values: unknown[] = []) {
  return db.db.query(q, values, db.name);
}

test.before(async () => {
  db = await zmDatabase('livesnap');
  const add = (username: string, perms: Record<string, string>) =>
    insertUser(db, { username, password: username, stored: bcrypt.hashSync(username, 4), perms });
  await add('full', { Stream: 'View', Monitors: 'Edit' });
  await add('viewonly', { Stream: 'View', Monitors: 'View' });
  await add('nostream', { Stream: 'None', Monitors: 'Edit' });
  const limited = await add('limited', { Stream: 'View', Monitors: 'Edit' });
  for (const m of LAYOUT_MONITORS) {
    await sql('INSERT INTO Monitors (Id, Name, Width, Height, ImageBufferCount) VALUES (?, ?, ?, ?, 3)', [
      m.id,
      m.name,
      W,
      H,
    ]);
    shm(m.id, m.spec as ShmFixtureSpec);
  }
  // 10: Orientation tests; 11: no file; 12: Capturing None; 13: stale heartbeat; 14: no image yet; 15: valid 0; 16: hidden for `limited`.
  for (const id of [10, 11, 12, 13, 14, 15, 16]) {
    await sql('INSERT INTO Monitors (Id, Name, Width, Height, ImageBufferCount) VALUES (?, ?, ?, ?, 3)', [
      id,
      `m${id}`,
      W,
      H,
    ]);
  }
  shm(10, { layout: 888, format: 'rgb24' });
  shm(12, { layout: 888, format: 'rgb24', fields: { capturing: 1 } });
  shm(13, { layout: 872, format: 'rgb24', fields: { heartbeat_time: nowS() - 600 } });
  shm(14, { layout: 888, format: 'rgb24', images: [] });
  shm(15, { layout: 760, format: 'rgba', fields: { valid: 0 } });
  shm(16, { layout: 888, format: 'rgb24' });
  await sql("INSERT INTO Monitors_Permissions (UserId, MonitorId, Permission) VALUES (?, 16, 'None')", [limited]);

  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_ZONEMINDER__PATH_MAP: mapDir } });
  for (const name of ['full', 'viewonly', 'nostream', 'limited']) tokens[name] = await login(app, name);
});
test.after.always(async () => {
  await app?.close();
  rmSync(mapDir, { recursive: true, force: true });
});

function snapshot(id: number | string, opts: { token?: string | null; query?: boolean } = {}) {
  const token = opts.token === undefined ? tokens.full : opts.token;
  const url = app.api(`/monitors/${id}/snapshot${opts.query && token ? `?token=${token}&t=${Date.now()}` : ''}`);
  return fetch(url, { headers: token && !opts.query ? { authorization: `Bearer ${token}` } : {} });
}

/** Decodes a JPEG with ffmpeg: size and RGB at a point. */
async function decode(jpeg: Buffer): Promise<{ width: number; height: number; at(x: number, y: number): number[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'zmgate-jpeg-'));
  try {
    const file = join(dir, 'in.jpg');
    writeFileSync(file, jpeg);
    const { stdout } = await run(
      'ffprobe',
      ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', file],
      { encoding: 'utf8' },
    );
    const [width, height] = stdout.trim().split(',').map(Number) as [number, number];
    const raw = join(dir, 'out.rgb');
    await run('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', raw]);
    const pixels = readFileSync(raw);
    return { width, height, at: (x, y) => [...pixels.subarray((y * width + x) * 3, (y * width + x) * 3 + 3)] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The fixture's picture: red top-left, green top-right, blue bottom-left, grey bottom-right.
function colourOf([r, g, b]: number[]): string {
  if (r > 150 && g < 80 && b < 80) return 'red';
  if (g > 150 && r < 80 && b < 80) return 'green';
  if (b > 150 && r < 80 && g < 80) return 'blue';
  if (Math.abs(r - g) < 25 && Math.abs(g - b) < 25) return 'grey';
  return `rgb(${r},${g},${b})`;
}
const corners = async (jpeg: Buffer) => {
  const img = await decode(jpeg);
  return { width: img.width, height: img.height, tl: colourOf(img.at(4, 4)), tr: colourOf(img.at(img.width - 5, 4)) };
};

for (const m of LAYOUT_MONITORS) {
  test.serial(`snapshot from layout ${m.name}: a JPEG of the newest image`, async (t) => {
    const res = await snapshot(m.id);
    t.is(res.status, 200, await res.clone().text());
    t.is(res.headers.get('content-type'), 'image/jpeg');
    t.regex(res.headers.get('cache-control') ?? '', /no-cache/);
    t.is(res.headers.get('content-encoding'), null);
    t.deepEqual(await corners(Buffer.from(await res.arrayBuffer())), { width: W, height: H, tl: 'red', tr: 'green' });
  });
}

// zmc turns each image per Orientation before it enters the ring, and for ROTATE_90/270 the ring
// holds Height×Width images (Monitor::Load swaps them). The fixture holds what zmc would have
// written (the test picture at the turned size); the snapshot must read it at that size and
// serve it as it is: turned once, by zmc, never a second time.
for (const orientation of ['ROTATE_0', 'ROTATE_90', 'ROTATE_180', 'ROTATE_270', 'FLIP_HORI', 'FLIP_VERT']) {
  test.serial(
    `snapshot with Orientation ${orientation}: read at the turned size, served as zmc turned it`,
    async (t) => {
      const swap = orientation === 'ROTATE_90' || orientation === 'ROTATE_270';
      const [w, h] = swap ? [H, W] : [W, H];
      shm(10, { layout: 888, format: 'rgb24', width: w, height: h });
      await sql('UPDATE Monitors SET Orientation = ? WHERE Id = 10', [orientation]); // read on every request
      const res = await snapshot(10);
      t.is(res.status, 200, await res.clone().text());
      t.deepEqual(await corners(Buffer.from(await res.arrayBuffer())), { width: w, height: h, tl: 'red', tr: 'green' });
    },
  );
}

test.serial('the same bytes twice for one image (no per-request variation)', async (t) => {
  await sql("UPDATE Monitors SET Orientation = 'ROTATE_0' WHERE Id = 10");
  shm(10, { layout: 888, format: 'rgb24' });
  const a = Buffer.from(await (await snapshot(10)).arrayBuffer());
  const b = Buffer.from(await (await snapshot(10)).arrayBuffer());
  t.true(a.equals(b));
  t.is(a.readUInt16BE(0), 0xffd8);
});

const NOT_CAPTURING: Array<[number, string, RegExp]> = [
  [11, 'no shared memory file', /not running/],
  [12, 'Capturing None', /capturing is off/],
  [13, 'a stale heartbeat', /heartbeat/],
  [14, 'no image written yet', /no image/],
  [15, 'valid = 0', /starting or stopping/],
];
for (const [id, what, reason] of NOT_CAPTURING) {
  test(`snapshot: ${what} → 503 envelope, no path in the body`, async (t) => {
    const res = await snapshot(id);
    t.is(res.status, 503);
    const body = await res.json();
    t.true(isEnvelope(body));
    t.is(body.kind, 'SERVICE_UNAVAILABLE_ERROR');
    t.regex(JSON.stringify(body.details), reason);
    t.false(JSON.stringify(body).includes(mapDir));
  });
}

test('snapshot access: 401 without a token, ?token= accepted, 403 without Stream, 404 hidden or missing, 400 bad id', async (t) => {
  t.is((await snapshot(5, { token: null })).status, 401);
  const q = await snapshot(5, { query: true });
  t.is(q.status, 200);
  t.is(q.headers.get('content-type'), 'image/jpeg');
  const denied = await snapshot(5, { token: tokens.nostream });
  t.is(denied.status, 403);
  t.is((await denied.json()).kind, 'PERMISSION_DENIED_ERROR');
  const hidden = await snapshot(16, { token: tokens.limited });
  const missing = await snapshot(999, { token: tokens.limited });
  t.is(hidden.status, 404);
  t.is(missing.status, 404);
  const [h, m] = [await hidden.json(), await missing.json()];
  t.is(h.kind, m.kind);
  t.is(h.kind, 'MONITOR_NOT_FOUND_ERROR');
  t.is((await snapshot(16)).status, 200, 'visible to an unrestricted user');
  for (const bad of ['abc', '-1', '2147483648']) {
    const res = await snapshot(bad);
    t.is(res.status, 400, bad);
    t.deepEqual(
      (await res.json()).details.map((d: string[]) => d[0]),
      ['monitor_id'],
    );
  }
  t.is(
    (
      await fetch(app.api('/monitors/5/snapshot'), {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.full}` },
      })
    ).status,
    405,
  );
});

// ------------------------------------------------------------------------------------------
// Alarm control

function triggerOf(id: number, layout: number) {
  const b = readFileSync(sharedMemoryPath(mapDir, id));
  const str = (at: number, n: number) =>
    b
      .subarray(at, at + n)
      .toString('utf8')
      .replace(/\0.*$/s, '');
  return {
    state: b.readUInt32LE(layout + 4),
    score: b.readUInt32LE(layout + 8),
    cause: str(layout + 16, 32),
    text: str(layout + 48, 256),
  };
}

for (const [id, layout] of [
  [1, 760],
  [4, 872],
  [5, 888],
] as const) {
  test.serial(`alarm on / off / cancel / status write TriggerData of layout ${layout}`, async (t) => {
    const call = caller(app, tokens.full);
    const on = await call('PATCH', `/monitors/${id}/alarm`, {
      action: 'on',
      cause: 'API',
      score: 77,
      text: 'forced by test',
    });
    t.is(on.status, 200, on.text);
    t.is(on.body.id, id);
    t.deepEqual(triggerOf(id, layout), { state: 1, score: 77, cause: 'API', text: 'forced by test' });
    const status = await call('PATCH', `/monitors/${id}/alarm`, { action: 'status' });
    t.is(status.status, 200);
    t.is(triggerOf(id, layout).state, 1, 'status writes nothing');
    t.is((await call('PATCH', `/monitors/${id}/alarm`, { action: 'off' })).status, 200);
    t.like(triggerOf(id, layout), { state: 2, score: 0, cause: '' });
    t.is((await call('PATCH', `/monitors/${id}/alarm`, { action: 'cancel' })).status, 200);
    t.deepEqual(triggerOf(id, layout), { state: 0, score: 0, cause: '', text: '' });
    // The client's defaults: {action:'on'} alone.
    t.is((await call('PATCH', `/monitors/${id}/alarm`, { action: 'on' })).status, 200);
    t.like(triggerOf(id, layout), { state: 1, score: 100, cause: 'API' });
    t.is((await call('PATCH', `/monitors/${id}/alarm`, { action: 'cancel' })).status, 200);
  });
}

test('alarm: 503 when not capturing, 404 hidden, 403 for Monitors View, 400 bad input', async (t) => {
  const full = caller(app, tokens.full);
  for (const id of [11, 12, 13, 15]) {
    const res = await full('PATCH', `/monitors/${id}/alarm`, { action: 'status' });
    t.is(res.status, 503, `monitor ${id}`);
    t.is(res.body.kind, 'SERVICE_UNAVAILABLE_ERROR');
  }
  t.is((await caller(app, tokens.limited)('PATCH', '/monitors/16/alarm', { action: 'status' })).status, 404);
  const view = caller(app, tokens.viewonly);
  t.is((await view('PATCH', '/monitors/2/alarm', { action: 'on' })).status, 403);
  t.is(triggerOf(2, 768).state, 0);
  t.is(
    (await view('PATCH', '/monitors/2/alarm', { action: 'status' })).status,
    403,
    'PATCH needs Monitors Edit, status included',
  );
  const long = await full('PATCH', '/monitors/2/alarm', { action: 'on', cause: 'ü'.repeat(20) });
  t.is(long.status, 400, 'cause of 20 characters but 40 bytes');
  t.deepEqual(
    long.body.details.map((d: string[]) => d[0]),
    ['cause'],
  );
  t.is((await full('PATCH', '/monitors/2/alarm', { action: 'explode' })).status, 400);
  t.is(triggerOf(2, 768).state, 0);
});
