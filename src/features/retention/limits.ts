// The retention limits in force for one Storage: the configured defaults, replaced key by key
// by an override naming the Storage by Id or Name. Values were validated at start-up
// (src/config/units.ts), so parsing here cannot fail; "" means "no such limit".
import type { AppConfig } from '../../config/types.js';
import {
  parseByteSize,
  parseDuration,
  parseFloor,
  type FloorValue,
  type RetentionOverride,
} from '../../config/units.js';

export type LimitName = 'free_space_floor' | 'max_age' | 'quota';

export interface LimitTexts {
  free_space_floor: string;
  max_age: string;
  quota: string;
}

export interface StorageLimits {
  /** Keep at least this much free on the volume. */
  freeSpaceFloor: FloorValue | null;
  /** Delete events that started longer ago than this many seconds. */
  maxAgeSeconds: number | null;
  /** Cap on the summed DiskSpace of the Storage's events, in bytes. */
  quotaBytes: number | null;
  /** The configured texts, as the status route shows them. */
  text: LimitTexts;
  /** Which override applied, if any (its `storage` value). */
  override: string | null;
}

export interface StorageIdentity {
  id: number;
  name: string;
}

export function overrideFor(overrides: RetentionOverride[], storage: StorageIdentity): RetentionOverride | null {
  // An Id match wins over a Name match, so a Storage named "2" cannot take Storage 2's limits.
  return (
    overrides.find((o) => o.storage === String(storage.id)) ?? overrides.find((o) => o.storage === storage.name) ?? null
  );
}

export function limitsFor(config: AppConfig['retention'], storage: StorageIdentity): StorageLimits {
  const o = overrideFor(config.overrides, storage);
  const text: LimitTexts = {
    free_space_floor: o?.free_space_floor ?? config.free_space_floor,
    max_age: o?.max_age ?? config.max_age,
    quota: o?.quota ?? config.quota,
  };
  return {
    freeSpaceFloor: text.free_space_floor ? parseFloor(text.free_space_floor) : null,
    maxAgeSeconds: text.max_age ? parseDuration(text.max_age) : null,
    quotaBytes: text.quota ? parseByteSize(text.quota) : null,
    text,
    override: o?.storage ?? null,
  };
}

/** Overrides that name no Storage row (a typo would otherwise be silently ignored). */
export function unmatchedOverrides(overrides: RetentionOverride[], storages: StorageIdentity[]): string[] {
  return overrides
    .filter((o) => !storages.some((s) => o.storage === String(s.id) || o.storage === s.name))
    .map((o) => o.storage);
}

/** The floor in bytes for a volume of `totalBytes`. */
export function floorBytes(floor: FloorValue, totalBytes: number): number {
  return 'bytes' in floor ? floor.bytes : Math.ceil((totalBytes * floor.percent) / 100);
}
