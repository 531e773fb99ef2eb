// The converger's rules on a live database that drifted from the target: it stops at the first
// failing step and says which; it fills NULLs before NOT NULL; it restores column order; it keeps
// and reports what it does not know; it swaps trigger bodies; callers can splice in data
// migrations. Plus the pure parts (change classification, body normalisation, flavours).
import test from 'ava';
import { createConnection, type Connection } from 'mariadb';
import {
  assessColumnChange,
  ConvergeError,
  convergeSchema,
  dataMigrationStep,
  diffSchemas,
  insertStepsAfter,
  introspectSchema,
  normaliseTriggerBody,
  planSchema,
  type StepProgress,
} from '../../src/db/converge/index.js';
import { targetSchema, type ColumnDef } from '../../src/db/schema/index.js';
import { freshDatabase } from '../helpers/mariadb.js';

async function converged(prefix: string): Promise<{ conn: Connection; database: string }> {
  const fresh = await freshDatabase(prefix);
  const conn = await createConnection({ ...fresh.userConfig, bigIntAsNumber: true });
  await convergeSchema(conn, { database: fresh.name });
  return { conn, database: fresh.name };
}

const fullDiff = (live: Awaited<ReturnType<typeof introspectSchema>>, allowExtraColumns: string[] = []) =>
  diffSchemas(targetSchema(), live, {
    ignore: () => false,
    foreignKeys: true,
    engines: true,
    triggerBodies: true,
    allowExtraColumns,
  });

test('a failing step stops the run, names the step, leaves the data intact; the next run resumes', async (t) => {
  const { conn, database } = await converged('a_fail');
  try {
    // Drift: Events.Cause back to its 1.36 type, and a zone value too big for decimal(10,2).
    await conn.query("ALTER TABLE Events MODIFY Cause varchar(32) NOT NULL DEFAULT ''");
    await conn.query('ALTER TABLE Zones MODIFY MinAlarmPixels int(10) unsigned NULL DEFAULT NULL');
    await conn.query("INSERT INTO Monitors (Id, Name) VALUES (1, 'm')");
    await conn.query(
      "INSERT INTO Zones (Id, MonitorId, Name, Coords, MinAlarmPixels) VALUES (1, 1, 'z', '0,0', 4000000000)",
    );

    const progress: StepProgress[] = [];
    const error = await t.throwsAsync(convergeSchema(conn, { database, onProgress: (p) => progress.push(p) }), {
      instanceOf: ConvergeError,
      message: /\(alter-table:Zones\) failed: .*out of range/i,
    });
    t.is(error?.step?.id, 'alter-table:Zones');
    t.deepEqual(
      error?.applied.map((a) => a.step.id),
      ['alter-table:Events'],
    );
    t.deepEqual(
      progress.filter((p) => p.phase !== 'start').map((p) => `${p.phase} ${p.step.id}`),
      ['done alter-table:Events', 'failed alter-table:Zones'],
    );
    // Strict mode: the ALTER failed rather than clipping the value.
    t.deepEqual(await conn.query('SELECT MinAlarmPixels FROM Zones WHERE Id = 1'), [{ MinAlarmPixels: 4000000000 }]);
    const log = (await conn.query(
      "SELECT step_id, status, error FROM zmgate_schema_log WHERE step_id IN ('alter-table:Events', 'alter-table:Zones') ORDER BY id DESC LIMIT 2",
    )) as { step_id: string; status: string; error: string | null }[];
    t.deepEqual(
      log.map((row) => `${row.step_id} ${row.status}`),
      ['alter-table:Zones failed', 'alter-table:Events ok'],
    );
    t.regex(log[0].error ?? '', /out of range/i);

    // Fix the data; planning again from the live schema picks up where it stopped.
    await conn.query('UPDATE Zones SET MinAlarmPixels = 1234 WHERE Id = 1');
    const resumed = await convergeSchema(conn, { database });
    t.deepEqual(
      resumed.steps.map((s) => s.id),
      ['alter-table:Zones'],
    );
    t.deepEqual(fullDiff(await introspectSchema(conn, database)), []);
  } finally {
    await conn.end();
  }
});

test('refuseDestructive stops before anything runs', async (t) => {
  const { conn, database } = await converged('a_refuse');
  try {
    await conn.query("ALTER TABLE Events MODIFY Cause varchar(32) NOT NULL DEFAULT ''");
    await conn.query('ALTER TABLE Zones MODIFY MaxBlobPixels int(10) unsigned NULL DEFAULT NULL');
    await t.throwsAsync(convergeSchema(conn, { database, refuseDestructive: true }), {
      instanceOf: ConvergeError,
      message: /refusing to run 1 destructive step\(s\): alter-table:Zones/,
    });
    const live = await introspectSchema(conn, database);
    t.is(live.tables.find((x) => x.name === 'Events')?.columns.find((c) => c.name === 'Cause')?.type, 'varchar(32)');
  } finally {
    await conn.query('SELECT 1');
    await conn.end();
  }
});

test('NULLs are set to the default before a column becomes NOT NULL', async (t) => {
  const { conn, database } = await converged('a_nulls');
  try {
    await conn.query('ALTER TABLE Monitors MODIFY Name varchar(64) NULL DEFAULT NULL');
    await conn.query("INSERT INTO Monitors (Id, Name) VALUES (1, NULL), (2, 'kept')");
    const result = await convergeSchema(conn, { database });
    const ids = result.steps.map((s) => s.id);
    t.deepEqual(ids, ['fill-nulls:Monitors.Name', 'alter-table:Monitors']);
    t.true(result.steps[0].destructive);
    t.regex(result.steps[0].sql[0], /^UPDATE `Monitors` SET `Name` = '' WHERE `Name` IS NULL$/);
    t.true(result.steps[1].destructive, 'NOT NULL on a nullable column is flagged');
    t.deepEqual(await conn.query('SELECT Id, Name FROM Monitors ORDER BY Id'), [
      { Id: 1, Name: '' },
      { Id: 2, Name: 'kept' },
    ]);
    t.deepEqual(fullDiff(await introspectSchema(conn, database)), []);
  } finally {
    await conn.end();
  }
});

test('a misplaced column is moved back (AFTER) with its data', async (t) => {
  const { conn, database } = await converged('a_order');
  try {
    await conn.query('ALTER TABLE Events MODIFY Notes text NULL DEFAULT NULL FIRST');
    await conn.query("INSERT INTO Events (Id, MonitorId, Name, StateId, Notes) VALUES (1, 1, 'e', 1, 'remember me')");
    const result = await convergeSchema(conn, { database });
    t.deepEqual(
      result.steps.map((s) => s.description),
      ['alter table Events: modify Notes (move after Executed)'],
    );
    t.regex(result.steps[0].sql[0], /MODIFY COLUMN `Notes` text NULL DEFAULT NULL AFTER `Executed`/);
    t.false(result.steps[0].destructive);
    t.deepEqual(await conn.query('SELECT Notes FROM Events WHERE Id = 1'), [{ Notes: 'remember me' }]);
    t.deepEqual(fullDiff(await introspectSchema(conn, database)), []);

    // Fully reversed, with a row: one column can stay, the other three move.
    await conn.query("INSERT INTO Events_Lock VALUES (7, 'filter', '2026-01-01 10:00:00', '2026-01-01 11:00:00')");
    for (const name of ['LockedBy', 'LockedAt', 'ExpiresAt']) {
      const [def] = targetSchema()
        .tables.find((x) => x.name === 'Events_Lock')!
        .columns.filter((c) => c.name === name);
      await conn.query(`ALTER TABLE Events_Lock MODIFY ${name} ${def.type} NOT NULL FIRST`);
    }
    const reversed = await convergeSchema(conn, { database });
    t.is(reversed.steps.length, 1);
    t.is(reversed.steps[0].changes?.length, 3);
    t.deepEqual(fullDiff(await introspectSchema(conn, database)), []);
    t.deepEqual(await conn.query('SELECT EventId, LockedBy FROM Events_Lock'), [{ EventId: 7, LockedBy: 'filter' }]);
  } finally {
    await conn.end();
  }
});

test('unknown objects are kept and reported; a foreign key keeps the index it needs; stray triggers on our tables go', async (t) => {
  const { conn, database } = await converged('a_extras');
  try {
    await conn.query('ALTER TABLE Monitors ADD COLUMN site_code varchar(8) NULL');
    await conn.query('ALTER TABLE Events ADD KEY scratch_idx (Name)');
    await conn.query(
      'ALTER TABLE Logs ADD KEY Logs_ServerId_fk (ServerId), ADD CONSTRAINT logs_server FOREIGN KEY (ServerId) REFERENCES Servers (Id)',
    );
    await conn.query('CREATE TABLE site_notes (id int PRIMARY KEY, note text)');
    await conn.query(
      'CREATE TRIGGER site_notes_trg BEFORE INSERT ON site_notes FOR EACH ROW SET NEW.note = UPPER(NEW.note)',
    );
    await conn.query(
      'CREATE TRIGGER stray_trg AFTER INSERT ON Events FOR EACH ROW UPDATE Monitors SET ZoneCount = 0 WHERE Id = NEW.MonitorId',
    );
    await conn.query('CREATE VIEW event_names AS SELECT Id, Name FROM Events');

    const result = await convergeSchema(conn, { database });
    t.deepEqual(
      result.steps.map((s) => s.description),
      [
        'alter table Events: drop index scratch_idx (Name)',
        'drop trigger stray_trg (AFTER INSERT on Events), not in the target set',
      ],
    );
    t.deepEqual(result.extras.map((e) => `${e.kind} ${e.name}`).sort(), [
      'column Monitors.site_code',
      'foreign-key Logs: (ServerId) -> Servers(Id) ON DELETE RESTRICT ON UPDATE RESTRICT',
      'index Logs.Logs_ServerId_fk',
      'table site_notes',
      'trigger site_notes_trg',
      'view event_names',
    ]);
    const live = await introspectSchema(conn, database);
    t.true(live.tables.some((x) => x.name === 'site_notes'));
    t.true(live.triggers.some((x) => x.name === 'site_notes_trg'));
    t.false(live.triggers.some((x) => x.name === 'stray_trg'));
    t.true(live.tables.find((x) => x.name === 'Monitors')!.columns.some((c) => c.name === 'site_code'));
    // Converging again finds nothing more to do and the same extras.
    const again = await convergeSchema(conn, { database });
    t.deepEqual(again.steps, []);
    t.is(again.extras.length, 6);
  } finally {
    await conn.end();
  }
});

test('both Snapshot_Events and Snapshots_Events: no rename, a warning, the old table kept', async (t) => {
  const { conn, database } = await converged('a_rename');
  try {
    await conn.query(
      'CREATE TABLE Snapshot_Events (Id int unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, SnapshotId int unsigned NOT NULL, EventId bigint unsigned NOT NULL)',
    );
    const result = await convergeSchema(conn, { database });
    t.deepEqual(result.steps, []);
    t.deepEqual(result.warnings, [
      'both Snapshot_Events and Snapshots_Events exist; Snapshot_Events is left alone (merge its rows by hand)',
    ]);
    t.deepEqual(
      result.extras.map((e) => `${e.kind} ${e.name}`),
      ['table Snapshot_Events'],
    );
  } finally {
    await conn.end();
  }
});

test('trigger bodies: a changed body is replaced, a reformatted one is left alone', async (t) => {
  const { conn, database } = await converged('a_bodies');
  try {
    const zoneDelete = targetSchema().triggers.find((x) => x.name === 'Zone_Delete_Trigger')!;
    // Same statement, other formatting, case and a comment: equal after normalisation.
    await conn.query('DROP TRIGGER Zone_Delete_Trigger');
    await conn.query(
      'CREATE TRIGGER Zone_Delete_Trigger AFTER DELETE ON Zones FOR EACH ROW ' +
        zoneDelete.body!.replaceAll('\n', '\n\n    ').replace('UPDATE Monitors', '/* recount */ update   Monitors'),
    );
    // A different statement under the right name.
    await conn.query('DROP TRIGGER Zone_Insert_Trigger');
    await conn.query(
      'CREATE TRIGGER Zone_Insert_Trigger AFTER INSERT ON Zones FOR EACH ROW UPDATE Monitors SET ZoneCount = 99 WHERE Id = NEW.MonitorId',
    );

    const result = await convergeSchema(conn, { database });
    t.deepEqual(
      result.steps.map((s) => s.id),
      ['replace-trigger:Zone_Insert_Trigger'],
    );
    t.regex(result.steps[0].sql[0], /^CREATE OR REPLACE TRIGGER `Zone_Insert_Trigger` AFTER INSERT ON `Zones`/);
    await conn.query("INSERT INTO Monitors (Id, Name) VALUES (1, 'm')");
    await conn.query("INSERT INTO Zones (MonitorId, Name, Coords) VALUES (1, 'a', '0,0'), (1, 'b', '0,0')");
    t.deepEqual(await conn.query('SELECT ZoneCount FROM Monitors WHERE Id = 1'), [{ ZoneCount: 2 }]);
  } finally {
    await conn.end();
  }
});

test('a foreign key with other ON DELETE actions is replaced', async (t) => {
  const { conn, database } = await converged('a_fk');
  try {
    await conn.query('ALTER TABLE Zones DROP FOREIGN KEY Zones_ibfk_1');
    await conn.query(
      'ALTER TABLE Zones ADD CONSTRAINT Zones_ibfk_1 FOREIGN KEY (MonitorId) REFERENCES Monitors (Id) ON DELETE RESTRICT',
    );
    const result = await convergeSchema(conn, { database });
    t.deepEqual(
      result.steps.map((s) => s.id),
      ['add-foreign-keys:Zones'],
    );
    t.is(result.steps[0].sql.length, 2);
    await conn.query("INSERT INTO Monitors (Id, Name) VALUES (1, 'm')");
    await conn.query("INSERT INTO Zones (MonitorId, Name, Coords) VALUES (1, 'a', '0,0')");
    await conn.query('DELETE FROM Monitors WHERE Id = 1'); // CASCADE again: allowed, takes the zone
    t.deepEqual(await conn.query('SELECT COUNT(*) AS n FROM Zones'), [{ n: 0 }]);
  } finally {
    await conn.end();
  }
});

test('a data migration spliced into the plan runs in place, is logged, and sees the schema of its moment', async (t) => {
  const fresh = await freshDatabase('a_splice');
  const conn = await createConnection({ ...fresh.userConfig, bigIntAsNumber: true });
  try {
    const seen: string[] = [];
    const migration = dataMigrationStep({
      id: 'seed-monitor',
      description: 'insert a monitor before the Zones table exists',
      sql: ["INSERT INTO Monitors (Id, Name) VALUES (42, 'seeded')"],
      run: async (c) => {
        const rows = (await c.query(
          "SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'Zones'",
        )) as { n: number }[];
        seen.push(`zones table exists: ${Number(rows[0].n) > 0}`);
      },
    });
    const progress: string[] = [];
    const result = await convergeSchema(conn, {
      database: fresh.name,
      transformSteps: (steps) => insertStepsAfter(steps, 'create-table:Monitors', [migration]),
      onProgress: (p) => p.phase === 'done' && progress.push(p.step.id),
    });
    const at = progress.indexOf('data-migration:seed-monitor');
    t.is(progress[at - 1], 'create-table:Monitors');
    t.true(progress.indexOf('create-table:Zones') > at);
    t.deepEqual(seen, ['zones table exists: false']);
    t.deepEqual(await conn.query('SELECT Name FROM Monitors WHERE Id = 42'), [{ Name: 'seeded' }]);
    t.deepEqual(
      await conn.query("SELECT kind, status FROM zmgate_schema_log WHERE step_id = 'data-migration:seed-monitor'"),
      [{ kind: 'data-migration', status: 'ok' }],
    );
    t.is(result.applied.length, result.steps.length);
    t.throws(() => insertStepsAfter(result.steps, 'no-such-step', []), { message: /no step with id no-such-step/ });
  } finally {
    await conn.end();
  }
});

// Pure parts ---------------------------------------------------------------------------------

const column = (type: string, extra: Partial<ColumnDef> = {}): ColumnDef => ({
  name: 'c',
  type,
  nullable: true,
  default: 'NULL',
  extra: '',
  ...extra,
});

test('column change classification: widening is safe, narrowing is flagged with a reason', (t) => {
  const lossless: [string, string][] = [
    ['varchar(32)', 'text'],
    ['varchar(32)', 'varchar(64)'],
    ['varchar(64)', 'varchar(255)'],
    ["enum('auto','mp4','mkv')", "enum('auto','mp4','mkv','webm')"],
    ["enum('None','View','Edit')", "enum('None','View','Edit','Create')"],
    ['smallint(5) unsigned', 'varchar(16)'],
    ['int(10) unsigned', 'bigint(20) unsigned'],
    ['int(10) unsigned', 'decimal(12,2) unsigned'],
    ['smallint(5) unsigned', 'decimal(10,2) unsigned'],
    ['decimal(5,2)', 'decimal(10,2)'],
    ['datetime', 'datetime(3)'],
    ['text', 'mediumtext'],
  ];
  for (const [from, to] of lossless)
    t.deepEqual(assessColumnChange(column(from), column(to)).reasons, [], `${from} -> ${to}`);

  const lossy: [string, string, RegExp][] = [
    ['int(10) unsigned', 'decimal(10,2) unsigned', /fewer integer digits/],
    ['varchar(64)', 'varchar(32)', /shorter/],
    ['text', 'varchar(255)', /no lossless conversion/],
    ["enum('a','b','c')", "enum('a','c')", /values 'b' are no longer allowed/],
    ['int(11)', 'int(10) unsigned', /negative/],
    ['bigint(20) unsigned', 'int(10) unsigned', /smaller/],
    ['int(10) unsigned', 'int(11)', /signed/],
    ['smallint(5) unsigned', 'varchar(4)', /too short/],
    ['decimal(10,2)', 'decimal(10,1)', /fewer decimal places/],
    ['datetime', 'date', /time of day/],
  ];
  for (const [from, to, reason] of lossy) {
    const assessment = assessColumnChange(column(from), column(to));
    t.true(assessment.lossy, `${from} -> ${to}`);
    t.regex(assessment.reasons.join(' '), reason, `${from} -> ${to}`);
  }

  const notNull = assessColumnChange(column('int(11)'), column('int(11)', { nullable: false, default: '0' }));
  t.true(notNull.needsNullFill);
  t.false(
    assessColumnChange(column('int(11)', { nullable: false, default: '0' }), column('int(11)')).lossy,
    'NOT NULL -> NULL is safe',
  );
  t.regex(
    assessColumnChange(
      column('varchar(32)', { charset: 'utf8mb4', collation: 'utf8mb4_general_ci' }),
      column('varchar(32)', { charset: 'latin1', collation: 'latin1_bin' }),
    ).reasons.join(' '),
    /utf8mb4 -> latin1/,
  );
});

test('trigger body normalisation ignores layout, case and comments but not content', (t) => {
  const body = "BEGIN\n  UPDATE Monitors SET ZoneCount = 1 WHERE Name = 'Front';\nEND";
  t.is(
    normaliseTriggerBody(body),
    normaliseTriggerBody("begin update  monitors set zonecount=1 -- note\n where name = 'Front' ; end"),
  );
  t.is(
    normaliseTriggerBody(body),
    normaliseTriggerBody("BEGIN /* c */ UPDATE Monitors SET ZoneCount = 1 WHERE Name = 'Front'; END;"),
  );
  t.not(
    normaliseTriggerBody(body),
    normaliseTriggerBody("BEGIN UPDATE Monitors SET ZoneCount = 1 WHERE Name = 'front'; END"),
    'string case counts',
  );
  t.not(
    normaliseTriggerBody(body),
    normaliseTriggerBody("BEGIN UPDATE Monitors SET ZoneCount = 2 WHERE Name = 'Front'; END"),
  );
});

test('planning is pure and flavour-aware: MySQL gets DROP + CREATE instead of CREATE OR REPLACE', (t) => {
  const target = targetSchema();
  const live = targetSchema();
  live.triggers.find((x) => x.name === 'event_update_trigger')!.body = 'BEGIN END';
  const forMariaDb = planSchema(live, target);
  t.deepEqual(
    forMariaDb.steps.map((s) => s.sql.map((sql) => sql.split('\n')[0])),
    [['CREATE OR REPLACE TRIGGER `event_update_trigger` AFTER UPDATE ON `Events` FOR EACH ROW']],
  );
  const forMySql = planSchema(live, target, { mariadb: false });
  t.deepEqual(
    forMySql.steps.map((s) => s.sql.map((sql) => sql.split('\n')[0])),
    [
      [
        'DROP TRIGGER IF EXISTS `event_update_trigger`',
        'CREATE TRIGGER `event_update_trigger` AFTER UPDATE ON `Events` FOR EACH ROW',
      ],
    ],
  );
  t.deepEqual(planSchema(target, target).steps, [], 'the target against itself: nothing to do');
});
