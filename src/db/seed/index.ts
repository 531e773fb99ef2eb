// ZoneMinder 1.39.22's seed rows and Config options (generated modules in ./data, see its
// README), and the code that writes them.
import { quoteIdent } from '../converge/ddl.js';
import type { Queryable } from '../converge/introspect.js';
import { ZONEMINDER_CONFIG } from './data/zoneminder-config.js';
import { ZONEMINDER_SEED_ROWS } from './data/zoneminder-rows.js';
import { insertSeedRows } from './insert.js';
import type { SeedTable } from './types.js';

export { ZONEMINDER_CONFIG, ZONEMINDER_SEED_ROWS, type SeedTable };
export { insertSeedRows, seedInsertSql } from './insert.js';
export { completeConfig, completeConfigSql, readConfigState, CONFIG_OPTION_COUNT, type ConfigState } from './config.js';

/** Tables that receive seed rows (Config aside). */
export const SEEDED_TABLES: readonly string[] = ZONEMINDER_SEED_ROWS.map((seed) => seed.table);

/** Writes every seed row and every Config option; for a new, empty database. Returns row counts by table. */
export async function seedNewDatabase(conn: Queryable): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const seed of [...ZONEMINDER_SEED_ROWS, ZONEMINDER_CONFIG])
    counts[seed.table] = await insertSeedRows(conn, seed);
  return counts;
}

/**
 * Seeds the given tables, each only while it is still empty: run again, it writes nothing.
 * Used by bridge for tables it has just created (e.g. the COCO dataset on a 1.36 database).
 */
export async function seedEmptyTables(conn: Queryable, tables: Iterable<string>): Promise<Record<string, number>> {
  const wanted = new Set(tables);
  const counts: Record<string, number> = {};
  for (const seed of ZONEMINDER_SEED_ROWS) {
    if (!wanted.has(seed.table)) continue;
    const [row] = (await conn.query(`SELECT COUNT(*) AS n FROM ${quoteIdent(seed.table)}`)) as { n: number | bigint }[];
    counts[seed.table] = Number(row.n) === 0 ? await insertSeedRows(conn, seed) : 0;
  }
  return counts;
}
