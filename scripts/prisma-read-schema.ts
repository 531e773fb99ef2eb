// Reads what schema.prisma needs out of one database's information_schema: base tables (views
// are skipped: Prisma cannot write through them), columns, indexes and foreign keys. Kept apart
// from the renderer so the renderer stays a pure function that tests can feed directly.

/** Anything with the mariadb driver's query(): a Connection or a Pool. */
export interface Queryable {
  query(sql: string, values?: unknown): Promise<unknown>;
}

export interface DbColumn {
  name: string;
  /** DATA_TYPE, lower case: 'int', 'varchar', 'enum', … */
  dataType: string;
  /** COLUMN_TYPE, lower case except enum/set values: 'int(10) unsigned', "enum('A','b c')". */
  columnType: string;
  nullable: boolean;
  /** COLUMN_DEFAULT as MariaDB ≥ 10.2.7 spells it: "'text'", '0', 'NULL', 'current_timestamp()'; null = none. */
  default: string | null;
  /** EXTRA, lower case: 'auto_increment', 'on update current_timestamp()', … */
  extra: string;
}

export interface DbIndexPart {
  column: string;
  /** Prefix length (SUB_PART), e.g. 16 for `Name`(16). */
  length: number | null;
  desc: boolean;
}

export interface DbIndex {
  /** 'PRIMARY' for the primary key. */
  name: string;
  unique: boolean;
  /** BTREE, HASH, FULLTEXT, SPATIAL. */
  type: string;
  parts: DbIndexPart[];
}

export interface DbForeignKey {
  name: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
  onDelete: string;
  onUpdate: string;
}

export interface DbTable {
  name: string;
  columns: DbColumn[];
  indexes: DbIndex[];
  foreignKeys: DbForeignKey[];
}

type Row = Record<string, unknown>;

async function rows(conn: Queryable, sql: string, database: string): Promise<Row[]> {
  const result = await conn.query(sql, [database]);
  return Array.isArray(result) ? (result as Row[]) : [];
}

const str = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

/** Every base table of `database`, sorted by name (code point order, locale-independent). */
export async function readSchema(conn: Queryable, database: string): Promise<DbTable[]> {
  const tables = new Map<string, DbTable>();
  for (const row of await rows(
    conn,
    `SELECT TABLE_NAME AS name FROM information_schema.TABLES
      WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'`,
    database,
  )) {
    const name = str(row.name);
    tables.set(name, { name, columns: [], indexes: [], foreignKeys: [] });
  }

  for (const row of await rows(
    conn,
    `SELECT TABLE_NAME AS tableName, COLUMN_NAME AS name, DATA_TYPE AS dataType, COLUMN_TYPE AS columnType,
            IS_NULLABLE AS nullable, COLUMN_DEFAULT AS def, EXTRA AS extra
       FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA = ?
      ORDER BY TABLE_NAME, ORDINAL_POSITION`,
    database,
  )) {
    const columnType = str(row.columnType);
    // Lower-case the type words but keep enum/set values exactly as declared.
    const open = columnType.indexOf('(');
    const isList = /^(enum|set)\(/i.test(columnType);
    tables.get(str(row.tableName))?.columns.push({
      name: str(row.name),
      dataType: str(row.dataType).toLowerCase(),
      columnType: isList ? columnType.slice(0, open).toLowerCase() + columnType.slice(open) : columnType.toLowerCase(),
      nullable: str(row.nullable) === 'YES',
      default: row.def === null || row.def === undefined ? null : String(row.def),
      extra: str(row.extra).toLowerCase(),
    });
  }

  const indexes = new Map<string, DbIndex>();
  for (const row of await rows(
    conn,
    `SELECT TABLE_NAME AS tableName, INDEX_NAME AS name, NON_UNIQUE AS nonUnique, INDEX_TYPE AS type,
            COLUMN_NAME AS columnName, SUB_PART AS subPart, COLLATION AS collation
       FROM information_schema.STATISTICS
      WHERE TABLE_SCHEMA = ?
      ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`,
    database,
  )) {
    const key = `${str(row.tableName)}\0${str(row.name)}`;
    let index = indexes.get(key);
    if (!index) {
      index = {
        name: str(row.name),
        unique: Number(row.nonUnique) === 0,
        type: str(row.type).toUpperCase(),
        parts: [],
      };
      indexes.set(key, index);
      tables.get(str(row.tableName))?.indexes.push(index);
    }
    index.parts.push({
      column: str(row.columnName),
      length: row.subPart === null || row.subPart === undefined ? null : Number(row.subPart),
      desc: str(row.collation) === 'D',
    });
  }

  const fks = new Map<string, DbForeignKey>();
  for (const row of await rows(
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
    database,
  )) {
    const key = `${str(row.tableName)}\0${str(row.name)}`;
    let fk = fks.get(key);
    if (!fk) {
      fk = {
        name: str(row.name),
        columns: [],
        refTable: str(row.refTable),
        refColumns: [],
        onDelete: str(row.onDelete).toUpperCase(),
        onUpdate: str(row.onUpdate).toUpperCase(),
      };
      fks.set(key, fk);
      tables.get(str(row.tableName))?.foreignKeys.push(fk);
    }
    fk.columns.push(str(row.columnName));
    fk.refColumns.push(str(row.refColumn));
  }

  return [...tables.values()].sort((a, b) => compareNames(a.name, b.name));
}

/** Code point order, so the output does not depend on the machine's locale. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
