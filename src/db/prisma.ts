// The Prisma client over ZoneMinder's MariaDB database, configured from the layered config.
//
// Read before use:
// - DateTime values are wall-clock Dates (src/db/datetime.ts): convert with
//   toLocalDateTimeString() / fromLocalDateTimeString(), never with toISOString() or new Date(str).
// - Zero dates read as null (src/db/prisma-zero-dates.ts).
// - BigInt and Decimal need src/db/prisma-json.ts before they go into a JSON response.
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { createPool } from 'mariadb';
import { poolConfig } from './pool.js';
import type { AppConfig } from '../config/types.js';
import { PrismaClient, type Prisma } from '../generated/prisma/client.js';
import { withZeroDatesAsNull } from './prisma-zero-dates.js';

export { PrismaClient };
export type ClientOptions = Prisma.PrismaClientBaseOptions;
type AdapterFactory = Prisma.PrismaClientOptionsWithAdapter['adapter'];
type AdapterPool = Exclude<ConstructorParameters<typeof PrismaMariaDb>[0], string>;

/**
 * The adapter, with a pool of our own so zero dates can be filtered (see prisma-zero-dates.ts).
 * Each connect() (Prisma calls it again after $disconnect()) gets a fresh pool, which the adapter
 * owns and ends on disconnect.
 */
export function createAdapter(db: AppConfig['db']): AdapterFactory {
  const config = poolConfig(db);
  return {
    provider: 'mysql',
    adapterName: '@prisma/adapter-mariadb',
    connect() {
      const pool = withZeroDatesAsNull(createPool(config));
      // The adapter's types are mariadb 3.4's and ours 3.5's: slightly different typings of the
      // same API, so the Pool type is asserted.
      const factory = new PrismaMariaDb(pool as unknown as AdapterPool, { database: db.database_name, disposeExternalPool: true });
      return factory.connect();
    },
  };
}

export function createPrismaClient(db: AppConfig['db'], options: ClientOptions = {}): PrismaClient {
  return new PrismaClient({ ...options, adapter: createAdapter(db) });
}
