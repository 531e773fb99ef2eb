// convergeSchema(): introspect -> plan -> apply, the one call `zmgate-db up|bridge` needs.
import { targetSchema } from '../schema/target.js';
import type { SchemaDef } from '../schema/types.js';
import { applySteps, type AppliedStep, type StepProgress } from './apply.js';
import { quoteIdent } from './ddl.js';
import { introspectSchema, type LiveSchema, type Queryable } from './introspect.js';
import { planSchema } from './plan.js';
import type { SchemaExtra, SchemaStep } from './steps.js';

export interface ConvergeOptions {
  /** The schema to converge; the connection is switched to it (USE) when it is not current. */
  database: string;
  /** Plan only: nothing is written. */
  dryRun?: boolean;
  onProgress?: (progress: StepProgress) => void;
  /** Default: targetSchema() (ZoneMinder 1.39.22 + zmgate's tables). */
  target?: SchemaDef;
  /** Refuse (throw before running anything) when a step is flagged destructive. */
  refuseDestructive?: boolean;
  /** Edit the planned steps before they run, e.g. to splice in data migrations. */
  transformSteps?: (steps: SchemaStep[]) => SchemaStep[];
  /** Log steps to zmgate_schema_log. Default true. */
  log?: boolean;
}

export interface ConvergeResult {
  /** Every planned step (after transformSteps). */
  steps: SchemaStep[];
  /** The steps that ran (none on a dry run). */
  applied: AppliedStep[];
  /** Live objects the target lacks, left in place. */
  extras: SchemaExtra[];
  warnings: string[];
  live: LiveSchema;
  runId?: string;
}

export class ConvergeError extends Error {
  constructor(
    message: string,
    readonly step: SchemaStep | undefined,
    readonly applied: AppliedStep[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ConvergeError';
  }
}

/**
 * Brings `options.database` to the target schema. `conn` must be a single connection (a
 * Connection or a PoolConnection, not a Pool). Throws ConvergeError naming the failed step.
 */
export async function convergeSchema(conn: Queryable, options: ConvergeOptions): Promise<ConvergeResult> {
  const live = await introspectSchema(conn, options.database);
  const plan = planSchema(live, options.target ?? targetSchema());
  const steps = options.transformSteps ? options.transformSteps(plan.steps) : plan.steps;
  const base = { steps, extras: plan.extras, warnings: plan.warnings, live };
  if (options.dryRun) return { ...base, applied: [] };

  const destructive = steps.filter((step) => step.destructive);
  if (options.refuseDestructive && destructive.length) {
    throw new ConvergeError(
      `refusing to run ${destructive.length} destructive step(s): ${destructive.map((s) => s.id).join(', ')}`,
      destructive[0],
      [],
    );
  }

  // The DDL names tables without a schema, so it must run in the converged one.
  const [current] = (await conn.query('SELECT DATABASE() AS db')) as { db: string | null }[];
  if (current?.db !== options.database) await conn.query(`USE ${quoteIdent(options.database)}`);

  const result = await applySteps(conn, steps, { onProgress: options.onProgress, log: options.log });
  if (result.failed) {
    const { step, index, error } = result.failed;
    throw new ConvergeError(
      `step ${index + 1}/${steps.length} (${step.id}) failed: ${error.message}`,
      step,
      result.applied,
      { cause: error },
    );
  }
  return { ...base, applied: result.applied, runId: result.runId };
}
