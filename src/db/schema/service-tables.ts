// zmgate's own tables, beside ZoneMinder's in the same database. Every service object starts
// with `zmgate_`, a prefix ZoneMinder never uses, so the two can never collide and comparisons
// against ZoneMinder's schema can leave them out by name alone.
import { col, key, primary } from './builders.js';
import type { TableDef } from './types.js';

export const SERVICE_PREFIX = 'zmgate_';

export function isServiceObject(name: string): boolean {
  return name.startsWith(SERVICE_PREFIX);
}

// Pinned rather than inherited from the database default: these are ours, and their ids and
// names must compare the same way on every install.
const OWN_TABLE = { engine: 'InnoDB', charset: 'utf8mb4', collation: 'utf8mb4_general_ci' } as const;

/**
 * The migrations ledger: one row per applied migration. `stamped` marks a migration recorded as
 * applied without running it (a baseline on a database that already has what it creates).
 */
const migrations: TableDef = {
  name: 'zmgate_migrations',
  ...OWN_TABLE,
  columns: [
    col('id', 'varchar(191)'),
    col('name', 'varchar(255)'),
    col('checksum', 'char(64)', { null: true, default: 'NULL' }),
    col('applied_at', 'datetime(3)', { default: 'current_timestamp(3)' }),
    col('execution_ms', 'int(10) unsigned', { default: '0' }),
    col('stamped', 'tinyint(1)', { default: '0' }),
    col('zmgate_version', 'varchar(32)', { default: "''" }),
  ],
  indexes: [primary('id'), key('zmgate_migrations_applied_at_idx', 'applied_at')],
  foreignKeys: [],
};

/**
 * The schema log: one row per converger step or data migration that ran, with its SQL, so a
 * change to ZoneMinder's tables (above all one that rewrites or removes data) is always on
 * record. A run is one `zmgate-db up|bridge` invocation.
 */
const schemaLog: TableDef = {
  name: 'zmgate_schema_log',
  ...OWN_TABLE,
  columns: [
    col('id', 'bigint(20) unsigned', { extra: 'auto_increment' }),
    col('run_id', 'char(36)'),
    col('step_id', 'varchar(191)'),
    col('kind', 'varchar(32)'),
    col('description', 'text'),
    col('statements', 'mediumtext'),
    col('destructive', 'tinyint(1)', { default: '0' }),
    col('status', "enum('ok','failed')"),
    col('error', 'text', { null: true, default: 'NULL' }),
    col('started_at', 'datetime(3)'),
    col('execution_ms', 'int(10) unsigned', { default: '0' }),
  ],
  indexes: [
    primary('id'),
    key('zmgate_schema_log_run_id_idx', 'run_id'),
    key('zmgate_schema_log_started_at_idx', 'started_at'),
  ],
  foreignKeys: [],
};

/**
 * Multi-server installs: each host's public token verification keys (by key id, the `kid` of a
 * JWT header) and the API base URL the other hosts reach it at, published by every host at
 * start-up, so a token issued by any host verifies on every host without copying files.
 */
const clusterKeys: TableDef = {
  name: 'zmgate_cluster_keys',
  ...OWN_TABLE,
  columns: [
    col('kid', 'varchar(64)'),
    col('kind', "enum('access','refresh')"),
    col('server_id', 'int(10) unsigned', { null: true, default: 'NULL' }),
    col('server_name', 'varchar(64)', { default: "''" }),
    col('public_key', 'text'),
    col('api_url', 'varchar(255)', { default: "''" }),
    col('published_at', 'datetime(3)', { default: 'current_timestamp(3)' }),
  ],
  indexes: [primary('kid'), key('zmgate_cluster_keys_server_id_idx', 'server_id')],
  foreignKeys: [],
};

// The log first: the converger creates tables in this order and logs every step once it exists.
export const SERVICE_TABLES: TableDef[] = [schemaLog, migrations, clusterKeys];
export const CLUSTER_KEYS_TABLE = clusterKeys.name;
export const SCHEMA_LOG_TABLE = schemaLog.name;
export const MIGRATIONS_TABLE = migrations.name;
