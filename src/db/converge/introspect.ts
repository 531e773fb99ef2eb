// Reads one schema's tables, columns, indexes, foreign keys and triggers out of
// information_schema into the same declarative form as the target.
import type {
  ColumnDef,
  ForeignKeyAction,
  ForeignKeyDef,
  IndexDef,
  SchemaDef,
  TableDef,
  TriggerEvent,
  TriggerTiming,
} from '../schema/types.js';

/** Anything with the mariadb driver's query(): a Connection, PoolConnection or Pool. */
export interface Queryable {
  query(sql: string, values?: unknown): Promise<unknown>;
}

export interface LiveSchema extends SchemaDef {
  database: string;
  server: { version: string; mariadb: boolean };
  /** Views in the schema; never touched, reported as extras. */
  views: string[];
}

type Row = Record<string, unknown>;

async function rows(conn: Queryable, sql: string, values: unknown[]): Promise<Row[]> {
  const result = await conn.query(sql, values);
  return Array.isArray(result) ? (result as Row[]) : [];
}

const text = (value: unknown): string => (value === null || value === undefined ? '' : String(value));
const nullableText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

export async function introspectSchema(conn: Queryable, database: string): Promise<LiveSchema> {
  const [versionRow] = await rows(conn, 'SELECT VERSION() AS version', []);
  const version = text(versionRow?.version);

  const tableRows = await rows(
    conn,
    `SELECT t.TABLE_NAME AS name, t.TABLE_TYPE AS type, t.ENGINE AS engine, t.TABLE_COLLATION AS collation,
            c.CHARACTER_SET_NAME AS charset
       FROM information_schema.TABLES t
       LEFT JOIN information_schema.COLLATION_CHARACTER_SET_APPLICABILITY c ON c.COLLATION_NAME = t.TABLE_COLLATION
      WHERE t.TABLE_SCHEMA = ?
      ORDER BY t.TABLE_NAME`,
    [database],
  );
  const tables = new Map<string, TableDef>();
  const views: string[] = [];
  for (const row of tableRows) {
    const name = text(row.name);
    if (text(row.type) !== 'BASE TABLE') {
      views.push(name);
      continue;
    }
    const table: TableDef = { name, columns: [], indexes: [], foreignKeys: [] };
    if (row.engine) table.engine = text(row.engine);
    if (row.charset) table.charset = text(row.charset);
    if (row.collation) table.collation = text(row.collation);
    tables.set(name, table);
  }

  const columnRows = await rows(
    conn,
    `SELECT TABLE_NAME AS tableName, COLUMN_NAME AS name, COLUMN_TYPE AS type, IS_NULLABLE AS nullable,
            COLUMN_DEFAULT AS def, EXTRA AS extra, CHARACTER_SET_NAME AS charset, COLLATION_NAME AS collation
       FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA = ?
      ORDER BY TABLE_NAME, ORDINAL_POSITION`,
    [database],
  );
  for (const row of columnRows) {
    const table = tables.get(text(row.tableName));
    if (!table) continue; // a view's columns
    const column: ColumnDef = {
      name: text(row.name),
      type: text(row.type),
      nullable: text(row.nullable) === 'YES',
      default: nullableText(row.def),
      extra: text(row.extra),
    };
    // Always recorded live; the comparison only looks at them where the target pins one.
    if (row.charset) column.charset = text(row.charset);
    if (row.collation) column.collation = text(row.collation);
    table.columns.push(column);
  }

  const indexRows = await rows(
    conn,
    `SELECT TABLE_NAME AS tableName, INDEX_NAME AS name, NON_UNIQUE AS nonUnique, COLUMN_NAME AS columnName,
            SUB_PART AS subPart
       FROM information_schema.STATISTICS
      WHERE TABLE_SCHEMA = ?
      ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`,
    [database],
  );
  const indexes = new Map<string, IndexDef>();
  for (const row of indexRows) {
    const tableName = text(row.tableName);
    const key = `${tableName}\0${text(row.name)}`;
    let index = indexes.get(key);
    if (!index) {
      index = { name: text(row.name), columns: [], unique: Number(row.nonUnique) === 0 };
      indexes.set(key, index);
      tables.get(tableName)?.indexes.push(index);
    }
    const subPart = row.subPart === null || row.subPart === undefined ? '' : `(${Number(row.subPart)})`;
    index.columns.push(text(row.columnName) + subPart);
  }

  const fkRows = await rows(
    conn,
    `SELECT r.TABLE_NAME AS tableName, r.CONSTRAINT_NAME AS name, r.REFERENCED_TABLE_NAME AS refTable,
            r.UPDATE_RULE AS onUpdate, r.DELETE_RULE AS onDelete, k.COLUMN_NAME AS columnName,
            k.REFERENCED_COLUMN_NAME AS refColumn
       FROM information_schema.REFERENTIAL_CONSTRAINTS r
       JOIN information_schema.KEY_COLUMN_USAGE k
         ON k.CONSTRAINT_SCHEMA = r.CONSTRAINT_SCHEMA AND k.CONSTRAINT_NAME = r.CONSTRAINT_NAME
        AND k.TABLE_NAME = r.TABLE_NAME AND k.REFERENCED_TABLE_NAME IS NOT NULL
      WHERE r.CONSTRAINT_SCHEMA = ?
      ORDER BY r.TABLE_NAME, r.CONSTRAINT_NAME, k.ORDINAL_POSITION`,
    [database],
  );
  const fks = new Map<string, ForeignKeyDef>();
  for (const row of fkRows) {
    const tableName = text(row.tableName);
    const key = `${tableName}\0${text(row.name)}`;
    let fk = fks.get(key);
    if (!fk) {
      fk = {
        name: text(row.name),
        columns: [],
        refTable: text(row.refTable),
        refColumns: [],
        onDelete: text(row.onDelete) as ForeignKeyAction,
        onUpdate: text(row.onUpdate) as ForeignKeyAction,
      };
      fks.set(key, fk);
      tables.get(tableName)?.foreignKeys.push(fk);
    }
    fk.columns.push(text(row.columnName));
    fk.refColumns.push(text(row.refColumn));
  }

  const triggerRows = await rows(
    conn,
    `SELECT TRIGGER_NAME AS name, EVENT_OBJECT_TABLE AS tableName, ACTION_TIMING AS timing,
            EVENT_MANIPULATION AS event, ACTION_STATEMENT AS body
       FROM information_schema.TRIGGERS
      WHERE TRIGGER_SCHEMA = ?
      ORDER BY TRIGGER_NAME`,
    [database],
  );
  const triggers = triggerRows.map((row) => ({
    name: text(row.name),
    table: text(row.tableName),
    timing: text(row.timing) as TriggerTiming,
    event: text(row.event) as TriggerEvent,
    body: text(row.body),
  }));

  return {
    database,
    server: { version, mariadb: /mariadb/i.test(version) },
    tables: [...tables.values()],
    views,
    triggers,
  };
}
