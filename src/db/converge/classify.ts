// Decides whether changing a column from one definition to another could lose data. The answer
// is conservative: a conversion we cannot prove lossless is reported as possibly lossy, with the
// reason. (The converger still runs it, in strict SQL mode, where a value that does not fit
// makes the ALTER fail instead of being truncated; the flag tells the operator beforehand.)
import type { ColumnDef } from '../schema/types.js';

interface ParsedType {
  base: string;
  args: string[];
  unsigned: boolean;
}

export function parseType(type: string): ParsedType {
  const match = /^(\w+)(?:\((.*)\))?((?:\s+\w+)*)$/.exec(type.trim().toLowerCase());
  if (!match) return { base: type.toLowerCase(), args: [], unsigned: false };
  return {
    base: match[1],
    args: match[2] === undefined ? [] : splitArgs(match[2]),
    unsigned: /\bunsigned\b/.test(match[3] ?? ''),
  };
}

// Splits "'a','b,c'" or "10,2" at top-level commas (quotes respected, '' is an escaped quote).
function splitArgs(args: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < args.length; i++) {
    const ch = args[i];
    if (ch === "'") {
      if (quoted && args[i + 1] === "'") {
        current += "''";
        i++;
        continue;
      }
      quoted = !quoted;
    }
    if (ch === ',' && !quoted) {
      out.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  out.push(current.trim());
  return out;
}

const INTEGER_BYTES: Record<string, number> = { tinyint: 1, smallint: 2, mediumint: 3, int: 4, integer: 4, bigint: 8 };
const STRINGS = new Set(['char', 'varchar']);
// Capacity in bytes of the text types.
const TEXT_BYTES: Record<string, number> = {
  tinytext: 255,
  text: 65_535,
  mediumtext: 16_777_215,
  longtext: 4_294_967_295,
};

/** Decimal digits needed for the largest magnitude of an integer type (without the sign). */
function integerDigits(bytes: number, unsigned: boolean): number {
  const max = unsigned ? 2n ** BigInt(bytes * 8) - 1n : 2n ** BigInt(bytes * 8 - 1);
  return max.toString().length;
}

/** Characters an exact numeric value may need when written as text. */
function numericChars(type: ParsedType): number | null {
  const bytes = INTEGER_BYTES[type.base];
  if (bytes) return integerDigits(bytes, type.unsigned) + (type.unsigned ? 0 : 1);
  if (type.base === 'decimal' || type.base === 'numeric') {
    const [precision = 10, scale = 0] = type.args.map(Number);
    return precision + (scale > 0 ? 1 : 0) + (type.unsigned ? 0 : 1);
  }
  return null;
}

/** Why converting `from` to `to` could lose or alter values; null when it cannot. */
function typeConversionRisk(from: ParsedType, to: ParsedType): string | null {
  const fromInt = INTEGER_BYTES[from.base];
  const toInt = INTEGER_BYTES[to.base];
  const signRisk = !from.unsigned && to.unsigned ? 'negative values do not fit an unsigned type' : null;

  if (fromInt && toInt) {
    if (signRisk) return signRisk;
    if (from.unsigned && !to.unsigned && toInt <= fromInt) return 'large unsigned values do not fit the signed type';
    return toInt >= fromInt ? null : 'the new integer type is smaller';
  }
  const isDecimal = (t: ParsedType) => t.base === 'decimal' || t.base === 'numeric';
  if (fromInt && isDecimal(to)) {
    if (signRisk) return signRisk;
    const [precision = 10, scale = 0] = to.args.map(Number);
    return precision - scale >= integerDigits(fromInt, from.unsigned)
      ? null
      : `decimal(${precision},${scale}) holds fewer integer digits than ${from.base}`;
  }
  if (isDecimal(from) && isDecimal(to)) {
    if (signRisk) return signRisk;
    const [p1 = 10, s1 = 0] = from.args.map(Number);
    const [p2 = 10, s2 = 0] = to.args.map(Number);
    if (s2 < s1) return 'fewer decimal places';
    return p2 - s2 >= p1 - s1 ? null : 'fewer integer digits';
  }
  if (from.base === 'float' && to.base === 'double') return null;
  if (from.base === to.base && (from.base === 'float' || from.base === 'double')) return signRisk;

  const chars = numericChars(from);
  if (chars !== null && STRINGS.has(to.base)) {
    return Number(to.args[0]) >= chars ? null : `${to.base}(${to.args[0]}) is too short for every ${from.base} value`;
  }
  if (chars !== null && TEXT_BYTES[to.base]) return null;

  if (STRINGS.has(from.base) && STRINGS.has(to.base)) {
    return Number(to.args[0]) >= Number(from.args[0]) ? null : 'shorter string type';
  }
  if (STRINGS.has(from.base) && TEXT_BYTES[to.base]) {
    // Up to 4 bytes per character (utf8mb4).
    return Number(from.args[0]) * 4 <= TEXT_BYTES[to.base] ? null : `${to.base} may be too small`;
  }
  if (TEXT_BYTES[from.base] && TEXT_BYTES[to.base]) {
    return TEXT_BYTES[to.base] >= TEXT_BYTES[from.base] ? null : 'smaller text type';
  }
  if ((from.base === 'enum' && to.base === 'enum') || (from.base === 'set' && to.base === 'set')) {
    // ALTER maps values by name, so any superset of the old values keeps every row.
    const kept = new Set(to.args);
    const dropped = from.args.filter((value) => !kept.has(value));
    return dropped.length ? `values ${dropped.join(', ')} are no longer allowed` : null;
  }
  if (from.base === 'enum' && (STRINGS.has(to.base) || TEXT_BYTES[to.base])) {
    const longest = Math.max(...from.args.map((value) => value.length - 2));
    return TEXT_BYTES[to.base] || Number(to.args[0]) >= longest ? null : 'string type too short for the enum values';
  }
  const temporal = ['date', 'datetime', 'timestamp'];
  if (temporal.includes(from.base) && temporal.includes(to.base)) {
    if (to.base === 'date' && from.base !== 'date') return 'the time of day would be dropped';
    if (to.base === 'timestamp' && from.base !== 'timestamp') return 'timestamp covers a smaller range than datetime';
    const fsp = (t: ParsedType) => Number(t.args[0] ?? 0);
    return fsp(to) >= fsp(from) ? null : 'fewer fractional seconds';
  }
  return `no lossless conversion known from ${from.base} to ${to.base}`;
}

export interface ColumnChangeAssessment {
  /** The ALTER could lose or alter existing values. */
  lossy: boolean;
  reasons: string[];
  /** NULLs must become a value before the column can be NOT NULL. */
  needsNullFill: boolean;
}

export function assessColumnChange(from: ColumnDef, to: ColumnDef): ColumnChangeAssessment {
  const reasons: string[] = [];
  if (from.type.toLowerCase() !== to.type.toLowerCase()) {
    const risk = typeConversionRisk(parseType(from.type), parseType(to.type));
    if (risk) reasons.push(`${from.type} -> ${to.type}: ${risk}`);
  }
  if (to.charset && from.charset && to.charset !== from.charset && to.charset !== 'utf8mb4') {
    reasons.push(`character set ${from.charset} -> ${to.charset}: characters outside ${to.charset} cannot be kept`);
  }
  if (to.collation && from.collation && to.collation !== from.collation && !to.collation.endsWith('_bin')) {
    reasons.push(
      `collation ${from.collation} -> ${to.collation}: values equal under the new collation may clash in unique indexes`,
    );
  }
  const needsNullFill = from.nullable && !to.nullable;
  if (needsNullFill) reasons.push('becomes NOT NULL: existing NULLs are set to the default first');
  return { lossy: reasons.length > 0, reasons, needsNullFill };
}

/** The value NULLs are replaced with before a column becomes NOT NULL. */
export function nullFillValue(column: ColumnDef): string {
  if (column.default !== null && column.default.toUpperCase() !== 'NULL') return column.default;
  const type = parseType(column.type);
  if (type.base === 'enum') return type.args[0] ?? "''";
  if (INTEGER_BYTES[type.base] || ['decimal', 'numeric', 'float', 'double', 'bit', 'year'].includes(type.base))
    return '0';
  if (['date', 'datetime', 'timestamp', 'time'].includes(type.base)) return 'current_timestamp()';
  return "''";
}
