// 0008: seed rows for the ZoneMinder tables a bridge creates (on 1.36: the COCO dataset in
// AI_Datasets / AI_Object_Classes / AI_Detection_Settings, EncoderTemplates, Menu_Items), as the
// zm_update files that created those tables do. Tables that already existed keep exactly the rows
// they have: Controls, Models, presets and the like may have been edited by the operator.
//
// "Created by the bridge" is read from the state before the run: the table is missing, or it is
// empty while ZM_DYN_DB_VERSION is older than the ZoneMinder version that seeds it (an earlier
// bridge created it and stopped before this step). Once recorded in the ledger, never again.
import { SEEDED_TABLES, seedEmptyTables } from '../seed/index.js';
import type { DataMigration, MigrationContext } from './types.js';
import { compareVersions, hasTable } from './version.js';

const ID = '0008_seed_new_tables';

/** The ZoneMinder update that creates and seeds each table newer than 1.36. */
const SEEDED_SINCE: Record<string, string> = {
  Menu_Items: '1.39.3',
  EncoderTemplates: '1.39.9',
  AI_Datasets: '1.39.17',
  AI_Object_Classes: '1.39.17',
  AI_Detection_Settings: '1.39.17',
};

function tablesToSeed(ctx: MigrationContext): string[] {
  if (ctx.applied.has(ID)) return [];
  const version = ctx.contents.dbVersion;
  return SEEDED_TABLES.filter((table) => {
    if (!hasTable(ctx.live, table)) return true;
    const since = SEEDED_SINCE[table];
    return !!since && !!version && ctx.emptySeedTables.has(table) && compareVersions(version, since) < 0;
  });
}

export const seedNewTables: DataMigration = {
  id: ID,
  name: 'Seed rows for the ZoneMinder tables the bridge creates (COCO dataset, Menu_Items, EncoderTemplates, ...)',
  since: '',
  destructive: false,
  place: 'end',
  needed: (ctx) => tablesToSeed(ctx).length > 0,
  describe: (ctx) =>
    tablesToSeed(ctx).map((table) => `INSERT INTO ${table} <1.39.22 seed rows> -- only while ${table} is empty`),
  async run(conn, ctx) {
    const counts = await seedEmptyTables(conn, tablesToSeed(ctx));
    ctx.notes.push(
      `${ID}: ${Object.entries(counts)
        .map(([table, n]) => `${table} ${n}`)
        .join(', ')}`,
    );
  },
};
