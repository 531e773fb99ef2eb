// Every statement has a time bound on the client side.
//
// A database server that stops answering (frozen by SIGSTOP, a hung disk, a network black hole)
// keeps an open connection silent for ever: connect and acquire timeouts do not cover a query
// already sent, and a server-side limit (max_statement_time, KILL) needs a server that answers.
// So each query/execute races a timer; when it fires the connection is destroyed (its pool slot
// freed, the pool opens a fresh one later) and the caller gets DbTimeoutError, which the HTTP
// layer answers as 503 with Retry-After. Used for both the plain pool and Prisma's pool.
//
// That bound (db.query_timeout_secs, 30 s) is for a slow statement, not for a silent server: a
// statement or a wait for a connection that has no answer after STALL_MS has the server probed
// (SELECT 1 on a connection of its own, within PROBE_MS, one probe at a time shared by all that
// wait). An answer means the server is only busy: the wait goes on, probed again every STALL_MS.
// No answer closes a gate shared by both pools: everything that waits fails at once with
// DbUnavailableError (also 503; its connection is destroyed), and so does every statement from
// then on, instead of each request spending its own bound on a server known not to answer. So a
// frozen server costs a request about STALL_MS + PROBE_MS (3 s, the health check's bound), not
// 30 s. A statement that reaches its own bound closes the gate too, and so does a refused connect
// (nothing listening); a slow connect does not (a loaded machine connects slowly too: that costs
// the request its acquire timeout only). While closed, a probe runs again and again (200 ms
// apart; one under way when the server wakes up is answered at once) and the first answer
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
/** How long a statement or a wait for a connection goes unanswered before the server is probed. */
export const STALL_MS = 1000;
/** How long the server has to answer that probe (connect and SELECT 1) before the gate closes. */
export const PROBE_MS = 2000;

/** Nothing listens where the database should: the server is down, not slow. */
function isConnectRefused(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const x = e as { code?: unknown; cause?: unknown; errors?: unknown };
    if (x.code === 'ECONNREFUSED' || x.code === 'ENOENT') return true;
    e = x.cause ?? (Array.isArray(x.errors) ? x.errors[0] : undefined);
  }
  return false;
}

/** The server itself refused (its error numbers are below the driver's 45000 range): it answers. */
function serverAnswered(err: unknown): boolean {
  const errno = (err as { errno?: unknown })?.errno;
  return typeof errno === 'number' && errno < 45000;
}

/** Connects and runs SELECT 1, all within `ms`; rejects when the server does not answer. */
type Probe = (ms: number) => Promise<void>;

/**
 * Closed while the database is known not to answer. Shared by every pool of one app (the plain
 * pool and Prisma's), so that a fault found through one fails the other's statements at once too.
 */
export class DbGate {
  private probing = false;
  /** The probe under way because something has waited STALL_MS (one at a time). */
  private suspicion: Promise<void> | null = null;
  /** What waits on the server now: each fails with DbUnavailableError when the gate closes. */
  private readonly waiting = new Set<() => void>();

  /**
   * `retryMs`: pause between two failed probes while closed; `stallMs` and `probeMs`: see
   * STALL_MS and PROBE_MS.
   */
  constructor(
    private readonly retryMs = 200,
    private readonly stallMs = STALL_MS,
    private readonly probeMs = PROBE_MS,
  ) {}

  /** True while statements fail at once. */
  get closed(): boolean {
    return this.probing;
  }

  /** Throws DbUnavailableError while closed. */
  check(): void {
    if (this.probing) throw new DbUnavailableError();
  }

  /**
   * The server does not answer: close until `probe` resolves (no-op when already closed).
   * Everything waiting on the server fails at once.
   */
  trip(probe: Probe, ms: number): void {
    if (this.probing) return;
    this.probing = true;
    for (const fail of [...this.waiting]) fail();
    void this.probeUntilAnswered(probe, ms);
  }

  /**
   * `work` (a statement, or a wait for a connection), failed with DbUnavailableError as soon as
   * the gate closes, `abandon` then being called (it must dispose of whatever `work` brings
   * later). While it waits, the server is probed every `stallMs` (see the file comment).
   */
  watch<T>(work: Promise<T>, probe: Probe, ms: number, abandon: () => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const fail = () => {
        clearTimeout(timer);
        this.waiting.delete(fail);
        work.catch(() => {}); // settles later (or never) with nobody listening
        abandon();
        reject(new DbUnavailableError());
      };
      const arm = () => {
        timer = setTimeout(() => {
          void this.suspect(probe, ms).then(() => {
            if (this.waiting.has(fail)) arm();
          });
        }, this.stallMs).unref();
      };
      this.waiting.add(fail);
      arm();
      work.then(
        (value) => {
          clearTimeout(timer);
          this.waiting.delete(fail);
          resolve(value);
        },
        (err: unknown) => {
          clearTimeout(timer);
          this.waiting.delete(fail);
          reject(err as Error);
        },
      );
    });
  }

  /** Probes within `probeMs` (joining a probe under way); no answer closes the gate. */
  private suspect(probe: Probe, ms: number): Promise<void> {
    if (this.probing) return Promise.resolve();
    this.suspicion ??= probe(Math.min(this.probeMs, ms))
      .catch((err: unknown) => {
        const errno = (err as { errno?: unknown })?.errno;
        if (errno !== ER_POOL_ALREADY_CLOSED && !serverAnswered(err)) this.trip(probe, ms);
      })
      .finally(() => (this.suspicion = null));
    return this.suspicion;
  }

  private async probeUntilAnswered(probe: Probe, ms: number): Promise<void> {
    for (;;) {
      try {
        // The statements' own bound: a server that answers slowly (a loaded machine) reopens it.
        await probe(ms);
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
  let settled = false;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // An answer that came while the event loop was busy is read in this turn's poll phase,
      // which runs before setImmediate's: a busy loop is not a silent server.
      setImmediate(() => {
        if (settled) return;
        work.catch(() => {}); // settles later (or never) with nobody listening
        onTimeout();
        reject(new DbTimeoutError(ms));
      });
    }, ms);
  });
  return Promise.race([work, expired]).finally(() => {
    settled = true;
    clearTimeout(timer);
  });
}

type Runner = (...args: unknown[]) => Promise<unknown>;

interface Watch {
  gate: DbGate;
  probe: Probe;
  /** Statements that reach this bound close the gate. */
  onTimeout: () => void;
}

/**
 * A connection whose query()/execute() are bounded by `ms`; a timed-out connection is destroyed.
 * With `watch`, each statement is first checked against the gate, is watched by it while it
 * runs (its connection destroyed when the gate closes), and closes it when it times out.
 */
function boundedConnection(conn: PoolConnection, ms: number, watch?: Watch): PoolConnection {
  let destroyed = false;
  const destroy = () => {
    if (destroyed) return;
    destroyed = true;
    conn.destroy();
  };
  return new Proxy(conn, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== 'function') return value;
      if (prop === 'query' || prop === 'execute') {
        return (...args: unknown[]) => {
          if (!watch) return within((value as Runner).apply(obj, args), ms, destroy);
          try {
            watch.gate.check();
          } catch (err) {
            return Promise.reject(err as Error);
          }
          const bounded = within((value as Runner).apply(obj, args), ms, () => {
            destroy();
            watch.onTimeout();
          });
          return watch.gate.watch(bounded, watch.probe, ms, destroy);
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
export function withQueryTimeout<T extends Pool>(pool: T, ms: number, gate: DbGate, connect: ConnectionConfig): T {
  // The probe connects on its own, not through the pool: every failed connect the pool makes
  // lengthens its back-off (up to 10 s) before it tries again, which would delay the recovery;
  // and a wait for a pooled connection is what may be stuck.
  const probe: Probe = async (bound) => {
    if ((pool as unknown as { closed?: boolean }).closed)
      throw Object.assign(new Error('pool closed'), { errno: ER_POOL_ALREADY_CLOSED });
    const opened = createConnection({ ...connect, connectTimeout: Math.min(connect.connectTimeout ?? bound, bound) });
    let answered = false;
    try {
      await within(
        opened.then((conn) => conn.query('SELECT 1')),
        bound,
      );
      answered = true;
    } finally {
      // Closed in any case, also when it connects after the bound.
      void opened.then(
        (conn) => (answered ? conn.end().catch(() => conn.destroy()) : conn.destroy()),
        () => {},
      );
    }
  };
  const trip = () => gate.trip(probe, ms);
  const watch: Watch = { gate, probe, onTimeout: trip };
  const take = async () => {
    gate.check();
    const waiting = pool.getConnection();
    try {
      // A connection that comes after the gate closed goes back to the pool unused.
      const conn = await gate.watch(
        waiting,
        probe,
        ms,
        () =>
          void waiting.then(
            (c) => c.release(),
            () => {},
          ),
      );
      return boundedConnection(conn, ms, watch);
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
