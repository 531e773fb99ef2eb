// Deletes in small autocommitted statements so that pruning a table of millions of rows never
// holds its locks for long: each statement removes at most `batch` rows, and other writers
// (zmc logging, the web UI) get their turn between statements.
import type { DbPool } from '../../db/pool.js';

export interface BatchStats {
  rows: number;
  statements: number;
  /** The longest single statement, in milliseconds (a bound on how long any lock was held). */
  longestMs: number;
}

/**
 * Rows per statement. Logs has five indexes; at 5,000 rows a statement took up to 4 s on the
 * bench machine, at 1,000 well under one (bench/maintenance.ts).
 */
export const DEFAULT_BATCH = 1000;

export const emptyBatchStats = (): BatchStats => ({ rows: 0, statements: 0, longestMs: 0 });

/**
 * Returns the rows this call deleted; `stats` (shared by the steps of a pass) adds them up.
 * Runs `sql` (a DELETE without LIMIT) with `LIMIT batch` appended until a statement removes
 * fewer rows than the batch, or `maxRows` are gone.
 */
export async function deleteInBatches(
  pool: DbPool,
  sql: string,
  params: unknown[],
  options: { batch?: number; maxRows?: number; stats?: BatchStats } = {},
): Promise<number> {
  const batch = options.batch ?? DEFAULT_BATCH;
  const stats = options.stats ?? emptyBatchStats();
  let deleted = 0;
  let remaining = options.maxRows ?? Number.POSITIVE_INFINITY;
  while (remaining > 0) {
    const limit = Math.min(batch, remaining);
    const t0 = performance.now();
    const res = await pool.query<{ affectedRows: number }>(`${sql} LIMIT ${limit}`, params);
    stats.longestMs = Math.max(stats.longestMs, performance.now() - t0);
    stats.statements += 1;
    stats.rows += res.affectedRows;
    deleted += res.affectedRows;
    remaining -= res.affectedRows;
    if (res.affectedRows < limit) break;
  }
  return deleted;
}

/**
 * The same for tables with delete triggers (the event buckets), where MariaDB's affected-row
 * count includes the rows the triggers changed: the keys are selected first, then deleted by
 * primary key, and the count is the number of keys.
 */
export async function deleteKeysInBatches(
  pool: DbPool,
  table: string,
  key: string,
  where: string,
  params: unknown[],
  options: { batch?: number; stats?: BatchStats } = {},
): Promise<number> {
  const batch = options.batch ?? DEFAULT_BATCH;
  const stats = options.stats ?? emptyBatchStats();
  let deleted = 0;
  for (;;) {
    const rows = await pool.query<Array<Record<string, unknown>>>(
      `SELECT ${key} AS k FROM ${table} WHERE ${where} ORDER BY ${key} LIMIT ${batch}`,
      params,
    );
    if (!rows.length) break;
    const keys = rows.map((r) => r.k);
    const t0 = performance.now();
    await pool.query(`DELETE FROM ${table} WHERE ${key} IN (${keys.map(() => '?').join(',')}) AND ${where}`, [
      ...keys,
      ...params,
    ]);
    stats.longestMs = Math.max(stats.longestMs, performance.now() - t0);
    stats.statements += 1;
    stats.rows += keys.length;
    deleted += keys.length;
    if (keys.length < batch) break;
  }
  return deleted;
}
