// Prisma's client is built on first use. Its generated runtime, the parameter graph it builds when
// constructed and (on the first query) its WebAssembly query compiler cost 12–20 MB of heap; the
// routes a polling UI or an idle service touches read through the driver pool and never need it
// (bench/README.md, "Where the memory goes").
import { createRequire } from 'node:module';
import type { AppConfig } from '../config/types.js';
import type { DbGate } from './bounded.js';
import type { PrismaClient } from './prisma.js';
import type { TableNames } from './side-tables.js';

/**
 * A PrismaClient that loads and builds the real one on the first property access (every query
 * starts with one). `$disconnect` of a client never built does nothing; the object is not a
 * thenable, so awaiting or returning it from an async function does not build it.
 */
export function lazyPrismaClient(db: AppConfig['db'], gate: DbGate, tables?: TableNames): PrismaClient {
  let client: PrismaClient | null = null;
  const real = (): PrismaClient => {
    if (!client) {
      // require() of an ES module (Node >= 20.19): synchronous, so a plain property access can build it.
      const { createPrismaClient } = createRequire(import.meta.url)('./prisma.js') as typeof import('./prisma.js');
      client = createPrismaClient(db, {}, gate, tables);
    }
    return client;
  };
  return new Proxy({} as PrismaClient, {
    get(_target, prop) {
      if (prop === 'then') return undefined;
      if (prop === '$disconnect' && !client) return () => Promise.resolve();
      const c = real();
      const value: unknown = Reflect.get(c, prop, c);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(c) : value;
    },
    has(_target, prop) {
      return prop in real();
    },
  });
}
