// What a data migration is, and what it is told about the database it runs on.
import type { Queryable } from '../converge/introspect.js';
import type { LiveSchema } from '../converge/index.js';
import type { ConfigState } from '../seed/index.js';
import type { Placement } from './placement.js';
import type { DatabaseContents } from './version.js';

/** The database as it was before this run (nothing of it changes while the run plans). */
export interface MigrationContext {
  database: string;
  live: LiveSchema;
  contents: DatabaseContents;
  /** Ids in the ledger; empty when there is no ledger yet. */
  applied: ReadonlySet<string>;
  /** Tables that receive seed rows and exist but hold no row. */
  emptySeedTables: ReadonlySet<string>;
  /** Config against 1.39.22's options (for a ZoneMinder database). */
  config: ConfigState;
  /** What the migrations did, one line each, for the operator. */
  notes: string[];
  /** What they could not do (e.g. a zone left in pixels), for the operator and the log. */
  warnings: string[];
}

/**
 * A data migration between ZoneMinder 1.36 and 1.39.22. It runs as a step of the converger's
 * plan, placed next to the schema change it depends on, is logged in zmgate_schema_log like every
 * step, and is recorded in zmgate_migrations when it has run. Each one is idempotent: `needed`
 * decides from the state before the run (the ledger, ZM_DYN_DB_VERSION — which only changes at the
 * very end of a bridge — and the schema), and the work itself skips rows already migrated.
 */
export interface DataMigration {
  /** Ledger id, e.g. '0002_function_to_modes'. */
  id: string;
  /** One line: what it does. */
  name: string;
  /** The ZoneMinder update (zm_update-X.sql) it corresponds to, or '' for zmgate's own. */
  since: string;
  destructive: boolean;
  risks?: string[];
  /** Live objects the converger reports as extras that this migration removes ('Users.MonitorIds'). */
  removes?: string[];
  /** Where in the plan: next to the first of these anchors present, or at the end (see placement.ts). */
  place: Placement;
  needed(ctx: MigrationContext): boolean;
  /** Statements run first, in order; shown by --dry-run and kept in the schema log. */
  sql?(ctx: MigrationContext): string[];
  /** What the code part will do, as SQL-like lines, for --dry-run (never executed). */
  describe?(ctx: MigrationContext): string[];
  /** Code run after `sql`; adds its summary to ctx.notes. */
  run?(conn: Queryable, ctx: MigrationContext): Promise<void>;
}
