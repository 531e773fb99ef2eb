// Every statement has a time bound on the client side.
//
// A database server that stops answering (frozen by SIGSTOP, a hung disk, a network black hole)
// keeps an open connection silent for ever: connect and acquire timeouts do not cover a query
// already sent, and a server-side limit (max_statement_time, KILL) needs a server that answers.
// So each query/execute races a timer; when it fires the connection is destroyed (its pool slot
// freed, the pool opens a fresh one later) and the caller gets DbTimeoutError, which the HTTP
// layer answers as 503 with Retry-After. Used for both the plain pool and Prisma's pool.
import type { Pool, PoolConnection } from 'mariadb';

/** A statement got no answer within the bound; the connection it ran on was dropped. */
export class DbTimeoutError extends Error {
  readonly code = 'ER_ZMGATE_QUERY_TIMEOUT';
  constructor(ms: number) {
    super(`database did not answer within ${ms} ms`);
    this.name = 'DbTimeoutError';
  }
}

/** Resolves with `work`, or rejects with DbTimeoutError after `ms` (then runs `onTimeout`). */
export function within<T>(work: Promise<T>, ms: number, onTimeout: () => void = () => {}): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      work.catch(() => {}); // settles later (or never) with nobody listening
      onTimeout();
      reject(new DbTimeoutError(ms));
    }, ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

type Runner = (...args: unknown[]) => Promise<unknown>;

/** A connection whose query()/execute() are bounded; a timed-out connection is destroyed. */
function boundedConnection(conn: PoolConnection, ms: number): PoolConnection {
  let destroyed = false;
  return new Proxy(conn, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== 'function') return value;
      if (prop === 'query' || prop === 'execute') {
        return (...args: unknown[]) =>
          within((value as Runner).apply(obj, args), ms, () => {
            destroyed = true;
            obj.destroy();
          });
      }
      // A destroyed connection is no longer the pool's: releasing it again would be an error.
      if (prop === 'release' || prop === 'end')
        return async () => (destroyed ? undefined : (value as Runner).apply(obj, []));
      return (value as Runner).bind(obj);
    },
  });
}

/** A view of `pool` whose statements, direct or on a taken connection, are bounded by `ms`. */
export function withQueryTimeout<T extends Pool>(pool: T, ms: number): T {
  const take = async () => boundedConnection(await pool.getConnection(), ms);
  return new Proxy(pool, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== 'function') return value;
      if (prop === 'getConnection') return take;
      if (prop === 'query' || prop === 'execute') {
        return async (...args: unknown[]) => {
          const conn = await take();
          try {
            return await (conn[prop] as Runner)(...args);
          } finally {
            await conn.release().catch(() => {});
          }
        };
      }
      return (value as Runner).bind(obj);
    },
  });
}
