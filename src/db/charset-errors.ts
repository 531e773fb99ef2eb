// MariaDB's answers to values a column cannot hold: text outside its character set (a latin1
// column given "Łukasz", say: on ZoneMinder databases in latin1, and for the columns ZoneMinder
// pins to latin1 on every install, Users.Username and Tags.Name, see docs/zoneminder/charsets.md),
// and values outside the column's type (an older ZoneMinder's narrower ENUM or integer).
// - ER_TRUNCATED_WRONG_VALUE_FOR_FIELD (1366) on a write: the value cannot be stored.
// - ER_CANT_AGGREGATE_2/3/NCOLLATIONS (1267/1270/1271) on a comparison: the value cannot be
//   converted to the column's character set, so it cannot equal (or be part of) any stored value.

const ER_CANT_AGGREGATE = new Set([1267, 1270, 1271]);
const ER_TRUNCATED_WRONG_VALUE_FOR_FIELD = 1366;
const WARN_DATA_TRUNCATED = 1265;
const WARN_DATA_OUT_OF_RANGE = 1264;

interface DriverFacts {
  errno: number;
  message: string;
}

/** The driver's errno and message, from a mariadb SqlError or a Prisma error wrapping one. */
function driverFacts(err: unknown): DriverFacts | null {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const x = e as {
      errno?: unknown;
      sqlMessage?: unknown;
      message?: unknown;
      meta?: { driverAdapterError?: { cause?: { originalCode?: string; originalMessage?: string } } };
      cause?: unknown;
    };
    if (typeof x.errno === 'number') return { errno: x.errno, message: String(x.sqlMessage ?? x.message ?? '') };
    const cause = x.meta?.driverAdapterError?.cause;
    if (cause?.originalCode) return { errno: Number(cause.originalCode), message: String(cause.originalMessage ?? '') };
    e = x.meta?.driverAdapterError ?? x.cause;
  }
  return null;
}

/** True for a comparison with text the column's character set cannot represent. */
export function isCollationMismatch(err: unknown): boolean {
  const facts = driverFacts(err);
  return facts !== null && ER_CANT_AGGREGATE.has(facts.errno);
}

/**
 * The column (its bare name) that could not store a text value, or null when `err` is not that
 * error. "unknown" when the message names none.
 */
export function unstorableTextColumn(err: unknown): string | null {
  const facts = driverFacts(err);
  if (facts?.errno !== ER_TRUNCATED_WRONG_VALUE_FOR_FIELD) return null;
  // "Incorrect string value: '\xC5\x81...' for column `zm`.`Monitors`.`Name` at row 1"
  return columnNamed(facts.message);
}

/** The bare column name of a "... for column `db`.`table`.`col`" or "... for column 'col'" message. */
function columnNamed(message: string): string {
  const quoted = /for column (?:`[^`]*`\.)*`([^`]+)`/.exec(message) ?? /for column '([^']+)'/.exec(message);
  return quoted?.[1] ?? 'unknown';
}

/**
 * The column (its bare name) that could not store a value at all, or null when `err` is not that
 * error: MariaDB's "Data truncated for column" (1265) in strict mode, chiefly an ENUM value the
 * installed ZoneMinder's column lacks (1.36's Users.Monitors has no 'Create',
 * docs/zoneminder/coexistence.md), and "Out of range value for column" (1264), a number wider than
 * an older version's narrower column.
 */
export function unstorableValueColumn(err: unknown): string | null {
  const facts = driverFacts(err);
  if (facts?.errno !== WARN_DATA_TRUNCATED && facts?.errno !== WARN_DATA_OUT_OF_RANGE) return null;
  // "Data truncated for column 'Monitors' at row 1", "Out of range value for column 'Width' at row 1"
  return columnNamed(facts.message);
}

/**
 * What a Prisma read (or a filtered bulk write) returns when its filter compares a column with
 * text the column cannot hold: the answer for "no row matches". Operations that must find a row
 * throw P2025-like NotFound; anything else (create, upsert, aggregates) gets `undefined`, meaning
 * "rethrow". Filters that could still match every row (NOT, <>) are not distinguished: they too
 * get no rows, the conservative answer.
 */
export function noMatchResult(operation: string, args: unknown): { value: unknown } | 'not-found' | undefined {
  switch (operation) {
    case 'findMany':
    case 'groupBy':
    case '$queryRaw':
    case '$queryRawUnsafe':
      return { value: [] };
    case 'findFirst':
    case 'findUnique':
      return { value: null };
    case 'count':
      return (args as { select?: unknown } | undefined)?.select ? undefined : { value: 0 };
    case 'deleteMany':
    case 'updateMany':
      return { value: { count: 0 } };
    case '$executeRaw':
    case '$executeRawUnsafe':
      return { value: 0 };
    case 'findFirstOrThrow':
    case 'findUniqueOrThrow':
    case 'update':
    case 'delete':
      return 'not-found';
    default:
      return undefined;
  }
}
