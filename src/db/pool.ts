// The MariaDB connection settings from the layered config (zm.conf by default), and the plain
// driver pool used where SQL is written by hand (health, auth). Prisma builds its own pool from
// the same settings (src/db/prisma.ts).
import { createPool as createMariaDbPool, type Pool, type PoolConfig } from 'mariadb';
import type { AppConfig } from '../config/types.js';

export type DbPool = Pool;

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
    // What the Prisma adapter sets on pools it creates itself: no server-side prepared statement cache.
    prepareCacheLength: 0,
  };
}

export function createPool(db: AppConfig['db']): DbPool {
  return createMariaDbPool({
    ...poolConfig(db),
    // ZoneMinder stores local wall-clock DATETIMEs; never let the driver shift them.
    dateStrings: true,
    bigIntAsNumber: true,
    insertIdAsNumber: true,
    decimalAsNumber: false,
  });
}
