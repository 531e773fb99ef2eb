// `bridge` from ZoneMinder 1.36.33: a database built from the 1.36.33 dump (tables, indexes and
// its 13 trigger names), holding rows, converges to exactly 1.39.22 without dropping a table or
// a column, keeping every row: Snapshot_Events is renamed, Events.Cause widened, Users.MonitorIds
// reported and kept.
import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConnection, type Connection } from 'mariadb';
import { applySteps, convergeSchema, diffSchemas, introspectSchema, planSchema } from '../../src/db/converge/index.js';
import {
  fromZoneMinderJson,
  targetSchema,
  type ForeignKeyDef,
  type SchemaDef,
  type TriggerDef,
} from '../../src/db/schema/index.js';
import { freshDatabase } from '../helpers/mariadb.js';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const readDump = (version: string) =>
  fromZoneMinderJson(
    JSON.parse(readFileSync(path.join(repo, 'data', 'zoneminder', 'schema', `zoneminder-${version}.json`), 'utf8')),
  );
const zm136 = readDump('1.36.33');
const zm139 = readDump('1.39.22');

// Bodies for 1.36's trigger names (ours, for the fixture): the 1.39 bodies where the name carries
// over, 1.36-style Events triggers that also keep Storage.DiskSpace, and the insert trigger.
const target139 = new Map(targetSchema().triggers.map((t) => [t.name, t]));
const OLD_BODIES: Record<string, string> = {
  event_insert_trigger: `BEGIN
  INSERT INTO Events_Hour (EventId, MonitorId, StartDateTime, DiskSpace) VALUES (NEW.Id, NEW.MonitorId, NEW.StartDateTime, 0);
  INSERT INTO Events_Day (EventId, MonitorId, StartDateTime, DiskSpace) VALUES (NEW.Id, NEW.MonitorId, NEW.StartDateTime, 0);
  INSERT INTO Events_Week (EventId, MonitorId, StartDateTime, DiskSpace) VALUES (NEW.Id, NEW.MonitorId, NEW.StartDateTime, 0);
  INSERT INTO Events_Month (EventId, MonitorId, StartDateTime, DiskSpace) VALUES (NEW.Id, NEW.MonitorId, NEW.StartDateTime, 0);
  INSERT INTO Event_Summaries (MonitorId, HourEvents, DayEvents, WeekEvents, MonthEvents, TotalEvents)
    VALUES (NEW.MonitorId, 1, 1, 1, 1, 1)
    ON DUPLICATE KEY UPDATE HourEvents = COALESCE(HourEvents, 0) + 1, DayEvents = COALESCE(DayEvents, 0) + 1,
      WeekEvents = COALESCE(WeekEvents, 0) + 1, MonthEvents = COALESCE(MonthEvents, 0) + 1, TotalEvents = COALESCE(TotalEvents, 0) + 1;
END`,
  event_update_trigger: `BEGIN
  IF NOT (NEW.DiskSpace <=> OLD.DiskSpace) THEN
    UPDATE Storage SET DiskSpace = COALESCE(DiskSpace, 0) + CAST(COALESCE(NEW.DiskSpace, 0) AS SIGNED) - CAST(COALESCE(OLD.DiskSpace, 0) AS SIGNED)
      WHERE Id = NEW.StorageId;
    UPDATE Events_Hour SET DiskSpace = NEW.DiskSpace WHERE EventId = NEW.Id;
  END IF;
END`,
  event_delete_trigger: `BEGIN
  UPDATE Storage SET DiskSpace = GREATEST(COALESCE(DiskSpace, 0) - CAST(COALESCE(OLD.DiskSpace, 0) AS SIGNED), 0) WHERE Id = OLD.StorageId;
  DELETE FROM Events_Hour WHERE EventId = OLD.Id;
END`,
};

// The dump holds no foreign keys; a real 1.36 install has some. These make the rename carry
// constraints (MariaDB keeps their Snapshot_Events_ibfk_* names) and give Zones the one 1.39 has.
const FKS_136: Record<string, ForeignKeyDef[]> = {
  Snapshot_Events: [
    {
      name: 'Snapshot_Events_ibfk_1',
      columns: ['SnapshotId'],
      refTable: 'Snapshots',
      refColumns: ['Id'],
      onDelete: 'CASCADE',
      onUpdate: 'RESTRICT',
    },
    {
      name: 'Snapshot_Events_ibfk_2',
      columns: ['EventId'],
      refTable: 'Events',
      refColumns: ['Id'],
      onDelete: 'CASCADE',
      onUpdate: 'RESTRICT',
    },
  ],
  Zones: [
    {
      name: 'Zones_ibfk_1',
      columns: ['MonitorId'],
      refTable: 'Monitors',
      refColumns: ['Id'],
      onDelete: 'CASCADE',
      onUpdate: 'RESTRICT',
    },
  ],
};

function schema136(): SchemaDef {
  return {
    tables: zm136.tables.map((table) => ({ ...table, foreignKeys: FKS_136[table.name] ?? [] })),
    triggers: zm136.triggers.map((trigger): TriggerDef => ({
      ...trigger,
      body: OLD_BODIES[trigger.name] ?? target139.get(trigger.name)?.body,
    })),
  };
}

/** A database shaped like ZoneMinder 1.36.33, holding a few rows. */
async function database136(prefix: string): Promise<{ conn: Connection; database: string }> {
  const fresh = await freshDatabase(prefix);
  const conn = await createConnection({ ...fresh.userConfig, bigIntAsNumber: true, decimalAsNumber: false });
  // Built with our own renderer: plan from an empty schema to the 1.36 shape, then apply.
  const build = await applySteps(conn, planSchema({ tables: [], triggers: [] }, schema136()).steps, { log: false });
  if (!build.ok) throw build.failed!.error;

  await conn.query("INSERT INTO Storage (Id, Path, Name) VALUES (1, '/var/cache/zoneminder/events', 'Default')");
  await conn.query(
    "INSERT INTO Monitors (Id, Name, `Function`, DefaultScale, ONVIF_Options) VALUES (1, 'Front', 'Modect', 100, 'opt')",
  );
  await conn.query(
    "INSERT INTO Users (Id, Username, Password, Monitors, MonitorIds) VALUES (1, 'admin', '$2b$12$abc', 'Edit', NULL), (2, 'viewer', 'x', 'View', '1')",
  );
  await conn.query(
    "INSERT INTO Events (Id, MonitorId, StorageId, Name, Cause, StartDateTime, StateId) VALUES (5, 1, 1, 'Event-5', 'Motion', NOW(), 1)",
  );
  await conn.query('UPDATE Events SET DiskSpace = 4096 WHERE Id = 5');
  await conn.query("INSERT INTO Snapshots (Id, Name) VALUES (3, 'Porch')");
  await conn.query('INSERT INTO Snapshot_Events (Id, SnapshotId, EventId) VALUES (7, 3, 5), (8, 3, 5)');
  await conn.query(
    "INSERT INTO Zones (Id, MonitorId, Name, Units, Coords, MinAlarmPixels, MaxAlarmPixels) VALUES (2, 1, 'All', 'Pixels', '0,0 639,0 639,479 0,479', 1234, NULL)",
  );
  return { conn, database: fresh.name };
}

test('the fixture is the 1.36.33 shape', async (t) => {
  const { conn, database } = await database136('p_fixture');
  try {
    const live = await introspectSchema(conn, database);
    t.deepEqual(diffSchemas(zm136, live), []);
    t.is(live.triggers.length, 13);
    t.is(live.tables.flatMap((table) => table.foreignKeys).length, 3);
    // Its triggers work: the insert trigger made bucket rows, the old update trigger kept Storage.
    t.deepEqual(await conn.query('SELECT DiskSpace FROM Storage WHERE Id = 1'), [{ DiskSpace: 4096 }]);
    t.deepEqual(await conn.query('SELECT TotalEvents FROM Event_Summaries WHERE MonitorId = 1'), [{ TotalEvents: 1 }]);
  } finally {
    await conn.end();
  }
});

test('the plan renames, widens, drops the insert trigger, and never drops a table or a column', async (t) => {
  const { conn, database } = await database136('p_plan');
  try {
    const { steps, extras } = await convergeSchema(conn, { database, dryRun: true });
    const ids = steps.map((step) => step.id);
    t.true(ids.includes('rename-table:Snapshot_Events'));
    t.false(ids.includes('create-table:Snapshots_Events'), 'the renamed table is not created empty');
    t.true(ids.includes('drop-trigger:event_insert_trigger'));
    t.true(ids.includes('replace-trigger:event_update_trigger'));
    t.true(ids.includes('replace-trigger:event_delete_trigger'));
    t.false(
      ids.some((id) => id.startsWith('replace-trigger:Events_Hour')),
      'unchanged triggers stay',
    );
    t.false(ids.includes('add-foreign-keys:Snapshots_Events'), 'the renamed table keeps its constraints');
    t.false(ids.includes('add-foreign-keys:Zones'), 'an existing equal constraint is kept');
    t.true(ids.includes('add-foreign-keys:Groups_Monitors'));
    for (const step of steps) {
      for (const sql of step.sql) t.notRegex(sql, /\bDROP\s+(TABLE|COLUMN|DATABASE)\b/i, step.id);
    }
    t.deepEqual(
      extras.map((extra) => `${extra.kind} ${extra.name}`),
      ['column Users.MonitorIds'],
    );

    // Events.Cause varchar(32) NOT NULL -> text NULL widens: not flagged.
    const events = steps.find((step) => step.id === 'alter-table:Events')!;
    t.true(events.changes!.some((change) => change.id === 'modify-column:Events.Cause'));
    t.false(events.destructive, events.risks.join('; '));
    // int(10) unsigned -> decimal(10,2) unsigned holds fewer integer digits: flagged, with why.
    const zones = steps.find((step) => step.id === 'alter-table:Zones')!;
    t.true(zones.destructive);
    t.true(
      zones.risks.some((risk) => /Zones\.MinAlarmPixels: int\(10\) unsigned -> decimal\(10,2\) unsigned/.test(risk)),
    );
    // Users.Username becomes latin1: characters outside latin1 could not be kept.
    const users = steps.find((step) => step.id === 'alter-table:Users')!;
    t.true(users.risks.some((risk) => /Users\.Username: character set utf8mb4 -> latin1/.test(risk)));
  } finally {
    await conn.end();
  }
});

test('converging 1.36.33 gives exactly 1.39.22 and keeps every row', async (t) => {
  const { conn, database } = await database136('p_converge');
  try {
    const result = await convergeSchema(conn, { database });
    t.deepEqual(
      result.extras.map((extra) => extra.name),
      ['Users.MonitorIds'],
    );

    const live = await introspectSchema(conn, database);
    t.deepEqual(diffSchemas(zm139, live, { allowExtraColumns: ['Users.MonitorIds'] }), []);
    t.deepEqual(
      diffSchemas(targetSchema(), live, {
        ignore: () => false,
        allowExtraColumns: ['Users.MonitorIds'],
        foreignKeys: true,
        engines: true,
        triggerBodies: true,
      }),
      [],
    );
    t.false(live.triggers.some((trigger) => trigger.name === 'event_insert_trigger'));
    t.false(live.tables.some((table) => table.name === 'Snapshot_Events'));

    // The rows.
    t.deepEqual(await conn.query('SELECT Id, SnapshotId, EventId FROM Snapshots_Events ORDER BY Id'), [
      { Id: 7, SnapshotId: 3, EventId: 5 },
      { Id: 8, SnapshotId: 3, EventId: 5 },
    ]);
    t.deepEqual(await conn.query('SELECT Cause, DiskSpace FROM Events WHERE Id = 5'), [
      { Cause: 'Motion', DiskSpace: 4096 },
    ]);
    t.deepEqual(await conn.query('SELECT Username, MonitorIds FROM Users ORDER BY Id'), [
      { Username: 'admin', MonitorIds: null },
      { Username: 'viewer', MonitorIds: '1' },
    ]);
    t.deepEqual(await conn.query('SELECT DefaultScale, ONVIF_Options, Capturing FROM Monitors WHERE Id = 1'), [
      { DefaultScale: '100', ONVIF_Options: 'opt', Capturing: 'Always' },
    ]);
    t.deepEqual(await conn.query('SELECT MinAlarmPixels, MaxAlarmPixels, Units FROM Zones WHERE Id = 2'), [
      { MinAlarmPixels: '1234.00', MaxAlarmPixels: null, Units: 'Pixels' },
    ]);

    // The converged triggers are the 1.39 ones: no Storage bookkeeping any more.
    await conn.query('UPDATE Events SET DiskSpace = 5000 WHERE Id = 5');
    t.deepEqual(await conn.query('SELECT DiskSpace FROM Storage WHERE Id = 1'), [{ DiskSpace: 4096 }]);
    t.deepEqual(await conn.query('SELECT DiskSpace FROM Events_Month WHERE EventId = 5'), [{ DiskSpace: 5000 }]);

    // Usernames now compare exactly (latin1_bin): 'Admin' is another user.
    await conn.query("INSERT INTO Users (Username) VALUES ('Admin')");
    t.is(((await conn.query("SELECT COUNT(*) AS n FROM Users WHERE Username = 'admin'")) as { n: number }[])[0].n, 1);

    const again = await convergeSchema(conn, { database });
    t.deepEqual(
      again.steps.map((step) => step.description),
      [],
    );
    t.deepEqual(
      again.extras.map((extra) => extra.name),
      ['Users.MonitorIds'],
    );
  } finally {
    await conn.end();
  }
});
