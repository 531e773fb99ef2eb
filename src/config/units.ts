// Quantities the way operators write them: byte sizes ("50GiB", "500 MB", "1073741824"),
// percentages ("10%") and durations ("30d", "12h", "2w"). Used by the retention limits; the
// parsers return null for anything they do not accept, and the value types below turn that
// into the one-line start-up error naming the key.
import { BadValue, type ValueType } from './values.js';

const SIZE_UNITS: Record<string, number> = {
  b: 1,
  k: 1e3,
  kb: 1e3,
  m: 1e6,
  mb: 1e6,
  g: 1e9,
  gb: 1e9,
  t: 1e12,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** Bytes from "50GiB", "1.5 TB", "4096" (plain numbers are bytes); null when not a size. */
export function parseByteSize(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (!m) return null;
  const unit = SIZE_UNITS[(m[2] || 'b').toLowerCase()];
  if (unit === undefined) return null;
  const bytes = Math.round(Number(m[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/** Seconds from "30d", "12h", "90m", "3600s", "2w" (a unit is required); null otherwise. */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+)\s*([smhdw])\s*$/i.exec(text);
  if (!m) return null;
  const seconds = Number(m[1]) * DURATION_UNITS[m[2].toLowerCase()];
  return seconds > 0 && Number.isSafeInteger(seconds) ? seconds : null;
}

/** A free-space floor: a size in bytes or a percentage of the volume (0 < p < 100). */
export type FloorValue = { bytes: number } | { percent: number };

export function parseFloor(text: string): FloorValue | null {
  const pct = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(text);
  if (pct) {
    const percent = Number(pct[1]);
    return percent > 0 && percent < 100 ? { percent } : null;
  }
  const bytes = parseByteSize(text);
  return bytes !== null && bytes > 0 ? { bytes } : null;
}

export const FLOOR_ALLOWED =
  'must be a size such as "50GiB" or "500MB", a percentage of the volume such as "10%", or "" for none';
export const DURATION_ALLOWED = 'must be a duration such as "30d", "12h", "90m" or "2w", or "" for none';
export const SIZE_ALLOWED = 'must be a size such as "2TiB", "500GB" or "1073741824" (bytes), or "" for none';

/** A string setting checked by one of the parsers above; "" (none) is always accepted. */
export function unitString(check: (s: string) => unknown, allowed: string): ValueType<string> {
  return {
    allowed,
    parse(raw) {
      if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0) raw = String(raw);
      if (typeof raw !== 'string') throw new BadValue(allowed);
      const text = raw.trim();
      if (text !== '' && check(text) === null) throw new BadValue(allowed);
      return text;
    },
  };
}

export const floorSetting = unitString(parseFloor, FLOOR_ALLOWED);
export const durationSetting = unitString(parseDuration, DURATION_ALLOWED);
export const sizeSetting = unitString((s) => {
  const b = parseByteSize(s);
  return b !== null && b > 0 ? b : null;
}, SIZE_ALLOWED);

/** One per-Storage override of the retention limits; absent keys fall back to the defaults. */
export interface RetentionOverride {
  /** The Storage row's Id (a number) or Name. */
  storage: string;
  free_space_floor?: string;
  max_age?: string;
  quota?: string;
}

const OVERRIDE_KEYS = new Set(['storage', 'free_space_floor', 'max_age', 'quota']);
const OVERRIDES_ALLOWED =
  'must be a list of tables [[retention.overrides]] with storage = <Id or Name> and any of free_space_floor, max_age, quota (from the environment: the same as JSON)';

/** `[[retention.overrides]]`: a TOML array of tables, or JSON text from the environment. */
export const overridesSetting: ValueType<RetentionOverride[]> = {
  allowed: OVERRIDES_ALLOWED,
  parse(raw, fromEnv) {
    let items = raw;
    if (fromEnv && typeof raw === 'string') {
      try {
        items = raw.trim() === '' ? [] : JSON.parse(raw);
      } catch {
        throw new BadValue(OVERRIDES_ALLOWED);
      }
    }
    if (!Array.isArray(items)) throw new BadValue(OVERRIDES_ALLOWED);
    const seen = new Set<string>();
    return items.map((item: unknown, i) => {
      const where = `item ${i}`;
      if (item === null || typeof item !== 'object' || Array.isArray(item))
        throw new BadValue(`${where}: ${OVERRIDES_ALLOWED}`);
      const entry = item as Record<string, unknown>;
      for (const k of Object.keys(entry))
        if (!OVERRIDE_KEYS.has(k))
          throw new BadValue(`${where}: unknown key ${JSON.stringify(k.slice(0, 40))}; ${OVERRIDES_ALLOWED}`);
      const storage =
        typeof entry.storage === 'number' && Number.isInteger(entry.storage) ? String(entry.storage) : entry.storage;
      if (typeof storage !== 'string' || storage.trim() === '')
        throw new BadValue(`${where}: storage must be a Storage Id or Name`);
      if (seen.has(storage.trim()))
        throw new BadValue(`${where}: storage ${JSON.stringify(storage.trim())} appears twice`);
      seen.add(storage.trim());
      const out: RetentionOverride = { storage: storage.trim() };
      const sub: Array<[keyof RetentionOverride & string, ValueType<string>]> = [
        ['free_space_floor', floorSetting],
        ['max_age', durationSetting],
        ['quota', sizeSetting],
      ];
      for (const [k, type] of sub) {
        if (entry[k] === undefined) continue;
        try {
          (out as unknown as Record<string, string>)[k] = type.parse(entry[k], false);
        } catch (err) {
          if (err instanceof BadValue)
            throw new BadValue(`${where} (storage ${JSON.stringify(out.storage)}): ${k} ${err.allowed}`);
          throw err;
        }
      }
      return out;
    });
  },
};
