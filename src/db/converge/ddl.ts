// Renders SQL from the declarative form. Each function returns one statement (no trailing ';'),
// so a step's statements can be sent one by one through the driver: no DELIMITER anywhere,
// a CREATE TRIGGER with a BEGIN … END body is a single statement.
import type { ColumnDef, ForeignKeyDef, IndexDef, TableDef, TriggerDef } from '../schema/types.js';

export function quoteIdent(name: string): string {
  if (!name || name.includes('\0')) throw new Error(`invalid SQL identifier: ${JSON.stringify(name)}`);
  return '`' + name.replaceAll('`', '``') + '`';
}

export function quoteString(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/** `Name` or a prefix part written 'Name(16)' -> `Name`(16). */
function indexPart(part: string): string {
  const prefix = /^(.*)\((\d+)\)$/.exec(part);
  return prefix ? `${quoteIdent(prefix[1])}(${prefix[2]})` : quoteIdent(part);
}

function identList(names: string[]): string {
  return names.map(quoteIdent).join(', ');
}

// The EXTRA values we know how to write back as DDL.
const EXTRA_DDL: Record<string, string> = {
  '': '',
  auto_increment: 'AUTO_INCREMENT',
  'on update current_timestamp()': 'ON UPDATE current_timestamp()',
};

export function columnDefinition(column: ColumnDef): string {
  const parts = [quoteIdent(column.name), column.type];
  if (column.charset) parts.push(`CHARACTER SET ${column.charset}`);
  if (column.collation) parts.push(`COLLATE ${column.collation}`);
  // NULL is written out: a bare TIMESTAMP column would otherwise become NOT NULL.
  parts.push(column.nullable ? 'NULL' : 'NOT NULL');
  // information_schema's COLUMN_DEFAULT text is already valid SQL: '0', "''", 'NULL', 'current_timestamp()'.
  if (column.default !== null) parts.push(`DEFAULT ${column.default}`);
  const extra = EXTRA_DDL[column.extra.toLowerCase()];
  if (extra === undefined) throw new Error(`column ${column.name}: cannot render EXTRA '${column.extra}'`);
  if (extra) parts.push(extra);
  return parts.join(' ');
}

export function indexDefinition(index: IndexDef): string {
  const parts = index.columns.map(indexPart).join(', ');
  if (index.name === 'PRIMARY') return `PRIMARY KEY (${parts})`;
  return `${index.unique ? 'UNIQUE KEY' : 'KEY'} ${quoteIdent(index.name)} (${parts})`;
}

/** `named: false` leaves the name to MariaDB (<table>_ibfk_<n>), for when ours is taken. */
export function foreignKeyDefinition(fk: ForeignKeyDef, named = true): string {
  const constraint = named ? `CONSTRAINT ${quoteIdent(fk.name)} ` : '';
  return (
    `${constraint}FOREIGN KEY (${identList(fk.columns)}) REFERENCES ${quoteIdent(fk.refTable)} (${identList(fk.refColumns)})` +
    ` ON DELETE ${fk.onDelete} ON UPDATE ${fk.onUpdate}`
  );
}

function tableOptions(table: Pick<TableDef, 'engine' | 'charset' | 'collation'>): string {
  const options: string[] = [];
  if (table.engine) options.push(`ENGINE=${table.engine}`);
  if (table.charset) options.push(`DEFAULT CHARSET=${table.charset}`);
  if (table.collation) options.push(`COLLATE=${table.collation}`);
  return options.length ? ' ' + options.join(' ') : '';
}

/** CREATE TABLE with its columns, indexes and the given foreign keys (default: all of them). */
export function createTable(table: TableDef, foreignKeys: ForeignKeyDef[] = table.foreignKeys): string {
  const lines = [
    ...table.columns.map(columnDefinition),
    ...table.indexes.map(indexDefinition),
    ...foreignKeys.map((fk) => foreignKeyDefinition(fk)),
  ];
  return `CREATE TABLE ${quoteIdent(table.name)} (\n  ${lines.join(',\n  ')}\n)${tableOptions(table)}`;
}

export function alterTable(table: string, clauses: string[]): string {
  return `ALTER TABLE ${quoteIdent(table)}\n  ${clauses.join(',\n  ')}`;
}

/** Position clause for ADD/MODIFY COLUMN: after the given column, or FIRST when null. */
function position(after: string | null): string {
  return after === null ? ' FIRST' : ` AFTER ${quoteIdent(after)}`;
}

export const clause = {
  addColumn: (column: ColumnDef, after: string | null) => `ADD COLUMN ${columnDefinition(column)}${position(after)}`,
  modifyColumn: (column: ColumnDef, after?: string | null) =>
    `MODIFY COLUMN ${columnDefinition(column)}${after === undefined ? '' : position(after)}`,
  dropIndex: (name: string) => (name === 'PRIMARY' ? 'DROP PRIMARY KEY' : `DROP INDEX ${quoteIdent(name)}`),
  addIndex: (index: IndexDef) => `ADD ${indexDefinition(index)}`,
  addForeignKey: (fk: ForeignKeyDef, named = true) => `ADD ${foreignKeyDefinition(fk, named)}`,
  dropForeignKey: (name: string) => `DROP FOREIGN KEY ${quoteIdent(name)}`,
  engine: (engine: string) => `ENGINE=${engine}`,
};

export function renameTable(from: string, to: string): string {
  return `RENAME TABLE ${quoteIdent(from)} TO ${quoteIdent(to)}`;
}

export function fillNulls(table: string, column: string, value: string): string {
  return `UPDATE ${quoteIdent(table)} SET ${quoteIdent(column)} = ${value} WHERE ${quoteIdent(column)} IS NULL`;
}

/**
 * CREATE TRIGGER as one statement. `orReplace` (MariaDB 10.1.4+) swaps a trigger atomically, so
 * ZoneMinder's writers never run in a window without it.
 */
export function createTrigger(trigger: TriggerDef, orReplace = false): string {
  if (!trigger.body) throw new Error(`trigger ${trigger.name} has no body`);
  return (
    `CREATE ${orReplace ? 'OR REPLACE ' : ''}TRIGGER ${quoteIdent(trigger.name)} ${trigger.timing} ${trigger.event}` +
    ` ON ${quoteIdent(trigger.table)} FOR EACH ROW\n${trigger.body}`
  );
}

export function dropTrigger(name: string): string {
  return `DROP TRIGGER IF EXISTS ${quoteIdent(name)}`;
}
