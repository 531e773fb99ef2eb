// The service on a stock ZoneMinder 1.36.33 database that `zmgate-db bridge` has not brought to
// 1.39 yet: it starts, login and the routes whose tables and columns 1.36 has work, and every
// route that needs a missing table or column answers 503 with the envelope naming the fix, never
// a 500.
import test from 'ava';
import bcrypt from 'bcryptjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { login } from '../helpers/rest.js';
import { database136 } from '../helpers/zm136.js';

let db: FreshDatabase;
let app: TestApp;
let token: string;

test.before(async () => {
  db = await database136('unbridged');
  // A 1.36 Users row: no RoleId yet, MonitorIds instead of Monitors_Permissions.
  await db.db.query(
    "INSERT INTO Users (Username, Password, Enabled, APIEnabled, Stream, Events, Monitors, System) VALUES ('adm', ?, 1, 1, 'View', 'Edit', 'Edit', 'Edit')",
    [bcrypt.hashSync('adm', 4)],
    db.name,
  );
  // Monitors as 1.36's console writes them: a Function, no Capturing/Analysing/Recording.
  await db.db.query(
    `INSERT INTO Monitors (Id, Name, Function, Enabled, Width, Height) VALUES
       (1, 'Drive', 'Modect', 1, 640, 360), (2, 'Gate', 'Record', 1, 640, 360),
       (3, 'Yard', 'None', 0, 640, 360), (4, 'Hall', 'Nodect', 1, 640, 360)`,
    [],
    db.name,
  );
  // Events as 1.36's zmc writes them (its insert trigger fills the summaries).
  await db.db.query(
    `INSERT INTO Events (Id, MonitorId, StorageId, Name, Cause, StartDateTime, EndDateTime, Width, Height, Length, Frames, AlarmFrames, TotScore, AvgScore, MaxScore, StateId, DiskSpace, Scheme) VALUES
       (1, 1, 0, 'Event-1', 'Motion', '2026-11-01 10:00:00', '2026-11-01 10:00:10', 640, 360, 10.00, 250, 12, 300, 25, 60, 1, 1048576, 'Medium'),
       (2, 2, 0, 'Event-2', 'Continuous', '2026-11-01 11:00:00', '2026-11-01 11:10:00', 640, 360, 600.00, 15000, 0, 0, 0, 0, 1, 5242880, 'Medium')`,
    [],
    db.name,
  );
  // A zone in 1.36's pixels, its pixel counts integers (1.39: decimals).
  await db.db.query(
    "INSERT INTO Zones (Id, MonitorId, Name, Units, NumCoords, Coords, Area, MinAlarmPixels, MaxAlarmPixels) VALUES (1, 1, 'All', 'Pixels', 4, '0,0 639,0 639,359 0,359', 230400, 576, 184320)",
    [],
    db.name,
  );
  // Limited to monitors 1 and 3 by 1.36's Users.MonitorIds.
  await db.db.query(
    "INSERT INTO Users (Username, Password, Enabled, APIEnabled, Stream, Events, Monitors, MonitorIds) VALUES ('limited', ?, 1, 1, 'View', 'View', 'View', '1,3')",
    [bcrypt.hashSync('limited', 4)],
    db.name,
  );
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  token = await login(app, 'adm');
});
test.after.always(async () => app?.close());

const get = async (path: string) => {
  const res = await fetch(app.api(path), { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

const send = async (method: string, path: string, body: unknown) => {
  const res = await fetch(app.api(path), {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
};

test('before the bridge: version, config, storage, states, logs, the caller and live sources work', async (t) => {
  t.like(await get('/host/getVersion'), { status: 200, body: { db_version: '1.36.33' } });
  for (const path of ['/configs', '/storage', '/states', '/logs', '/me', '/live/sources'])
    t.is((await get(path)).status, 200, path);
  // Recorded playback reads only 1.36 columns: a missing event is a plain 404.
  t.like(await get('/events/99/info'), { status: 404, body: { kind: 'EVENT_NOT_FOUND_ERROR' } });
});

test('reads of tables 1.36 has with fewer columns answer, the columns it lacks filled with 1.39 defaults', async (t) => {
  for (const path of [
    '/users',
    '/users/1',
    '/filters',
    '/servers',
    '/monitor-status',
    '/event-summaries',
    '/event-summaries/1',
    '/zone-presets',
    '/monitors/1/zones',
    '/stats',
    '/frames',
  ])
    t.is((await get(path)).status, 200, path);
  // A pixel zone as stored, its integer pixel counts read as 1.39's decimals.
  t.like((await get('/zones/1')).body, {
    units: 'Pixels',
    coords: '0,0 639,0 639,359 0,359',
    min_alarm_pixels: 576,
    max_alarm_pixels: 184320,
  });
  // Users: Name, Email and Phone (1.37) read as 1.39's empty defaults.
  const users = (await get('/users')).body.items as Record<string, unknown>[];
  t.like(
    users.find((u) => u.username === 'limited'),
    { name: '', email: '', phone: '', monitors: 'View' },
  );
  // Event summaries skip deleted monitors; 1.36 has no Monitors.Deleted, so none is deleted.
  const summaries = (await get('/event-summaries')).body.items as Record<string, unknown>[];
  t.deepEqual(
    summaries.map((s) => s.monitor_id),
    [1, 2, 3, 4],
  );
});

test('routes that need tables 1.36 lacks answer 503 naming `zmgate-db status`, not 500', async (t) => {
  for (const path of ['/roles', '/tags', '/notifications', '/reports', '/event-data', '/menu-items', '/object-types']) {
    const res = await get(path);
    t.is(res.status, 503, path);
    t.like(res.body, { kind: 'SERVICE_UNAVAILABLE_ERROR', details: [['database', 'schema incomplete']] }, path);
    t.regex(String(res.body.error_message), /ZoneMinder before 1\.39.*'zmgate-db status' says which/, path);
  }
});

test('the monitor list and one monitor answer on 1.36: the modes read from Function, MonitorIds limits what a user sees', async (t) => {
  const list = await get('/monitors');
  t.is(list.status, 200, JSON.stringify(list.body));
  const items = list.body.items as Record<string, unknown>[];
  const modes = Object.fromEntries(items.map((m) => [m.name, [m.function, m.capturing, m.analysing, m.recording]]));
  t.deepEqual(modes, {
    Drive: ['Modect', 'Always', 'Always', 'OnMotion'],
    Gate: ['Record', 'Always', 'None', 'Always'],
    Yard: ['None', 'None', 'None', 'None'],
    Hall: ['Nodect', 'Always', 'None', 'OnMotion'],
  });
  const one = await get('/monitors/2');
  t.is(one.status, 200);
  // Columns 1.36 lacks read as 1.39's defaults, typed as 1.39's columns read.
  t.like(one.body, {
    id: 2,
    name: 'Gate',
    recording: 'Always',
    object_detection: 'none',
    object_detection_object_threshold: 0.4,
    startup_delay: 0,
    deleted: false,
    // 1.36 stores DefaultScale as a number; 1.39 (and the API) as text.
    default_scale: '100',
  });

  const limited = await login(app, 'limited');
  const res = await fetch(app.api('/monitors'), { headers: { authorization: `Bearer ${limited}` } });
  const body = (await res.json()) as { items: { id: number }[] };
  t.deepEqual(
    body.items.map((m) => m.id),
    [1, 3],
  );
  const hidden = await fetch(app.api('/monitors/2'), { headers: { authorization: `Bearer ${limited}` } });
  t.is(hidden.status, 404);
});

test('the event list and one event answer on 1.36: columns 1.36 lacks read as null, no tags, MonitorIds limits them', async (t) => {
  const list = await get('/events');
  t.is(list.status, 200, JSON.stringify(list.body));
  const items = list.body.items as Record<string, unknown>[];
  t.deepEqual(items.map((e) => [e.id, e.monitor_id, e.cause]).sort(), [
    [1, 1, 'Motion'],
    [2, 2, 'Continuous'],
  ]);
  const one = await get('/events/1');
  t.is(one.status, 200, JSON.stringify(one.body));
  t.like(one.body, { id: 1, monitor_id: 1, frames: 250, max_score: 60 });
  t.is(one.body.latitude, null);

  const limited = await login(app, 'limited');
  const mine = await fetch(app.api('/events'), { headers: { authorization: `Bearer ${limited}` } });
  t.deepEqual(
    ((await mine.json()) as { items: { id: number }[] }).items.map((e) => e.id),
    [1],
  );
  const hidden = await fetch(app.api('/events/2'), { headers: { authorization: `Bearer ${limited}` } });
  t.is(hidden.status, 404);
});

test('a mode change through v3 on 1.36 is stored as the Function its daemons read; a column 1.36 lacks takes only its default', async (t) => {
  const patch = (body: unknown) =>
    fetch(app.api('/monitors/4'), {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  // Hall is Nodect (Always/None/OnMotion); analysing on makes it Modect.
  const res = await patch({ analysing: 'Always' });
  t.is(res.status, 200, await res.clone().text());
  t.like(await res.json(), {
    id: 4,
    function: 'Modect',
    capturing: 'Always',
    analysing: 'Always',
    recording: 'OnMotion',
  });
  t.deepEqual(await db.db.query('SELECT Function FROM Monitors WHERE Id = 4', [], db.name), [{ Function: 'Modect' }]);
  // Recording off: 1.36 has Monitor for that.
  t.like(await (await patch({ analysing: 'None', recording: 'None' })).json(), { function: 'Monitor' });
  t.deepEqual(await db.db.query('SELECT Function FROM Monitors WHERE Id = 4', [], db.name), [{ Function: 'Monitor' }]);

  // A 1.39-only column: its default is accepted (and stores nothing), another value is refused.
  t.is((await patch({ object_detection: 'none' })).status, 200);
  const refused = await patch({ object_detection: 'yolo', name: 'Renamed' });
  t.is(refused.status, 400);
  const envelope = (await refused.json()) as { kind: string; details: string[][] };
  t.is(envelope.kind, 'INVALID_INPUT_ERROR');
  t.is(envelope.details[0][0], 'ObjectDetection');
  t.regex(envelope.details[0][1], /before 1\.39\) has no such column/);
  t.deepEqual(await db.db.query('SELECT Name FROM Monitors WHERE Id = 4', [], db.name), [{ Name: 'Hall' }]);
});

test('a zone written in percent through v3 on 1.36 is stored in the pixels its zma reads', async (t) => {
  // Monitor 2 is 640×360; percent is v3's default unit.
  // The area limits come as 1.39 reads them beside percent coordinates: percent of the zone's area.
  const created = await send('POST', '/monitors/2/zones', {
    name: 'Left half',
    coords: '0,0 50,0 50,100 0,100',
    min_alarm_pixels: 3,
    max_alarm_pixels: 75,
    min_filter_pixels: 2.5,
    max_blob_pixels: 0,
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  // …and are stored as the pixel counts 1.36's zma reads: floor(value × 114880 / 100 + 0.5); 0 stays 0.
  t.like(created.body, {
    units: 'Pixels',
    coords: '0,0 320,0 320,359 0,359',
    area: 114880,
    min_alarm_pixels: 3446,
    max_alarm_pixels: 86160,
    min_filter_pixels: 2872,
    max_blob_pixels: 0,
  });
  const id = Number(created.body.id);
  t.deepEqual(await db.db.query('SELECT Units, Coords FROM Zones WHERE Id = ?', [id], db.name), [
    { Units: 'Pixels', Coords: '0,0 320,0 320,359 0,359' },
  ]);
  const moved = await send('PUT', `/zones/${id}`, {
    units: 'Percent',
    coords: '50,50 100,50 100,100 50,100',
    min_alarm_pixels: 10,
  });
  t.is(moved.status, 200, JSON.stringify(moved.body));
  // 10 % of the new polygon's 319 × 179 pixels; the limits not given stay as stored.
  t.like(moved.body, {
    units: 'Pixels',
    coords: '320,180 639,180 639,359 320,359',
    area: 57101,
    min_alarm_pixels: 5710,
    max_alarm_pixels: 86160,
  });
  // Pixels stay as given, and so do limits given beside them or alone (the zone's unit: pixels).
  const pixels = await send('PUT', `/zones/${id}`, {
    units: 'Pixels',
    coords: '10,10 100,10 100,100',
    min_alarm_pixels: 50,
  });
  t.like(pixels.body, { units: 'Pixels', coords: '10,10 100,10 100,100', min_alarm_pixels: 50 });
  const alone = await send('PUT', `/zones/${id}`, { max_alarm_pixels: 400 });
  t.like(alone.body, { units: 'Pixels', min_alarm_pixels: 50, max_alarm_pixels: 400 });
  t.is((await send('DELETE', `/zones/${id}`, undefined)).status, 204);
});

test("a value 1.36's column cannot hold (an enum value it lacks) is a 400 naming the column, not a 500", async (t) => {
  // 1.36's Users.Monitors is enum('None','View','Edit'): no 'Create' (added later).
  const created = await send('POST', '/users', { username: 'creator', password: 'creator-pass', monitors: 'Create' });
  t.is(created.status, 400, JSON.stringify(created.body));
  t.like(created.body, { kind: 'INVALID_INPUT_ERROR' });
  t.deepEqual(created.body.details, [['field', 'Monitors']]);
  t.deepEqual(await db.db.query("SELECT Id FROM Users WHERE Username = 'creator'", [], db.name), []);
  const limited = Number(
    (await db.db.query<{ Id: number }>("SELECT Id FROM Users WHERE Username = 'limited'", [], db.name))[0].Id,
  );
  const updated = await send('PUT', `/users/${limited}`, { monitors: 'Create' });
  t.is(updated.status, 400, JSON.stringify(updated.body));
  t.deepEqual(await db.db.query('SELECT Monitors FROM Users WHERE Id = ?', [limited], db.name), [{ Monitors: 'View' }]);
});
