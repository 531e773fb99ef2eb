// The migrations zmgate knows, in ledger order.
//
//   0001_baseline_1_39_22            the ZoneMinder 1.39.22 schema, its seed rows and Config options
//                                    (+ zmgate_ tables). `up` applies it; `bridge` stamps it.
//   0002 .. 0009                     data migrations from ZoneMinder 1.36 on; `bridge` runs those a
//                                    database needs and stamps the rest, `up` stamps them all.
//   LATER_MIGRATIONS (none yet)      changes after the baseline; run by up, bridge and start-up.
import { targetSchema } from '../schema/index.js';
import { ZONEMINDER_CONFIG, ZONEMINDER_SEED_ROWS } from '../seed/index.js';
import type { Queryable } from '../converge/introspect.js';
import { configOptions } from './config-options.js';
import { filterExecuteInterval } from './filter-interval.js';
import { functionToModes } from './function-to-modes.js';
import { checksumOf } from './ledger.js';
import { monitorIdsToPermissions } from './monitor-permissions.js';
import { seedNewTables } from './seed-new-tables.js';
import type { DataMigration } from './types.js';
import { userPreferenceNames } from './user-preferences.js';
import { usersMonitorsCreate } from './users-monitors-create.js';
import { TARGET_ZONEMINDER_VERSION } from './version.js';
import { zonesToPercent } from './zones-percent.js';

export const BASELINE_ID = '0001_baseline_1_39_22';
export const BASELINE_NAME = `ZoneMinder ${TARGET_ZONEMINDER_VERSION} schema, seed rows and Config options, plus zmgate's own tables`;

let baselineChecksum: string | undefined;
/** Changes whenever the target schema or the seed data does. */
export function baselineChecksumOf(): string {
  baselineChecksum ??= checksumOf(
    JSON.stringify({ schema: targetSchema(), rows: ZONEMINDER_SEED_ROWS, config: ZONEMINDER_CONFIG }),
  );
  return baselineChecksum;
}

/** In ledger order; the order they run in is the plan's (each is placed by its `place`). */
export const DATA_MIGRATIONS: readonly DataMigration[] = [
  functionToModes,
  monitorIdsToPermissions,
  filterExecuteInterval,
  zonesToPercent,
  userPreferenceNames,
  configOptions,
  seedNewTables,
  usersMonitorsCreate,
];

export function dataMigrationChecksum(migration: DataMigration): string {
  return checksumOf(JSON.stringify([migration.id, migration.name, migration.since]));
}

/**
 * A change after the baseline. It must also be reflected in the target schema (src/db/schema),
 * or the next bridge would plan it away again; so in practice these move data.
 */
export interface LaterMigration {
  id: string;
  name: string;
  destructive?: boolean;
  sql?: string[];
  run?(conn: Queryable): Promise<void>;
}

export const LATER_MIGRATIONS: readonly LaterMigration[] = [];

export const laterMigrationChecksum = (migration: LaterMigration): string =>
  checksumOf(JSON.stringify([migration.id, migration.name, migration.sql ?? []]));

export interface CatalogueEntry {
  id: string;
  name: string;
  kind: 'baseline' | 'data' | 'later';
  checksum: string;
}

/** Every migration, in ledger order. */
export function migrationCatalogue(later: readonly LaterMigration[] = LATER_MIGRATIONS): CatalogueEntry[] {
  return [
    { id: BASELINE_ID, name: BASELINE_NAME, kind: 'baseline', checksum: baselineChecksumOf() },
    ...DATA_MIGRATIONS.map((m) => ({
      id: m.id,
      name: m.name,
      kind: 'data' as const,
      checksum: dataMigrationChecksum(m),
    })),
    ...later.map((m) => ({ id: m.id, name: m.name, kind: 'later' as const, checksum: laterMigrationChecksum(m) })),
  ];
}

export { type DataMigration, type MigrationContext } from './types.js';
export { placeStep, type Anchor, type Placement } from './placement.js';
export { readLedger, recordMigration, type LedgerRow } from './ledger.js';
export * from './version.js';
