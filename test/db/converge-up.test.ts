// `up`: converge an empty database, then the live information_schema must equal ZoneMinder's
// 1.39.22 dump exactly (apart from zmgate_ objects), and a second converge must find nothing to do.
import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConnection, type Connection } from 'mariadb';
import { convergeSchema, diffSchemas, introspectSchema, type StepProgress } from '../../src/db/converge/index.js';
import { fromZoneMinderJson, targetSchema } from '../../src/db/schema/index.js';
import { freshDatabase } from '../helpers/mariadb.js';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dump = JSON.parse(
  readFileSync(path.join(repo, 'data', 'zoneminder', 'schema', 'zoneminder-1.39.22.json'), 'utf8'),
);
const zm139 = fromZoneMinderJson(dump);

// The service connects as an ordinary user owning its database, not as root.
async function connect(prefix: string): Promise<{ conn: Connection; database: string }> {
  const fresh = await freshDatabase(prefix);
  return { conn: await createConnection(fresh.userConfig), database: fresh.name };
}

test('up on an empty database gives exactly the 1.39.22 schema, and a second run has nothing to do', async (t) => {
  const { conn, database } = await connect('up');
  try {
    const progress: StepProgress[] = [];
    const result = await convergeSchema(conn, { database, onProgress: (p) => progress.push(p) });
    t.true(result.steps.length > 0);
    t.is(result.applied.length, result.steps.length);
    t.deepEqual(result.extras, []);
    t.deepEqual(result.warnings, []);
    t.false(
      result.steps.some((step) => step.destructive),
      'nothing destructive on an empty database',
    );
    t.deepEqual(
      progress.filter((p) => p.phase === 'done').map((p) => p.step.id),
      result.steps.map((step) => step.id),
    );

    const live = await introspectSchema(conn, database);
    // The acceptance check: tables, columns (order, type, default, nullability, extra), indexes,
    // trigger names/tables/timing/events, against ZoneMinder's own dump.
    t.deepEqual(diffSchemas(zm139, live), []);
    // And what the dump does not hold: foreign keys, engines, pinned collations, trigger bodies.
    t.deepEqual(
      diffSchemas(targetSchema(), live, { ignore: () => false, foreignKeys: true, engines: true, triggerBodies: true }),
      [],
    );
    t.is(live.tables.flatMap((table) => table.foreignKeys).length, 29);
    t.deepEqual(
      live.tables.map((table) => table.name).filter((name) => name.startsWith('zmgate_')),
      ['zmgate_cluster_keys', 'zmgate_migrations', 'zmgate_schema_log'],
    );

    const again = await convergeSchema(conn, { database });
    t.deepEqual(
      again.steps.map((step) => step.description),
      [],
    );
    t.deepEqual(again.extras, []);
  } finally {
    await conn.end();
  }
});

test('every step of the run is logged in zmgate_schema_log', async (t) => {
  const { conn, database } = await connect('uplog');
  try {
    const result = await convergeSchema(conn, { database });
    const rows = (await conn.query(
      'SELECT run_id, step_id, status, statements FROM zmgate_schema_log ORDER BY id',
    )) as {
      run_id: string;
      step_id: string;
      status: string;
      statements: string;
    }[];
    t.deepEqual(
      rows.map((row) => row.step_id),
      result.steps.map((step) => step.id),
    );
    t.true(rows.every((row) => row.status === 'ok' && row.run_id === result.runId));
    t.regex(
      rows.find((row) => row.step_id === 'create-trigger:event_update_trigger')?.statements ?? '',
      /^CREATE TRIGGER `event_update_trigger`/,
    );
  } finally {
    await conn.end();
  }
});

test('a dry run plans the same steps and writes nothing', async (t) => {
  const { conn, database } = await connect('updry');
  try {
    const dry = await convergeSchema(conn, { database, dryRun: true });
    t.is(dry.applied.length, 0);
    t.true(dry.steps.some((step) => step.id === 'create-table:Events'));
    t.true(dry.steps.some((step) => step.id === 'create-trigger:Zone_Insert_Trigger'));
    const tables = (await conn.query('SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?', [
      database,
    ])) as { n: bigint }[];
    t.is(Number(tables[0].n), 0);

    const real = await convergeSchema(conn, { database });
    t.deepEqual(
      real.steps.map((step) => step.id),
      dry.steps.map((step) => step.id),
    );
  } finally {
    await conn.end();
  }
});

test('tables are created before the tables that reference them, triggers last', async (t) => {
  const { conn, database } = await connect('uporder');
  try {
    const { steps } = await convergeSchema(conn, { database, dryRun: true });
    const position = (id: string) => steps.findIndex((step) => step.id === id);
    t.true(position('create-table:zmgate_schema_log') === 0, 'the log table comes first');
    t.true(position('create-table:Monitors') < position('create-table:Zones'));
    t.true(position('create-table:User_Roles') < position('create-table:Users'));
    t.true(position('create-table:Events') < position('create-table:Snapshots_Events'));
    const firstTrigger = steps.findIndex((step) => step.kind === 'create-trigger');
    t.true(steps.slice(firstTrigger).every((step) => step.kind === 'create-trigger'));
    t.is(steps.length - firstTrigger, 12);
  } finally {
    await conn.end();
  }
});
