// Every read of openapi/baseline.json on a ZoneMinder 1.36.33 database, with rows: the real 1.36
// schema (Debian's zm_create.sql), every table seeded (ids 1 and 2, as the schema fuzzing seeds
// them), the service started as shipped (side tables at start-up). Each GET operation, its path
// ids naming seeded rows, must answer without a server error; a 503 is allowed only where 1.36
// has no place for the data at all (roles, group permissions), and is listed here by name.
import test from 'ava';
import bcrypt from 'bcryptjs';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { caller, login, type Call } from '../helpers/rest.js';
import { database136 } from '../helpers/zm136.js';
import { SEEDED_CONFIG_NAME, SEEDED_IDS, SEEDED_SESSION_ID, seedFuzzDatabase } from '../schemathesis/seed.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const baseline = JSON.parse(readFileSync(path.join(root, 'openapi', 'baseline.json'), 'utf8')) as {
  paths: Record<string, Record<string, { operationId?: string; parameters?: Array<{ in: string; name: string }> }>>;
};

/** Operations that keep 1.39-only data 1.36 has no place for: 503 with the envelope, by design. */
const UNAVAILABLE_ON_136 = new Set([
  'list_roles',
  'get_role',
  'list_role_monitors_permissions',
  'get_role_monitor_permission',
  'list_role_groups_permissions',
  'get_role_group_permission',
  'list_groups_permissions',
  'get_group_permission',
]);

let db: FreshDatabase;
let app: TestApp;
let dir: string;

test.before(async () => {
  db = await database136('routes136');
  dir = mkdtempSync(path.join(os.tmpdir(), 'zmgate-routes136-'));
  await seedFuzzDatabase(db, path.join(dir, 'events'), false);
  await db.db.query(
    "INSERT INTO Users (Username, Password, Enabled, APIEnabled, Stream, Events, Control, Monitors, `Groups`, Devices, System) VALUES ('adm', ?, 1, 1, 'View', 'Edit', 'Edit', 'Edit', 'Edit', 'Edit', 'Edit')",
    [bcrypt.hashSync('adm', 4)],
    db.name,
  );
  app = await startTestApp({
    db,
    env: {
      APP_AUTH__RATE_LIMIT__ENABLED: 'false',
      APP_SERVER__MIDDLEWARE__RATE_LIMIT__ENABLED: 'false',
      APP_DB__MIGRATE_ON_START: 'true',
      APP_ZONEMINDER__DIR_EVENTS: path.join(dir, 'events'),
      APP_ZONEMINDER__PATH_MAP: dir,
      APP_ZONEMINDER__PATH_SOCKS: dir,
    },
  });
});

/** A session of its own per test: the loop below reads GET /host/logout too, which ends the caller's. */
async function session(): Promise<Call> {
  return caller(app, await login(app, 'adm'));
}

test.after.always(async () => {
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function concrete(route: string): string {
  return route.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (name === 'name') return SEEDED_CONFIG_NAME;
    if (name === 'hours') return '24';
    if (/session/i.test(name)) return SEEDED_SESSION_ID;
    return String(SEEDED_IDS[0]);
  });
}

test.serial(
  'every GET of the baseline answers on 1.36 with rows: no server error, 503 only where 1.36 has no place',
  async (t) => {
    const call = await session();
    const failures: string[] = [];
    const unavailable: string[] = [];
    let asked = 0;
    for (const [route, item] of Object.entries(baseline.paths)) {
      const op = item.get;
      if (!op) continue;
      // Media and streams answer bytes or hold the connection: their own tests cover them.
      if (
        /\/(stream|live|video|image|snapshot|thumbnail|frames\/\{[^}]+\}\/image)|\.(m3u8|m4s|mp4|jpg)|\/socket/.test(
          route,
        )
      )
        continue;
      const url = concrete(route.replace(/^\/api\/v3/, ''));
      const res = await call('GET', url);
      asked++;
      if (res.status === 503) {
        unavailable.push(op.operationId ?? route);
        if (!UNAVAILABLE_ON_136.has(op.operationId ?? ''))
          failures.push(`${route}: 503 ${JSON.stringify(res.body).slice(0, 200)}`);
      } else if (res.status >= 500) failures.push(`${route}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    t.true(asked > 60, `asked ${asked}`);
    t.deepEqual(failures, []);
    t.log(`${asked} reads; 503 by design: ${unavailable.join(', ') || 'none'}`);
  },
);

test.serial('writes a client makes first answer on 1.36: a monitor, a user, a control, a monitor status', async (t) => {
  const call = await session();
  const made = [
    await call('POST', '/monitors', { name: 'From v3' }),
    await call('POST', '/users', { username: 'fromv3', password: 'a-long-password-1' }),
    await call('POST', '/controls', { name: 'From v3', type: 'Ffmpeg' }),
    await call('PATCH', `/monitor-status/${SEEDED_IDS[1]}`, { analysis_fps: '0', capture_fps: '0' }),
  ];
  t.deepEqual(
    made.map((r) => r.status),
    [201, 201, 201, 200],
    JSON.stringify(made.map((r) => r.body)).slice(0, 2000),
  );
  // The rows are there and read back as any other.
  t.is((await call('GET', `/monitors/${made[0].body.id}`)).body.name, 'From v3');
  const [user] = await db.db.query<{ Username: string }>(
    'SELECT Username FROM Users WHERE Id = ?',
    [made[1].body.id],
    db.name,
  );
  t.is(user.Username, 'fromv3');
  t.is(made[2].body.name, 'From v3');
  // An event: columns 1.36 lacks left out, a null where 1.36 says NOT NULL left to its default.
  const event = await call('POST', '/events', {
    monitor_id: SEEDED_IDS[0],
    name: '',
    orientation: 'Rotate0',
    storage_id: 0,
    width: 0,
    height: 0,
    length: '0',
  });
  t.is(event.status, 201, JSON.stringify(event.body));
  const got = await call('GET', `/events/${event.body.id}`);
  t.like(got.body, { monitor_id: SEEDED_IDS[0] }, JSON.stringify([event.body, got.status, got.body]));
  // 1.36's own insert trigger counted it once (zmgate adds no second bucket row).
  const [hour] = await db.db.query<{ n: number }>(
    'SELECT COUNT(*) AS n FROM Events_Hour WHERE EventId = ?',
    [event.body.id],
    db.name,
  );
  t.is(Number(hour.n), 1);
  // Archiving runs 1.36's event triggers (Events_Archived).
  const archived = await call('PATCH', `/events/${SEEDED_IDS[1]}`, { archived: true });
  t.is(archived.status, 200, JSON.stringify(archived.body));
});

test.serial(
  'a column 1.36 keeps as a number where 1.39 has text (DefaultScale) is written from 1.39 text',
  async (t) => {
    const call = await session();
    const preset = await call('PATCH', '/monitor_presets/1', { default_scale: '100', width: 5128 });
    t.is(preset.status, 200, JSON.stringify(preset.body));
    t.like(preset.body, { default_scale: '100', width: 5128 });
    const monitor = await call('PATCH', `/monitors/${SEEDED_IDS[0]}`, { default_scale: '50' });
    t.is(monitor.status, 200, JSON.stringify(monitor.body));
    const [row] = await db.db.query<{ DefaultScale: number }>(
      'SELECT DefaultScale FROM Monitors WHERE Id = ?',
      [SEEDED_IDS[0]],
      db.name,
    );
    t.is(Number(row.DefaultScale), 50);
    // Text 1.36 cannot store there: 400, nothing written.
    const word = await call('PATCH', `/monitors/${SEEDED_IDS[0]}`, { default_scale: 'fit_to_width' });
    t.is(word.status, 400);
  },
);

test.serial(
  'a filter preview that matches events answers on 1.36 (the event columns it lacks read as defaults)',
  async (t) => {
    const call = await session();
    const res = await call('POST', '/filters/preview', { where: { match: 'any' } });
    t.is(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    t.true((res.body.items as unknown[]).length > 0);
  },
);

test.serial('recordings by time answer on 1.36, whose Events index MonitorId and StartDateTime apart', async (t) => {
  const call = await session();
  const [first] = await db.db.query<{ Id: number; MonitorId: number; StartDateTime: string }>(
    "SELECT Id, MonitorId, DATE_FORMAT(StartDateTime, '%Y-%m-%dT%H:%i:%s') AS StartDateTime FROM Events ORDER BY Id LIMIT 1",
    [],
    db.name,
  );
  const start = first.StartDateTime;
  // ZoneMinder local times (no offset), an hour from the first event's start.
  const hourLater = new Date(Date.parse(`${start}Z`) + 3_600_000).toISOString().slice(0, 19);
  const range = `from=${start}&to=${hourLater}`;
  const one = await call('GET', `/monitors/${first.MonitorId}/recordings?${range}`);
  t.is(one.status, 200, JSON.stringify(one.body).slice(0, 300));
  t.true(one.body.spans.some((s: { event_id: number }) => s.event_id === Number(first.Id)));
  const many = await call('GET', `/recordings?monitor_ids=${first.MonitorId}&${range}`);
  t.is(many.status, 200);
  t.deepEqual(many.body.monitors[0], one.body);
});
