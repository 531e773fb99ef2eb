// One column -> one Prisma scalar field: type, native type attribute and default, following what
// `prisma db pull` does for MySQL/MariaDB, with two deliberate differences (see DATETIME below).
import type { DbColumn } from './prisma-read-schema.js';

export interface EnumValue {
  /** The Prisma identifier. */
  name: string;
  /** The stored value, when it differs from `name` (rendered as @map). */
  map: string | null;
}

export interface ScalarField {
  /** Prisma type without `?`: Int, String, Events_Orientation, Unsupported("…"), … */
  type: string;
  optional: boolean;
  /** `@db.X` attribute or null when the Prisma default native type already matches. */
  native: string | null;
  /** `@default(…)` attribute or null. */
  default: string | null;
  /** Set when the column is an ENUM: the values in declared order. */
  enumValues?: EnumValue[];
}

const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_]*$/;

/** A Prisma identifier for `name`: unchanged when already valid. */
export function identifier(name: string, fallback = 'unnamed'): string {
  if (IDENTIFIER.test(name)) return name;
  const cleaned = name.replace(/[^A-Za-z0-9_]/g, '_');
  if (cleaned === '' || /^_*$/.test(cleaned)) return fallback;
  return /^[A-Za-z]/.test(cleaned) ? cleaned : `v${cleaned}`;
}

interface ParsedType {
  base: string;
  args: string[];
  unsigned: boolean;
}

function parseType(columnType: string): ParsedType {
  const match = /^(\w+)(?:\((.*)\))?(.*)$/s.exec(columnType.trim());
  if (!match) return { base: columnType, args: [], unsigned: false };
  return {
    base: match[1].toLowerCase(),
    args: match[2] === undefined ? [] : splitList(match[2]),
    unsigned: /\bunsigned\b/i.test(match[3]),
  };
}

/** "'a','b,c','it''s'" -> ["'a'", "'b,c'", "'it''s'"]; "10,2" -> ["10", "2"]. */
function splitList(list: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < list.length; i++) {
    const ch = list[i];
    if (ch === "'" && quoted && list[i + 1] === "'") {
      current += "''";
      i++;
      continue;
    }
    if (ch === "'") quoted = !quoted;
    if (ch === ',' && !quoted) {
      out.push(current.trim());
      current = '';
    } else current += ch;
  }
  out.push(current.trim());
  return out;
}

/** The text of a quoted SQL literal as information_schema shows it ('it''s', 'a\\b'). */
export function unquote(literal: string): string {
  return literal
    .slice(1, -1)
    .replace(/''/g, "'")
    .replace(/\\(.)/gs, (_, ch: string) => ({ n: '\n', r: '\r', t: '\t', '0': '\0', Z: '\x1a' })[ch] ?? ch);
}

function enumValues(args: string[]): EnumValue[] {
  const taken = new Set<string>();
  return args.map((arg) => {
    const value = unquote(arg);
    let name = value === '' ? 'EMPTY_ENUM_VALUE' : identifier(value);
    for (let n = 2; taken.has(name); n++) name = `${identifier(value)}_${n}`;
    taken.add(name);
    return { name, map: name === value ? null : value };
  });
}

const INTS: Record<string, [signed: string | null, unsigned: string]> = {
  tinyint: ['TinyInt', 'UnsignedTinyInt'],
  smallint: ['SmallInt', 'UnsignedSmallInt'],
  mediumint: ['MediumInt', 'UnsignedMediumInt'],
  int: [null, 'UnsignedInt'],
  integer: [null, 'UnsignedInt'],
};
const TEXTS: Record<string, string> = {
  tinytext: 'TinyText',
  text: 'Text',
  mediumtext: 'MediumText',
  longtext: 'LongText',
};
const BLOBS: Record<string, string> = {
  tinyblob: 'TinyBlob',
  blob: 'Blob',
  mediumblob: 'MediumBlob',
  longblob: 'LongBlob',
};

/** Type and native attribute, before defaults. `enumName` is used when the column is an ENUM. */
function mapType(column: DbColumn, enumName: string): Omit<ScalarField, 'default' | 'optional'> {
  const t = parseType(column.columnType);
  const n = (name: string) => `@db.${name}`;
  const arg = (i: number, dflt: string) => t.args[i] ?? dflt;
  if (t.base === 'tinyint' && !t.unsigned && t.args[0] === '1') return { type: 'Boolean', native: null };
  if (INTS[t.base]) {
    const [signed, unsigned] = INTS[t.base];
    const native = t.unsigned ? unsigned : signed;
    return { type: 'Int', native: native ? n(native) : null };
  }
  switch (t.base) {
    case 'bigint':
      return { type: 'BigInt', native: t.unsigned ? n('UnsignedBigInt') : null };
    case 'decimal':
    case 'numeric':
      return { type: 'Decimal', native: n(`Decimal(${arg(0, '10')}, ${arg(1, '0')})`) };
    case 'float':
      return { type: 'Float', native: n('Float') };
    case 'double':
    case 'real':
      return { type: 'Float', native: null };
    case 'bit':
      return arg(0, '1') === '1'
        ? { type: 'Boolean', native: n('Bit(1)') }
        : { type: 'Bytes', native: n(`Bit(${t.args[0]})`) };
    case 'char':
      return { type: 'String', native: n(`Char(${arg(0, '1')})`) };
    case 'varchar':
      return { type: 'String', native: n(`VarChar(${t.args[0]})`) };
    case 'binary':
      return { type: 'Bytes', native: n(`Binary(${arg(0, '1')})`) };
    case 'varbinary':
      return { type: 'Bytes', native: n(`VarBinary(${t.args[0]})`) };
    case 'date':
      return { type: 'DateTime', native: n('Date') };
    case 'datetime':
      return { type: 'DateTime', native: n(`DateTime(${arg(0, '0')})`) };
    case 'timestamp':
      return { type: 'DateTime', native: n(`Timestamp(${arg(0, '0')})`) };
    case 'time':
      return { type: 'DateTime', native: n(`Time(${arg(0, '0')})`) };
    case 'year':
      return { type: 'Int', native: n('Year') };
    case 'json':
      return { type: 'Json', native: null };
    case 'enum':
      return { type: enumName, native: null, enumValues: enumValues(t.args) };
    case 'set':
      // Prisma has no SET type; the comma-separated string is what MariaDB reads and writes.
      return { type: 'String', native: null };
  }
  if (TEXTS[t.base]) return { type: 'String', native: n(TEXTS[t.base]) };
  if (BLOBS[t.base]) return { type: 'Bytes', native: n(BLOBS[t.base]) };
  return { type: `Unsupported(${JSON.stringify(column.columnType)})`, native: null };
}

const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

const dbgenerated = (sql: string) => `@default(dbgenerated(${JSON.stringify(sql)}))`;

function mapDefault(column: DbColumn, field: Omit<ScalarField, 'default' | 'optional'>): string | null {
  if (/\bauto_increment\b/.test(column.extra)) return '@default(autoincrement())';
  const def = column.default;
  if (def === null || def.toUpperCase() === 'NULL') return null;
  const quoted = /^'.*'$/s.test(def);
  const text = quoted ? unquote(def) : def;
  // DATETIME: Prisma's now() is computed in the client and written as UTC wall-clock, but
  // ZoneMinder's columns hold local time, so the database's own clock must fill them.
  if (field.type === 'DateTime') return dbgenerated(def);
  if (field.enumValues) {
    const value = field.enumValues.find((v) => (v.map ?? v.name) === text);
    return value ? `@default(${value.name})` : dbgenerated(def);
  }
  switch (field.type) {
    case 'Boolean':
      return text === '0' || text === '1' ? `@default(${text === '1'})` : dbgenerated(def);
    case 'Int':
    case 'BigInt':
      return /^-?\d+$/.test(text) ? `@default(${text})` : dbgenerated(def);
    case 'Float':
    case 'Decimal':
      return NUMBER.test(text) ? `@default(${text})` : dbgenerated(def);
    case 'String':
      return quoted ? `@default(${JSON.stringify(text)})` : dbgenerated(def);
    default:
      return dbgenerated(def);
  }
}

export function scalarField(column: DbColumn, enumName: string): ScalarField {
  const mapped = mapType(column, enumName);
  return {
    ...mapped,
    // DATETIMEs are optional even when NOT NULL: a zero date ('0000-00-00 00:00:00') reads as
    // null (src/db/prisma-zero-dates.ts), and the types must say so.
    optional: column.nullable || mapped.type === 'DateTime',
    default: mapDefault(column, mapped),
  };
}
