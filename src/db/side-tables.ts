// ZoneMinder 1.39's tables on the database of an older ZoneMinder (1.36, 1.38): tags, user
// preferences, notifications, reports, event data, AI, menu items, … have no place there. zmgate
// keeps them in tables of its own, `zmgate_side_<Table>`, created at start-up with 1.39's columns
// and indexes (no foreign keys: nothing of ZoneMinder's may be held up by them), and seeded as
// 1.39 seeds them. Every statement of the app's two pools has the 1.39 name replaced by the side
// table's (TableNames), so features and Prisma models read and write them as usual.
//
// ZoneMinder never reads these names and its own upgrade (zmupdate.pl running db/zm_update-*.sql)
// cannot collide with them. Once the upgrade has created the real table, the next start copies
// the side rows into it (rows whose keys are taken are kept aside, not overwritten) and renames
// the side table `zmgate_moved_<Table>`, kept as a copy. docs/zoneminder/coexistence.md, "Side
// tables".
//
// Per-monitor permissions: on a database with Users.MonitorIds (1.36), which ZoneMinder's own UI
// and API enforce, Monitors_Permissions is kept beside it too, filled from MonitorIds when it is
// created; every v3 write to it is written back to MonitorIds (features/users/permissions-service.ts),
// which stays what both ZoneMinder and zmgate enforce. Group and role permissions have no
// counterpart there and are not kept (their routes answer 503).
import type { Logger } from '../log.js';
import { createTable, quoteIdent } from './converge/ddl.js';
import type { Queryable } from './converge/introspect.js';
import { targetSchema } from './schema/index.js';
import { seedEmptyTables } from './seed/index.js';
import { writeRowsFromMonitorIds } from './migrations/monitor-permissions.js';

export const SIDE_PREFIX = 'zmgate_side_';
export const MOVED_PREFIX = 'zmgate_moved_';

/** The 1.39 tables zmgate keeps beside an older ZoneMinder. */
export const SIDE_TABLES: readonly string[] = [
  'Tags',
  'Events_Tags',
  'User_Preferences',
  'Notifications',
  'Reports',
  'Event_Data',
  'Events_Lock',
  'Menu_Items',
  'Object_Types',
  'EncoderTemplates',
  'Server_Stats',
  'AI_Datasets',
  'AI_Models',
  'AI_Object_Classes',
  'AI_Detection_Settings',
  'AI_Detections',
];

/** Kept beside a database whose Users still have MonitorIds (1.36): the v3 face of those lists. */
export const MONITOR_PERMISSIONS = 'Monitors_Permissions';

/** Moved without their Id (a fresh one is given): the rows are told apart by (MonitorId, UserId). */
const MOVED_WITHOUT_ID = new Set([MONITOR_PERMISSIONS]);

/** 1.39 names of tables an older ZoneMinder has under another name, with the same columns. */
export const RENAMED_TABLES: Readonly<Record<string, string>> = { Snapshots_Events: 'Snapshot_Events' };

// One token at a time: quoted strings are skipped, identifiers (bare or in backquotes) replaced.
const TOKEN = /'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*"|`((?:[^`]|``)+)`|([A-Za-z_][A-Za-z0-9_$]*)/g;

/**
 * Where the app's statements find the 1.39 tables an older database lacks. Empty (the common case,
 * a 1.39 database): statements go through unchanged at the cost of one size check.
 */
export class TableNames {
  readonly #map = new Map<string, string>();
  #quick: RegExp | null = null;

  constructor(entries: Iterable<[string, string]> = []) {
    for (const [from, to] of entries) this.#map.set(from, to);
    if (this.#map.size) this.#quick = new RegExp(`\\b(?:${[...this.#map.keys()].join('|')})\\b`);
  }

  get size(): number {
    return this.#map.size;
  }

  /** The live name of a 1.39 table. */
  of(table: string): string {
    return this.#map.get(table) ?? table;
  }

  entries(): IterableIterator<[string, string]> {
    return this.#map.entries();
  }

  /** `sql` with every identifier naming a mapped table replaced (never inside a quoted string). */
  rewrite(sql: string): string {
    if (!this.#quick || !this.#quick.test(sql)) return sql;
    return sql.replace(TOKEN, (token, quoted: string | undefined, bare: string | undefined) => {
      const name = quoted ?? bare;
      const to = name === undefined ? undefined : this.#map.get(name);
      if (to === undefined) return token;
      return quoted !== undefined ? quoteIdent(to) : to;
    });
  }
}

const rewritten = (names: TableNames, statement: unknown): unknown => {
  if (typeof statement === 'string') return names.rewrite(statement);
  if (statement && typeof statement === 'object' && typeof (statement as { sql?: unknown }).sql === 'string') {
    const s = statement as { sql: string };
    return { ...s, sql: names.rewrite(s.sql) };
  }
  return statement;
};

/**
 * A view of a mariadb pool or connection whose query()/execute()/prepare() statements go through
 * `names` (connections taken from it too, for transactions). The pool itself when nothing is mapped.
 */
export function withTableNames<T extends object>(target: T, names: TableNames): T {
  if (!names.size) return target;
  return new Proxy(target, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== 'function') return value;
      if (prop === 'query' || prop === 'execute' || prop === 'prepare' || prop === 'queryStream') {
        return (statement: unknown, ...rest: unknown[]) => value.call(obj, rewritten(names, statement), ...rest);
      }
      if (prop === 'getConnection') {
        return async (...args: unknown[]) => withTableNames((await value.apply(obj, args)) as object, names);
      }
      return value.bind(obj);
    },
  });
}

async function liveTables(conn: Queryable): Promise<Set<string>> {
  const rows = (await conn.query(
    'SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()',
  )) as Array<{ name: string }>;
  return new Set(rows.map((r) => String(r.name)));
}

/**
 * On the database of an older ZoneMinder, at start-up: creates the side tables that are missing
 * (seeded as 1.39 seeds them) and returns the names every statement must use. A table that
 * cannot be created (no CREATE privilege) stays unmapped, and its routes answer 503 as before.
 */
export async function prepareSideTables(conn: Queryable, log: Logger): Promise<TableNames> {
  const live = await liveTables(conn);
  const schema = targetSchema();
  const map: Array<[string, string]> = [];
  const created: string[] = [];
  const [monitorIds] = (await conn.query(
    "SELECT COUNT(*) AS n FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'Users' AND COLUMN_NAME = 'MonitorIds'",
  )) as Array<{ n: number | bigint }>;
  const wanted = Number(monitorIds?.n ?? 0) > 0 ? [...SIDE_TABLES, MONITOR_PERMISSIONS] : SIDE_TABLES;
  for (const name of wanted) {
    if (live.has(name)) continue;
    const def = schema.tables.find((t) => t.name === name);
    if (!def) continue;
    const side = SIDE_PREFIX + name;
    if (!live.has(side)) {
      try {
        await conn.query(createTable({ ...def, name: side, foreignKeys: [] }, []));
        created.push(name);
      } catch (err) {
        log.warn(
          { table: side, err: { message: (err as Error).message } },
          `cannot create ${side} beside this ZoneMinder (${(err as Error).message}); the routes that need ${name} answer 503`,
        );
        continue;
      }
    }
    map.push([name, side]);
  }
  for (const [name, older] of Object.entries(RENAMED_TABLES)) {
    if (!live.has(name) && live.has(older)) map.push([name, older]);
  }
  const names = new TableNames(map);
  if (created.length) {
    // 1.39's seed rows (the COCO dataset, encoder templates, menu items, …), only into tables just made.
    const renamed = withTableNames(conn, names);
    await seedEmptyTables(renamed, created);
    if (created.includes(MONITOR_PERMISSIONS)) {
      const warnings: string[] = [];
      await writeRowsFromMonitorIds(renamed, warnings);
      for (const w of warnings) log.warn(w);
    }
    log.info({ tables: created.map((t) => SIDE_PREFIX + t) }, `side tables created for ${created.join(', ')}`);
  }
  return names;
}

/**
 * After ZoneMinder's own upgrade created the real tables: copies each side table's rows into the
 * real one (a row whose key is taken there is skipped and stays in the copy) and renames the side
 * table `zmgate_moved_<Table>`. Returns the rows copied by table.
 */
export async function moveSideTables(conn: Queryable, log: Logger): Promise<Record<string, number>> {
  const live = await liveTables(conn);
  const moved: Record<string, number> = {};
  for (const name of [...SIDE_TABLES, MONITOR_PERMISSIONS]) {
    const side = SIDE_PREFIX + name;
    if (!live.has(side) || !live.has(name)) continue;
    const columns = (
      (await conn.query(
        `SELECT s.COLUMN_NAME AS name FROM information_schema.COLUMNS s
           JOIN information_schema.COLUMNS t ON t.TABLE_SCHEMA = s.TABLE_SCHEMA AND t.TABLE_NAME = ? AND t.COLUMN_NAME = s.COLUMN_NAME
          WHERE s.TABLE_SCHEMA = DATABASE() AND s.TABLE_NAME = ? ORDER BY s.ORDINAL_POSITION`,
        [name, side],
      )) as Array<{ name: string }>
    )
      .filter((c) => !(MOVED_WITHOUT_ID.has(name) && c.name === 'Id'))
      .map((c) => quoteIdent(String(c.name)));
    const target = MOVED_PREFIX + name;
    const copied = (await conn.query(
      `INSERT IGNORE INTO ${quoteIdent(name)} (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM ${quoteIdent(side)}`,
    )) as { affectedRows?: number };
    const taken = live.has(target) ? `${target}_${Date.now()}` : target;
    await conn.query(`RENAME TABLE ${quoteIdent(side)} TO ${quoteIdent(taken)}`);
    moved[name] = Number(copied.affectedRows ?? 0);
    log.info(
      { table: name, rows: moved[name], kept_as: taken },
      `ZoneMinder now has ${name}: ${moved[name]} row(s) of ${side} copied into it; the side table is kept as ${taken}`,
    );
  }
  return moved;
}
