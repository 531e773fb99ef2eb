// The MariaDB connection pool, configured from the layered config (zm.conf by default).
import { createPool as createMariaDbPool, type Pool } from 'mariadb';
import type { AppConfig } from '../config/types.js';

export type DbPool = Pool;

export function createPool(db: AppConfig['db']): DbPool {
  return createMariaDbPool({
    ...(db.socket ? { socketPath: db.socket } : { host: db.host, port: db.port }),
    user: db.username,
    password: db.password,
    database: db.database_name,
    connectionLimit: db.pool_max,
    minimumIdle: db.pool_min,
    connectTimeout: db.connect_timeout_secs * 1000,
    acquireTimeout: db.acquire_timeout_secs * 1000,
    idleTimeout: db.idle_timeout_secs,
    // ZoneMinder stores local wall-clock DATETIMEs; never let the driver shift them.
    dateStrings: true,
    bigIntAsNumber: true,
    insertIdAsNumber: true,
    decimalAsNumber: false,
  });
}
