// Zones and modes written through v3 on a ZoneMinder 1.36 database, obeyed by Debian's 1.36 zmc
// (in 1.36 the analysis runs inside zmc; there is no zma). The database is set up as the README
// says for 1.36 (no zmgate-db step; the service starts as shipped). Both monitors capture one
// ffmpeg-made file in which only the top-left quadrant moves: monitor 1's zone covers that quadrant,
// monitor 2's the still bottom-right one, both given in percent as a 1.39 client sends them.
// zmc must open a Motion event for monitor 1 and none for monitor 2. Then modes changed through
// v3 (monitor 1 analysing None, monitor 2 recording Always) are what zmc does after a restart.
//
// Needs root and Debian's zoneminder package: skipped with the reason otherwise.
import test from 'ava';
import bcrypt from 'bcryptjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { RealZm, realZmcUnavailable, waitFor } from '../helpers/real-zmc.js';
import { caller, login, type Call } from '../helpers/rest.js';
import { database136 } from '../helpers/zm136.js';

const unavailable = realZmcUnavailable();
if (unavailable) console.log(`# real-zmc zone tests skipped: ${unavailable}`);
const serial = unavailable ? test.serial.skip : test.serial;

const W = 640;
const H = 360;
const MOVING = 1;
const STILL = 2;

let db: FreshDatabase;
let zm: RealZm;
let app: TestApp;
let call: Call;

const sql = <T = any>(statement: string, params: unknown[] = []) => db.db.query<T>(statement, params, db.name);

async function events(monitorId: number): Promise<Array<{ Id: number; Cause: string }>> {
  return (
    await sql<{ Id: number; Cause: string }>('SELECT Id, Cause FROM Events WHERE MonitorId = ? ORDER BY Id', [
      monitorId,
    ])
  ).map((e) => ({ Id: Number(e.Id), Cause: e.Cause }));
}

// Sensitive enough for an 80×80 box moving ~10 px a frame, blind to the encoder's noise on a flat
// grey picture. Area limits in percent of the zone's area, as 1.39 reads them beside percent coordinates.
const SETTINGS = {
  type: 'Active',
  check_method: 'Blobs',
  min_pixel_threshold: 25,
  max_pixel_threshold: 0,
  min_alarm_pixels: 1,
  max_alarm_pixels: 0,
  filter_x: 3,
  filter_y: 3,
  min_filter_pixels: 1,
  max_filter_pixels: 0,
  min_blob_pixels: 1,
  max_blob_pixels: 0,
  min_blobs: 1,
  max_blobs: 0,
};

test.before(async () => {
  if (unavailable) return;
  db = await database136('zones136');
  zm = new RealZm(db);
  await zm.freshen();
  // Flat grey; a white 80×80 box wanders inside the top-left quadrant only (x 40..300, y 40..160).
  const clip = await zm.clip(
    'quadrant.mp4',
    [`color=c=gray:s=${W}x${H}:r=10:d=180`, 'color=c=white:s=80x80:r=10:d=180'],
    "[0][1]overlay=x='40+140*abs(sin(t))':y='40+40*abs(cos(t*0.7))'",
  );
  for (const [id, name] of [
    [MOVING, 'Moving'],
    [STILL, 'Still'],
  ] as const) {
    await sql(
      'INSERT INTO Monitors (Id, Name, Type, `Function`, Enabled, Method, Path, Width, Height, Colours, VideoWriter, SaveJPEGs, SectionLength, MaxFPS, ImageBufferCount, PreEventCount, PostEventCount) ' +
        "VALUES (?, ?, 'Ffmpeg', 'Modect', 1, 'rtpRtsp', ?, ?, ?, 4, 2, 0, 10, 10, 10, 2, 2)",
      [id, name, clip, W, H],
    );
  }
  await sql(
    "INSERT INTO Users (Username, Password, Enabled, APIEnabled, Stream, Events, Monitors, System) VALUES ('adm', ?, 1, 1, 'View', 'Edit', 'Edit', 'Edit')",
    [bcrypt.hashSync('adm', 4)],
  );
  // As shipped on 1.36: no zmgate-db step; the start-up migrations only add zmgate's own tables.
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_DB__MIGRATE_ON_START: 'true' } });
  call = caller(app, await login(app, 'adm'));
});

test.after.always(async () => {
  await zm?.stop();
  await app?.close();
});

serial('zones written in percent through v3: 1.36 zmc alarms on the moving quadrant only', async (t) => {
  const moving = await call('POST', `/monitors/${MOVING}/zones`, {
    name: 'Top left',
    coords: '0,0 50,0 50,50 0,50',
    ...SETTINGS,
  });
  t.is(moving.status, 201, JSON.stringify(moving.body));
  const still = await call('POST', `/monitors/${STILL}/zones`, {
    name: 'Bottom right',
    coords: '50,50 100,50 100,100 50,100',
    ...SETTINGS,
  });
  t.is(still.status, 201, JSON.stringify(still.body));
  // Stored as the whole pixels 1.36 reads.
  t.deepEqual(await sql('SELECT MonitorId, Units, Coords FROM Zones ORDER BY MonitorId'), [
    { MonitorId: MOVING, Units: 'Pixels', Coords: '0,0 320,0 320,180 0,180' },
    { MonitorId: STILL, Units: 'Pixels', Coords: '320,180 639,180 639,359 320,359' },
  ]);

  zm.start(MOVING);
  zm.start(STILL);
  const motion = await waitFor(
    `a Motion event of monitor ${MOVING} (zmc said: ${zm.log(MOVING).slice(-800)})`,
    120_000,
    async () => (await events(MOVING)).find((e) => e.Cause === 'Motion'),
  );
  t.truthy(motion);
  // Both captured the same file for as long: the still quadrant raised nothing.
  t.deepEqual(await events(STILL), [], zm.log(STILL).slice(-800));
});

serial('modes changed through v3 are what 1.36 zmc does after a restart', async (t) => {
  const off = await call('PATCH', `/monitors/${MOVING}`, { analysing: 'None' });
  t.is(off.status, 200, JSON.stringify(off.body));
  const record = await call('PATCH', `/monitors/${STILL}`, { analysing: 'None', recording: 'Always' });
  t.is(record.status, 200, JSON.stringify(record.body));
  // The Function 1.36's daemons read.
  t.deepEqual(await sql('SELECT Id, `Function` FROM Monitors ORDER BY Id'), [
    { Id: MOVING, Function: 'Nodect' },
    { Id: STILL, Function: 'Record' },
  ]);

  await Promise.all([zm.stopMonitor(MOVING), zm.stopMonitor(STILL)]);
  const before = Math.max(0, ...(await events(MOVING)).map((e) => e.Id));
  const analysingOff = zm.start(MOVING);
  zm.start(STILL);
  // Record: a continuous event, closed at the 10 s section end.
  await waitFor(
    `a closed Continuous event of monitor ${STILL} (zmc said: ${zm.log(STILL).slice(-800)})`,
    120_000,
    async () =>
      (
        await sql<{ Id: number }>(
          "SELECT Id FROM Events WHERE MonitorId = ? AND Cause = 'Continuous' AND EndDateTime IS NOT NULL",
          [STILL],
        )
      ).length > 0,
  );
  // Meanwhile monitor 1's zmc kept capturing the same motion without analysing it: no new event.
  t.is(analysingOff.exitCode, null, zm.log(MOVING).slice(-800));
  t.deepEqual(
    (await events(MOVING)).filter((e) => e.Id > before),
    [],
    zm.log(MOVING).slice(-800),
  );
});
