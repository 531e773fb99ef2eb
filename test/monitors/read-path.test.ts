// The driver read path of GET /monitors and GET /monitors/{id} (src/features/monitors/monitor-rows.ts)
// must answer exactly what the Prisma path answers: same JSON for every kind of column (FLOAT,
// DECIMAL, BOOLEAN, SET, enums with a Prisma member name, NULLs sent as 0/''), and the same
// totals for every page, scope and page size.
import test from 'ava';
import type { AuthUser } from '../../src/auth/auth-service.js';
import type { MonitorAcl, MonitorScope } from '../../src/auth/monitor-acl.js';
import { NotFoundError } from '../../src/errors.js';
import { createPool, type DbPool } from '../../src/db/pool.js';
import { createPrismaClient, type PrismaClient } from '../../src/db/prisma.js';
import { MonitorRows } from '../../src/features/monitors/monitor-rows.js';
import { MonitorsService } from '../../src/features/monitors/monitors-service.js';
import { MonitorStatusService } from '../../src/features/monitors/monitor-status-service.js';
import { dbConfigFor, type FreshDatabase } from '../helpers/mariadb.js';
import { zmDatabase } from '../helpers/zmdb.js';
import { ZoneClock } from '../../src/db/zone-clock.js';

let db: FreshDatabase;
let pool: DbPool;
let prisma: PrismaClient;
let scope: MonitorScope = { visible: null, editable: null };
const acl: MonitorAcl = { scope: async () => scope, groupScope: async () => scope, invalidate: () => undefined };
const user = { id: 1, username: 'u', perms: {}, issuedAt: 0, expiresAt: 0 } as unknown as AuthUser;
let viaPrisma: MonitorsService;
let viaDriver: MonitorsService;
const ids: number[] = [];

test.before(async () => {
  db = await zmDatabase('monread');
  const q = (sql: string, params: unknown[] = []) => db.db.query<any>(sql, params, db.name);
  await q(`INSERT INTO Storage (Id, Path, Name) VALUES (1, '/tmp/ev', 'Default')`);
  // Defaults, then rows exercising every conversion: nullable ids, decimals, a FLOAT that is
  // not exact in single precision, flags, the SET column, enum values Prisma renames.
  const rows: Array<Record<string, unknown>> = [
    { Name: 'defaults' },
    {
      Name: 'Ünïcode 📷',
      Notes: 'line\nbreak',
      Deleted: 1,
      StorageId: 1,
      Type: 'cURL',
      Decoding: 'KeyFrames+Ondemand',
      Orientation: 'FLIP_HORI',
      OutputContainer: 'mkv',
      ObjectDetectionObjectThreshold: 1.2345678,
      ObjectDetectionNMSThreshold: 0.1,
      RTSP2WebEnabled: 1,
      Go2RTCEnabled: 1,
      SectionLengthWarn: 0,
      Triggers: 'X10',
      MaxFPS: 12.5,
      AlarmMaxFPS: 0.01,
      AnalysisFPSLimit: 999.99,
      AutoStopTimeout: 3,
      Latitude: 51.12345678,
      Longitude: -179.98765432,
      Brightness: -1,
      MQTT_Subscriptions: 'a/b',
    },
    {
      Name: 'nulls',
      StorageId: null,
      OutputContainer: null,
      MaxFPS: null,
      Latitude: null,
      MQTT_Subscriptions: null,
      Notes: null,
      LinkedMonitors: null,
      ONVIF_Alarm_Text: null,
    },
    { Name: 'fourth', Function: 'Modect', Capturing: 'Ondemand', Recording: 'OnMotion' },
    { Name: 'fifth', Importance: 'Not', DefaultCodec: 'MJPEG', EventCloseMode: 'alarm' },
  ];
  for (const row of rows) {
    const cols = Object.keys(row);
    const [r] = await q(
      `INSERT INTO Monitors (${cols.map((c) => `\`${c}\``).join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) RETURNING Id`,
      Object.values(row),
    );
    ids.push(Number(r.Id));
  }
  const config = dbConfigFor(db);
  pool = createPool(config);
  prisma = createPrismaClient(config);
  viaPrisma = new MonitorsService(prisma, acl);
  viaDriver = new MonitorsService(prisma, acl, undefined, new MonitorRows(pool));
});

test.after.always(async () => {
  await pool?.end();
  await prisma?.$disconnect();
});

test.serial('every page of every size, unrestricted and restricted, is identical on both paths', async (t) => {
  const scopes: MonitorScope[] = [
    { visible: null, editable: null },
    { visible: new Set([ids[1], ids[3], 999_999]), editable: new Set() },
    { visible: new Set(), editable: new Set() },
  ];
  let compared = 0;
  for (const s of scopes) {
    scope = s;
    for (const size of [1, 2, 3, 5, 25]) {
      for (let page = 1; page <= 7; page++) {
        const expected = await viaPrisma.list(user, page, size);
        t.deepEqual(
          await viaDriver.list(user, page, size),
          expected,
          `page ${page} size ${size} visible ${s.visible ? [...s.visible] : 'all'}`,
        );
        compared += expected.items.length;
      }
    }
  }
  scope = { visible: null, editable: null };
  // The largest offsets the page check lets through reach the driver intact.
  for (const [page, size] of [
    [2 ** 31, 1],
    [Math.floor(2 ** 53 / 1000), 1000],
  ]) {
    const far = await viaDriver.list(user, page, size);
    t.deepEqual(far, await viaPrisma.list(user, page, size));
    t.like(far, { items: [], total: ids.length });
  }
  const all = await viaDriver.list(user, 1, 25);
  t.is(all.total, ids.length);
  t.true(compared > ids.length * 5);
  // Spot checks that the interesting values made it through at all (not only "equal").
  const odd = all.items.find((m) => m.id === ids[1])!;
  t.like(odd, {
    triggers: 'X10',
    decoding: 'KeyFrames+Ondemand',
    type: 'cURL',
    deleted: true,
    rtsp2_web_enabled: 1,
    section_length_warn: 0,
    max_fps: 12.5,
    orientation: 'FLIP_HORI',
  });
  t.is(odd.object_detection_object_threshold, 1.234568);
  const nulls = all.items.find((m) => m.id === ids[2])!;
  t.like(nulls, { storage_id: 0, max_fps: null, output_container: null });
});

test.serial('one monitor by id is identical on both paths; missing and hidden are the same 404', async (t) => {
  for (const id of ids) t.deepEqual(await viaDriver.get(user, id), await viaPrisma.get(user, id));
  const missing = await t.throwsAsync(() => viaDriver.get(user, 999_999), { instanceOf: NotFoundError });
  const expected = await t.throwsAsync(() => viaPrisma.get(user, 999_999), { instanceOf: NotFoundError });
  t.deepEqual({ ...missing }, { ...expected });
  t.is(missing!.message, 'Monitor 999999 not found');
  scope = { visible: new Set([ids[0]]), editable: null };
  try {
    const hidden = await t.throwsAsync(() => viaDriver.get(user, ids[1]), { instanceOf: NotFoundError });
    t.is(hidden!.message, `Monitor ${ids[1]} not found`);
    t.deepEqual(await viaDriver.get(user, ids[0]), await viaPrisma.get(user, ids[0]));
  } finally {
    scope = { visible: null, editable: null };
  }
});

test('GET /monitor-status reads the same through the driver as through Prisma', async (t) => {
  const q = (sql: string, params: unknown[] = []) => db.db.query<any>(sql, params, db.name);
  await q('DELETE FROM Monitor_Status');
  await q(
    "INSERT INTO Monitor_Status (MonitorId, Status, CaptureFPS, AnalysisFPS, CaptureBandwidth, UpdatedOn) VALUES (?, 'Connected', 25.5, 5, 123456, '2026-03-08 02:30:00'), (?, 'NotRunning', 0, 0.01, 0, NULL)",
    [ids[0], ids[1]],
  );
  // A zero TIMESTAMP, as written with sql_mode=''.
  await q(
    "SET STATEMENT sql_mode='' FOR INSERT INTO Monitor_Status (MonitorId, Status, CaptureFPS, AnalysisFPS, CaptureBandwidth, UpdatedOn) VALUES (?, 'Signal', 99999999.99, 999.99, 2147483647, 0)",
    [ids[2]],
  );
  const utc = new ZoneClock('UTC');
  const status = new MonitorStatusService(prisma, acl, pool, undefined, async () => utc);
  try {
    scope = { visible: null, editable: null };
    const all = await status.list(user, 1, 1000);
    t.is(all.total, 3);
    // get() reads one row through Prisma: every listed row must equal it.
    for (const item of all.items) t.deepEqual(item, await status.get(user, item.monitor_id));
    t.like(all.items[0], { capture_fps: '25.50', analysis_fps: '5.00', updated_on: '2026-03-08T02:30:00Z' });
    t.is(all.items[2]!.updated_on, null);
    scope = { visible: new Set([ids[1]!, ids[2]!]), editable: null };
    const limited = await status.list(user, 1, 1);
    t.like(limited, { total: 2, last_page: 2 });
    t.deepEqual(
      limited.items.map((s) => s.monitor_id),
      [ids[1]],
    );
    scope = { visible: new Set(), editable: null };
    t.like(await status.list(user), { items: [], total: 0 });
  } finally {
    scope = { visible: null, editable: null };
    await q('DELETE FROM Monitor_Status');
  }
});
