// planSchema(): compares a live schema with the target and produces the ordered steps that make
// the live one match, without ever dropping a table or a column. Pure (no database access).
//
// Order of the phases, and why:
//   1. renames (Snapshot_Events -> Snapshots_Events), so the renamed table is then compared as
//      the new one instead of being created empty beside its data;
//   2. missing tables, referenced tables first (zmgate_ tables first, so the schema log exists
//      before the rest runs);
//   3. per existing table: engine, NULL fills, then one ALTER with every column and index change
//      (one table rebuild, not one per change);
//   4. foreign keys on existing tables, once every column they use has its final type;
//   5. triggers, last, when every table and column their bodies use exists.
// Live objects the target lacks are reported as extras and left alone.
import type { ColumnDef, ForeignKeyDef, IndexDef, SchemaDef, TableDef, TriggerDef } from '../schema/types.js';
import { assessColumnChange, nullFillValue } from './classify.js';
import {
  columnDifferences,
  describeColumnChange,
  describeIndex,
  foreignKeySignature,
  indexMatches,
  sameForeignKeyTarget,
  sameList,
  triggerDifferences,
} from './compare.js';
import * as ddl from './ddl.js';
import type { LiveSchema } from './introspect.js';
import type { SchemaPlan, SchemaStep, StepChange } from './steps.js';

/** Tables ZoneMinder renamed; the old table's rows are the new table's. */
export const TABLE_RENAMES: readonly { from: string; to: string; since: string }[] = [
  { from: 'Snapshot_Events', to: 'Snapshots_Events', since: '1.37.28' },
];

export interface PlanOptions {
  /** Server is MariaDB (CREATE OR REPLACE TRIGGER). Default: from the live schema, else true. */
  mariadb?: boolean;
}

export function planSchema(
  liveSchema: SchemaDef | LiveSchema,
  target: SchemaDef,
  options: PlanOptions = {},
): SchemaPlan {
  const mariadb = options.mariadb ?? ('server' in liveSchema ? liveSchema.server.mariadb : true);
  // The planner walks a copy of the live schema forward as it emits steps, so every later
  // phase sees the state the earlier steps will have produced.
  const live: SchemaDef = structuredClone({ tables: liveSchema.tables, triggers: liveSchema.triggers });
  const plan: SchemaPlan = { steps: [], extras: [], warnings: [] };

  planRenames(live, target, plan);
  planCreateTables(live, target, plan);
  for (const table of target.tables) {
    const liveTable = findTable(live, table.name);
    if (liveTable) planAlterTable(liveTable, table, plan);
  }
  for (const table of target.tables) {
    const liveTable = findTable(live, table.name);
    if (liveTable) planForeignKeys(live, liveTable, table, plan);
  }
  planTriggers(live, target, plan, mariadb);
  reportExtraObjects(live, liveSchema, target, plan);
  return plan;
}

function findTable(schema: SchemaDef, name: string): TableDef | undefined {
  return schema.tables.find((table) => table.name === name);
}

function step(
  fields: Omit<SchemaStep, 'risks' | 'destructive'> & Partial<Pick<SchemaStep, 'risks' | 'destructive'>>,
): SchemaStep {
  return { destructive: false, risks: [], ...fields };
}

// 1. Renames ------------------------------------------------------------------------------------

function planRenames(live: SchemaDef, target: SchemaDef, plan: SchemaPlan): void {
  for (const rename of TABLE_RENAMES) {
    if (!findTable(target, rename.to)) continue;
    const old = findTable(live, rename.from);
    if (!old) continue;
    if (findTable(live, rename.to)) {
      plan.warnings.push(
        `both ${rename.from} and ${rename.to} exist; ${rename.from} is left alone (merge its rows by hand)`,
      );
      continue;
    }
    plan.steps.push(
      step({
        id: `rename-table:${rename.from}`,
        kind: 'rename-table',
        table: rename.to,
        description: `rename table ${rename.from} to ${rename.to} (ZoneMinder ${rename.since}), keeping its rows`,
        sql: [ddl.renameTable(rename.from, rename.to)],
      }),
    );
    old.name = rename.to;
    for (const table of live.tables) {
      for (const fk of table.foreignKeys) if (fk.refTable === rename.from) fk.refTable = rename.to;
    }
    for (const trigger of live.triggers) if (trigger.table === rename.from) trigger.table = rename.to;
  }
}

// 2. Missing tables ------------------------------------------------------------------------------

function planCreateTables(live: SchemaDef, target: SchemaDef, plan: SchemaPlan): void {
  const missing = target.tables.filter((table) => !findTable(live, table.name));
  const creating = new Set(missing.map((table) => table.name));
  for (const table of referencedFirst(missing)) {
    // A foreign key goes into the CREATE when what it references is created here too, or
    // already has its final definition; otherwise it waits for the foreign-key phase.
    const inline = table.foreignKeys.filter(
      (fk) => creating.has(fk.refTable) || referencedColumnsFinal(live, target, fk),
    );
    plan.steps.push(
      step({
        id: `create-table:${table.name}`,
        kind: 'create-table',
        table: table.name,
        description: `create table ${table.name}`,
        sql: [ddl.createTable(table, inline)],
      }),
    );
    live.tables.push({ ...structuredClone(table), foreignKeys: structuredClone(inline) });
  }
}

function referencedColumnsFinal(live: SchemaDef, target: SchemaDef, fk: ForeignKeyDef): boolean {
  const liveRef = findTable(live, fk.refTable);
  const targetRef = findTable(target, fk.refTable);
  if (!liveRef || !targetRef) return false;
  return fk.refColumns.every((name) => {
    const have = liveRef.columns.find((c) => c.name === name);
    const want = targetRef.columns.find((c) => c.name === name);
    return have && want && columnDifferences(want, have).length === 0;
  });
}

/** Tables ordered so a referenced table comes before the tables referencing it. */
function referencedFirst(tables: TableDef[]): TableDef[] {
  const pending = new Map(tables.map((table) => [table.name, table]));
  const ordered: TableDef[] = [];
  while (pending.size) {
    const ready = [...pending.values()].find((table) =>
      table.foreignKeys.every((fk) => fk.refTable === table.name || !pending.has(fk.refTable)),
    );
    // A reference cycle cannot be ordered; the rest go in target order (apply() runs with
    // foreign_key_checks off, so that works too).
    const next = ready ?? pending.values().next().value!;
    ordered.push(next);
    pending.delete(next.name);
  }
  return ordered;
}

// 3. Existing tables: engine, NULL fills, one ALTER ------------------------------------------------

function planAlterTable(liveTable: TableDef, table: TableDef, plan: SchemaPlan): void {
  const name = table.name;
  if (table.engine && liveTable.engine && liveTable.engine.toLowerCase() !== table.engine.toLowerCase()) {
    plan.steps.push(
      step({
        id: `alter-engine:${name}`,
        kind: 'alter-engine',
        table: name,
        description: `convert table ${name} from ${liveTable.engine} to ${table.engine}`,
        sql: [ddl.alterTable(name, [ddl.clause.engine(table.engine)])],
      }),
    );
    liveTable.engine = table.engine;
  }

  const columnWork = planColumns(liveTable, table);
  const indexWork = planIndexes(liveTable, table, plan);
  plan.steps.push(...columnWork.fills);

  const changes = [...indexWork.dropChanges, ...columnWork.changes, ...indexWork.addChanges];
  const clauses = [...indexWork.dropClauses, ...columnWork.clauses, ...indexWork.addClauses];
  if (clauses.length) {
    const risks = columnWork.risks;
    plan.steps.push(
      step({
        id: `alter-table:${name}`,
        kind: 'alter-table',
        table: name,
        description: `alter table ${name}: ${changes.map((c) => c.description).join('; ')}`,
        sql: [ddl.alterTable(name, clauses)],
        destructive: changes.some((c) => c.destructive),
        risks,
        changes,
      }),
    );
  }
  liveTable.columns = columnWork.result;
  liveTable.indexes = indexWork.result;
}

interface ColumnWork {
  clauses: string[];
  changes: StepChange[];
  fills: SchemaStep[];
  risks: string[];
  result: ColumnDef[];
}

function planColumns(liveTable: TableDef, table: TableDef): ColumnWork {
  const work: ColumnWork = { clauses: [], changes: [], fills: [], risks: [], result: [] };
  const liveColumns = new Map(liveTable.columns.map((c) => [c.name, c]));
  const wanted = new Set(table.columns.map((c) => c.name));
  // The physical order as the ALTER will leave it; extras stay where they are.
  const order = liveTable.columns.map((c) => c.name);
  const placeAfter = (columnName: string, after: string | null) => {
    const at = order.indexOf(columnName);
    if (at !== -1) order.splice(at, 1);
    order.splice(after === null ? 0 : order.indexOf(after) + 1, 0, columnName);
  };
  // Columns already in target order relative to each other stay put; only the others move.
  const stay = inOrderColumns(
    liveTable.columns.map((c) => c.name).filter((n) => wanted.has(n)),
    table.columns.map((c) => c.name),
  );

  let previous: string | null = null;
  for (const column of table.columns) {
    const ref = `${table.name}.${column.name}`;
    const have = liveColumns.get(column.name);
    if (!have) {
      work.clauses.push(ddl.clause.addColumn(column, previous));
      work.changes.push({
        id: `add-column:${ref}`,
        kind: 'add-column',
        description: `add ${column.name}`,
        destructive: false,
      });
      placeAfter(column.name, previous);
    } else {
      const differences = describeColumnChange(column, have);
      const misplaced = !stay.has(column.name);
      if (differences.length || misplaced) {
        const assessment = differences.length
          ? assessColumnChange(have, column)
          : { lossy: false, reasons: [], needsNullFill: false };
        if (assessment.needsNullFill) {
          const value = nullFillValue(column);
          work.fills.push(
            step({
              id: `fill-nulls:${ref}`,
              kind: 'fill-nulls',
              table: table.name,
              description: `set NULL ${ref} to ${value} before it becomes NOT NULL`,
              sql: [ddl.fillNulls(table.name, column.name, value)],
              destructive: true,
              risks: [`NULLs in ${ref} are replaced by ${value}`],
            }),
          );
        }
        const what = [...differences];
        if (misplaced) what.push(previous === null ? 'move first' : `move after ${previous}`);
        work.clauses.push(ddl.clause.modifyColumn(column, misplaced ? previous : undefined));
        work.changes.push({
          id: `modify-column:${ref}`,
          kind: 'modify-column',
          description: `modify ${column.name} (${what.join('; ')})`,
          destructive: assessment.lossy,
        });
        work.risks.push(...assessment.reasons.map((reason) => `${ref}: ${reason}`));
        if (misplaced) placeAfter(column.name, previous);
      }
    }
    previous = column.name;
  }

  const targetColumns = new Map(table.columns.map((c) => [c.name, c]));
  work.result = order.map((columnName) =>
    structuredClone(targetColumns.get(columnName) ?? liveColumns.get(columnName)!),
  );
  return work;
}

/**
 * The largest set of columns whose live order already agrees with the target order (a longest
 * increasing subsequence of their target positions), so that a column moved out of place costs
 * one MODIFY … AFTER instead of one per column behind it.
 */
function inOrderColumns(liveOrder: string[], targetOrder: string[]): Set<string> {
  const rank = new Map(targetOrder.map((name, i) => [name, i]));
  const values = liveOrder.map((name) => rank.get(name)!);
  const tails: number[] = []; // tails[k]: index in `values` ending the best run of length k + 1
  const back: number[] = new Array(values.length).fill(-1);
  for (let i = 0; i < values.length; i++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[tails[mid]] < values[i]) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) back[i] = tails[lo - 1];
    tails[lo] = i;
  }
  const keep = new Set<string>();
  for (let i = tails.length ? tails[tails.length - 1] : -1; i !== -1; i = back[i]) keep.add(liveOrder[i]);
  return keep;
}

interface IndexWork {
  dropClauses: string[];
  addClauses: string[];
  dropChanges: StepChange[];
  addChanges: StepChange[];
  result: IndexDef[];
}

function planIndexes(liveTable: TableDef, table: TableDef, plan: SchemaPlan): IndexWork {
  const work: IndexWork = { dropClauses: [], addClauses: [], dropChanges: [], addChanges: [], result: [] };
  const liveIndexes = new Map(liveTable.indexes.map((i) => [i.name, i]));
  const wanted = new Map(table.indexes.map((i) => [i.name, i]));

  const toAdd = table.indexes.filter((index) => {
    const have = liveIndexes.get(index.name);
    return !have || !indexMatches(index, have);
  });
  const redefined = new Set(toAdd.filter((index) => liveIndexes.has(index.name)).map((index) => index.name));
  let toDrop = liveTable.indexes.filter((index) => !wanted.has(index.name) || redefined.has(index.name));

  // An index a live foreign key needs stays unless what remains still covers the key; MariaDB
  // refuses to drop it otherwise. It is reported as an extra.
  const remaining = () => [...liveTable.indexes.filter((index) => !toDrop.includes(index)), ...toAdd];
  for (const fk of liveTable.foreignKeys) {
    if (remaining().some((index) => covers(index, fk.columns))) continue;
    const keep = toDrop.find((index) => !redefined.has(index.name) && covers(index, fk.columns));
    if (keep) {
      toDrop = toDrop.filter((index) => index !== keep);
      plan.extras.push({
        kind: 'index',
        name: `${table.name}.${keep.name}`,
        detail: `kept: foreign key ${foreignKeySignature(fk)} needs it`,
      });
    }
  }

  for (const index of toDrop) {
    work.dropClauses.push(ddl.clause.dropIndex(index.name));
    if (!redefined.has(index.name)) {
      work.dropChanges.push({
        id: `drop-index:${table.name}.${index.name}`,
        kind: 'drop-index',
        description: `drop index ${index.name} ${describeIndex(index)}`,
        destructive: false,
      });
    }
  }
  for (const index of toAdd) {
    work.addClauses.push(ddl.clause.addIndex(index));
    const was = liveIndexes.get(index.name);
    work.addChanges.push({
      id: `add-index:${table.name}.${index.name}`,
      kind: 'add-index',
      description: was
        ? `redefine index ${index.name} ${describeIndex(was)} as ${describeIndex(index)}`
        : `add index ${index.name} ${describeIndex(index)}`,
      destructive: false,
    });
  }
  work.result = structuredClone(remaining());
  return work;
}

/** The index can serve a foreign key on `columns` (they are its leading columns). */
function covers(index: IndexDef, columns: string[]): boolean {
  const names = index.columns.map((part) => part.replace(/\(\d+\)$/, ''));
  return sameList(names.slice(0, columns.length), columns);
}

// 4. Foreign keys ---------------------------------------------------------------------------------

function planForeignKeys(live: SchemaDef, liveTable: TableDef, table: TableDef, plan: SchemaPlan): void {
  const usedNames = new Set(live.tables.flatMap((t) => t.foreignKeys.map((fk) => fk.name)));
  const drops: string[] = [];
  const adds: string[] = [];
  const described: string[] = [];
  for (const fk of table.foreignKeys) {
    if (liveTable.foreignKeys.some((have) => foreignKeySignature(have) === foreignKeySignature(fk))) continue;
    // Same relation with other ON DELETE/UPDATE actions: replace it.
    const replaced = liveTable.foreignKeys.find((have) => sameForeignKeyTarget(have, fk));
    if (replaced) {
      drops.push(ddl.clause.dropForeignKey(replaced.name));
      usedNames.delete(replaced.name);
      liveTable.foreignKeys = liveTable.foreignKeys.filter((have) => have !== replaced);
    }
    // Constraint names are unique per schema; when ours is taken, MariaDB picks one.
    const named = !usedNames.has(fk.name);
    adds.push(ddl.clause.addForeignKey(fk, named));
    usedNames.add(fk.name);
    liveTable.foreignKeys.push(structuredClone(fk));
    described.push(`${replaced ? 'replace' : 'add'} ${foreignKeySignature(fk)}`);
  }
  if (!adds.length) return;
  plan.steps.push(
    step({
      id: `add-foreign-keys:${table.name}`,
      kind: 'add-foreign-keys',
      table: table.name,
      description: `foreign keys on ${table.name}: ${described.join('; ')} (existing rows are not re-checked)`,
      // Dropping and re-adding one constraint in a single ALTER is refused; two statements.
      sql: [...(drops.length ? [ddl.alterTable(table.name, drops)] : []), ddl.alterTable(table.name, adds)],
    }),
  );
}

// 5. Triggers -------------------------------------------------------------------------------------

function planTriggers(live: SchemaDef, target: SchemaDef, plan: SchemaPlan, mariadb: boolean): void {
  const targetTables = new Set(target.tables.map((t) => t.name));
  const wanted = new Map(target.triggers.map((t) => [t.name, t]));
  const have = new Map(live.triggers.map((t) => [t.name, t]));

  // Triggers on our tables that the target does not have (1.36's event_insert_trigger) go first,
  // so no stale trigger runs beside the new ones.
  for (const trigger of live.triggers) {
    if (wanted.has(trigger.name) || !targetTables.has(trigger.table)) continue;
    plan.steps.push(
      step({
        id: `drop-trigger:${trigger.name}`,
        kind: 'drop-trigger',
        table: trigger.table,
        description: `drop trigger ${trigger.name} (${trigger.timing} ${trigger.event} on ${trigger.table}), not in the target set`,
        sql: [ddl.dropTrigger(trigger.name)],
      }),
    );
  }

  for (const trigger of target.triggers) {
    const current = have.get(trigger.name);
    if (!current) {
      plan.steps.push(
        step({
          id: `create-trigger:${trigger.name}`,
          kind: 'create-trigger',
          table: trigger.table,
          description: `create trigger ${trigger.name} (${trigger.timing} ${trigger.event} on ${trigger.table})`,
          sql: [ddl.createTrigger(trigger)],
        }),
      );
      continue;
    }
    const differences = triggerDifferences(trigger, current, true);
    if (!differences.length) continue;
    plan.steps.push(
      step({
        id: `replace-trigger:${trigger.name}`,
        kind: 'replace-trigger',
        table: trigger.table,
        description: `replace trigger ${trigger.name}: ${differences.join('; ')}`,
        sql: mariadb ? [ddl.createTrigger(trigger, true)] : [ddl.dropTrigger(trigger.name), ddl.createTrigger(trigger)],
      }),
    );
  }
  live.triggers = [
    ...live.triggers.filter((t) => !wanted.has(t.name) && !targetTables.has(t.table)),
    ...target.triggers.map((t): TriggerDef => ({ ...t })),
  ];
}

// Extras ------------------------------------------------------------------------------------------

function reportExtraObjects(
  live: SchemaDef,
  liveSchema: SchemaDef | LiveSchema,
  target: SchemaDef,
  plan: SchemaPlan,
): void {
  const targetTables = new Map(target.tables.map((t) => [t.name, t]));
  for (const table of live.tables) {
    const wanted = targetTables.get(table.name);
    if (!wanted) {
      plan.extras.push({ kind: 'table', name: table.name, detail: 'not in the target schema; left in place' });
      continue;
    }
    const columns = new Set(wanted.columns.map((c) => c.name));
    for (const column of table.columns) {
      if (columns.has(column.name)) continue;
      plan.extras.push({
        kind: 'column',
        name: `${table.name}.${column.name}`,
        detail: 'not in the target schema; kept (only an explicit data migration may drop it)',
      });
    }
    const fks = new Set(wanted.foreignKeys.map(foreignKeySignature));
    for (const fk of table.foreignKeys) {
      if (fks.has(foreignKeySignature(fk))) continue;
      plan.extras.push({
        kind: 'foreign-key',
        name: `${table.name}: ${foreignKeySignature(fk)}`,
        detail: `constraint ${fk.name} is not in the target schema; left in place`,
      });
    }
  }
  for (const trigger of live.triggers) {
    if (!target.triggers.some((t) => t.name === trigger.name)) {
      plan.extras.push({
        kind: 'trigger',
        name: trigger.name,
        detail: `on ${trigger.table}, which is not a target table; left in place`,
      });
    }
  }
  for (const view of 'views' in liveSchema ? liveSchema.views : []) {
    plan.extras.push({ kind: 'view', name: view, detail: 'views are left in place' });
  }
}
