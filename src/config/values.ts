// Value types of the settings table: each converts a raw value (a TOML value, or a string
// from the environment) into the typed value, or says what would have been allowed.
import { isAbsolute } from 'node:path';

/** Thrown by a value type on an unacceptable value; the loader adds key and source. */
export class BadValue extends Error {
  constructor(readonly allowed: string) {
    super(allowed);
    this.name = 'BadValue';
  }
}

export interface ValueType<T> {
  /** What is allowed, as error messages say it. */
  readonly allowed: string;
  /** Throws BadValue. `fromEnv` means `raw` is an environment string to be coerced. */
  parse(raw: unknown, fromEnv: boolean): T;
}

export interface ListType extends ValueType<string[]> {
  /** Parses one item; used for indexed environment variables so errors name the variable. */
  readonly item: ValueType<string>;
}

export function int(min: number, max: number, allowed = `must be an integer ${min}..${max}`): ValueType<number> {
  return {
    allowed,
    parse(raw, fromEnv) {
      const n = fromEnv && typeof raw === 'string' && /^\s*[+-]?\d+\s*$/.test(raw) ? Number(raw) : raw;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) throw new BadValue(allowed);
      return n;
    },
  };
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

const BOOL_ALLOWED = 'must be a boolean (true or false; from the environment also 1/0, yes/no, on/off)';

export const bool: ValueType<boolean> = {
  allowed: BOOL_ALLOWED,
  parse(raw, fromEnv) {
    if (typeof raw === 'boolean') return raw;
    if (fromEnv && typeof raw === 'string') {
      const word = raw.trim().toLowerCase();
      if (TRUE_WORDS.has(word)) return true;
      if (FALSE_WORDS.has(word)) return false;
    }
    throw new BadValue(BOOL_ALLOWED);
  },
};

/** A string, optionally checked; `check` returns false to refuse. */
export function str(check?: (s: string) => boolean, allowed = 'must be a string'): ValueType<string> {
  return {
    allowed,
    parse(raw) {
      if (typeof raw !== 'string' || (check && !check(raw))) throw new BadValue(allowed);
      return raw;
    },
  };
}

export const nonEmpty = str((s) => s.trim() !== '', 'must be a non-empty string');
export const absolutePath = str((s) => isAbsolute(s), 'must be an absolute path');

/** An absolute path, or null when empty (TOML has no null, so "" means unset). */
const OPTIONAL_PATH_ALLOWED = 'must be an absolute path, or empty for none';

export const optionalAbsolutePath: ValueType<string | null> = {
  allowed: OPTIONAL_PATH_ALLOWED,
  parse(raw) {
    if (raw === '') return null;
    if (typeof raw !== 'string' || !isAbsolute(raw)) throw new BadValue(OPTIONAL_PATH_ALLOWED);
    return raw;
  },
};

/** One of fixed lower-case words; input is matched case-insensitively. */
export function oneOf<const T extends string>(values: readonly T[]): ValueType<T> {
  const allowed = `must be one of ${values.join(', ')}`;
  return {
    allowed,
    parse(raw) {
      const word = typeof raw === 'string' ? raw.trim().toLowerCase() : undefined;
      const hit = values.find((v) => v === word);
      if (hit === undefined) throw new BadValue(allowed);
      return hit;
    },
  };
}

/** A list of strings: a TOML array, or a comma-separated string (TOML or environment). */
export function list(item: ValueType<string>): ListType {
  const allowed = `must be a list (array or comma-separated string); each item ${item.allowed}`;
  return {
    allowed,
    item,
    parse(raw, fromEnv) {
      const items = typeof raw === 'string' ? splitCommas(raw) : raw;
      if (!Array.isArray(items)) throw new BadValue(allowed);
      return items.map((v: unknown) => {
        try {
          return item.parse(v, fromEnv);
        } catch (err) {
          if (err instanceof BadValue) throw new BadValue(`item ${JSON.stringify(v)}: ${err.allowed}`);
          throw err;
        }
      });
    },
  };
}

export function splitCommas(s: string): string[] {
  return s
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}
