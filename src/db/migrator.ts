// The migrator: `up`, `bridge` and `status` over one database connection. The CLI
// (src/cli/zmgate-db.ts) and start-up (src/db/startup-migrations.ts) are thin layers over this.
//
//   up      a new, empty database: the converger creates ZoneMinder 1.39.22 and zmgate's tables,
//           then the seed rows go in and the baseline is recorded as applied.
//   bridge  an existing ZoneMinder database (1.36 on): the converger's plan with the data
//           migrations spliced in next to the schema changes they need, then the Config options,
//           seed rows for new tables, ZM_DYN_DB_VERSION and the baseline stamp.
//   both    then run the later migrations the ledger lacks.
//
// Runs are serialised per database with a named lock (GET_LOCK), so two zmgate instances
// starting together do not migrate the same database at once.
import { createHash } from 'node:crypto';
import {
  ConvergeError,
  applySteps,
  convergeSchema,
  diffSchemas,
  introspectSchema,
  type AppliedStep,
  type LiveSchema,
  type Queryable,
  type SchemaExtra,
  type SchemaStep,
  type StepProgress,
} from './converge/index.js';
import { quoteIdent } from './converge/ddl.js';
import { targetSchema } from './schema/index.js';
import { SEEDED_TABLES, readConfigState, type ConfigState } from './seed/index.js';
import {
  BASELINE_ID,
  LATER_MIGRATIONS,
  migrationCatalogue,
  readLedger,
  type LaterMigration,
  type LedgerRow,
  type MigrationContext,
} from './migrations/index.js';
import { RunClock, bridgeSteps, laterSteps, upSteps, type SplicedPlan } from './migrations/steps.js';
import {
  FIRST_CONVERTIBLE_VERSION,
  bridgeRefusal,
  compareVersions,
  describeObjects,
  isVersion,
  inspectContents,
  schemaProbes,
  type DatabaseContents,
  type SchemaProbe,
} from './migrations/version.js';

export type MigrationMode = 'up' | 'bridge';

/** The database must not be touched (wrong kind, wrong version, or destructive steps refused). */
export class MigrationRefused extends Error {
  constructor(
    message: string,
    readonly contents?: DatabaseContents,
  ) {
    super(message);
    this.name = 'MigrationRefused';
  }
}

export interface MigrateOptions {
  database: string;
  /** Plan and report only; nothing is written (not even the ledger). */
  dryRun?: boolean;
  /** Refuse, before anything runs, a plan with a step that rewrites or removes data. */
  refuseDestructive?: boolean;
  /**
   * On a database already at 1.39 or later (ZM_DYN_DB_VERSION), leave the steps that rewrite or
   * remove data out and run the rest, with a warning naming them, instead of refusing. ZoneMinder's
   * own upgrade leaves a schema that differs from a fresh install (nullable columns, column order);
   * the start-up must not rewrite those, nor give up zmgate's own tables because of them.
   */
  skipDestructive?: boolean;
  onProgress?: (progress: StepProgress) => void;
  /** Sees the plan before anything runs; resolving false stops the run (nothing written). */
  confirm?: (plan: MigrationPlan) => Promise<boolean>;
  /** Default: LATER_MIGRATIONS. */
  laterMigrations?: readonly LaterMigration[];
  /** Seconds to wait for another migration run on the same database; default 30. */
  lockTimeoutSecs?: number;
  /** bridge: convert even a database whose installed ZoneMinder is older than 1.39 (a copy no ZoneMinder uses). */
  allowOlderZoneMinder?: boolean;
}

export interface MigrationPlan {
  mode: MigrationMode;
  database: string;
  contents: DatabaseContents;
  /** Converger steps with the data migrations spliced in, then the later migrations. */
  steps: SchemaStep[];
  /** What code-only steps will do, by step id (for --dry-run). */
  describe: Map<string, string[]>;
  extras: SchemaExtra[];
  warnings: string[];
}

export interface MigrationResult extends MigrationPlan {
  /** False when confirm() declined or on a dry run. */
  ran: boolean;
  applied: AppliedStep[];
  /** What the data migrations did, one line each. */
  notes: string[];
  runId?: string;
}

/** Thrown when a step fails; names the step and lists what ran before it. */
export class MigrationFailed extends Error {
  constructor(
    message: string,
    readonly step: SchemaStep | undefined,
    readonly applied: AppliedStep[],
    readonly notes: string[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MigrationFailed';
  }
}

interface Prepared {
  ctx: MigrationContext;
  spliced: SplicedPlan;
  later: SchemaStep[];
  clock: RunClock;
}

async function prepare(conn: Queryable, mode: MigrationMode, options: MigrateOptions): Promise<Prepared> {
  const { database } = options;
  const live = await introspectSchema(conn, database);
  const contents = await inspectContents(conn, live);
  if (mode === 'up' && contents.kind !== 'empty') {
    throw new MigrationRefused(
      `database ${database} is not empty (${describeObjects(contents.objects)}); 'up' only creates ZoneMinder in an empty database` +
        (contents.kind === 'zoneminder'
          ? " — this one holds ZoneMinder: use 'zmgate-db bridge'"
          : '; name a new database in the URL (up creates it) or empty this one'),
      contents,
    );
  }
  if (mode === 'bridge') {
    const refusal = bridgeRefusal(contents, database, { allowOlderZoneMinder: options.allowOlderZoneMinder });
    if (refusal) throw new MigrationRefused(refusal, contents);
  }
  const ledger = await readLedger(conn);
  const applied = new Set((ledger ?? []).map((row) => row.id));
  const config: ConfigState = mode === 'bridge' ? await readConfigState(conn) : { missing: [], stale: [] };
  const emptySeedTables = mode === 'bridge' ? await emptyTables(conn, live, SEEDED_TABLES) : new Set<string>();
  const ctx: MigrationContext = { database, live, contents, applied, emptySeedTables, config, notes: [], warnings: [] };
  const clock = new RunClock();
  const spliced = mode === 'up' ? upSteps(ctx, clock) : bridgeSteps(ctx, clock);
  const later = laterSteps(options.laterMigrations ?? LATER_MIGRATIONS, applied, clock);
  return { ctx, spliced, later, clock };
}

/** Which of `tables` exist in `live` and hold no row. */
async function emptyTables(conn: Queryable, live: LiveSchema, tables: readonly string[]): Promise<Set<string>> {
  const empty = new Set<string>();
  for (const table of tables) {
    if (!live.tables.some((t) => t.name === table)) continue;
    const [row] = (await conn.query(`SELECT EXISTS (SELECT 1 FROM ${quoteIdent(table)}) AS has`)) as {
      has: number | bigint;
    }[];
    if (!Number(row.has)) empty.add(table);
  }
  return empty;
}

/** Runs `up` or `bridge` on `conn` (one connection, not a pool). See MigrateOptions. */
export async function migrate(conn: Queryable, mode: MigrationMode, options: MigrateOptions): Promise<MigrationResult> {
  const release = await takeLock(conn, options.database, options.lockTimeoutSecs ?? 30);
  try {
    const { ctx, spliced, later, clock } = await prepare(conn, mode, options);
    const preview = await convergeSchema(conn, {
      database: options.database,
      dryRun: true,
      transformSteps: spliced.transform,
    });
    const plan: MigrationPlan = {
      mode,
      database: options.database,
      contents: ctx.contents,
      steps: [...preview.steps, ...later],
      describe: spliced.describe,
      extras: preview.extras.filter((extra) => !spliced.removes.has(extra.name)),
      warnings: [...preview.warnings],
    };
    const result: MigrationResult = { ...plan, ran: false, applied: [], notes: ctx.notes };
    if (options.dryRun) return result;

    let transform = spliced.transform;
    let laterRun = later;
    const dbVersion = ctx.contents.dbVersion;
    const skipped = plan.steps.filter((step) => step.destructive);
    if (
      options.skipDestructive &&
      skipped.length &&
      isVersion(dbVersion) &&
      compareVersions(dbVersion, FIRST_CONVERTIBLE_VERSION) >= 0
    ) {
      const kept = (steps: SchemaStep[]) => steps.filter((step) => !step.destructive);
      transform = (steps) => kept(spliced.transform(steps));
      laterRun = kept(later);
      plan.steps = kept(plan.steps);
      result.steps = plan.steps;
      ctx.warnings.push(
        `left as they are: ${skipped.length} step(s) that would rewrite or remove data (${skipped.map((s) => s.id).join(', ')}); 'zmgate-db bridge' runs them, after a backup`,
      );
    }
    const destructive = plan.steps.filter((step) => step.destructive);
    if (options.refuseDestructive && destructive.length) {
      throw new MigrationRefused(
        `the schema needs ${destructive.length} step(s) that rewrite or remove data (${destructive.map((s) => s.id).join(', ')}); nothing was changed — run 'zmgate-db bridge' by hand, after a backup`,
        ctx.contents,
      );
    }
    if (options.confirm && !(await options.confirm(plan))) return result;

    const onProgress = (progress: StepProgress) => {
      if (progress.phase === 'start') clock.stepStarted(progress.step.id);
      options.onProgress?.(progress);
    };
    let applied: AppliedStep[] = [];
    try {
      const converged = await convergeSchema(conn, {
        database: options.database,
        transformSteps: transform,
        onProgress,
        refuseDestructive: options.refuseDestructive,
      });
      applied = converged.applied;
      result.runId = converged.runId;
      if (laterRun.length) {
        // Numbered after the converger's steps, so progress reads as one run.
        const offset = converged.steps.length;
        const total = offset + laterRun.length;
        const ran = await applySteps(conn, laterRun, {
          runId: converged.runId,
          onProgress: (p) => onProgress({ ...p, index: p.index + offset, total }),
        });
        applied = [...applied, ...ran.applied];
        if (ran.failed) {
          const { step, index, error } = ran.failed;
          throw new MigrationFailed(
            `step ${index + offset + 1}/${total} (${step.id}) failed: ${error.message}`,
            step,
            applied,
            ctx.notes,
            {
              cause: error,
            },
          );
        }
      }
    } catch (error) {
      if (error instanceof ConvergeError) {
        throw new MigrationFailed(error.message, error.step, error.applied, ctx.notes, { cause: error });
      }
      throw error;
    }
    result.ran = true;
    result.applied = applied;
    result.warnings.push(...ctx.warnings);
    return result;
  } finally {
    await release();
  }
}

/** GET_LOCK on a name derived from the database; the lock is the session's, no table is written. */
async function takeLock(conn: Queryable, database: string, timeoutSecs: number): Promise<() => Promise<void>> {
  const name = `zmgate-migrate-${createHash('sha1').update(database).digest('hex').slice(0, 24)}`;
  const [row] = (await conn.query('SELECT GET_LOCK(?, ?) AS got', [name, timeoutSecs])) as {
    got: number | bigint | null;
  }[];
  if (Number(row?.got) !== 1) {
    throw new Error(
      `another zmgate migration of database ${database} is running (lock ${name} not free after ${timeoutSecs} s)`,
    );
  }
  return async () => {
    await conn.query('SELECT RELEASE_LOCK(?)', [name]).catch(() => {});
  };
}

// Status ------------------------------------------------------------------------------------------

export interface MigrationStatus {
  id: string;
  name: string;
  kind: 'baseline' | 'data' | 'later' | 'unknown';
  state: 'applied' | 'stamped' | 'pending';
  appliedAt?: string;
  /** The recorded checksum differs from this zmgate's (the migration changed since it ran). */
  changed?: boolean;
}

export interface DatabaseStatus {
  database: string;
  server: LiveSchema['server'];
  contents: DatabaseContents;
  probes: SchemaProbe[];
  /** Differences from the target (ZoneMinder 1.39.22 + zmgate tables), as readable lines. */
  differences: string[];
  /** null: no ledger table (nothing was ever recorded). */
  ledger: LedgerRow[] | null;
  migrations: MigrationStatus[];
}

/**
 * Everything `zmgate-db status` shows. Read-only: the session is put in READ ONLY transaction
 * mode first, so even a bug here could not write; the ledger is never created.
 */
export async function readStatus(
  conn: Queryable,
  database: string,
  later: readonly LaterMigration[] = LATER_MIGRATIONS,
): Promise<DatabaseStatus> {
  await conn.query('SET SESSION TRANSACTION READ ONLY');
  try {
    const live = await introspectSchema(conn, database);
    const contents = await inspectContents(conn, live);
    const ledger = contents.kind === 'empty' ? null : await readLedger(conn);
    const recorded = new Map((ledger ?? []).map((row) => [row.id, row]));
    const catalogue = migrationCatalogue(later);
    const migrations: MigrationStatus[] = catalogue.map((entry) => {
      const row = recorded.get(entry.id);
      if (!row) return { id: entry.id, name: entry.name, kind: entry.kind, state: 'pending' };
      return {
        id: entry.id,
        name: entry.name,
        kind: entry.kind,
        state: row.stamped ? 'stamped' : 'applied',
        appliedAt: row.appliedAt,
        changed: row.checksum !== null && row.checksum !== entry.checksum,
      };
    });
    // Ids this zmgate does not know (recorded by a newer one).
    for (const row of ledger ?? []) {
      if (!catalogue.some((entry) => entry.id === row.id)) {
        migrations.push({
          id: row.id,
          name: row.name,
          kind: 'unknown',
          state: row.stamped ? 'stamped' : 'applied',
          appliedAt: row.appliedAt,
        });
      }
    }
    const differences = contents.kind === 'empty' ? [] : diffSchemas(targetSchema(), live, { ignore: () => false });
    return { database, server: live.server, contents, probes: schemaProbes(live), differences, ledger, migrations };
  } finally {
    await conn.query('SET SESSION TRANSACTION READ WRITE').catch(() => {});
  }
}

/** What a database lacks against the target, for warnings: differences (extras left out) and pending migrations. */
export async function describeMissing(conn: Queryable, database: string): Promise<string[]> {
  const status = await readStatus(conn, database);
  return [
    ...status.differences.filter((line) => !/ is not expected$/.test(line)),
    ...status.migrations.filter((m) => m.state === 'pending').map((m) => `migration ${m.id} pending`),
  ];
}

export { BASELINE_ID };
