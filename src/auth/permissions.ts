// Feature RBAC: eight areas, each None < View < Edit. Stream has no Edit tier; the Monitors
// area's 'Create' (1.37+) counts as Edit. A role fills in areas the user has at None.

export const FEATURES = [
  'stream',
  'events',
  'control',
  'monitors',
  'groups',
  'devices',
  'snapshots',
  'system',
] as const;
export type Feature = (typeof FEATURES)[number];

/** Values as ZoneMinder stores them. */
export type StoredLevel = 'None' | 'View' | 'Edit' | 'Create';
export type RequiredLevel = 'View' | 'Edit';
export type Permissions = Record<Feature, StoredLevel>;

/** The database column of each area. */
export const FEATURE_COLUMNS: Record<Feature, string> = {
  stream: 'Stream',
  events: 'Events',
  control: 'Control',
  monitors: 'Monitors',
  groups: 'Groups',
  devices: 'Devices',
  snapshots: 'Snapshots',
  system: 'System',
};

const RANK: Record<StoredLevel, number> = { None: 0, View: 1, Edit: 2, Create: 2 };

export function rank(level: StoredLevel): number {
  return RANK[level] ?? 0;
}

/** Anything unknown or missing reads as None, as v3 clients do. */
export function parseLevel(value: unknown): StoredLevel {
  return value === 'View' || value === 'Edit' || value === 'Create' ? value : 'None';
}

export function noPermissions(): Permissions {
  return Object.fromEntries(FEATURES.map((f) => [f, 'None'])) as Permissions;
}

export function permissionsFromRow(row: Record<string, unknown> | null | undefined): Permissions {
  const perms = noPermissions();
  if (!row) return perms;
  for (const f of FEATURES) perms[f] = parseLevel(row[FEATURE_COLUMNS[f]]);
  return perms;
}

/** The user's own value decides unless it is None; then the role's value applies (docs/zoneminder/users.md). */
export function withRole(user: Permissions, role: Permissions | null): Permissions {
  if (!role) return user;
  const out = { ...user };
  for (const f of FEATURES) if (user[f] === 'None') out[f] = role[f];
  return out;
}

export function allows(perms: Permissions, feature: Feature, needed: RequiredLevel): boolean {
  // Stream has no Edit tier: View is its maximum, so any stream action needs only View.
  const need = feature === 'stream' ? 1 : RANK[needed];
  return rank(perms[feature]) >= need;
}

/** GET/HEAD/OPTIONS read; every other method writes. */
export function levelForMethod(method: string): RequiredLevel {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? 'View' : 'Edit';
}
