// The target schema (src/db/schema) against ZoneMinder's own 1.39.22 information_schema dump:
// equal apart from zmgate's `zmgate_` objects, and internally consistent (foreign keys served by
// declared indexes, triggers with bodies, generated file up to date).
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { diffSchemas, ddl } from '../../src/db/converge/index.js';
import { fromZoneMinderJson, isServiceObject, targetSchema, type SchemaDef } from '../../src/db/schema/index.js';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shared = path.join(repo, 'data', 'zoneminder', 'schema');
const dumpPath = path.join(shared, 'zoneminder-1.39.22.json');
const dump = JSON.parse(readFileSync(dumpPath, 'utf8'));
const zm139 = fromZoneMinderJson(dump);

test('the target equals the 1.39.22 dump: tables, columns, types, defaults, nullability, indexes, triggers', (t) => {
  t.deepEqual(diffSchemas(zm139, targetSchema()), []);
});

test('the comparison notices a difference in each compared field', (t) => {
  const cases: [string, (s: SchemaDef) => void, RegExp][] = [
    [
      'type',
      (s) => (tbl(s, 'Events').columns.find((c) => c.name === 'Cause')!.type = 'varchar(32)'),
      /Events\.Cause type is varchar\(32\)/,
    ],
    [
      'null',
      (s) => (tbl(s, 'Events').columns.find((c) => c.name === 'Cause')!.nullable = false),
      /Events\.Cause is NOT NULL/,
    ],
    [
      'default',
      (s) => (tbl(s, 'Zones').columns.find((c) => c.name === 'Units')!.default = "'Pixels'"),
      /Zones\.Units default/,
    ],
    [
      'extra',
      (s) => (tbl(s, 'Frames').columns.find((c) => c.name === 'TimeStamp')!.extra = ''),
      /Frames\.TimeStamp extra/,
    ],
    ['order', (s) => tbl(s, 'Users').columns.reverse(), /Users: column order/],
    ['missing column', (s) => tbl(s, 'Monitors').columns.pop(), /Monitors\.StartupDelay is missing/],
    [
      'index',
      (s) => (tbl(s, 'Events').indexes.find((i) => i.name === 'Events_StartDateTime_idx')!.unique = true),
      /Events_StartDateTime_idx/,
    ],
    [
      'table',
      (s) =>
        s.tables.splice(
          s.tables.findIndex((x) => x.name === 'Events_Lock'),
          1,
        ),
      /Events_Lock is (missing|not expected)/,
    ],
    [
      'trigger timing',
      (s) => (s.triggers.find((x) => x.name === 'event_delete_trigger')!.timing = 'AFTER'),
      /event_delete_trigger fires AFTER/,
    ],
  ];
  for (const [what, mutate, expected] of cases) {
    const changed = targetSchema();
    mutate(changed);
    const diff = diffSchemas(zm139, changed);
    t.true(
      diff.some((line) => expected.test(line)),
      `${what}: ${JSON.stringify(diff)}`,
    );
  }
});

test('ZoneMinder part: 55 tables and the 12 triggers of 1.39.22, every trigger with a body', (t) => {
  const target = targetSchema();
  const zmTables = target.tables.filter((x) => !isServiceObject(x.name));
  t.is(zmTables.length, 55);
  t.deepEqual(zmTables.map((x) => x.name).sort(), Object.keys(dump.tables).sort());
  t.is(target.triggers.length, 12);
  t.deepEqual(
    target.triggers.map((x) => `${x.name} ${x.timing} ${x.event} ${x.table}`).sort(),
    dump.triggers
      .map(
        (x: { name: string; timing: string; event: string; table: string }) =>
          `${x.name} ${x.timing} ${x.event} ${x.table}`,
      )
      .sort(),
  );
  t.false(
    target.triggers.some((x) => x.name === 'event_insert_trigger'),
    '1.37.77 removed it',
  );
  for (const trigger of target.triggers) {
    t.regex(trigger.body ?? '', /^BEGIN\b[\s\S]*\bEND$/, trigger.name);
    // 1.37.69 moved Storage.DiskSpace into code; no 1.39 trigger touches Storage.
    t.notRegex(trigger.body ?? '', /\bStorage\b/, trigger.name);
  }
});

test('every table is InnoDB and only zmgate_ objects are added', (t) => {
  const target = targetSchema();
  for (const table of target.tables) t.is(table.engine, 'InnoDB', table.name);
  const extra = target.tables.map((x) => x.name).filter((name) => !(name in dump.tables));
  t.deepEqual(extra.sort(), ['zmgate_cluster_keys', 'zmgate_migrations', 'zmgate_schema_log']);
  t.true(extra.every(isServiceObject));
  const ledger = tbl(target, 'zmgate_migrations');
  t.deepEqual(ledger.indexes.find((i) => i.name === 'PRIMARY')?.columns, ['id']);
  t.deepEqual(
    ledger.columns.map((c) => c.name),
    ['id', 'name', 'checksum', 'applied_at', 'execution_ms', 'stamped', 'zmgate_version'],
  );
});

test('29 foreign keys, each served by a declared index and typed like the column it references', (t) => {
  const target = targetSchema();
  const fks = target.tables.flatMap((table) => table.foreignKeys.map((fk) => ({ table, fk })));
  t.is(fks.length, 29);
  t.is(new Set(fks.map(({ fk }) => fk.name)).size, 29, 'constraint names are unique per schema');
  for (const { table, fk } of fks) {
    const label = `${table.name}.${fk.columns.join(',')} -> ${fk.refTable}`;
    // A declared index with the key's columns leading, so MariaDB adds no index of its own.
    t.true(
      table.indexes.some((index) => fk.columns.every((column, i) => index.columns[i] === column)),
      `${label}: no index serves it`,
    );
    const ref = tbl(target, fk.refTable);
    fk.columns.forEach((column, i) => {
      const from = table.columns.find((c) => c.name === column);
      const to = ref.columns.find((c) => c.name === fk.refColumns[i]);
      t.truthy(from, `${label}: no column ${column}`);
      t.truthy(to, `${label}: no referenced column`);
      t.is(from?.type, to?.type, `${label}: type`);
    });
    if (fk.onDelete === 'SET NULL') {
      t.true(
        fk.columns.every((column) => table.columns.find((c) => c.name === column)?.nullable),
        `${label}: SET NULL on a NOT NULL column`,
      );
    }
  }
});

test('the pinned column collations are latin1_bin on Users.Username and Tags.Name only', (t) => {
  const pinned = targetSchema()
    .tables.filter((x) => !isServiceObject(x.name))
    .flatMap((table) =>
      table.columns.filter((c) => c.collation).map((c) => `${table.name}.${c.name} ${c.charset} ${c.collation}`),
    );
  t.deepEqual(pinned.sort(), ['Tags.Name latin1 latin1_bin', 'Users.Username latin1 latin1_bin']);
});

test('every table renders as CREATE TABLE and every trigger as one CREATE TRIGGER statement', (t) => {
  const target = targetSchema();
  for (const table of target.tables) {
    const sql = ddl.createTable(table);
    t.true(sql.startsWith(`CREATE TABLE \`${table.name}\` (`), table.name);
    t.is((sql.match(/FOREIGN KEY/g) ?? []).length, table.foreignKeys.length, table.name);
  }
  t.regex(
    ddl.columnDefinition(tbl(target, 'Events').columns.find((c) => c.name === 'Cause')!),
    /^`Cause` text NULL DEFAULT NULL$/,
  );
  t.regex(
    ddl.columnDefinition(tbl(target, 'Frames').columns.find((c) => c.name === 'TimeStamp')!),
    /^`TimeStamp` timestamp NOT NULL DEFAULT current_timestamp\(\) ON UPDATE current_timestamp\(\)$/,
  );
  for (const trigger of target.triggers) {
    const sql = ddl.createTrigger(trigger);
    t.notRegex(sql, /DELIMITER/i);
    t.true(
      sql.startsWith(
        `CREATE TRIGGER \`${trigger.name}\` ${trigger.timing} ${trigger.event} ON \`${trigger.table}\` FOR EACH ROW\nBEGIN`,
      ),
    );
  }
});

test('the committed zoneminder-tables.ts is what scripts/schema-import.mjs generates from the dump', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zmgate-schema-'));
  try {
    const out = path.join(dir, 'zoneminder-tables.ts');
    execFileSync(process.execPath, [path.join(repo, 'scripts', 'schema-import.mjs'), dumpPath, out], { stdio: 'pipe' });
    const committed = readFileSync(path.join(repo, 'src', 'db', 'schema', 'zoneminder-tables.ts'), 'utf8');
    t.is(readFileSync(out, 'utf8'), committed);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function tbl(schema: SchemaDef, name: string) {
  const table = schema.tables.find((x) => x.name === name);
  if (!table) throw new Error(`no table ${name}`);
  return table;
}
