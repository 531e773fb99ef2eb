// The data migrations in detail: the arithmetic of the zone conversion, MonitorIds parsing,
// version and URL parsing; a 1.38-shaped database (User_Preferences duplicates, zones still in
// pixels); a bridge that fails half-way and resumes without redoing what it did; later migrations.
import test from 'ava';
import { createConnection, type Connection } from 'mariadb';
import { parseDatabaseUrl } from '../../src/db/migrations/database-url.js';
import { parseMonitorIds } from '../../src/db/migrations/monitor-permissions.js';
import { compareVersions } from '../../src/db/migrations/version.js';
import { areaToPercent, coordsToPercent, percentOf } from '../../src/db/migrations/zones-percent.js';
import { MigrationFailed, migrate } from '../../src/db/migrator.js';
import { freshDatabase, type FreshDatabase } from '../helpers/mariadb.js';
import { database136, zmgateDb } from '../helpers/zm136.js';

const connect = (fresh: FreshDatabase): Promise<Connection> =>
  createConnection({ ...fresh.userConfig, bigIntAsNumber: true, dateStrings: true });

test('zone arithmetic: percent with 2 decimals, halves rounded up, Area rescaled to a 100 x 100 frame', (t) => {
  t.is(percentOf(0, 640), '0.00');
  t.is(percentOf(639, 640), '99.84');
  t.is(percentOf(300, 1920), '15.63', '15.625 rounds up');
  t.is(percentOf(1, 8), '12.50');
  t.is(percentOf(640, 640), '100.00');
  t.is(percentOf(700, 640), '109.38', 'points outside the frame stay outside');
  t.is(coordsToPercent('0,0 639,0 639,479 0,479', 640, 480), '0.00,0.00 99.84,0.00 99.84,99.79 0.00,99.79');
  t.is(coordsToPercent('  10,10   20,10\t20,20 ', 100, 100), '10.00,10.00 20.00,10.00 20.00,20.00');
  t.is(coordsToPercent('10,10 20', 100, 100), null);
  t.is(coordsToPercent('', 100, 100), null);
  t.is(areaToPercent(307200, 640, 480), 10000);
  t.is(areaToPercent(100000, 1920, 1080), 482);
  t.is(areaToPercent(0, 640, 480), 0);
});

test('MonitorIds, versions and database URLs parse the way 1.36 and operators write them', (t) => {
  t.deepEqual(parseMonitorIds('1,3'), [1, 3]);
  t.deepEqual(parseMonitorIds(' 2, 4 ,99 '), [2, 4, 99]);
  t.deepEqual(parseMonitorIds('1,,x,0,-2,5'), [1, 5]);
  t.deepEqual(parseMonitorIds(null), []);

  t.true(compareVersions('1.36.33', '1.37.0') < 0);
  t.true(compareVersions('1.39.2', '1.39.19') < 0);
  t.is(compareVersions('1.39.22', '1.39.22'), 0);
  t.true(compareVersions('1.40', '1.39.22') > 0);

  t.deepEqual(parseDatabaseUrl('mysql://zmuser:zm%40pass@db.example:3307/zm'), {
    database: 'zm',
    connection: { host: 'db.example', port: 3307, user: 'zmuser', password: 'zm@pass', database: 'zm' },
    display: 'mysql://zmuser@db.example:3307/zm',
  });
  t.deepEqual(parseDatabaseUrl('mariadb://zmuser:zmpass@localhost/zm?socket=/run/mysqld/mysqld.sock').connection, {
    socketPath: '/run/mysqld/mysqld.sock',
    user: 'zmuser',
    password: 'zmpass',
    database: 'zm',
  });
  t.is((parseDatabaseUrl('mysql://u@[::1]/zm').connection as { host: string }).host, '::1');
  t.throws(() => parseDatabaseUrl('mysql://u@h/zm?ssl=1'), { message: /unknown URL parameter 'ssl'/ });
  t.throws(() => parseDatabaseUrl('mysql://h/zm'), { message: /names no user/ });
});

test('a 1.38-shaped database: User_Preferences NULL names and duplicates go as in 1.39.19, pixel zones are converted', async (t) => {
  const fresh = await freshDatabase('d_138');
  t.is((await zmgateDb(['up', '-u', fresh.userUrl])).code, 0);
  // Back to what 1.38 has: no ledger, nullable Name without the unique index, zones in pixels.
  await fresh.db.exec(
    `DROP TABLE zmgate_migrations;
     ALTER TABLE User_Preferences DROP INDEX User_Preferences_UserId_Name_idx, ADD INDEX User_Preferences_UserID_idx (UserId), MODIFY Name varchar(64) NULL;
     ALTER TABLE Zones ALTER Units SET DEFAULT 'Pixels';
     UPDATE Config SET Value = '1.38.1' WHERE Name IN ('ZM_DYN_DB_VERSION', 'ZM_DYN_CURR_VERSION');
     INSERT INTO User_Preferences (Id, UserId, Name, Value) VALUES
       (1, 1, 'theme', 'dark'), (2, 1, 'theme', 'light'), (3, 1, NULL, 'lost'), (4, 1, 'lang', 'de'), (5, 1, 'theme', 'blue');
     INSERT INTO Monitors (Id, Name, Width, Height) VALUES (1, 'Cam', 1280, 720);
     INSERT INTO Zones (Id, MonitorId, Name, Units, NumCoords, Coords, Area) VALUES
       (1, 1, 'pixels', 'Pixels', 3, '0,0 640,0 640,360', 115200),
       (2, 1, 'percent', 'Percent', 3, '0.00,0.00 50.00,0.00 50.00,50.00', 1250);`,
    fresh.name,
  );
  const r = await zmgateDb(['bridge', '--allow-older-zoneminder', '--yes', '-u', fresh.userUrl]);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /^0006_user_preferences_names: User_Preferences now holds 2 row\(s\), one per \(UserId, Name\)$/m);
  t.regex(r.stdout, /^0005_zones_pixels_to_percent: 1 zone\(s\) converted to percent, 1 already in percent$/m);
  t.notRegex(r.stdout, /0002_function_to_modes:/, '1.38 already has Capturing/Analysing/Recording');
  const conn = await connect(fresh);
  try {
    t.deepEqual(await conn.query('SELECT Id, Name, Value FROM User_Preferences ORDER BY Id'), [
      { Id: 4, Name: 'lang', Value: 'de' },
      { Id: 5, Name: 'theme', Value: 'blue' },
    ]);
    t.deepEqual(await conn.query('SELECT Id, Coords, Area, Units FROM Zones ORDER BY Id'), [
      { Id: 1, Coords: '0.00,0.00 50.00,0.00 50.00,50.00', Area: 1250, Units: 'Percent' },
      { Id: 2, Coords: '0.00,0.00 50.00,0.00 50.00,50.00', Area: 1250, Units: 'Percent' },
    ]);
    t.deepEqual(
      (
        (await conn.query('SELECT id, stamped FROM zmgate_migrations ORDER BY id')) as { id: string; stamped: number }[]
      ).map((row) => `${row.id} ${row.stamped}`),
      [
        '0001_baseline_1_39_22 1',
        '0002_function_to_modes 1',
        '0003_monitor_ids_to_permissions 1',
        '0004_filter_execute_interval 1',
        '0005_zones_pixels_to_percent 0',
        '0006_user_preferences_names 0',
        '0007_config_options 1',
        '0008_seed_new_tables 1',
        '0009_users_monitors_create 1',
      ],
    );
  } finally {
    await conn.end();
  }
});

test('a bridge that fails half-way keeps what it did, and the next run continues without redoing it', async (t) => {
  const fresh = await database136('d_resume');
  // A zone value decimal(10,2) cannot hold: alter-table:Zones fails, after 0002-0004 have run.
  await fresh.db.exec(
    `INSERT INTO Monitors (Id, Name, \`Function\`, Width, Height) VALUES (1, 'Cam', 'Nodect', 640, 480), (2, 'Other', 'Mocord', 640, 480);
     INSERT INTO Users (Id, Username, Monitors, MonitorIds) VALUES (2, 'viewer', 'View', '2');
     INSERT INTO Zones (Id, MonitorId, Name, Coords, Area, MinAlarmPixels) VALUES (1, 1, 'All', '0,0 639,0 639,479 0,479', 307200, 4000000000);`,
    fresh.name,
  );
  const failed = await zmgateDb(['bridge', '--allow-older-zoneminder', '--yes', '-u', fresh.userUrl]);
  t.is(failed.code, 1);
  t.regex(failed.stderr, /failed: step \d+\/\d+ \(alter-table:Zones\) failed: .*[Oo]ut of range/);
  t.regex(failed.stderr, /fix the cause and run 'zmgate-db bridge' again: it continues from where it stopped/);

  const conn = await connect(fresh);
  try {
    const ledger = async () =>
      ((await conn.query('SELECT id FROM zmgate_migrations ORDER BY id')) as { id: string }[]).map((row) => row.id);
    t.deepEqual(await ledger(), [
      '0002_function_to_modes',
      '0003_monitor_ids_to_permissions',
      '0004_filter_execute_interval',
      '0009_users_monitors_create',
    ]);
    t.deepEqual(
      await conn.query("SELECT Value FROM Config WHERE Name = 'ZM_DYN_DB_VERSION'"),
      [{ Value: '1.36.33' }],
      'raised only by a complete bridge',
    );
    // An operator changes a mode in between; the resumed run must not map Function again.
    await conn.query("UPDATE Monitors SET Recording = 'None' WHERE Id = 2");

    await conn.query('UPDATE Zones SET MinAlarmPixels = 1234 WHERE Id = 1');
    const resumed = await zmgateDb(['bridge', '--allow-older-zoneminder', '--yes', '-u', fresh.userUrl]);
    t.is(resumed.code, 0, resumed.stderr);
    // It picks up at the failed step: what ran before is neither planned nor redone ...
    const planned = [...resumed.stdout.matchAll(/^ {2}\[ *\d+\/\d+\] (?:! )?(\S+):/gm)].map((m) => m[1]);
    t.is(planned[0], 'alter-table:Zones');
    t.false(planned.some((id) => id.startsWith('create-table:') || id.startsWith('alter-table:Monitors')));
    t.deepEqual(
      planned.filter((id) => id.startsWith('data-migration:')),
      [
        'data-migration:0005_zones_pixels_to_percent',
        'data-migration:0007_config_options',
        'data-migration:0008_seed_new_tables',
        'data-migration:0001_baseline_1_39_22',
      ],
    );
    // ... and what the failed run created but did not reach (the seed rows of its new tables) is done now.
    t.deepEqual(await conn.query('SELECT COUNT(*) AS n FROM AI_Object_Classes'), [{ n: 80 }]);
    t.deepEqual(await conn.query('SELECT Id, Analysing, Recording FROM Monitors ORDER BY Id'), [
      { Id: 1, Analysing: 'None', Recording: 'OnMotion' },
      { Id: 2, Analysing: 'Always', Recording: 'None' },
    ]);
    t.deepEqual(await conn.query('SELECT Coords, Area, Units FROM Zones'), [
      { Coords: '0.00,0.00 99.84,0.00 99.84,99.79 0.00,99.79', Area: 10000, Units: 'Percent' },
    ]);
    t.deepEqual(await conn.query('SELECT MonitorId, Permission FROM Monitors_Permissions ORDER BY MonitorId'), [
      { MonitorId: 1, Permission: 'None' },
      { MonitorId: 2, Permission: 'View' },
    ]);
    t.is((await ledger()).length, 9);
    t.deepEqual(await conn.query("SELECT Value FROM Config WHERE Name = 'ZM_DYN_DB_VERSION'"), [{ Value: '1.39.22' }]);
  } finally {
    await conn.end();
  }
});

test('later migrations run once after the baseline, are recorded, and a failing one is named', async (t) => {
  const fresh = await freshDatabase('d_later');
  t.is((await zmgateDb(['up', '-u', fresh.userUrl])).code, 0);
  const conn = await connect(fresh);
  try {
    const later = [
      {
        id: '0100_test_title',
        name: 'set a title',
        sql: ["UPDATE Config SET Value = 'Later' WHERE Name = 'ZM_WEB_TITLE'"],
      },
    ];
    const first = await migrate(conn, 'bridge', { database: fresh.name, laterMigrations: later });
    t.deepEqual(
      first.applied.map((a) => a.step.id),
      ['data-migration:0100_test_title'],
    );
    t.deepEqual(await conn.query("SELECT Value FROM Config WHERE Name = 'ZM_WEB_TITLE'"), [{ Value: 'Later' }]);
    t.deepEqual(await conn.query("SELECT stamped FROM zmgate_migrations WHERE id = '0100_test_title'"), [
      { stamped: 0 },
    ]);
    t.deepEqual((await migrate(conn, 'bridge', { database: fresh.name, laterMigrations: later })).steps, []);

    const broken = [{ id: '0101_broken', name: 'fails', sql: ['UPDATE NoSuchTable SET x = 1'] }];
    const error = await t.throwsAsync(
      migrate(conn, 'bridge', { database: fresh.name, laterMigrations: [...later, ...broken] }),
      { instanceOf: MigrationFailed },
    );
    t.is(error?.step?.id, 'data-migration:0101_broken');
    t.regex(error?.message ?? '', /step 1\/1 \(data-migration:0101_broken\) failed: .*NoSuchTable/);
    t.deepEqual(await conn.query("SELECT COUNT(*) AS n FROM zmgate_migrations WHERE id = '0101_broken'"), [{ n: 0 }]);
  } finally {
    await conn.end();
  }
});
