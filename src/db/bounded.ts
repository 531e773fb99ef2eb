// Every statement has a time bound on the client side.
//
// A database server that stops answering (frozen by SIGSTOP, a hung disk, a network black hole)
// keeps an open connection silent for ever: connect and acquire timeouts do not cover a query
// already sent, and a server-side limit (max_statement_time, KILL) needs a server that answers.
// So each query/execute races a timer; when it fires the connection is destroyed (its pool slot
// freed, the pool opens a fresh one later) and the caller gets DbTimeoutError, which the HTTP
// layer answers as 503 with Retry-After. Used for both the plain pool and Prisma's pool.
//
// One statement without an answer closes a gate shared by both pools: from then on every
// statement fails at once with DbUnavailableError (also 503), instead of each request spending
// its own bound on a server that is known not to answer. A refused connect (nothing listening)
// closes it too; a slow connect does not (a loaded machine connects slowly too: that costs the
// request its acquire timeout only). A probe (SELECT 1 on a connection of its own) runs until the server answers again and
// reopens the gate; that is the only way back. The probe stops when the pool is ended.
import { createConnection, type ConnectionConfig, type Pool, type PoolConnection } from 'mariadb';

/** A statement got no answer within the bound; the connection it ran on was dropped. */
export class DbTimeoutError extends Error {
  readonly code = 'ER_ZMGATE_QUERY_TIMEOUT';
  constructor(ms: number) {
    super(`database did not answer within ${ms} ms`);
    this.name = 'DbTimeoutError';
  }
}

/** The database was found not answering and has not answered a probe since; nothing was sent. */
export class DbUnavailableError extends Error {
  readonly code = 'ER_ZMGATE_DB_UNAVAILABLE';
  constructor() {
    super('database not answering (waiting for it to answer a probe)');
    this.name = 'DbUnavailableError';
  }
}

/** mariadb's "pool already closed": a probe through an ended pool can never succeed. */
const ER_POOL_ALREADY_CLOSED = 45027;
/** Nothing listens where the database should: the server is down, not slow. */
function isConnectRefused(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const x = e as { code?: unknown; cause?: unknown; errors?: unknown };
    if (x.code === 'ECONNREFUSED' || x.code === 'ENOENT') return true;
    e = x.cause ?? (Array.isArray(x.errors) ? x.errors[0] : undefined);
  }
  return false;
}

/**
 * Closed while the database is known not to answer. Shared by every pool of one app (the plain
 * pool and Prisma's), so that a fault found through one fails the other's statements at once too.
 */
export class DbGate {
  private probing = false;

  /** `retryMs`: pause between two failed probes. */
  constructor(private readonly retryMs = 200) {}

  /** True while statements fail at once. */
  get closed(): boolean {
    return this.probing;
  }

  /** Throws DbUnavailableError while closed. */
  check(): void {
    if (this.probing) throw new DbUnavailableError();
  }

  /** A statement went unanswered: close until `probe` resolves (no-op when already closed). */
  trip(probe: () => Promise<void>): void {
    if (this.probing) return;
    this.probing = true;
    void this.probeUntilAnswered(probe);
  }

  private async probeUntilAnswered(probe: () => Promise<void>): Promise<void> {
    for (;;) {
      try {
        await probe();
        break;
      } catch (err) {
        // The pool was ended (the app is closing, or Prisma disconnected): stop probing.
        if ((err as { errno?: unknown })?.errno === ER_POOL_ALREADY_CLOSED) break;
      }
      await new Promise((resolve) => setTimeout(resolve, this.retryMs).unref());
    }
    this.probing = false;
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

/**
 * A connection whose query()/execute() are bounded; a timed-out connection is destroyed and
 * `onTimeout` called. `before` runs ahead of each statement (it may throw).
 */
function boundedConnection(
  conn: PoolConnection,
  ms: number,
  onTimeout: () => void = () => {},
  before: () => void = () => {},
): PoolConnection {
  let destroyed = false;
  return new Proxy(conn, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== 'function') return value;
      if (prop === 'query' || prop === 'execute') {
        return (...args: unknown[]) => {
          try {
            before();
          } catch (err) {
            return Promise.reject(err as Error);
          }
          return within((value as Runner).apply(obj, args), ms, () => {
            destroyed = true;
            obj.destroy();
            onTimeout();
          });
        };
      }
      // A destroyed connection is no longer the pool's: releasing it again would be an error.
      if (prop === 'release' || prop === 'end')
        return async () => (destroyed ? undefined : (value as Runner).apply(obj, []));
      return (value as Runner).bind(obj);
    },
  });
}

/**
 * A view of `pool` whose statements, direct or on a taken connection, are bounded by `ms`; a
 * statement without an answer, or a refused connect, closes `gate` (see the file comment).
 */
export function withQueryTimeout<T extends Pool>(
  pool: T,
  ms: number,
  gate: DbGate = new DbGate(),
  connect?: ConnectionConfig,
): T {
  // The probe connects on its own, not through the pool: every failed connect the pool makes
  // lengthens its back-off (up to 10 s) before it tries again, which would delay the recovery.
  const probe = async () => {
    if ((pool as unknown as { closed?: boolean }).closed)
      throw Object.assign(new Error('pool closed'), { errno: ER_POOL_ALREADY_CLOSED });
    const conn = connect
      ? await createConnection({ ...connect, connectTimeout: Math.min(connect.connectTimeout ?? ms, ms) })
      : await pool.getConnection();
    const bounded = boundedConnection(conn as PoolConnection, ms);
    try {
      await bounded.query('SELECT 1');
    } finally {
      if (connect) conn.destroy();
      else await bounded.release().catch(() => {});
    }
  };
  const trip = () => gate.trip(probe);
  const take = async () => {
    gate.check();
    try {
      return boundedConnection(await pool.getConnection(), ms, trip, () => gate.check());
    } catch (err) {
      if (isConnectRefused(err)) trip();
      throw err;
    }
  };
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
