// ZoneMinder's own settings the maintenance jobs honour, read from the Config table on every
// pass (an operator may change them in the console at any time), and the parsers for the two
// that are free text. See docs/operations/maintenance.md.
import type { DbPool } from '../../db/pool.js';

export async function readZmSettings(pool: DbPool, names: string[]): Promise<Map<string, string>> {
  const rows = await pool.query<Array<{ Name: string; Value: string | null }>>(
    `SELECT Name, Value FROM Config WHERE Name IN (${names.map(() => '?').join(', ')})`,
    names,
  );
  return new Map(rows.map((r) => [r.Name, r.Value ?? '']));
}

export type LogLimit =
  | { kind: 'none' }
  | { kind: 'rows'; rows: number }
  | { kind: 'interval'; amount: number; unit: IntervalUnit }
  | { kind: 'invalid'; value: string };

const UNITS = ['SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR'] as const;
export type IntervalUnit = (typeof UNITS)[number];

/**
 * ZM_LOG_DATABASE_LIMIT: empty or 0 means no pruning; all digits is a maximum row count;
 * otherwise "<n> <unit>" with an optional plural "s" (`7 day`, `7 days`, `1 week`). ZoneMinder
 * pastes anything else into SQL; here anything else is refused (pruning off, reason logged).
 */
export function parseLogLimit(raw: string | undefined): LogLimit {
  const value = (raw ?? '').trim();
  if (value === '' || /^0+$/.test(value)) return { kind: 'none' };
  if (/^\d+$/.test(value)) {
    const rows = Number(value);
    return Number.isSafeInteger(rows) ? { kind: 'rows', rows } : { kind: 'invalid', value };
  }
  const m = /^(\d{1,9})\s*([a-z]+?)s?$/i.exec(value);
  const unit = m?.[2].toUpperCase();
  if (!m || !(UNITS as readonly string[]).includes(unit!) || Number(m[1]) === 0) return { kind: 'invalid', value };
  return { kind: 'interval', amount: Number(m[1]), unit: unit as IntervalUnit };
}

/**
 * ZM_TELEMETRY_INTERVAL: Perl evaluates it; the packaged value is `14*24*60*60`. Accepted here:
 * a positive number or a product of positive numbers. Returns seconds, or null.
 */
export function parseIntervalProduct(raw: string | undefined): number | null {
  const value = (raw ?? '').replace(/\s+/g, '');
  if (!/^\d+(\.\d+)?(\*\d+(\.\d+)?)*$/.test(value)) return null;
  const seconds = value.split('*').reduce((acc, n) => acc * Number(n), 1);
  return Number.isFinite(seconds) && seconds >= 1 ? Math.round(seconds) : null;
}

/** A whole number of seconds (ZM_COOKIE_LIFETIME), or null. */
export function parseSeconds(raw: string | undefined): number | null {
  const value = (raw ?? '').trim();
  return /^\d{1,10}$/.test(value) && Number(value) > 0 ? Number(value) : null;
}

/** Whether the connected schema has `table.column` (columns differ between 1.36 and 1.39). */
export async function hasColumn(pool: DbPool, table: string, column: string): Promise<boolean> {
  const rows = await pool.query(
    'SELECT 1 FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?',
    [table, column],
  );
  return rows.length > 0;
}

/** Whether the connected schema has `table` (Server_Stats is not in 1.36). */
export async function hasTable(pool: DbPool, table: string): Promise<boolean> {
  const rows = await pool.query(
    'SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?',
    [table],
  );
  return rows.length > 0;
}
