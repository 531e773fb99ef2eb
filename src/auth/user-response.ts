// The UserResponse record of the v3 surface, built from a Users row of any ZoneMinder version.
import { FEATURE_COLUMNS, FEATURES, parseLevel, type StoredLevel } from './permissions.js';

export interface UserResponse {
  /** @isInt */
  id: number;
  username: string;
  name: string;
  email: string;
  phone: string;
  language?: string | null;
  /** @isInt */
  enabled: number;
  stream: StoredLevel;
  events: StoredLevel;
  control: StoredLevel;
  monitors: StoredLevel;
  groups: StoredLevel;
  devices: StoredLevel;
  snapshots: StoredLevel;
  system: StoredLevel;
  max_bandwidth?: string | null;
  /** @isInt */
  api_enabled: number;
  home_view: string;
}

const text = (v: unknown): string => (v == null ? '' : String(v));

export function userResponseFromRow(row: Record<string, unknown>): UserResponse {
  const levels = Object.fromEntries(FEATURES.map((f) => [f, parseLevel(row[FEATURE_COLUMNS[f]])])) as Record<
    (typeof FEATURES)[number],
    StoredLevel
  >;
  return {
    id: Number(row.Id),
    username: text(row.Username),
    name: text(row.Name),
    email: text(row.Email),
    phone: text(row.Phone),
    language: row.Language == null ? null : String(row.Language),
    enabled: Number(row.Enabled ?? 0),
    ...levels,
    max_bandwidth: row.MaxBandwidth == null ? null : String(row.MaxBandwidth),
    api_enabled: Number(row.APIEnabled ?? 1),
    home_view: text(row.HomeView),
  };
}
