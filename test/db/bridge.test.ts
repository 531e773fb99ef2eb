// `zmgate-db bridge` from the real ZoneMinder 1.36.33: Debian's zm_create.sql + triggers.sql,
// filled with monitors (one per Function), users with MonitorIds, zones in pixels, events and
// frames. After the bridge the schema equals ZoneMinder 1.39.22's dump, every row is still there
// and the data is migrated as described; a second bridge changes nothing at all.
import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConnection, type Connection } from 'mariadb';
import { diffSchemas, introspectSchema } from '../../src/db/converge/index.js';
import { fromZoneMinderJson, targetSchema } from '../../src/db/schema/index.js';
import { freshDatabase, type FreshDatabase } from '../helpers/mariadb.js';
import { dataFingerprint, database136, schemaFingerprint, zmgateDb, zoneminder136Files } from '../helpers/zm136.js';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const readDump = (version: string) =>
  fromZoneMinderJson(
    JSON.parse(readFileSync(path.join(repo, 'data', 'zoneminder', 'schema', `zoneminder-${version}.json`), 'utf8')),
  );
const zm136 = readDump('1.36.33');
const zm139 = readDump('1.39.22');
const seedConfig = JSON.parse(
  readFileSync(path.join(repo, 'data', 'zoneminder', 'seed-data', 'zoneminder-1.39.22-config.json'), 'utf8'),
).Config as Record<string, string | null>[];

// Sample data, written as ZoneMinder 1.36 would (as root, with its triggers live).
const SAMPLE = `
INSERT INTO Monitors (Id, Name, Type, \`Function\`, Enabled, Width, Height, DefaultScale) VALUES
  (1, 'Gate',    'Ffmpeg', 'None',    1,  640,  480, 100),
  (2, 'Hall',    'Ffmpeg', 'Monitor', 1,  640,  480, 100),
  (3, 'Drive',   'Ffmpeg', 'Modect',  1, 1920, 1080, 50),
  (4, 'Street',  'Ffmpeg', 'Record',  1, 1280,  720, 100),
  (5, 'Garden',  'Ffmpeg', 'Mocord',  0,  800,  600, 100),
  (6, 'Attic',   'Ffmpeg', 'Nodect',  1,    0,    0, 100);
INSERT INTO Zones (Id, MonitorId, Name, Type, Units, NumCoords, Coords, Area, CheckMethod, MinAlarmPixels, MaxAlarmPixels) VALUES
  (1, 3, 'All',    'Active',    'Pixels',  4, '0,0 1919,0 1919,1079 0,1079', 2073600, 'Blobs', 41472, NULL),
  (2, 3, 'Door',   'Active',    'Percent', 3, '100,200 500,200 300,700',     100000,  'AlarmedPixels', 2000, 80000),
  (3, 4, 'Street', 'Inclusive', 'Pixels',  4, '0,360 1279,360 1279,719 0,719', 460800, 'Blobs', 9216, NULL),
  (4, 6, 'Blind',  'Active',    'Pixels',  3, '0,0 10,0 10,10',               50,      'Blobs', 1, NULL);
INSERT INTO Users (Id, Username, Password, Enabled, Stream, Events, Monitors, MonitorIds) VALUES
  (2, 'viewer',   '$2b$10$abcdefghijklmnopqrstuv', 1, 'View', 'View', 'View', '1,3'),
  (3, 'editor',   '$2b$10$abcdefghijklmnopqrstuv', 1, 'View', 'Edit', 'Edit', ' 2, 4 ,99 '),
  (4, 'everyone', '$2b$10$abcdefghijklmnopqrstuv', 1, 'View', 'View', 'View', NULL),
  (5, 'ghost',    '$2b$10$abcdefghijklmnopqrstuv', 1, 'View', 'View', 'View', '42');
INSERT INTO \`Groups\` (Id, Name, ParentId) VALUES (1, 'Outside', NULL), (2, 'Front', 1);
INSERT INTO Groups_Monitors (GroupId, MonitorId) VALUES (1, 4), (1, 5), (2, 3);
INSERT INTO Events (Id, MonitorId, StorageId, Name, Cause, StartDateTime, EndDateTime, Width, Height, Length, Frames, AlarmFrames, TotScore, AvgScore, MaxScore, Notes, StateId, Scheme) VALUES
  (1, 3, 1, 'Event-1', 'Motion', '2024-05-01 10:00:00', '2024-05-01 10:00:30', 1920, 1080, 30.00, 5, 2, 40, 20, 25, 'Motion: All', 1, 'Medium'),
  (2, 3, 1, 'Event-2', 'Motion', '2024-05-01 11:00:00', '2024-05-01 11:00:10', 1920, 1080, 10.00, 5, 1, 10, 10, 10, 'Motion: Door', 1, 'Medium'),
  (3, 4, 1, 'Event-3', 'Continuous', '2024-05-01 12:00:00', '2024-05-01 12:10:00', 1280, 720, 600.00, 5, 0, 0, 0, 0, NULL, 1, 'Medium'),
  (4, 4, 1, 'Event-4', 'Continuous', '2024-05-01 12:10:00', '2024-05-01 12:20:00', 1280, 720, 600.00, 5, 0, 0, 0, 0, NULL, 1, 'Deep'),
  (5, 5, 1, 'Event-5', 'Signal', '2024-05-02 08:00:00', NULL, 800, 600, 0.00, 5, 0, 0, 0, 0, NULL, 1, 'Shallow');
INSERT INTO Frames (EventId, FrameId, Type, TimeStamp, Delta, Score)
  SELECT e.Id, n.n, IF(n.n = 3, 'Alarm', IF(n.n = 5, 'Bulk', 'Normal')), e.StartDateTime + INTERVAL n.n SECOND, n.n, IF(n.n = 3, 25, 0)
    FROM Events e JOIN (SELECT 1 AS n UNION SELECT 2 UNION SELECT 3 UNION SELECT 4 UNION SELECT 5) n;
UPDATE Events SET DiskSpace = 1048576 * Id WHERE Id <= 4;
UPDATE Events SET Archived = 1 WHERE Id = 3;
INSERT INTO Snapshots (Id, Name, Description, CreatedBy, CreatedOn) VALUES (1, 'Porch visit', 'two events', 1, '2024-05-03 09:00:00');
INSERT INTO Snapshot_Events (Id, SnapshotId, EventId) VALUES (1, 1, 1), (2, 1, 2);
UPDATE Config SET Value = '20' WHERE Name = 'ZM_FILTER_EXECUTE_INTERVAL';
UPDATE Config SET Value = 'Home NVR' WHERE Name = 'ZM_WEB_TITLE';
UPDATE Config SET Value = '1' WHERE Name = 'ZM_AUTH_HASH_IPS';
`;

async function sample136(prefix: string): Promise<{ fresh: FreshDatabase; conn: Connection }> {
  const fresh = await database136(prefix);
  await fresh.db.exec(SAMPLE, fresh.name);
  return { fresh, conn: await createConnection({ ...fresh.userConfig, bigIntAsNumber: true, dateStrings: true }) };
}

// Columns whose stored text changes with their 1.39 type or through a data migration; compared
// on their own below.
const MIGRATED = new Set([
  'Zones.Coords',
  'Zones.Area',
  'Zones.Units',
  'Users.Monitors',
  ...['Min', 'Max'].flatMap((m) =>
    ['Alarm', 'Filter', 'Blob'].flatMap((k) => [`Zones.${m}${k}Pixels`, `ZonePresets.${m}${k}Pixels`]),
  ),
]);

/**
 * Every row of every 1.36 table (Config aside), as text, in the columns 1.36 and 1.39 share: the
 * bridge must keep all of them. Snapshot_Events is read under its 1.39 name afterwards.
 */
async function preservedRows(conn: Connection, after: boolean): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of zm136.tables) {
    if (table.name === 'Config') continue;
    const renamed = table.name === 'Snapshot_Events' ? 'Snapshots_Events' : table.name;
    const now = after ? renamed : table.name;
    const newTable = zm139.tables.find((t) => t.name === renamed)!;
    const columns = table.columns
      .map((c) => c.name)
      .filter((c) => newTable.columns.some((n) => n.name === c) && !MIGRATED.has(`${table.name}.${c}`));
    const key = table.indexes
      .find((i) => i.name === 'PRIMARY')!
      .columns.map((c) => `\`${c}\``)
      .join(', ');
    const rows = await conn.query(
      `SELECT ${columns.map((c) => `CAST(\`${c}\` AS CHAR) AS \`${c}\``).join(', ')} FROM \`${now}\` ORDER BY ${key}`,
    );
    out[table.name] = JSON.stringify(rows);
  }
  return out;
}

test("the fixture is Debian's ZoneMinder 1.36.33, with its 13 triggers working", async (t) => {
  t.regex(zoneminder136Files().packageVersion, /^1\.36\.33/);
  const { fresh, conn } = await sample136('b_fixture');
  try {
    const live = await introspectSchema(conn, fresh.name);
    t.deepEqual(diffSchemas(zm136, live), []);
    t.is(live.triggers.length, 13);
    t.deepEqual(await conn.query("SELECT Value FROM Config WHERE Name = 'ZM_DYN_DB_VERSION'"), [{ Value: '1.36.33' }]);
    // The 1.36 insert trigger filled the buckets; the update trigger kept Storage.DiskSpace.
    t.deepEqual(await conn.query('SELECT MonitorId, TotalEvents FROM Event_Summaries ORDER BY MonitorId'), [
      { MonitorId: 3, TotalEvents: 2 },
      { MonitorId: 4, TotalEvents: 2 },
      { MonitorId: 5, TotalEvents: 1 },
    ]);
    t.deepEqual(await conn.query('SELECT DiskSpace FROM Storage WHERE Id = 1'), [{ DiskSpace: 10485760 }]);
    t.deepEqual(await conn.query('SELECT COUNT(*) AS n FROM Frames'), [{ n: 25 }]);
  } finally {
    await conn.end();
  }
});

test('bridge brings 1.36.33 to exactly 1.39.22, keeps every row and migrates the data; a second bridge changes nothing', async (t) => {
  const { fresh, conn } = await sample136('b_bridge');
  try {
    const rowsBefore = await preservedRows(conn, false);
    const configBefore = (await conn.query('SELECT Name, Value FROM Config ORDER BY Name')) as {
      Name: string;
      Value: string;
    }[];
    const controlsBefore = await conn.query('SELECT COUNT(*) AS n FROM Controls');

    const r = await zmgateDb(['bridge', '--allow-older-zoneminder', '--yes', '-u', fresh.userUrl]);
    t.is(r.code, 0, r.stderr);
    // The plan, with the destructive steps marked, then progress, then what was migrated.
    t.regex(r.stdout, /^ZoneMinder 1\.36\.33 \(code 1\.36\.33\) -> 1\.39\.22$/m);
    t.regex(r.stdout, /^plan: \d+ step\(s\), 4 marked ! rewrite or remove data$/m);
    t.regex(
      r.stdout,
      /^ {2}\[ *\d+\/\d+\] rename-table:Snapshot_Events: rename table Snapshot_Events to Snapshots_Events/m,
    );
    t.regex(r.stdout, /^ {2}\[ *\d+\/\d+\] ! data-migration:0003_monitor_ids_to_permissions: /m);
    t.regex(r.stdout, /^ {2}kept: foreign-key Frames: \(EventId\) -> Events\(Id\)/m);
    t.notRegex(r.stdout, /kept: column Users\.MonitorIds/, 'the column the data migration drops is not called kept');
    t.regex(
      r.stdout,
      /^0003_monitor_ids_to_permissions: 3 restricted user\(s\) x 6 monitor\(s\): 4 View\/Edit and 14 None row\(s\); Users\.MonitorIds dropped$/m,
    );
    t.regex(
      r.stdout,
      /^done: \d+ step\(s\) in [\d.]+ s; b_bridge_\w+ is at ZoneMinder 1\.39\.22 \(baseline stamped\)$/m,
    );
    t.regex(r.stderr, /Back up the database first/);
    t.regex(r.stderr, /^\[ *\d+\/\d+\] ok +data-migration:0002_function_to_modes \(\d+ ms\)$/m);
    t.regex(
      r.stderr,
      /^warning: 0005_zones_pixels_to_percent: zone 4 'Blind' of monitor 6 left in pixels: the monitor has no Width\/Height \(0x0\)$/m,
    );
    t.regex(
      r.stderr,
      /^warning: 0003_monitor_ids_to_permissions: user editor's MonitorIds name monitors that no longer exist \(99\); left out$/m,
    );

    // Schema: ZoneMinder's 1.39.22 dump exactly (zmgate_ tables aside) ...
    const live = await introspectSchema(conn, fresh.name);
    t.deepEqual(diffSchemas(zm139, live), []);
    // ... and the full target too, apart from four constraints a 1.36 install has and 1.39 never
    // declares (Frames/Stats -> Events/Monitors/Zones); the converger keeps and reports them.
    t.deepEqual(
      diffSchemas(targetSchema(), live, { ignore: () => false, foreignKeys: true, engines: true, triggerBodies: true }),
      [
        'table Frames: foreign key (EventId) -> Events(Id) ON DELETE CASCADE ON UPDATE RESTRICT is not expected',
        'table Stats: foreign key (MonitorId) -> Monitors(Id) ON DELETE CASCADE ON UPDATE RESTRICT is not expected',
        'table Stats: foreign key (ZoneId) -> Zones(Id) ON DELETE CASCADE ON UPDATE RESTRICT is not expected',
        'table Stats: foreign key (EventId) -> Events(Id) ON DELETE CASCADE ON UPDATE RESTRICT is not expected',
      ],
    );

    // Every row kept (events, frames, summaries, monitors, users, groups, snapshots, ...).
    t.deepEqual(await preservedRows(conn, true), rowsBefore);
    t.deepEqual(
      await conn.query('SELECT COUNT(*) AS n FROM Controls'),
      controlsBefore,
      'existing seed tables keep their rows',
    );

    // Function -> Capturing/Analysing/Recording, exactly docs/zoneminder/database.md.
    t.deepEqual(await conn.query('SELECT `Function`, Capturing, Analysing, Recording FROM Monitors ORDER BY Id'), [
      { Function: 'None', Capturing: 'None', Analysing: 'Always', Recording: 'Always' },
      { Function: 'Monitor', Capturing: 'Always', Analysing: 'None', Recording: 'None' },
      { Function: 'Modect', Capturing: 'Always', Analysing: 'Always', Recording: 'OnMotion' },
      { Function: 'Record', Capturing: 'Always', Analysing: 'None', Recording: 'Always' },
      { Function: 'Mocord', Capturing: 'Always', Analysing: 'Always', Recording: 'Always' },
      { Function: 'Nodect', Capturing: 'Always', Analysing: 'None', Recording: 'OnMotion' },
    ]);

    // MonitorIds -> Monitors_Permissions: listed monitors View/Edit, every other one None;
    // users without a list get no rows (they keep seeing everything).
    const permissions = (await conn.query(
      'SELECT u.Username, GROUP_CONCAT(CONCAT(p.MonitorId, ":", p.Permission) ORDER BY p.MonitorId) AS p FROM Monitors_Permissions p JOIN Users u ON u.Id = p.UserId GROUP BY u.Username ORDER BY u.Username',
    )) as { Username: string; p: string }[];
    t.deepEqual(permissions, [
      { Username: 'editor', p: '1:None,2:Edit,3:None,4:Edit,5:None,6:None' },
      { Username: 'ghost', p: '1:None,2:None,3:None,4:None,5:None,6:None' },
      { Username: 'viewer', p: '1:View,2:None,3:View,4:None,5:None,6:None' },
    ]);
    t.false(live.tables.find((x) => x.name === 'Users')!.columns.some((c) => c.name === 'MonitorIds'));
    // Monitors=Edit could add monitors in 1.36; from 1.37 that is Create. Restricted editors stay at Edit.
    t.deepEqual(await conn.query('SELECT Username, Monitors FROM Users ORDER BY Id'), [
      { Username: 'admin', Monitors: 'Create' },
      { Username: 'viewer', Monitors: 'View' },
      { Username: 'editor', Monitors: 'Edit' },
      { Username: 'everyone', Monitors: 'View' },
      { Username: 'ghost', Monitors: 'View' },
    ]);

    // Zones: pixels -> percent of the monitor size (2 decimals, halves up), Area rescaled.
    t.deepEqual(
      await conn.query(
        'SELECT Id, Units, Coords, Area, CAST(MinAlarmPixels AS CHAR) AS MinAlarmPixels FROM Zones ORDER BY Id',
      ),
      [
        {
          Id: 1,
          Units: 'Percent',
          Coords: '0.00,0.00 99.95,0.00 99.95,99.91 0.00,99.91',
          Area: 10000,
          MinAlarmPixels: '41472.00',
        },
        { Id: 2, Units: 'Percent', Coords: '5.21,18.52 26.04,18.52 15.63,64.81', Area: 482, MinAlarmPixels: '2000.00' },
        {
          Id: 3,
          Units: 'Percent',
          Coords: '0.00,50.00 99.92,50.00 99.92,99.86 0.00,99.86',
          Area: 5000,
          MinAlarmPixels: '9216.00',
        },
        { Id: 4, Units: 'Pixels', Coords: '0,0 10,0 10,10', Area: 50, MinAlarmPixels: '1.00' },
      ],
    );

    // Filters run at the interval the old global option had.
    const filters = (await conn.query('SELECT DISTINCT ExecuteInterval FROM Filters')) as { ExecuteInterval: number }[];
    t.deepEqual(filters, [{ ExecuteInterval: 20 }]);

    // Config: every old value kept (ZM_DYN_DB_VERSION raised), the 1.39.22 options added with
    // their defaults, metadata as 1.39.22's; the code version is ZoneMinder's business.
    const config = (await conn.query('SELECT * FROM Config ORDER BY Name')) as Record<string, unknown>[];
    const value = (name: string) => config.find((row) => row.Name === name)?.Value;
    for (const { Name, Value } of configBefore) {
      t.is(value(Name), Name === 'ZM_DYN_DB_VERSION' ? '1.39.22' : Value, Name);
    }
    t.is(value('ZM_DYN_CURR_VERSION'), '1.36.33');
    t.is(value('ZM_WEB_TITLE'), 'Home NVR');
    for (const option of seedConfig) {
      const row = config.find((r) => r.Name === option.Name);
      t.truthy(row, option.Name!);
      if (!configBefore.some((r) => r.Name === option.Name))
        t.is(row?.Value, option.Value, `${option.Name} gets its default`);
      t.is(row?.Category, option.Category, `${option.Name} category`);
      t.is(row?.Type, option.Type, `${option.Name} type`);
    }
    t.is(config.length, 259 + 6, "1.36's six retired options are kept");

    // Seed rows for the tables the bridge created.
    t.deepEqual(
      await conn.query(
        'SELECT (SELECT COUNT(*) FROM AI_Object_Classes) AS classes, (SELECT COUNT(*) FROM Menu_Items) AS menu, (SELECT COUNT(*) FROM EncoderTemplates) AS templates',
      ),
      [{ classes: 80, menu: 15, templates: 14 }],
    );

    // Ledger and log: baseline stamped, the migrations this database needed applied.
    t.deepEqual(
      (
        (await conn.query('SELECT id, stamped FROM zmgate_migrations ORDER BY id')) as { id: string; stamped: number }[]
      ).map((row) => `${row.id} ${row.stamped}`),
      [
        '0001_baseline_1_39_22 1',
        '0002_function_to_modes 0',
        '0003_monitor_ids_to_permissions 0',
        '0004_filter_execute_interval 0',
        '0005_zones_pixels_to_percent 0',
        '0006_user_preferences_names 1',
        '0007_config_options 0',
        '0008_seed_new_tables 0',
        '0009_users_monitors_create 0',
      ],
    );
    t.deepEqual(
      await conn.query(
        "SELECT destructive, status FROM zmgate_schema_log WHERE step_id = 'data-migration:0003_monitor_ids_to_permissions'",
      ),
      [{ destructive: 1, status: 'ok' }],
    );

    // Bridge again: no step, no row changed anywhere (zmgate's own tables included).
    const before = { schema: await schemaFingerprint(conn, fresh.name), data: await dataFingerprint(conn, fresh.name) };
    const again = await zmgateDb(['bridge', '--allow-older-zoneminder', '-u', fresh.userUrl]);
    t.is(again.code, 0, again.stderr);
    t.regex(again.stdout, /^plan: 0 step\(s\)$/m);
    t.regex(again.stdout, /^nothing to do: b_bridge_\w+ is at ZoneMinder 1\.39\.22 and every migration is recorded$/m);
    t.is(await schemaFingerprint(conn, fresh.name), before.schema);
    t.deepEqual(await dataFingerprint(conn, fresh.name), before.data);
  } finally {
    await conn.end();
  }
});

test('bridge --dry-run prints the plan and its SQL and changes nothing', async (t) => {
  const { fresh, conn } = await sample136('b_dry');
  try {
    const before = { schema: await schemaFingerprint(conn, fresh.name), data: await dataFingerprint(conn, fresh.name) };
    const r = await zmgateDb(['bridge', '--allow-older-zoneminder', '--dry-run', '-u', fresh.userUrl]);
    t.is(r.code, 0, r.stderr);
    t.regex(r.stdout, /^-- zmgate-db bridge --dry-run on b_dry_\w+: ZoneMinder 1\.36\.33 -> ZoneMinder 1\.39\.22$/m);
    t.regex(r.stdout, /^RENAME TABLE `Snapshot_Events` TO `Snapshots_Events`;$/m);
    t.regex(r.stdout, /^ALTER TABLE `Monitors`/m);
    t.regex(r.stdout, /^UPDATE `Monitors` SET Capturing = 'None' WHERE `Function` = 'None';$/m);
    t.regex(r.stdout, /^-- code: Users\.MonitorIds -> Monitors_Permissions/m);
    t.regex(r.stdout, /^-- INSERT IGNORE INTO Config \(\.\.\.\) VALUES \.\.\. -- 38 option\(s\): /m);
    t.regex(r.stdout, /^DROP TRIGGER IF EXISTS `event_insert_trigger`;$/m);
    t.regex(r.stderr, /dry run: nothing was changed/);
    t.is(await schemaFingerprint(conn, fresh.name), before.schema);
    t.deepEqual(await dataFingerprint(conn, fresh.name), before.data);
  } finally {
    await conn.end();
  }
});

test('bridge refuses (exit 3, nothing changed) what it must not touch, and a destructive plan without --yes', async (t) => {
  const cases: [string, (fresh: FreshDatabase) => Promise<void>, RegExp][] = [
    [
      'b_empty',
      async () => {},
      /database b_empty_\w+ is empty: nothing to bridge \(use 'zmgate-db up' for a new install\)/,
    ],
    [
      'b_other',
      async (f) => f.db.exec('CREATE TABLE notes (id int PRIMARY KEY)', f.name),
      /does not hold ZoneMinder \(no Config\/Monitors tables\); it has 1 object\(s\): table notes/,
    ],
  ];
  for (const [prefix, setup, message] of cases) {
    const fresh = await freshDatabase(prefix);
    await setup(fresh);
    const before = await fresh.db.query('SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?', [
      fresh.name,
    ]);
    const r = await zmgateDb(['bridge', '--allow-older-zoneminder', '--yes', '-u', fresh.userUrl]);
    t.is(r.code, 3, prefix);
    t.regex(r.stderr, message, prefix);
    t.deepEqual(
      await fresh.db.query('SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?', [fresh.name]),
      before,
      prefix,
    );
  }

  const { fresh, conn } = await sample136('b_versions');
  try {
    const before = { schema: await schemaFingerprint(conn, fresh.name), data: await dataFingerprint(conn, fresh.name) };
    // No TTY, no --yes: the plan is shown, then refused.
    const unconfirmed = await zmgateDb(['bridge', '--allow-older-zoneminder', '-u', fresh.userUrl]);
    t.is(unconfirmed.code, 3);
    t.regex(unconfirmed.stdout, /^plan: \d+ step\(s\), 4 marked ! rewrite or remove data$/m);
    t.regex(
      unconfirmed.stderr,
      /the plan has 4 destructive step\(s\); re-run with --yes to apply it \(after a backup\)/,
    );
    t.is(await schemaFingerprint(conn, fresh.name), before.schema);
    t.deepEqual(await dataFingerprint(conn, fresh.name), before.data);

    for (const [version, message] of [
      ['1.34.0', /holds ZoneMinder 1\.34\.0; zmgate bridges 1\.36\.0 or later/],
      ['1.40.1', /holds ZoneMinder 1\.40\.1, newer than the 1\.39\.22 schema this zmgate knows/],
      ['', /Config\.ZM_DYN_DB_VERSION is '': cannot tell which version it is/],
    ] as const) {
      await fresh.db.exec(`UPDATE Config SET Value = '${version}' WHERE Name = 'ZM_DYN_DB_VERSION'`, fresh.name);
      const r = await zmgateDb(['bridge', '--allow-older-zoneminder', '--yes', '-u', fresh.userUrl]);
      t.is(r.code, 3, version);
      t.regex(r.stderr, message, version);
      t.is(await schemaFingerprint(conn, fresh.name), before.schema, version);
    }
  } finally {
    await conn.end();
  }
});

test('bridge refuses a database that ZoneMinder 1.36 or 1.38 still uses, naming what converting would break', async (t) => {
  const { fresh, conn } = await sample136('b_older');
  try {
    const before = { schema: await schemaFingerprint(conn, fresh.name), data: await dataFingerprint(conn, fresh.name) };
    const setVersions = (code: string, db: string) =>
      fresh.db.exec(
        `UPDATE Config SET Value = '${code}' WHERE Name = 'ZM_DYN_CURR_VERSION';
         UPDATE Config SET Value = '${db}' WHERE Name = 'ZM_DYN_DB_VERSION';`,
        fresh.name,
      );
    for (const args of [['--yes'], ['--dry-run']]) {
      const r = await zmgateDb(['bridge', ...args, '-u', fresh.userUrl]);
      t.is(r.code, 3, args[0]);
      t.regex(
        r.stderr,
        /refused: database b_older_\w+ belongs to ZoneMinder 1\.36\.33 \(Config\.ZM_DYN_CURR_VERSION\), whose daemons and web UI read it/,
      );
      t.regex(r.stderr, /zones in percent, which ZoneMinder 1\.36\.33's zma reads as pixels/);
      t.regex(r.stderr, /no Users\.MonitorIds, which ZoneMinder 1\.36\.33's console and API use/);
      t.regex(r.stderr, /ZM_DYN_DB_VERSION raised, so ZoneMinder's own zmupdate\.pl would skip its update scripts/);
      t.regex(r.stderr, /Nothing was changed\./);
      t.is(await schemaFingerprint(conn, fresh.name), before.schema, args[0]);
      t.deepEqual(await dataFingerprint(conn, fresh.name), before.data, args[0]);
    }

    // 1.38 before 1.38.4 still reads zones in pixels; 1.38.4 reads percent, but the rest stands.
    await setVersions('1.38.2', '1.38.2');
    const early = await zmgateDb(['bridge', '--yes', '-u', fresh.userUrl]);
    t.is(early.code, 3);
    t.regex(early.stderr, /belongs to ZoneMinder 1\.38\.2 .*zones in percent, which ZoneMinder 1\.38\.2's zma reads/);
    await setVersions('1.38.4', '1.38.4');
    const late = await zmgateDb(['bridge', '--yes', '-u', fresh.userUrl]);
    t.is(late.code, 3);
    t.regex(late.stderr, /belongs to ZoneMinder 1\.38\.4 /);
    t.notRegex(late.stderr, /zones in percent/);

    // Once ZoneMinder 1.39's code is installed (ZM_DYN_CURR_VERSION), the conversion is the bridge's to do.
    await setVersions('1.39.22', '1.36.33');
    const upgraded = await zmgateDb(['bridge', '--dry-run', '-u', fresh.userUrl]);
    t.is(upgraded.code, 0, upgraded.stderr);
    t.regex(
      upgraded.stdout,
      /^-- zmgate-db bridge --dry-run on b_older_\w+: ZoneMinder 1\.36\.33 -> ZoneMinder 1\.39\.22$/m,
    );
  } finally {
    await conn.end();
  }
});
