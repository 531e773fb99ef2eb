// Prisma results -> plain JSON values. JSON.stringify alone gets three things wrong here:
// - BigInt (Events.Id, DiskSpace, …) throws "Do not know how to serialize a BigInt";
// - DateTime: Date.toJSON() appends 'Z' to what is local wall-clock time (src/db/datetime.ts);
// - Decimal: serialised as a string already, but with trailing zeros dropped ("0" for 0.00).
// A JSON.stringify replacer cannot fix the last two: toJSON() runs before the replacer sees
// the value. So values are converted up front, recursively.
import { Decimal } from '@prisma/client-runtime-utils';
import { toLocalDateTimeString } from './datetime.js';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * bigint -> number when it is a safe integer (every real id and byte count), else a decimal
 * string rather than a silently rounded number.
 */
export function bigintToJson(value: bigint): number | string {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value.toString();
}

/**
 * Decimal -> string in plain notation (never exponent form), as ZoneMinder's API sends event
 * Length ("579.93"). With `scale` (the column's, e.g. 2 for decimal(10,2)) it keeps exactly that
 * many places, so 0.00 stays "0.00".
 */
export function decimalToString(value: Decimal, scale?: number): string {
  return scale === undefined ? value.toFixed() : value.toFixed(scale);
}

/**
 * Deep conversion of a query result: bigint as above, Decimal -> string, Date -> local
 * 'YYYY-MM-DDTHH:MM:SS' (null if invalid), Uint8Array (Bytes) -> base64, undefined keys dropped.
 */
export function toJson(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'bigint':
      return bigintToJson(value);
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'string':
    case 'boolean':
      return value;
    case 'object':
      break;
    default:
      return null; // functions and symbols have no JSON form
  }
  if (value instanceof Date) return toLocalDateTimeString(value);
  if (Decimal.isDecimal(value)) return decimalToString(value);
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (Array.isArray(value)) return value.map(toJson);
  const out: { [key: string]: JsonValue } = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = toJson(item);
  return out;
}

/** JSON text for a query result, e.g. for res.type('json').send(stringifyJson(rows)). */
export function stringifyJson(value: unknown): string {
  return JSON.stringify(toJson(value));
}
