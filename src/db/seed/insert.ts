// Writing seed rows: one multi-row INSERT per table, values as the dump spelled them.
import { quoteIdent } from '../converge/ddl.js';
import type { Queryable } from '../converge/introspect.js';
import type { SeedTable } from './types.js';

/** The INSERT for a whole seed table, with `?` placeholders; for dry runs and the schema log. */
export function seedInsertSql(seed: SeedTable, verb: 'INSERT' | 'INSERT IGNORE' = 'INSERT'): string {
  const columns = seed.columns.map(quoteIdent).join(', ');
  const tuple = `(${seed.columns.map(() => '?').join(', ')})`;
  return `${verb} INTO ${quoteIdent(seed.table)} (${columns}) VALUES ${seed.rows.map(() => tuple).join(', ')}`;
}

/**
 * Inserts `rows` (default: all of the seed's) into the seed's table. `ignore` skips rows whose
 * key already exists instead of failing. Returns the number of rows written.
 */
export async function insertSeedRows(
  conn: Queryable,
  seed: SeedTable,
  options: { ignore?: boolean; rows?: SeedTable['rows'] } = {},
): Promise<number> {
  const rows = options.rows ?? seed.rows;
  if (!rows.length) return 0;
  const sql = seedInsertSql({ ...seed, rows }, options.ignore ? 'INSERT IGNORE' : 'INSERT');
  const result = (await conn.query(sql, rows.flat())) as { affectedRows?: number };
  return Number(result.affectedRows ?? 0);
}
