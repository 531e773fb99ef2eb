// The schema converger: read the live schema, plan the steps to the target, apply them.
export { convergeSchema, ConvergeError, type ConvergeOptions, type ConvergeResult } from './converge.js';
export { introspectSchema, type LiveSchema, type Queryable } from './introspect.js';
export { planSchema, TABLE_RENAMES, type PlanOptions } from './plan.js';
export { applySteps, type ApplyOptions, type ApplyResult, type AppliedStep, type StepProgress } from './apply.js';
export { diffSchemas, type DiffOptions } from './diff.js';
export { normaliseTriggerBody } from './compare.js';
export { assessColumnChange } from './classify.js';
export * as ddl from './ddl.js';
export {
  dataMigrationStep,
  insertStepsAfter,
  type SchemaExtra,
  type SchemaPlan,
  type SchemaStep,
  type StepChange,
  type StepKind,
} from './steps.js';
