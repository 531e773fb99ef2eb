// 1.39's tables beside a ZoneMinder 1.36.33 database (src/db/side-tables.ts): the service started
// as shipped (migrate_on_start) keeps tags, preferences, notifications, reports, event data, menu
// items and AI in zmgate_side_* tables, leaves every table of ZoneMinder's as it was, and serves
// those routes; once ZoneMinder's own upgrade has made the real tables, their rows move there.
import test from 'ava';
import bcrypt from 'bcryptjs';
import { createConnection } from 'mariadb';
import { createTable } from '../../src/db/converge/ddl.js';
import { targetSchema } from '../../src/db/schema/index.js';
import { moveSideTables, TableNames } from '../../src/db/side-tables.js';
import { createLogger } from '../../src/log.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { caller, login, type Call } from '../helpers/rest.js';
import { database136, zmgateDb, zoneminderSchema } from '../helpers/zm136.js';

let db: FreshDatabase;
let app: TestApp;
let call: Call;
let before: Record<string, string>;

const sql = <T = any>(statement: string, params: unknown[] = []) => db.db.query<T>(statement, params, db.name);

test.before(async () => {
  db = await database136('side136');
  await sql(
    "INSERT INTO Users (Username, Password, Enabled, APIEnabled, Stream, Events, Monitors, System) VALUES ('adm', ?, 1, 1, 'View', 'Edit', 'Edit', 'Edit')",
    [bcrypt.hashSync('adm', 4)],
  );
  await sql(
    "INSERT INTO Monitors (Id, Name, Function, Enabled, Width, Height) VALUES (1, 'Drive', 'Modect', 1, 640, 360), (2, 'Gate', 'Record', 1, 640, 360)",
  );
  // Limited to monitor 1 by 1.36's Users.MonitorIds.
  await sql(
    "INSERT INTO Users (Username, Password, Enabled, APIEnabled, Stream, Events, Monitors, MonitorIds) VALUES ('limited', ?, 1, 1, 'View', 'View', 'View', '1')",
    [bcrypt.hashSync('limited', 4)],
  );
  await sql(
    `INSERT INTO Events (Id, MonitorId, StorageId, Name, Cause, StartDateTime, EndDateTime, Width, Height, Length, Frames, StateId, Scheme)
     VALUES (1, 1, 0, 'Event-1', 'Motion', '2026-11-01 10:00:00', '2026-11-01 10:00:10', 640, 360, 10.00, 250, 1, 'Medium')`,
  );
  before = await zoneminderSchema(db);
  // As shipped: the start-up migrations run (and refuse to convert a 1.36 database).
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_DB__MIGRATE_ON_START: 'true' } });
  call = caller(app, await login(app, 'adm'));
});
test.after.always(async () => app?.close());

test.serial(
  'start-up adds only zmgate_side_* tables: every table and trigger of ZoneMinder 1.36 is as it was',
  async (t) => {
    t.deepEqual(await zoneminderSchema(db), before);
    const [version] = await sql<{ Value: string }>("SELECT Value FROM Config WHERE Name = 'ZM_DYN_DB_VERSION'");
    t.is(version.Value, '1.36.33');
    const side = (
      await sql<{ name: string }>(
        "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'zmgate\\_side\\_%'",
      )
    ).map((r) => r.name);
    for (const name of [
      'Tags',
      'Events_Tags',
      'User_Preferences',
      'Notifications',
      'Reports',
      'Event_Data',
      'Menu_Items',
    ])
      t.true(side.includes(`zmgate_side_${name}`), name);
    // Per-monitor permissions are (the v3 face of MonitorIds); group and role ones are not.
    t.true(side.includes('zmgate_side_Monitors_Permissions'));
    t.false(side.some((n) => /Groups_Permissions|Role/.test(n)));
    // Seeded as 1.39 seeds them.
    const [menu] = await sql<{ n: number }>('SELECT COUNT(*) AS n FROM zmgate_side_Menu_Items');
    t.true(Number(menu.n) > 0);
    // zmgate-db status says so in one line.
    const status = await zmgateDb(['status', '-u', db.url]);
    t.regex(
      status.stdout,
      new RegExp(
        `^upgrade: {5}clear: ZM_DYN_DB_VERSION is ZoneMinder's own \\(1\\.36\\.33\\); zmgate added only its own tables \\(${side.length} zmgate_side_\\* for 1\\.39 data\\), which ZoneMinder ignores; ZoneMinder's zmupdate\\.pl upgrades this database as usual$`,
        'm',
      ),
    );
  },
);

test.serial('the routes of those tables answer on 1.36; roles still answer 503', async (t) => {
  for (const path of [
    '/tags',
    '/events-tags',
    '/user_preferences',
    '/notifications',
    '/reports',
    '/event-data',
    '/menu-items',
    '/object-types',
  ])
    t.is((await call('GET', path)).status, 200, path);
  t.true(((await call('GET', '/menu-items')).body.items as unknown[]).length > 0, 'the seeded menu items');
  const roles = await call('GET', '/roles');
  t.is(roles.status, 503);
  t.is(roles.body.kind, 'SERVICE_UNAVAILABLE_ERROR');
});

test.serial('a tag made and assigned through v3 is stored beside 1.36 and shown with its event', async (t) => {
  const tag = await call('POST', '/tags', { name: 'Delivery' });
  t.is(tag.status, 201);
  t.is((await call('POST', '/events-tags', { tag_id: tag.body.id, event_id: 1 })).status, 201);
  const [row] = await sql<{ Name: string }>('SELECT Name FROM zmgate_side_Tags WHERE Id = ?', [tag.body.id]);
  t.is(row.Name, 'Delivery');
  t.deepEqual(
    ((await call('GET', '/events/1')).body.tags as Array<{ name: string }>).map((x) => x.name),
    ['Delivery'],
  );
  const list = (await call('GET', '/events')).body.items as Array<{ id: number; tags: Array<{ name: string }> }>;
  t.deepEqual(
    list.find((e) => e.id === 1)?.tags.map((x) => x.name),
    ['Delivery'],
  );
});

test.serial(
  'per-monitor permissions on 1.36: read from MonitorIds, and a v3 write is written back to it',
  async (t) => {
    const [limited] = await sql<{ Id: number }>("SELECT Id FROM Users WHERE Username = 'limited'");
    const userId = Number(limited.Id);
    const monitorIds = async () =>
      (await sql<{ MonitorIds: string }>('SELECT MonitorIds FROM Users WHERE Id = ?', [userId]))[0].MonitorIds;
    const seen = async () => {
      const as = caller(app, await login(app, 'limited'));
      return ((await as('GET', '/monitors')).body.items as Array<{ id: number }>).map((m) => m.id).sort();
    };
    const rows = ((await call('GET', '/monitors-permissions')).body.items as any[]).filter((r) => r.user_id === userId);
    t.deepEqual(rows.map((r) => [r.monitor_id, r.permission]).sort(), [
      [1, 'View'],
      [2, 'None'],
    ]);
    t.deepEqual(await seen(), [1]);
    const rowOf = (monitor: number) => rows.find((r) => r.monitor_id === monitor).id;

    // Monitor 2 shown: every monitor is visible, which 1.36 writes as an empty list.
    t.is((await call('PATCH', `/monitors-permissions/${rowOf(2)}`, { permission: 'View' })).status, 200);
    t.is(await monitorIds(), '');
    t.deepEqual(await seen(), [1, 2]);
    // Monitor 1 hidden.
    t.is((await call('PATCH', `/monitors-permissions/${rowOf(1)}`, { permission: 'None' })).status, 200);
    t.is(await monitorIds(), '2');
    t.deepEqual(await seen(), [2]);
    // What MonitorIds cannot say is refused, and nothing changes: Edit for a View user, every monitor hidden.
    const edit = await call('PATCH', `/monitors-permissions/${rowOf(2)}`, { permission: 'Edit' });
    t.is(edit.status, 400);
    t.regex(edit.body.details[0][1], /use None, Inherit or View/);
    const none = await call('PATCH', `/monitors-permissions/${rowOf(2)}`, { permission: 'None' });
    t.is(none.status, 400);
    t.regex(none.body.details[0][1], /an empty list means all/);
    t.is(await monitorIds(), '2');
    t.is((await call('GET', `/monitors-permissions/${rowOf(2)}`)).body.permission, 'View');
    // Deleting the row of monitor 1 is Inherit: visible again.
    t.is((await call('DELETE', `/monitors-permissions/${rowOf(1)}`)).status, 204);
    t.is(await monitorIds(), '');
  },
);

test.serial(
  'after ZoneMinder made the real tables, the side rows move there; a taken key stays in the copy',
  async (t) => {
    await app.close();
    // ZoneMinder's upgrade creates Tags and Events_Tags (1.39's definitions) and, say, a tag of its own with Id 2.
    const schema = targetSchema();
    for (const name of ['Tags', 'Events_Tags']) {
      const def = schema.tables.find((x) => x.name === name)!;
      await sql(createTable(def, []));
    }
    await sql("INSERT INTO zmgate_side_Tags (Id, Name, CreateDate, CreatedBy) VALUES (2, 'Side only', NOW(), 1)");
    await sql("INSERT INTO Tags (Id, Name, CreateDate, CreatedBy) VALUES (2, 'ZoneMinder''s', NOW(), 1)");
    const conn = await createConnection({ ...db.userConfig, database: db.name });
    t.teardown(() => conn.end());
    const moved = await moveSideTables(conn, createLogger({ level: 'fatal' }));
    t.deepEqual(moved, { Tags: 1, Events_Tags: 1 });
    const tags = await sql<{ Id: number; Name: string }>('SELECT Id, Name FROM Tags ORDER BY Id');
    t.deepEqual(
      tags.map((r) => [Number(r.Id), r.Name]),
      [
        [1, 'Delivery'],
        [2, "ZoneMinder's"],
      ],
    );
    t.is(
      Number((await sql<{ n: number }>('SELECT COUNT(*) AS n FROM Events_Tags WHERE TagId = 1 AND EventId = 1'))[0].n),
      1,
    );
    // The side tables are kept, renamed, with every row (the skipped one included).
    const kept = await sql<{ Name: string }>('SELECT Name FROM zmgate_moved_Tags ORDER BY Id');
    t.deepEqual(
      kept.map((r) => r.Name),
      ['Delivery', 'Side only'],
    );
    t.is((await sql("SHOW TABLES LIKE 'zmgate\\_side\\_Tags'")).length, 0);
    // Run again: nothing left to move.
    t.deepEqual(await moveSideTables(conn, createLogger({ level: 'fatal' })), {});
  },
);

test('statements name the side tables, never text inside quotes', (t) => {
  const names = new TableNames([
    ['Tags', 'zmgate_side_Tags'],
    ['Events_Tags', 'zmgate_side_Events_Tags'],
  ]);
  t.is(
    names.rewrite("SELECT et.EventId, t.Name FROM Events_Tags et JOIN Tags t ON t.Id = et.TagId WHERE t.Name = 'Tags'"),
    "SELECT et.EventId, t.Name FROM zmgate_side_Events_Tags et JOIN zmgate_side_Tags t ON t.Id = et.TagId WHERE t.Name = 'Tags'",
  );
  t.is(
    names.rewrite('SELECT `zm`.`Tags`.`Id` FROM `zm`.`Tags` WHERE `zm`.`Tags`.`Name` = ?'),
    'SELECT `zm`.`zmgate_side_Tags`.`Id` FROM `zm`.`zmgate_side_Tags` WHERE `zm`.`zmgate_side_Tags`.`Name` = ?',
  );
  t.is(names.rewrite("SELECT \"Tags\", 'it''s Tags' FROM Monitors"), "SELECT \"Tags\", 'it''s Tags' FROM Monitors");
  t.is(names.rewrite('SELECT TagsX, MyTags FROM Monitors'), 'SELECT TagsX, MyTags FROM Monitors');
  const none = new TableNames();
  const statement = 'SELECT * FROM Tags';
  t.is(none.rewrite(statement), statement);
});
