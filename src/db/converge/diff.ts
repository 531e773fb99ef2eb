// diffSchemas(): every difference between an expected and an actual schema as readable lines,
// for tests and for `zmgate-db status`. An empty list means "equal" under the chosen options.
import { isServiceObject } from '../schema/service-tables.js';
import type { SchemaDef, TableDef } from '../schema/types.js';
import {
  columnDifferences,
  describeIndex,
  foreignKeySignature,
  indexMatches,
  sameList,
  triggerDifferences,
} from './compare.js';

export interface DiffOptions {
  /** Tables and triggers left out of the comparison; default: the service's own `zmgate_` objects. */
  ignore?: (name: string) => boolean;
  /** Columns present in `actual` only that are accepted ("Table.Column"), e.g. reported extras. */
  allowExtraColumns?: Iterable<string>;
  /** Compare foreign keys (by what they do, not by name). Default false: the shared dumps have none. */
  foreignKeys?: boolean;
  /** Compare trigger bodies where `expected` has one. Default false. */
  triggerBodies?: boolean;
  /** Compare table engines where `expected` names one. Default false. */
  engines?: boolean;
}

export function diffSchemas(expected: SchemaDef, actual: SchemaDef, options: DiffOptions = {}): string[] {
  const ignore = options.ignore ?? isServiceObject;
  const allowedExtras = new Set(options.allowExtraColumns ?? []);
  const out: string[] = [];

  const expectedTables = new Map(expected.tables.filter((t) => !ignore(t.name)).map((t) => [t.name, t]));
  const actualTables = new Map(actual.tables.filter((t) => !ignore(t.name)).map((t) => [t.name, t]));
  for (const name of expectedTables.keys()) if (!actualTables.has(name)) out.push(`table ${name} is missing`);
  for (const name of actualTables.keys()) if (!expectedTables.has(name)) out.push(`table ${name} is not expected`);

  for (const [name, want] of expectedTables) {
    const have = actualTables.get(name);
    if (have) out.push(...diffTable(want, have, allowedExtras, options));
  }

  const expectedTriggers = new Map(
    expected.triggers.filter((t) => !ignore(t.name) && !ignore(t.table)).map((t) => [t.name, t]),
  );
  const actualTriggers = new Map(
    actual.triggers.filter((t) => !ignore(t.name) && !ignore(t.table)).map((t) => [t.name, t]),
  );
  for (const [name, want] of expectedTriggers) {
    const have = actualTriggers.get(name);
    if (!have) out.push(`trigger ${name} is missing`);
    else
      for (const d of triggerDifferences(want, have, options.triggerBodies ?? false)) out.push(`trigger ${name} ${d}`);
  }
  for (const name of actualTriggers.keys())
    if (!expectedTriggers.has(name)) out.push(`trigger ${name} is not expected`);
  return out;
}

function diffTable(want: TableDef, have: TableDef, allowedExtras: Set<string>, options: DiffOptions): string[] {
  const out: string[] = [];
  const t = want.name;
  if (options.engines && want.engine && have.engine?.toLowerCase() !== want.engine.toLowerCase()) {
    out.push(`table ${t}: engine is ${have.engine}, expected ${want.engine}`);
  }

  const haveColumns = new Map(have.columns.map((c) => [c.name, c]));
  const wantNames = new Set(want.columns.map((c) => c.name));
  for (const column of want.columns) {
    const live = haveColumns.get(column.name);
    if (!live) out.push(`${t}.${column.name} is missing`);
    else for (const d of columnDifferences(column, live)) out.push(`${t}.${column.name} ${d}`);
  }
  for (const column of have.columns) {
    if (!wantNames.has(column.name) && !allowedExtras.has(`${t}.${column.name}`))
      out.push(`${t}.${column.name} is not expected`);
  }
  // Order of the expected columns, ignoring accepted extras wherever they sit.
  const haveOrder = have.columns.map((c) => c.name).filter((n) => wantNames.has(n));
  const wantOrder = want.columns.map((c) => c.name).filter((n) => haveColumns.has(n));
  if (!sameList(haveOrder, wantOrder))
    out.push(`table ${t}: column order is ${haveOrder.join(', ')}; expected ${wantOrder.join(', ')}`);

  const haveIndexes = new Map(have.indexes.map((i) => [i.name, i]));
  for (const index of want.indexes) {
    const live = haveIndexes.get(index.name);
    if (!live) out.push(`table ${t}: index ${index.name} ${describeIndex(index)} is missing`);
    else if (!indexMatches(index, live)) {
      out.push(`table ${t}: index ${index.name} is ${describeIndex(live)}, expected ${describeIndex(index)}`);
    }
  }
  const wantIndexNames = new Set(want.indexes.map((i) => i.name));
  for (const index of have.indexes) {
    if (!wantIndexNames.has(index.name))
      out.push(`table ${t}: index ${index.name} ${describeIndex(index)} is not expected`);
  }

  if (options.foreignKeys) {
    const wantFks = new Set(want.foreignKeys.map(foreignKeySignature));
    const haveFks = new Set(have.foreignKeys.map(foreignKeySignature));
    for (const fk of wantFks) if (!haveFks.has(fk)) out.push(`table ${t}: foreign key ${fk} is missing`);
    for (const fk of haveFks) if (!wantFks.has(fk)) out.push(`table ${t}: foreign key ${fk} is not expected`);
  }
  return out;
}
