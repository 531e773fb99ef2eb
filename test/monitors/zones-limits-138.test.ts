// Zone area limits while ZoneMinder 1.38 is the installed code (ZM_DYN_CURR_VERSION): its zma
// reads them as pixel counts even beside percent coordinates, 1.39.11+ as percent of the zone's
// area. v3 speaks 1.39's language; the service stores 1.38's and answers 1.39's
// (docs/zoneminder/coexistence.md, zone writes). test/zoneminder/zm138.test.ts checks the same on
// 1.38.4's own schema when ZoneMinder's source is at hand.
import test from 'ava';
import bcrypt from 'bcryptjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { caller, login, type Call } from '../helpers/rest.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';

let db: FreshDatabase;
let app: TestApp;
let call: Call;
let monitorId: number;

const q = <T = any>(sql: string, params: unknown[] = []) => db.db.query<T>(sql, params, db.name);

test.before(async () => {
  db = await zmDatabase('zlimits');
  await insertUser(db, {
    username: 'adm',
    password: 'adm',
    stored: bcrypt.hashSync('adm', 4),
    perms: { Monitors: 'Edit' },
  });
  monitorId = Number(
    (await q<{ Id: number }>("INSERT INTO Monitors (Name, Width, Height) VALUES ('vga', 640, 480) RETURNING Id"))[0].Id,
  );
  await q("DELETE FROM Config WHERE Name = 'ZM_DYN_CURR_VERSION'");
  await q(
    "INSERT INTO Config (Id, Name, Value, Type, Category) VALUES (9001, 'ZM_DYN_CURR_VERSION', '1.38.4', 'string', 'hidden')",
  );
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  call = caller(app, await login(app, 'adm'));
});
test.after.always(async () => app?.close());

const stored = async (id: number) =>
  (
    await q<Record<string, string>>('SELECT MinAlarmPixels, MaxAlarmPixels, MinBlobPixels FROM Zones WHERE Id = ?', [
      id,
    ])
  )[0];

test('percent limits are stored as 1.38 pixel counts and answered as percent again', async (t) => {
  // A quarter of 640 × 480: 76800 pixels.
  const created = await call('POST', `/monitors/${monitorId}/zones`, {
    name: 'quarter',
    coords: '0,0 50,0 50,50 0,50',
    min_alarm_pixels: 2.5,
    max_alarm_pixels: 80,
    min_blob_pixels: 0,
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.like(created.body, { units: 'Percent', min_alarm_pixels: 2.5, max_alarm_pixels: 80, min_blob_pixels: 0 });
  const id = Number(created.body.id);
  t.deepEqual(Object.fromEntries(Object.entries(await stored(id)).map(([k, v]) => [k, Number(v)])), {
    MinAlarmPixels: 1920,
    MaxAlarmPixels: 61440,
    MinBlobPixels: 0,
  });
  t.like((await call('GET', `/zones/${id}`)).body, { min_alarm_pixels: 2.5, max_alarm_pixels: 80 });
  // A limit alone is percent of the zone as it stands; new coordinates convert by the new area.
  t.like((await call('PUT', `/zones/${id}`, { min_alarm_pixels: 5 })).body, { min_alarm_pixels: 5 });
  t.is(Number((await stored(id)).MinAlarmPixels), 3840);
  const half = await call('PUT', `/zones/${id}`, { coords: '0,0 100,0 100,50 0,50', min_alarm_pixels: 5 });
  t.like(half.body, { min_alarm_pixels: 5, area: 5000 });
  t.is(Number((await stored(id)).MinAlarmPixels), 7680);
  // Pixel zones: pixel limits, as given, on every version.
  const pixels = await call('POST', `/monitors/${monitorId}/zones`, {
    name: 'px',
    units: 'Pixels',
    coords: '0,0 100,0 100,100 0,100',
    min_alarm_pixels: 40,
  });
  t.like(pixels.body, { units: 'Pixels', min_alarm_pixels: 40 });
  t.is(Number((await stored(Number(pixels.body.id))).MinAlarmPixels), 40);
});
