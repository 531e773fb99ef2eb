// Turning migrations into converger steps: what `up` and `bridge` splice into the plan, and the
// steps for later migrations. Every step records itself in the ledger when its work is done, so
// the ledger never claims more than the database has.
import { dataMigrationStep, type SchemaStep } from '../converge/index.js';
import type { Queryable } from '../converge/introspect.js';
import { CONFIG_OPTION_COUNT, SEEDED_TABLES, ZONEMINDER_SEED_ROWS, seedNewDatabase } from '../seed/index.js';
import {
  BASELINE_ID,
  BASELINE_NAME,
  DATA_MIGRATIONS,
  baselineChecksumOf,
  dataMigrationChecksum,
  laterMigrationChecksum,
  type LaterMigration,
} from './index.js';
import { recordMigration } from './ledger.js';
import { placeStep } from './placement.js';
import type { DataMigration, MigrationContext } from './types.js';
import { TARGET_ZONEMINDER_VERSION } from './version.js';

/** Timing shared by the steps of one run (fed from the converger's progress events). */
export class RunClock {
  private readonly started = new Map<string, number>();
  private first: number | null = null;
  /** Migrations recorded by this run. */
  readonly recorded = new Set<string>();

  stepStarted(id: string): void {
    const now = performance.now();
    this.first ??= now;
    this.started.set(id, now);
  }
  /** Milliseconds since the step started (or 0 when its start was not seen). */
  sinceStart(id: string): number {
    const at = this.started.get(id);
    return at === undefined ? 0 : performance.now() - at;
  }
  sinceRunStart(): number {
    return this.first === null ? 0 : performance.now() - this.first;
  }
}

export interface SplicedPlan {
  transform: (steps: SchemaStep[]) => SchemaStep[];
  /** Extras ('Table.Column') the spliced migrations remove, so the plan does not call them kept. */
  removes: Set<string>;
  /** Lines describing what a step's code will do, by step id, for --dry-run. */
  describe: Map<string, string[]>;
}

async function record(conn: Queryable, clock: RunClock, entry: Parameters<typeof recordMigration>[1]): Promise<void> {
  await recordMigration(conn, entry);
  clock.recorded.add(entry.id);
}

function dataStep(migration: DataMigration, ctx: MigrationContext, clock: RunClock): SchemaStep {
  const step = dataMigrationStep({
    id: migration.id,
    description: migration.name,
    destructive: migration.destructive,
    risks: migration.risks,
    sql: migration.sql?.(ctx),
    run: async (conn) => {
      await migration.run?.(conn, ctx);
      await record(conn, clock, {
        id: migration.id,
        name: migration.name,
        checksum: dataMigrationChecksum(migration),
        executionMs: clock.sinceStart(step.id),
      });
    },
  });
  return step;
}

/** Stamps every data migration this run did not record (on this database it has nothing to do). */
async function stampTheRest(conn: Queryable, ctx: MigrationContext, clock: RunClock): Promise<void> {
  for (const migration of DATA_MIGRATIONS) {
    if (ctx.applied.has(migration.id) || clock.recorded.has(migration.id)) continue;
    await record(conn, clock, {
      id: migration.id,
      name: migration.name,
      checksum: dataMigrationChecksum(migration),
      stamped: true,
    });
  }
}

/** `up`: after the converger has created everything, the seed rows, then the ledger. */
export function upSteps(ctx: MigrationContext, clock: RunClock): SplicedPlan {
  const seedRows = ZONEMINDER_SEED_ROWS.reduce((n, seed) => n + seed.rows.length, 0);
  const seed = dataMigrationStep({
    id: `seed-zoneminder-${TARGET_ZONEMINDER_VERSION}`,
    description: `insert ZoneMinder ${TARGET_ZONEMINDER_VERSION}'s seed rows (${seedRows} rows in ${SEEDED_TABLES.length} tables: admin user, Default storage, Controls, presets, COCO dataset, ...) and its ${CONFIG_OPTION_COUNT} Config options with their defaults`,
    run: async (conn) => {
      const counts = await seedNewDatabase(conn);
      ctx.notes.push(
        `seed: ${Object.entries(counts)
          .map(([table, n]) => `${table} ${n}`)
          .join(', ')}`,
      );
    },
  });
  const baseline = dataMigrationStep({
    id: BASELINE_ID,
    description: `record ${BASELINE_ID} as applied; stamp the data migrations (a new database has nothing to migrate)`,
    run: async (conn) => {
      await record(conn, clock, {
        id: BASELINE_ID,
        name: BASELINE_NAME,
        checksum: baselineChecksumOf(),
        executionMs: clock.sinceRunStart(),
      });
      await stampTheRest(conn, ctx, clock);
    },
  });
  const describe = new Map([
    [
      seed.id,
      [
        ...ZONEMINDER_SEED_ROWS.map((s) => `INSERT INTO ${s.table} <${s.rows.length} rows>`),
        `INSERT INTO Config <${CONFIG_OPTION_COUNT} options>`,
      ],
    ],
    [
      baseline.id,
      [`INSERT INTO zmgate_migrations <${BASELINE_ID} applied; ${DATA_MIGRATIONS.length} data migrations stamped>`],
    ],
  ]);
  return { transform: (steps) => [...steps, seed, baseline], describe, removes: new Set() };
}

/** Whether bridge still has to record the baseline or raise ZM_DYN_DB_VERSION. */
function baselineNeeded(ctx: MigrationContext): boolean {
  return (
    !ctx.applied.has(BASELINE_ID) ||
    ctx.contents.dbVersion !== TARGET_ZONEMINDER_VERSION ||
    DATA_MIGRATIONS.some((m) => !ctx.applied.has(m.id))
  );
}

/** `bridge`: the data migrations this database needs, each next to its schema change; then the stamp. */
export function bridgeSteps(ctx: MigrationContext, clock: RunClock): SplicedPlan {
  const needed = DATA_MIGRATIONS.filter((m) => m.needed(ctx));
  const describe = new Map<string, string[]>();
  const spliced: { step: SchemaStep; migration: DataMigration }[] = needed.map((migration) => {
    const step = dataStep(migration, ctx, clock);
    const lines = migration.describe?.(ctx) ?? (migration.run && !migration.sql ? [`-- code: ${migration.name}`] : []);
    if (lines.length) describe.set(step.id, lines);
    return { step, migration };
  });
  const baseline = baselineNeeded(ctx)
    ? dataMigrationStep({
        id: BASELINE_ID,
        description: `stamp ${BASELINE_ID} as applied and set Config ZM_DYN_DB_VERSION to ${TARGET_ZONEMINDER_VERSION} (was ${ctx.contents.dbVersion ?? 'unset'}); ZM_DYN_CURR_VERSION, the installed code's version, is ZoneMinder's and stays`,
        sql: [`UPDATE \`Config\` SET \`Value\` = '${TARGET_ZONEMINDER_VERSION}' WHERE \`Name\` = 'ZM_DYN_DB_VERSION'`],
        run: async (conn) => {
          await stampTheRest(conn, ctx, clock);
          await record(conn, clock, {
            id: BASELINE_ID,
            name: BASELINE_NAME,
            checksum: baselineChecksumOf(),
            stamped: true,
          });
        },
      })
    : null;
  if (baseline)
    describe.set(baseline.id, [
      `INSERT INTO zmgate_migrations <${BASELINE_ID} stamped; data migrations this database did not need stamped>`,
    ]);

  const transform = (steps: SchemaStep[]): SchemaStep[] => {
    let out = steps;
    for (const { step, migration } of spliced) out = placeStep(out, step, migration.place);
    return baseline ? [...out, baseline] : out;
  };
  return { transform, describe, removes: new Set(needed.flatMap((m) => m.removes ?? [])) };
}

/** Steps for the later migrations a database has not applied yet. */
export function laterSteps(
  later: readonly LaterMigration[],
  applied: ReadonlySet<string>,
  clock: RunClock,
): SchemaStep[] {
  return later
    .filter((migration) => !applied.has(migration.id))
    .map((migration) => {
      const step = dataMigrationStep({
        id: migration.id,
        description: migration.name,
        destructive: migration.destructive,
        sql: migration.sql,
        run: async (conn) => {
          await migration.run?.(conn);
          await record(conn, clock, {
            id: migration.id,
            name: migration.name,
            checksum: laterMigrationChecksum(migration),
            executionMs: clock.sinceStart(step.id),
          });
        },
      });
      return step;
    });
}
