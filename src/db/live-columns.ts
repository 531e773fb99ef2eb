// The columns the live database has, for the hand-written reads that must answer on every
// ZoneMinder version zmgate sits beside (1.36 to 1.39): a column the installed version lacks is
// read as a stand-in, its 1.39 default (the monitor modes: derived from Function, as 1.36's
// daemons read it). docs/zoneminder/coexistence.md, "Reading an older database".
import type { Pool } from 'mariadb';
import type { ColumnDef } from './schema/types.js';
import { targetSchema } from './schema/index.js';
import type { TableNames } from './side-tables.js';

/** How long the list of columns is trusted: a bridge while the service runs is seen this late. */
const TTL_MS = 60_000;

const q = (name: string) => `\`${name}\``;

/**
 * Stand-ins read from another column of the same row, when that column exists (1.36's Function
 * for 1.37.12's three mode columns; the mapping of docs/zoneminder/database.md).
 */
const DERIVED: Record<string, { from: string; sql: (col: string) => string }> = {
  'Monitors.Capturing': { from: 'Function', sql: (f) => `IF(${f} = 'None', 'None', 'Always')` },
  'Monitors.Analysing': { from: 'Function', sql: (f) => `IF(${f} IN ('Modect', 'Mocord'), 'Always', 'None')` },
  'Monitors.Recording': {
    from: 'Function',
    sql: (f) =>
      `CASE ${f} WHEN 'Record' THEN 'Always' WHEN 'Mocord' THEN 'Always' WHEN 'Modect' THEN 'OnMotion' WHEN 'Nodect' THEN 'OnMotion' ELSE 'None' END`,
  },
};

/**
 * The 1.39 default of a column, as an expression whose value reads like the column's own: a
 * FLOAT as a FLOAT (the driver widens the stored single, as it does the column's), a decimal as a DECIMAL (text, as the driver gives decimals), an
 * expression default (a current timestamp) as NULL.
 */
export function defaultExpression(column: ColumnDef): string {
  const d = column.default;
  if (d === null || d === 'NULL' || /\(/.test(d)) return 'NULL';
  const type = column.type.toLowerCase();
  if (/^float/.test(type)) return `CAST(${d} AS FLOAT)`;
  if (/^double/.test(type)) return `CAST(${d} AS DOUBLE)`;
  if (/^decimal/.test(type)) return `CAST(${d} AS ${type.replace(/ unsigned$/, '').toUpperCase()})`;
  return d;
}

/** The CAST target that reads a value as `column`'s 1.39 type. */
function castType(column: ColumnDef): string {
  const type = column.type.toLowerCase().replace(/ unsigned$/, '');
  if (/^decimal/.test(type)) return type.toUpperCase();
  if (/^(float|double)/.test(type)) return 'DOUBLE';
  if (/int/.test(type)) return 'SIGNED';
  return 'CHAR';
}

/** Tables → columns → DATA_TYPE. */
export type Tables = Map<string, Map<string, string>>;

/** The live database's columns, one row each. */
const COLUMNS_SQL =
  'SELECT TABLE_NAME AS t, COLUMN_NAME AS c, DATA_TYPE AS d FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()';

/**
 * The live database's tables and columns, read with `query` and trusted for TTL_MS (a failed read
 * is not kept: the next call asks again). Used by the driver reads here and by Prisma's
 * (older-schema.ts), each through its own connection pool.
 */
export function columnCatalog(
  query: (sql: string) => Promise<unknown>,
  names?: Pick<TableNames, 'entries'>,
): () => Promise<Tables> {
  let loaded: { at: number; tables: Promise<Tables> } | null = null;
  return () => {
    if (!loaded || Date.now() - loaded.at > TTL_MS) {
      const tables = query(COLUMNS_SQL).then((rows) => {
        const map: Tables = new Map();
        for (const { t, c, d } of rows as Array<{ t: string; c: string; d: string }>) {
          let columns = map.get(t);
          if (!columns) map.set(t, (columns = new Map()));
          columns.set(c, d);
        }
        // 1.39's tables kept beside an older ZoneMinder read as if they had their own names.
        for (const [name, side] of names?.entries() ?? []) {
          const columns = map.get(side);
          if (columns && !map.has(name)) map.set(name, columns);
        }
        return map;
      });
      loaded = { at: Date.now(), tables };
      tables.catch(() => {
        if (loaded?.tables === tables) loaded = null;
      });
    }
    return loaded.tables;
  };
}

/** The kind of value a column type holds, as far as Prisma's types tell them apart. */
export function kindOf(type: string): 'int' | 'decimal' | 'float' | 'date' | 'text' {
  const t = type.toLowerCase();
  if (/^(tinyint|smallint|mediumint|int|bigint)/.test(t)) return 'int';
  if (/^decimal/.test(t)) return 'decimal';
  if (/^(float|double)/.test(t)) return 'float';
  if (/^(date|time)/.test(t)) return 'date';
  return 'text';
}

export class LiveColumns {
  /** The live tables and their columns with their DATA_TYPE (refreshed after TTL_MS). */
  readonly tables: () => Promise<Tables>;
  /** Select lists built from `#from`'s tables, by the caller's column list and table/alias. */
  #lists = new WeakMap<readonly string[], Map<string, string>>();
  #from: Tables | null = null;

  /** `names`: 1.39's tables kept beside an older ZoneMinder (side-tables.ts), seen under their own names. */
  constructor(db: Pick<Pool, 'query'>, names?: TableNames) {
    this.tables = columnCatalog((sql) => db.query(sql), names);
  }

  async hasTable(table: string): Promise<boolean> {
    return (await this.tables()).has(table);
  }

  /**
   * The SELECT list for `columns` of `table` (each read under its own name, `alias.` prefixed
   * when given): the column where it exists, else its stand-in.
   */
  async selectList(table: string, columns: readonly string[], alias = ''): Promise<string> {
    const tables = await this.tables();
    if (tables !== this.#from) {
      this.#from = tables;
      this.#lists = new WeakMap();
    }
    let lists = this.#lists.get(columns);
    if (!lists) this.#lists.set(columns, (lists = new Map()));
    const key = `${table}.${alias}`;
    let list = lists.get(key);
    if (list === undefined) lists.set(key, (list = this.#build(tables, table, columns, alias)));
    return list;
  }

  #build(tables: Tables, table: string, columns: readonly string[], alias: string): string {
    const live = tables.get(table) ?? new Map<string, string>();
    const prefix = alias ? `${alias}.` : '';
    const target = targetSchema().tables.find((t) => t.name === table);
    return columns
      .map((name) => {
        const stored = live.get(name);
        const def = target?.columns.find((c) => c.name === name);
        if (stored !== undefined) {
          // Stored as another kind (1.36's DefaultScale a number, 1.39's text): read as 1.39's.
          if (def && kindOf(stored) !== kindOf(def.type))
            return `CAST(${prefix}${q(name)} AS ${castType(def)}) AS ${q(name)}`;
          return `${prefix}${q(name)}`;
        }
        const derived = DERIVED[`${table}.${name}`];
        if (derived && live.has(derived.from)) return `${derived.sql(prefix + q(derived.from))} AS ${q(name)}`;
        return `${def ? defaultExpression(def) : 'NULL'} AS ${q(name)}`;
      })
      .join(', ');
  }
}
