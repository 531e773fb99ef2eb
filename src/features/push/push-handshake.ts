// Live push, the handshake (docs/push.md): the access token comes in the handshake (`auth.token`,
// or `?token=`). A `?token=` is checked before socket.io's engine sees the request, so a bad one
// is the API's own 401 envelope (over HTTP, or a refused upgrade), not an engine error. Tokens
// that cannot be JWTs, and tokens refused in the last minute, are refused without any crypto or
// database work, so floods of bad tokens stay cheap. Beyond push.max_clients a handshake gets 503.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'socket.io';
import type { AuthService, AuthUser } from '../../auth/auth-service.js';
import type { MonitorAcl } from '../../auth/monitor-acl.js';
import type { AppConfig } from '../../config/types.js';
import {
  ApiError,
  BadRequestError,
  PermissionDeniedError,
  ServiceUnavailableError,
  UnauthorizedError,
} from '../../errors.js';
import type { Logger } from '../../log.js';
import { allowedTopics } from './push-rooms.js';

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_TOKEN_CHARS = 8192;
const REFUSED_TTL_MS = 60_000;
const REFUSED_MAX = 4096;

export interface PushHandshakeOptions {
  config: Pick<AppConfig, 'push'>;
  log: Logger;
  auth: Pick<AuthService, 'authenticate'>;
  acl: Pick<MonitorAcl, 'scope'>;
}

export class PushHandshake {
  readonly #o: PushHandshakeOptions;
  readonly #refused = new Map<string, number>();
  /** Handshake requests whose `?token=` was checked before the engine saw them. */
  readonly #checked = new WeakMap<IncomingMessage, AuthUser>();

  constructor(options: PushHandshakeOptions) {
    this.#o = options;
  }

  /**
   * The check of a handshake before the engine sees it: null for requests of an open session
   * (they carry its `sid`; the engine knows them), else a promise of the refusal (null: go on).
   * Refusals are the API's error envelope: 400 for a malformed URL, 503 beyond
   * push.max_clients, 401 for a bad `?token=` (a handshake with `auth.token` is checked by
   * the socket.io middleware, its refusal is a connect_error).
   */
  gate(req: IncomingMessage, connections: number): Promise<ApiError | null> | null {
    let query: URLSearchParams;
    try {
      query = new URL(req.url ?? '/', 'http://localhost').searchParams;
    } catch {
      return Promise.resolve(new BadRequestError('Malformed request URL', [['url', 'not a valid request target']]));
    }
    if (query.has('sid')) return null;
    const max = this.#o.config.push.max_clients;
    if (connections >= max)
      return Promise.resolve(
        new ServiceUnavailableError('Too many push connections', [['push.max_clients', String(max)]], 5),
      );
    const token = query.get('token');
    if (token === null) return Promise.resolve(null);
    return this.check(token).then(
      (user) => {
        this.#checked.set(req, user);
        return null;
      },
      (err: unknown) => this.asApiError(err),
    );
  }

  /** Validates a token: shape and refusal memory first (no crypto), then the real check. */
  async check(token: unknown): Promise<AuthUser> {
    if (typeof token !== 'string' || token.length === 0)
      throw new UnauthorizedError('Missing access token (auth.token or ?token=)');
    if (token.length > MAX_TOKEN_CHARS || !JWT_SHAPE.test(token)) throw new UnauthorizedError('Invalid token');
    const refusedUntil = this.#refused.get(token);
    if (refusedUntil !== undefined && refusedUntil > Date.now()) throw new UnauthorizedError('Invalid token');
    try {
      return await this.#o.auth.authenticate(token);
    } catch (err) {
      if (err instanceof UnauthorizedError) this.#remember(token);
      throw err;
    }
  }

  #remember(token: string): void {
    this.#refused.delete(token);
    this.#refused.set(token, Date.now() + REFUSED_TTL_MS);
    if (this.#refused.size > REFUSED_MAX) this.#refused.delete(this.#refused.keys().next().value as string);
  }

  async authenticateSocket(socket: Socket): Promise<void> {
    const auth = socket.handshake.auth as Record<string, unknown> | undefined;
    const query = socket.handshake.query.token;
    const fromQuery = !(auth && auth.token !== undefined);
    const token = fromQuery ? (Array.isArray(query) ? query[0] : query) : auth.token;
    // A `?token=` was checked by gate() a moment ago on this very request.
    const checked = fromQuery ? this.#checked.get(socket.request) : undefined;
    const user = checked ?? (await this.check(token));
    const topics = allowedTopics(user.perms);
    if (!topics.has('alarm') && !topics.has('event')) {
      throw new PermissionDeniedError('View permission on stream, monitors or events required', [
        ['feature', 'stream|monitors|events'],
      ]);
    }
    const scope = await this.#o.acl.scope(user);
    socket.data = { user, token, scope };
  }

  /** A refusal as socket.io's connect_error: message = the reason, data = the error envelope. */
  connectError(err: unknown): Error {
    const api = this.asApiError(err);
    return Object.assign(new Error(api.message), { data: api.toEnvelope() });
  }

  /** Known refusals as they are; anything else (the database down) is a logged 503. */
  asApiError(err: unknown): ApiError {
    if (err instanceof ApiError) return err;
    this.#o.log.warn({ err: { message: (err as Error)?.message } }, 'push: handshake check failed');
    return new ServiceUnavailableError('Authentication is unavailable, try again');
  }
}

/** Answers a refused handshake over HTTP with the API's error envelope (as the REST routes do). */
export function refuseRequest(res: ServerResponse, error: ApiError): void {
  if (res.headersSent || res.destroyed) return;
  const body = JSON.stringify(error.toEnvelope());
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  };
  if (error instanceof ServiceUnavailableError && error.retryAfterSecs !== null)
    headers['Retry-After'] = String(error.retryAfterSecs);
  res.writeHead(error.status, headers).end(body);
}
