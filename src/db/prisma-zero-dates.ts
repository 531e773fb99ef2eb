// Zero and invalid dates read as null.
//
// ZoneMinder databases can hold '0000-00-00 00:00:00' (or '2024-00-10 …') in DATETIME and
// TIMESTAMP columns: written with sql_mode='' or by old versions. @prisma/adapter-mariadb 7.10
// turns every DATETIME into `new Date(value + 'Z').toISOString()`, which throws RangeError
// "Invalid time value" for such a value, so ONE bad row would break every query that reads the
// table. The adapter forces its own per-query driver options (dateStrings, typeCast), so no pool
// setting can fix it; SQL-side fixes (NULLIF per column, an UPDATE on ZoneMinder's data) are
// either per-query or not ours to run.
//
// The adapter documents that it accepts an existing pool. We give it one whose query() and
// execute() results (and those of connections taken for transactions) have such values replaced
// by null before the adapter sees them. The Prisma schema marks every DateTime optional, so the
// types say what can come back. test/db/prisma-client.test.ts pins the behaviour.
import type { FieldInfo, Pool, PoolConnection } from 'mariadb';

// Driver column types whose text the adapter or Prisma parses as a date.
const DATE_TYPES = new Set(['DATE', 'NEWDATE', 'DATETIME', 'DATETIME2', 'TIMESTAMP', 'TIMESTAMP2']);
const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?)?$/;

/** True for a real calendar date (and time); false for zero dates, zero parts and garbage. */
export function isValidDateText(text: string): boolean {
  const m = DATE_TEXT.exec(text);
  if (!m) return false;
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1, 7).map((part) => Number(part ?? 0));
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return false;
  return d <= [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Replaces invalid date strings in a driver result (array or object rows) by null, in place. */
export function nullInvalidDates<T>(result: T): T {
  if (!Array.isArray(result)) return result;
  const meta = (result as { meta?: FieldInfo[] }).meta;
  if (!Array.isArray(meta)) return result;
  const columns = meta.flatMap((field, i) => (DATE_TYPES.has(String(field.type)) ? [{ i, name: field.name() }] : []));
  if (!columns.length) return result;
  for (const row of result as unknown[]) {
    if (Array.isArray(row)) {
      for (const { i } of columns) if (typeof row[i] === 'string' && !isValidDateText(row[i])) row[i] = null;
    } else if (row && typeof row === 'object') {
      const record = row as Record<string, unknown>;
      for (const { name } of columns) {
        const value = record[name];
        if (typeof value === 'string' && !isValidDateText(value)) record[name] = null;
      }
    }
  }
  return result;
}

/**
 * SET columns (Monitors.Triggers) as the comma-separated text MariaDB stores. The driver splits
 * them into arrays, which Prisma refuses for a String field ("Expected a string in column
 * 'Triggers', got object"), so without this no Monitors row could be read at all.
 */
export function joinSetColumns<T>(result: T): T {
  if (!Array.isArray(result)) return result;
  const meta = (result as { meta?: Array<FieldInfo & { isSet?: () => boolean }> }).meta;
  if (!Array.isArray(meta)) return result;
  const columns = meta.flatMap((field, i) => (field.isSet?.() ? [{ i, name: field.name() }] : []));
  if (!columns.length) return result;
  for (const row of result as unknown[]) {
    if (Array.isArray(row)) {
      for (const { i } of columns) if (Array.isArray(row[i])) row[i] = row[i].join(',');
    } else if (row && typeof row === 'object') {
      const record = row as Record<string, unknown>;
      for (const { name } of columns)
        if (Array.isArray(record[name])) record[name] = (record[name] as string[]).join(',');
    }
  }
  return result;
}

type Queryable = Pick<Pool, 'query' | 'execute'>;

/** A view of a pool (or connection) whose query()/execute() results go through nullInvalidDates() and joinSetColumns(). */
export function withZeroDatesAsNull<T extends Queryable>(target: T): T {
  return new Proxy(target, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== 'function') return value;
      if (prop === 'query' || prop === 'execute') {
        return async (...args: unknown[]) => joinSetColumns(nullInvalidDates(await value.apply(obj, args)));
      }
      if (prop === 'getConnection') {
        // Transactions run on a connection taken from the pool: wrap it the same way.
        return async (...args: unknown[]) => withZeroDatesAsNull((await value.apply(obj, args)) as PoolConnection);
      }
      return value.bind(obj);
    },
  });
}
