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

/**
 * Deletes the oldest rows of `table` matching `where`, oldest first by (`order`, `id`), in
 * batches that never read the same index range twice: each batch reads the next `batch` keys
 * after a cursor (a plain consistent read, no locks), then deletes exactly those rows by
 * primary key in its own autocommitted statement (record locks on those rows only). A repeated
 * `DELETE … ORDER BY … LIMIT n` (zmstats.pl's way) starts every statement at the head of the
 * index and steps over the entries earlier statements delete-marked and the purge has not yet
 * removed, which it cannot while any other transaction keeps an old read view open (a backup).
 * bench/README.md has the measurements. Stops at `maxRows`, or when no matching row is left.
 * Only for tables without delete triggers (the affected-row count is the count of rows deleted).
 */
export async function deleteOldestInBatches(
  pool: DbPool,
  target: { table: string; order: string; id: string },
  where: string,
  params: unknown[],
  options: { batch?: number; maxRows?: number; stats?: BatchStats } = {},
): Promise<number> {
  const { table, order, id } = target;
  const batch = options.batch ?? DEFAULT_BATCH;
  const stats = options.stats ?? emptyBatchStats();
  let deleted = 0;
  let remaining = options.maxRows ?? Number.POSITIVE_INFINITY;
  let cursor: { o: unknown; k: unknown } | null = null;
  while (remaining > 0) {
    const limit = Math.min(batch, remaining);
    const after: string = cursor ? ` AND (${order} > ? OR (${order} = ? AND ${id} > ?))` : '';
    const rows: Array<{ k: unknown; o: unknown }> = await pool.query<Array<{ k: unknown; o: unknown }>>(
      `SELECT ${id} AS k, ${order} AS o FROM ${table} WHERE (${where})${after} ORDER BY ${order}, ${id} LIMIT ${limit}`,
      cursor ? [...params, cursor.o, cursor.o, cursor.k] : params,
    );
    stats.statements += 1;
    if (!rows.length) break;
    const t0 = performance.now();
    const res = await pool.query<{ affectedRows: number }>(
      `DELETE FROM ${table} WHERE ${id} IN (${rows.map(() => '?').join(',')}) AND (${where})`,
      [...rows.map((r) => r.k), ...params],
    );
    stats.longestMs = Math.max(stats.longestMs, performance.now() - t0);
    stats.statements += 1;
    stats.rows += res.affectedRows;
    deleted += res.affectedRows;
    remaining -= res.affectedRows;
    cursor = rows[rows.length - 1];
    if (rows.length < limit) break;
  }
  return deleted;
}
