// The unit of work the planner produces and apply() runs. Steps have stable ids
// ('<kind>:<object>') so callers can find a step and splice their own in, e.g. a data migration
// that must run after a column is added and before a trigger starts using it.
import type { Queryable } from './introspect.js';

export type StepKind =
  | 'rename-table'
  | 'create-table'
  | 'alter-engine'
  | 'fill-nulls'
  | 'alter-table'
  | 'add-foreign-keys'
  | 'drop-trigger'
  | 'create-trigger'
  | 'replace-trigger'
  | 'data-migration';

/** One change inside an alter-table step (all of a table's changes share one ALTER: one rebuild). */
export interface StepChange {
  id: string;
  kind: 'add-column' | 'modify-column' | 'drop-index' | 'add-index';
  description: string;
  destructive: boolean;
}

export interface SchemaStep {
  /** Stable: the same change on the same object always gets the same id. */
  id: string;
  kind: StepKind;
  table?: string;
  /** One human line. */
  description: string;
  /** Statements sent one at a time, in order. */
  sql: string[];
  /** The step rewrites or could lose existing data; `risks` says how. */
  destructive: boolean;
  risks: string[];
  changes?: StepChange[];
  /** For data migrations written in code: runs after `sql`. */
  run?: (conn: Queryable) => Promise<void>;
}

/** Something live that the target does not have. The planner never drops these. */
export interface SchemaExtra {
  kind: 'table' | 'view' | 'column' | 'index' | 'foreign-key' | 'trigger';
  /** 'Table', 'Table.Column', 'Table.Index', 'Table: (cols) -> …' or a trigger name. */
  name: string;
  detail: string;
}

export interface SchemaPlan {
  steps: SchemaStep[];
  extras: SchemaExtra[];
  warnings: string[];
}

/**
 * A data migration to splice into a plan. Dropping a table or column (e.g. Users.MonitorIds
 * after its rows were moved to Monitors_Permissions) is only ever done this way: explicitly,
 * flagged destructive, and logged by apply().
 */
export function dataMigrationStep(definition: {
  id: string;
  description: string;
  destructive?: boolean;
  risks?: string[];
  sql?: string[];
  run?: (conn: Queryable) => Promise<void>;
}): SchemaStep {
  return {
    id: definition.id.startsWith('data-migration:') ? definition.id : `data-migration:${definition.id}`,
    kind: 'data-migration',
    description: definition.description,
    sql: definition.sql ?? [],
    destructive: definition.destructive ?? false,
    risks: definition.risks ?? [],
    run: definition.run,
  };
}

/** Returns `steps` with `inserted` placed right after the step with id `afterId`. */
export function insertStepsAfter(steps: SchemaStep[], afterId: string, inserted: SchemaStep[]): SchemaStep[] {
  const at = steps.findIndex((step) => step.id === afterId);
  if (at === -1) throw new Error(`no step with id ${afterId}`);
  return [...steps.slice(0, at + 1), ...inserted, ...steps.slice(at + 1)];
}
