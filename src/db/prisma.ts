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
import { DbGate, withQueryTimeout } from './bounded.js';
import type { AppConfig } from '../config/types.js';
import { PrismaClient, type Prisma } from '../generated/prisma/client.js';
import { withZeroDatesAsNull } from './prisma-zero-dates.js';
import { isCollationMismatch, noMatchResult } from './charset-errors.js';
import { NotFoundError } from '../errors.js';
import { columnCatalog } from './live-columns.js';
import { OlderSchemaReads } from './older-schema.js';
import { withTableNames, type TableNames } from './side-tables.js';

export { PrismaClient };
export type ClientOptions = Prisma.PrismaClientBaseOptions;
type AdapterFactory = Prisma.PrismaClientOptionsWithAdapter['adapter'];
type AdapterPool = Exclude<ConstructorParameters<typeof PrismaMariaDb>[0], string>;

/**
 * The adapter, with a pool of our own so zero dates can be filtered (see prisma-zero-dates.ts).
 * Each connect() (Prisma calls it again after $disconnect()) gets a fresh pool, which the adapter
 * owns and ends on disconnect.
 */
export function createAdapter(db: AppConfig['db'], gate: DbGate = new DbGate(), tables?: TableNames): AdapterFactory {
  const config = poolConfig(db);
  return {
    provider: 'mysql',
    adapterName: '@prisma/adapter-mariadb',
    connect() {
      const bounded = withZeroDatesAsNull(
        withQueryTimeout(createPool(config), db.query_timeout_secs * 1000, gate, config),
      );
      // An older ZoneMinder's database: 1.39's tables it lacks are zmgate's side tables.
      const pool = tables ? withTableNames(bounded, tables) : bounded;
      // The adapter's types are mariadb 3.4's and ours 3.5's: slightly different typings of the
      // same API, so the Pool type is asserted.
      const factory = new PrismaMariaDb(pool as unknown as AdapterPool, {
        database: db.database_name,
        disposeExternalPool: true,
      });
      return factory.connect();
    },
  };
}

/** Deadlocks and write conflicts (P2034) are retried this many times, with a short random back-off. */
const CONFLICT_RETRIES = 8;

function isWriteConflict(err: unknown): boolean {
  return err instanceof Error && (err as { code?: string }).code === 'P2034';
}

/**
 * InnoDB resolves deadlocks by aborting one statement; ZoneMinder's triggers (Zones → Monitors
 * ZoneCount, Events → Event_Summaries) make that common under concurrent writes. A statement
 * outside a transaction can simply be run again. Inside an interactive transaction the whole
 * transaction is already rolled back, so a retry fails again and the error surfaces as before.
 */
async function withConflictRetry<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (!isWriteConflict(err) || attempt >= CONFLICT_RETRIES) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.min(500, 5 + Math.random() * 10 * 2 ** attempt)));
    }
  }
}

/** `gate`: shared with the app's plain pool (src/db/bounded.ts). */
export function createPrismaClient(
  db: AppConfig['db'],
  options: ClientOptions = {},
  gate: DbGate = new DbGate(),
  tables?: TableNames,
): PrismaClient {
  const client = new PrismaClient({ ...options, adapter: createAdapter(db, gate, tables) });
  // An older ZoneMinder's tables lack some of 1.39's columns: reads leave them out (older-schema.ts).
  // The extended client, once made: creates on an older table are read back through it.
  const made: { client?: PrismaClient } = {};
  const older = new OlderSchemaReads(
    columnCatalog((sql) => client.$queryRawUnsafe(sql), tables),
    (sql, ...params) => client.$queryRawUnsafe(sql, ...params),
    {
      insert: (table, columns, values) =>
        client.$transaction(async (tx) => {
          const names = columns.map((c) => `\`${c}\``).join(', ');
          await tx.$executeRawUnsafe(
            `INSERT INTO \`${table}\` (${names}) VALUES (${columns.map(() => '?').join(', ')})`,
            ...values,
          );
          const [row] = await tx.$queryRawUnsafe<Array<{ id: number | bigint }>>('SELECT LAST_INSERT_ID() AS id');
          return Number(row?.id ?? 0);
        }),
      // Through the extended client, so the read leaves the missing columns out too.
      readBack: (model, args): Promise<unknown> =>
        (made.client as unknown as Record<string, { findUniqueOrThrow(a: unknown): Promise<unknown> }>)[
          model.charAt(0).toLowerCase() + model.slice(1)
        ].findUniqueOrThrow(args),
    },
  );
  const extended = client.$extends({
    query: {
      $allOperations: async ({ model, operation, args, query }) => {
        if (OlderSchemaReads.handles(model, operation)) {
          const plan = await older.plan(model);
          if (plan)
            return older.read(plan, operation, args as Record<string, unknown>, (a) =>
              run(operation, a, query as never),
            );
        }
        return run(operation, args, query);
      },
    },
  });
  // The extension adds behaviour, not API: the extended client keeps PrismaClient's surface.
  made.client = extended as unknown as PrismaClient;
  return made.client;
}

/** A query with the conflict retry and the charset rule (src/db/charset-errors.ts). */
function run(operation: string, args: unknown, query: (args: unknown) => Promise<unknown>): Promise<unknown> {
  return withConflictRetry(() => query(args)).catch((err: unknown) => {
    if (!isCollationMismatch(err)) throw err;
    // Text the column cannot hold matches no row.
    const result = noMatchResult(operation, args);
    if (result === 'not-found') throw new NotFoundError('Not found');
    if (result === undefined) throw err;
    return result.value;
  });
}
