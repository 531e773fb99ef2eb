// applySteps(): runs steps in order on one connection, reports progress, logs each step to
// zmgate_schema_log once that table exists, and stops at the first failure, saying which step.
//
// DDL commits implicitly in MariaDB, so there is no rollback: a failed run leaves the steps
// before the failure applied. Planning again from the live schema picks up where it stopped.
import { randomUUID } from 'node:crypto';
import { SCHEMA_LOG_TABLE } from '../schema/service-tables.js';
import { quoteIdent } from './ddl.js';
import type { Queryable } from './introspect.js';
import type { SchemaStep } from './steps.js';

/**
 * Session settings for the run, restored afterwards:
 * - strict mode, so a MODIFY that would truncate or mangle a value fails instead (and so the
 *   triggers, which keep the sql_mode they were created under, run strict as on a stock server);
 *   NO_ZERO_DATE is left out on purpose: old ZoneMinder rows may hold zero dates;
 * - foreign_key_checks off, so a constraint can be added over rows that predate it and tables
 *   can be created in any order. Nothing is deleted through a constraint while it is off.
 */
const SESSION_SQL_MODE = 'STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';

export interface StepProgress {
  phase: 'start' | 'done' | 'failed';
  /** 0-based position of the step in the list. */
  index: number;
  total: number;
  step: SchemaStep;
  /** For 'done' and 'failed'. */
  ms?: number;
  error?: Error;
}

export interface ApplyOptions {
  onProgress?: (progress: StepProgress) => void;
  /** Write each step to zmgate_schema_log (when the table exists or is created by a step). Default true. */
  log?: boolean;
  /** Groups the log rows of one run; default: a new UUID. */
  runId?: string;
}

export interface AppliedStep {
  step: SchemaStep;
  ms: number;
}

export interface ApplyResult {
  ok: boolean;
  runId: string;
  applied: AppliedStep[];
  /** The step that failed, if any; the steps after it were not run. */
  failed?: { step: SchemaStep; index: number; error: Error };
}

/** Runs `steps` on `conn`, which must be one connection (not a pool). */
export async function applySteps(
  conn: Queryable,
  steps: SchemaStep[],
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  // Session settings (and convergeSchema's USE) hold for one connection only; a pool would
  // spread the steps over connections that never saw them.
  if (typeof (conn as { getConnection?: unknown }).getConnection === 'function') {
    throw new Error('applySteps needs a single connection, not a pool');
  }
  const runId = options.runId ?? randomUUID();
  const result: ApplyResult = { ok: true, runId, applied: [] };
  if (!steps.length) return result;

  const [saved] = (await conn.query(
    'SELECT @@SESSION.sql_mode AS sqlMode, @@SESSION.foreign_key_checks AS fkChecks',
  )) as {
    sqlMode: string;
    fkChecks: number | bigint;
  }[];
  await conn.query(`SET SESSION sql_mode = '${SESSION_SQL_MODE}', SESSION foreign_key_checks = 0`);
  try {
    let logReady = options.log !== false && (await tableExists(conn, SCHEMA_LOG_TABLE));
    for (const [index, step] of steps.entries()) {
      options.onProgress?.({ phase: 'start', index, total: steps.length, step });
      const startedAt = new Date();
      const t0 = performance.now();
      try {
        for (const sql of step.sql) await conn.query(sql);
        if (step.run) await step.run(conn);
      } catch (caught) {
        const error = caught instanceof Error ? caught : new Error(String(caught));
        const ms = Math.round(performance.now() - t0);
        result.ok = false;
        result.failed = { step, index, error };
        options.onProgress?.({ phase: 'failed', index, total: steps.length, step, ms, error });
        if (logReady) await logStep(conn, runId, step, startedAt, ms, error).catch(() => {});
        break;
      }
      const ms = Math.round(performance.now() - t0);
      result.applied.push({ step, ms });
      options.onProgress?.({ phase: 'done', index, total: steps.length, step, ms });
      if (!logReady && options.log !== false && step.id === `create-table:${SCHEMA_LOG_TABLE}`) logReady = true;
      if (logReady) await logStep(conn, runId, step, startedAt, ms);
    }
  } finally {
    await conn.query('SET SESSION sql_mode = ?, SESSION foreign_key_checks = ?', [
      saved.sqlMode,
      Number(saved.fkChecks),
    ]);
  }
  return result;
}

async function tableExists(conn: Queryable, table: string): Promise<boolean> {
  const rows = (await conn.query(
    'SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?',
    [table],
  )) as { n: number | bigint }[];
  return Number(rows[0]?.n ?? 0) > 0;
}

async function logStep(
  conn: Queryable,
  runId: string,
  step: SchemaStep,
  startedAt: Date,
  ms: number,
  error?: Error,
): Promise<void> {
  await conn.query(
    `INSERT INTO ${quoteIdent(SCHEMA_LOG_TABLE)}
       (run_id, step_id, kind, description, statements, destructive, status, error, started_at, execution_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      runId,
      step.id,
      step.kind,
      step.description + (step.risks.length ? `\nrisks: ${step.risks.join('; ')}` : ''),
      step.sql.join(';\n') + (step.run ? `${step.sql.length ? ';\n' : ''}-- plus code: ${step.id}` : ''),
      step.destructive ? 1 : 0,
      error ? 'failed' : 'ok',
      error ? error.message : null,
      startedAt,
      ms,
    ],
  );
}
