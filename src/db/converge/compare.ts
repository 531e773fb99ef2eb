// Equality rules shared by the planner and by diffSchemas(): what it means for a live column,
// index, foreign key or trigger to be "the same" as the target's.
import type { ColumnDef, ForeignKeyDef, IndexDef, TriggerDef } from '../schema/types.js';

export interface ColumnFieldDifference {
  field: 'type' | 'null' | 'default' | 'extra' | 'character set' | 'collation';
  live: string;
  target: string;
}

/** The fields in which a live column differs from the target column; empty when it matches. */
export function columnFieldDifferences(target: ColumnDef, live: ColumnDef): ColumnFieldDifference[] {
  const out: ColumnFieldDifference[] = [];
  const nullability = (nullable: boolean) => (nullable ? 'NULL' : 'NOT NULL');
  const show = (value: string | null | undefined) => (value === null || value === undefined ? '(none)' : value);
  if (live.type !== target.type) out.push({ field: 'type', live: live.type, target: target.type });
  if (live.nullable !== target.nullable)
    out.push({ field: 'null', live: nullability(live.nullable), target: nullability(target.nullable) });
  if (live.default !== target.default)
    out.push({ field: 'default', live: show(live.default), target: show(target.default) });
  if (live.extra.toLowerCase() !== target.extra.toLowerCase())
    out.push({ field: 'extra', live: `'${live.extra}'`, target: `'${target.extra}'` });
  // Character set and collation only count where the target pins them.
  if (target.charset && live.charset !== target.charset)
    out.push({ field: 'character set', live: show(live.charset), target: target.charset });
  if (target.collation && live.collation !== target.collation)
    out.push({ field: 'collation', live: show(live.collation), target: target.collation });
  return out;
}

/** Differences worded for a comparison: "type is varchar(32), expected text". */
export function columnDifferences(target: ColumnDef, live: ColumnDef): string[] {
  return columnFieldDifferences(target, live).map((d) =>
    d.field === 'null' ? `is ${d.live}, expected ${d.target}` : `${d.field} is ${d.live}, expected ${d.target}`,
  );
}

/** Differences worded as a change: "varchar(32) -> text; NOT NULL -> NULL; default '' -> NULL". */
export function describeColumnChange(target: ColumnDef, live: ColumnDef): string[] {
  return columnFieldDifferences(target, live).map((d) =>
    d.field === 'type' || d.field === 'null' ? `${d.live} -> ${d.target}` : `${d.field} ${d.live} -> ${d.target}`,
  );
}

export function indexMatches(target: IndexDef, live: IndexDef): boolean {
  return target.unique === live.unique && sameList(target.columns, live.columns);
}

export function describeIndex(index: IndexDef): string {
  return `${index.unique ? 'unique ' : ''}(${index.columns.join(', ')})`;
}

/**
 * What a foreign key does, independent of its name. InnoDB treats NO ACTION exactly as RESTRICT
 * (both check at once), and MariaDB reports a RESTRICT key added by an in-place ALTER as
 * NO ACTION, so the two compare equal.
 */
export function foreignKeySignature(fk: ForeignKeyDef): string {
  const action = (rule: string) => (rule === 'NO ACTION' ? 'RESTRICT' : rule);
  return `(${fk.columns.join(', ')}) -> ${fk.refTable}(${fk.refColumns.join(', ')}) ON DELETE ${action(fk.onDelete)} ON UPDATE ${action(fk.onUpdate)}`;
}

/** Same columns and referenced table and columns (the actions may differ). */
export function sameForeignKeyTarget(a: ForeignKeyDef, b: ForeignKeyDef): boolean {
  return sameList(a.columns, b.columns) && a.refTable === b.refTable && sameList(a.refColumns, b.refColumns);
}

/**
 * A trigger body reduced to what it does: comments dropped, whitespace collapsed, case folded
 * outside string literals. MariaDB returns the body exactly as it was sent, so formatting,
 * comments and keyword case are the only differences to ignore.
 */
export function normaliseTriggerBody(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === "'" || ch === '"' || ch === '`') {
      // Copy a quoted literal or identifier verbatim.
      let j = i + 1;
      while (j < body.length && !(body[j] === ch && body[j + 1] !== ch)) j += body[j] === ch ? 2 : 1;
      out += body.slice(i, j + 1);
      i = j;
    } else if (ch === '-' && body[i + 1] === '-' && /\s/.test(body[i + 2] ?? ' ')) {
      while (i < body.length && body[i] !== '\n') i++;
      out += ' ';
    } else if (ch === '#') {
      while (i < body.length && body[i] !== '\n') i++;
      out += ' ';
    } else if (ch === '/' && body[i + 1] === '*') {
      const end = body.indexOf('*/', i + 2);
      i = end === -1 ? body.length : end + 1;
      out += ' ';
    } else {
      out += /\s/.test(ch) ? ' ' : ch.toLowerCase();
    }
  }
  return out
    .replace(/\s+/g, ' ')
    .replace(/\s*([(),;=<>+\-*/])\s*/g, '$1')
    .replace(/;\s*$/, '')
    .trim();
}

export function triggerDifferences(target: TriggerDef, live: TriggerDef, compareBody: boolean): string[] {
  const out: string[] = [];
  if (live.table !== target.table) out.push(`is on ${live.table}, expected ${target.table}`);
  if (live.timing !== target.timing || live.event !== target.event) {
    out.push(`fires ${live.timing} ${live.event}, expected ${target.timing} ${target.event}`);
  }
  if (
    compareBody &&
    target.body !== undefined &&
    normaliseTriggerBody(live.body ?? '') !== normaliseTriggerBody(target.body)
  ) {
    out.push('body differs');
  }
  return out;
}

export function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
