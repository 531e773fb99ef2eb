// Zones (/monitors/{id}/zones, /zones/{id}) and zone presets: derived Area/NumCoords, polygon
// validation, units, the row ACL through the zone's monitor, paging.
import test from 'ava';
import bcrypt from 'bcryptjs';
import { parsePolygon } from '../../src/features/monitors/zone-geometry.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { isEnvelope, request } from '../helpers/http.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
const tokens: Record<string, string> = {};
let monitorId: number;
let pixelMonitorId: number;
let hiddenId: number;
let viewOnlyId: number;

const q = (sql: string, params: unknown[] = []) => db.db.query<any>(sql, params, db.name);

const call = (method: string, path: string, body?: unknown, as = 'admin') =>
  request(app.api(path), {
    method,
    headers: {
      authorization: `Bearer ${tokens[as]}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const detailNames = (body: any): string => (body?.details ?? []).map(([k]: string[]) => k).join(',');

test.before(async () => {
  db = await zmDatabase('zones');
  const ids: Record<string, number> = {};
  for (const [name, perms] of [
    ['admin', { Monitors: 'Edit' }],
    ['viewer', { Monitors: 'View' }],
    ['limited', { Monitors: 'Edit' }],
  ] as const) {
    ids[name] = await insertUser(db, { username: name, password: name, stored: bcrypt.hashSync(name, 4), perms });
  }
  const mk = async (name: string, w = 0, h = 0) =>
    Number((await q('INSERT INTO Monitors (Name, Width, Height) VALUES (?, ?, ?) RETURNING Id', [name, w, h]))[0].Id);
  monitorId = await mk('zoned');
  pixelMonitorId = await mk('vga', 640, 480);
  hiddenId = await mk('hidden');
  viewOnlyId = await mk('view-only');
  await q('INSERT INTO Monitors_Permissions (UserId, MonitorId, Permission) VALUES (?, ?, ?), (?, ?, ?)', [
    ids.limited,
    hiddenId,
    'None',
    ids.limited,
    viewOnlyId,
    'View',
  ]);
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  for (const name of Object.keys(ids)) {
    const res = await request(app.api('/auth/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: name, password: name }),
    });
    tokens[name] = res.body.access_token;
  }
});
test.after.always(async () => app?.close());

test('geometry: shoelace area, closing point, normalisation', (t) => {
  t.deepEqual(parsePolygon('0,0 50,0 50,50 0,50', 'Percent'), {
    coords: '0.00,0.00 50.00,0.00 50.00,50.00 0.00,50.00',
    numCoords: 4,
    area: 2500,
  });
  t.is(parsePolygon('0,0 100,0 100,100 0,100', 'Percent').area, 10000, 'a full frame is 10000 in Percent');
  // An L shape (concave): 6 points, area 3 squares of 10×10.
  t.is(parsePolygon('0,0 20,0 20,10 10,10 10,20 0,20', 'Pixels').area, 300);
  t.deepEqual(parsePolygon('  0,0   10,0 10,10 0,0 ', 'Pixels'), { coords: '0,0 10,0 10,10', numCoords: 3, area: 50 });
  t.is(parsePolygon('0.5,0.5 1.25,0.5 1.25,1.1', 'Percent').area, 1, 'tiny real polygons keep a non-zero area');
  t.is(parsePolygon('10.50,0 20,0 20,10', 'Percent').coords, '10.50,0.00 20.00,0.00 20.00,10.00');
  // Two decimals, as ZoneMinder's zone editor stores them; with a decimal point, which 1.39.11+ zma needs.
  t.is(parsePolygon('33.333,0 66.667,0 50,50', 'Percent').coords, '33.33,0.00 66.67,0.00 50.00,50.00');
});

test('create: Area and NumCoords derived (Percent default), zone_count maintained', async (t) => {
  const res = await call('POST', `/monitors/${monitorId}/zones`, {
    name: 'Driveway',
    coords: '0,0 50,0 50,50 0,50',
    num_coords: 99,
    type: 'Active',
    check_method: 'Blobs',
    min_alarm_pixels: 25.5,
    max_blobs: 3,
    extra: 'ignored',
  });
  t.is(res.status, 201, JSON.stringify(res.body));
  t.like(res.body, {
    monitor_id: monitorId,
    name: 'Driveway',
    units: 'Percent',
    type: 'Active',
    coords: '0.00,0.00 50.00,0.00 50.00,50.00 0.00,50.00',
    num_coords: 4,
    area: 2500,
    check_method: 'Blobs',
    min_alarm_pixels: 25.5,
    max_blobs: 3,
    overload_frames: 0,
    alarm_rgb: 0,
  });
  t.is((await call('GET', `/zones/${res.body.id}`)).body.area, 2500);
  const [monitor] = await q('SELECT ZoneCount FROM Monitors WHERE Id = ?', [monitorId]);
  t.true(monitor.ZoneCount >= 1);
  const [row] = await q('SELECT Area, NumCoords FROM Zones WHERE Id = ?', [res.body.id]);
  t.deepEqual({ ...row }, { Area: 2500, NumCoords: 4 });
});

test('Pixels units: integer coordinates inside the monitor frame, area in pixels²', async (t) => {
  const ok = await call('POST', `/monitors/${pixelMonitorId}/zones`, {
    name: 'px',
    units: 'Pixels',
    coords: '0,0 640,0 640,480 0,480',
  });
  t.is(ok.status, 201);
  t.is(ok.body.area, 640 * 480);
  t.is(ok.body.units, 'Pixels');
  const outside = await call('POST', `/monitors/${pixelMonitorId}/zones`, {
    name: 'px',
    units: 'Pixels',
    coords: '0,0 700,0 700,10',
  });
  t.is(outside.status, 400);
  const fractional = await call('POST', `/monitors/${pixelMonitorId}/zones`, {
    name: 'px',
    units: 'Pixels',
    coords: '0.5,0 10,0 10,10',
  });
  t.is(fractional.status, 400);
});

test('bad polygons are 400 naming coords', async (t) => {
  const bad = [
    '',
    '0,0 10,10',
    '0,0 10,10 20,20',
    'a,b c,d e,f',
    '0,0 10,0 10,10 0,0,5',
    '0,0;10,0;10,10',
    '0,0 10,0 10,10 10,0',
    '0,0 10,10 10,0 0,10',
    '0,0 150,0 150,150',
    '-1,0 10,0 10,10',
    '0, 0 10, 0 10, 10',
    'NaN,0 10,0 10,10',
  ];
  for (const coords of bad) {
    const res = await call('POST', `/monitors/${monitorId}/zones`, { name: 'bad', coords });
    t.is(res.status, 400, coords);
    t.true(isEnvelope(res.body));
    t.regex(detailNames(res.body), /coords/, coords);
  }
});

test('validation: lengths, enums, ranges name the field', async (t) => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ name: 'x'.repeat(65), coords: '0,0 10,0 10,10' }, /name/],
    [{ name: 'ok', coords: '1,1 '.repeat(64) + '2,2' }, /coords/],
    [{ name: 'ok', coords: '0,0 10,0 10,10', type: 'Nope' }, /type/],
    [{ name: 'ok', coords: '0,0 10,0 10,10', units: 'Inches' }, /units/],
    [{ name: 'ok', coords: '0,0 10,0 10,10', filter_x: 256 }, /filter_x/],
    [{ name: 'ok', coords: '0,0 10,0 10,10', min_alarm_pixels: -1 }, /min_alarm_pixels/],
    [{ name: 'ok' }, /coords/],
  ];
  for (const [body, field] of cases) {
    const res = await call('POST', `/monitors/${monitorId}/zones`, body);
    t.is(res.status, 400, JSON.stringify(body));
    t.regex(detailNames(res.body), field, JSON.stringify(res.body));
  }
  t.is((await call('GET', '/zones/abc')).status, 400);
  t.is((await call('GET', `/monitors/-1/zones`)).status, 400);
});

test('PUT: polygon (older clients) or coords recompute Area; partial updates keep the rest', async (t) => {
  const { body: z } = await call('POST', `/monitors/${monitorId}/zones`, {
    name: 'edit me',
    coords: '0,0 10,0 10,10 0,10',
    max_blobs: 5,
  });
  const old = await call('PUT', `/zones/${z.id}`, { name: 'renamed', polygon: '0,0 20,0 20,20 0,20' });
  t.is(old.status, 200);
  t.like(old.body, { name: 'renamed', area: 400, num_coords: 4, max_blobs: 5 });
  const full = await call('PUT', `/zones/${z.id}`, {
    ...old.body,
    coords: '0,0 30,0 0,30',
    max_blobs: null,
    polygon: '0,0 1,0 1,1',
  });
  t.like(
    full.body,
    { area: 450, num_coords: 3, max_blobs: null, coords: '0.00,0.00 30.00,0.00 0.00,30.00' },
    'coords wins over polygon',
  );
  const nameOnly = await call('PUT', `/zones/${z.id}`, { name: 'again' });
  t.like(nameOnly.body, { name: 'again', area: 450, coords: '0.00,0.00 30.00,0.00 0.00,30.00' });
  const unitsOnly = await call('PUT', `/zones/${z.id}`, { units: 'Pixels' });
  t.is(unitsOnly.status, 400);
  t.regex(detailNames(unitsOnly.body), /coords/);
  const pixels = await call('PUT', `/zones/${z.id}`, { units: 'Pixels', coords: '0,0 300,0 300,200 0,200' });
  t.like(pixels.body, { units: 'Pixels', area: 60000 });
  const badPolygon = await call('PUT', `/zones/${z.id}`, { polygon: '0,0 1,1' });
  t.is(badPolygon.status, 400);
  t.regex(detailNames(badPolygon.body), /polygon/);
  t.is((await call('PUT', '/zones/999999', { name: 'x' })).status, 404);
});

test('list by monitor: paged, unknown monitor is MONITOR_NOT_FOUND_ERROR', async (t) => {
  for (let i = 0; i < 3; i++)
    await call('POST', `/monitors/${pixelMonitorId}/zones`, { name: `p${i}`, coords: '0,0 10,0 10,10' });
  const page = await call('GET', `/monitors/${pixelMonitorId}/zones?page=2&page_size=2&per_page=9`);
  t.is(page.status, 200);
  t.like(page.body, { current_page: 2, per_page: 2 });
  t.true(page.body.total >= 3);
  t.true(page.body.items.every((z: any) => z.monitor_id === pixelMonitorId));
  const missing = await call('GET', '/monitors/999999/zones');
  t.is(missing.status, 404);
  t.is(missing.body.kind, 'MONITOR_NOT_FOUND_ERROR');
  t.is((await call('GET', `/monitors/${pixelMonitorId}/zones?page_size=1001`)).status, 400);
});

test('row ACL through the monitor: hidden is 404 everywhere, view-only reads but cannot write', async (t) => {
  const { body: hiddenZone } = await call('POST', `/monitors/${hiddenId}/zones`, {
    name: 'h',
    coords: '0,0 10,0 10,10',
  });
  const { body: viewZone } = await call('POST', `/monitors/${viewOnlyId}/zones`, {
    name: 'v',
    coords: '0,0 10,0 10,10',
  });
  const list = await call('GET', `/monitors/${hiddenId}/zones`, undefined, 'limited');
  t.is(list.status, 404);
  t.is(list.body.kind, 'MONITOR_NOT_FOUND_ERROR');
  const get = await call('GET', `/zones/${hiddenZone.id}`, undefined, 'limited');
  const missing = await call('GET', '/zones/999999', undefined, 'limited');
  t.is(get.status, 404);
  t.deepEqual({ ...get.body, error_message: '', details: [] }, { ...missing.body, error_message: '', details: [] });
  t.is((await call('PUT', `/zones/${hiddenZone.id}`, { name: 'x' }, 'limited')).status, 404);
  t.is((await call('DELETE', `/zones/${hiddenZone.id}`, undefined, 'limited')).status, 404);
  t.is(
    (await call('POST', `/monitors/${hiddenId}/zones`, { name: 'x', coords: '0,0 10,0 10,10' }, 'limited')).status,
    404,
  );
  t.is((await call('GET', `/zones/${viewZone.id}`, undefined, 'limited')).status, 200);
  t.is((await call('GET', `/monitors/${viewOnlyId}/zones`, undefined, 'limited')).body.total, 1);
  t.is((await call('PUT', `/zones/${viewZone.id}`, { name: 'x' }, 'limited')).status, 403);
  t.is((await call('DELETE', `/zones/${viewZone.id}`, undefined, 'limited')).status, 403);
  t.is(
    (await call('POST', `/monitors/${viewOnlyId}/zones`, { name: 'x', coords: '0,0 10,0 10,10' }, 'limited')).status,
    403,
  );
  t.is(
    (await call('POST', `/monitors/${monitorId}/zones`, { name: 'x', coords: '0,0 10,0 10,10' }, 'viewer')).status,
    403,
  );
});

test('delete: 204 then 404; ZoneCount follows', async (t) => {
  const m = Number((await q("INSERT INTO Monitors (Name) VALUES ('zc') RETURNING Id"))[0].Id);
  const { body: z } = await call('POST', `/monitors/${m}/zones`, { name: 'z', coords: '0,0 10,0 10,10' });
  t.is((await q('SELECT ZoneCount FROM Monitors WHERE Id = ?', [m]))[0].ZoneCount, 1);
  const del = await call('DELETE', `/zones/${z.id}`);
  t.is(del.status, 204);
  t.is(del.text, '');
  t.is((await call('GET', `/zones/${z.id}`)).status, 404);
  t.is((await q('SELECT ZoneCount FROM Monitors WHERE Id = ?', [m]))[0].ZoneCount, 0);
});

test('zone presets: CRUD, paging, validation, View cannot write', async (t) => {
  const created = await call('POST', '/zone-presets', {
    name: 'Busy road',
    type: 'Active',
    units: 'Percent',
    check_method: 'Blobs',
    min_blobs: 2,
  });
  t.is(created.status, 201);
  t.like(created.body, { name: 'Busy road', type: 'Active', units: 'Percent', check_method: 'Blobs', min_blobs: 2 });
  const id = created.body.id;
  t.deepEqual((await call('GET', `/zone-presets/${id}`)).body, created.body);
  const patched = await call('PATCH', `/zone-presets/${id}`, { check_method: 'AlarmedPixels', min_blobs: null });
  t.like(patched.body, { check_method: 'AlarmedPixels', min_blobs: null, name: 'Busy road' });
  const list = await call('GET', '/zone-presets?page_size=1000');
  t.true(list.body.items.some((p: any) => p.id === id));
  t.is((await call('GET', '/zone-presets?page_size=1001')).status, 400);
  const preset = { type: 'Active', units: 'Percent', check_method: 'Blobs' };
  t.is((await call('POST', '/zone-presets', { ...preset, name: 'x'.repeat(65) })).status, 400);
  t.is((await call('POST', '/zone-presets', { ...preset, name: 'x', check_method: 'Magic' })).status, 400);
  t.like(
    (await call('POST', '/zone-presets', { name: 'x' })).body,
    { kind: 'INVALID_INPUT_ERROR' },
    'type, units, check_method required',
  );
  t.is((await call('POST', '/zone-presets', { ...preset, name: 'v' }, 'viewer')).status, 403);
  t.is((await call('GET', '/zone-presets', undefined, 'viewer')).status, 200);
  t.is((await call('DELETE', `/zone-presets/${id}`)).status, 204);
  t.is((await call('GET', `/zone-presets/${id}`)).status, 404);
  t.is((await call('PATCH', `/zone-presets/${id}`, { name: 'y' })).status, 404);
});

test('concurrent zone creation on several monitors all succeed (trigger deadlocks are retried)', async (t) => {
  // Zone_Insert_Trigger updates Monitors.ZoneCount; concurrent inserts deadlock in InnoDB now
  // and then, and the losing statement must be retried rather than answered with a 500.
  const targets = [monitorId, pixelMonitorId];
  const results = await Promise.all(
    Array.from({ length: 24 }, (_, i) =>
      call('POST', `/monitors/${targets[i % 2]}/zones`, { name: `c${i}`, units: 'Percent', coords: '0,0 10,0 10,10' }),
    ),
  );
  t.deepEqual(
    results.map((r) => r.status),
    Array(24).fill(201),
  );
  const [row] = await db.db.query<{ n: number }>(
    'SELECT ZoneCount AS n FROM Monitors WHERE Id = ?',
    [monitorId],
    db.name,
  );
  const [count] = await db.db.query<{ n: number }>(
    'SELECT COUNT(*) AS n FROM Zones WHERE MonitorId = ?',
    [monitorId],
    db.name,
  );
  t.is(Number(row.n), Number(count.n));
});
