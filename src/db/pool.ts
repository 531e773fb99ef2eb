// The MariaDB connection settings from the layered config (zm.conf by default), and the plain
// driver pool used where SQL is written by hand (health, auth). Prisma builds its own pool from
// the same settings (src/db/prisma.ts).
import { createPool as createMariaDbPool, type Pool, type PoolConfig } from 'mariadb';
import type { AppConfig } from '../config/types.js';
import { DbGate, withQueryTimeout } from './bounded.js';
import { withTableNames, type TableNames } from './side-tables.js';

export type DbPool = Pool;

/**
 * Prepared statements kept per connection. Without a cache (the Prisma adapter's default for
 * pools it creates) every execute() is PREPARE + EXECUTE + CLOSE: three packets and a parse on
 * the server where one would do, which was a large part of a monitor list's cost. The cache is
 * bounded so that one pool holds at most ~2,000 statements on the server, well below
 * MariaDB's max_prepared_stmt_count (16,382 by default, shared with ZoneMinder's own daemons).
 */
export function prepareCacheLength(poolMax: number): number {
  return Math.min(128, Math.floor(2000 / Math.max(1, poolMax)));
}

export function poolConfig(db: AppConfig['db']): PoolConfig {
  return {
    ...(db.socket ? { socketPath: db.socket } : { host: db.host, port: db.port }),
    user: db.username,
    password: db.password,
    database: db.database_name,
    connectionLimit: db.pool_max,
    minimumIdle: db.pool_min,
    connectTimeout: db.connect_timeout_secs * 1000,
    acquireTimeout: db.acquire_timeout_secs * 1000,
    idleTimeout: db.idle_timeout_secs, // the driver takes seconds here
    prepareCacheLength: prepareCacheLength(db.pool_max),
  };
}

/** `gate`: shared with the app's other pool (Prisma's), see src/db/bounded.ts. */
/** `tables`: where 1.39's tables are on an older ZoneMinder's database (side-tables.ts). */
export function createPool(db: AppConfig['db'], gate: DbGate = new DbGate(), tables?: TableNames): DbPool {
  const config = poolConfig(db);
  const pool = createMariaDbPool({
    ...config,
    // ZoneMinder stores local wall-clock DATETIMEs; never let the driver shift them.
    dateStrings: true,
    bigIntAsNumber: true,
    insertIdAsNumber: true,
    decimalAsNumber: false,
  });
  const bounded = withQueryTimeout(pool, db.query_timeout_secs * 1000, gate, config);
  return tables ? withTableNames(bounded, tables) : bounded;
}
