// Live event push: a socket.io server on the main listener at /api/v3/socket.io/ (docs/push.md).
//
// Decisions:
// - socket.io runs detached from the listener (its engine is bound to a server that never
//   listens); server.ts hands it exactly the requests and upgrades under PUSH_PATH, so the
//   WebRTC WebSocket handler keeps every other upgrade. socket.io itself (and the Redis adapter)
//   loads on the first push request, so a service nobody subscribes to does not hold it; with
//   Redis sharing push between hosts it loads at start (other hosts' clients may listen).
// - Authentication: the access token in the handshake (`auth.token`, or `?token=`). A `?token=`
//   is checked before the engine sees the request, so a bad one is the API's own 401 envelope
//   (HTTP or refused upgrade), not an engine error. Tokens that cannot be JWTs, and tokens
//   refused in the last minute, are refused without any crypto or database work, so floods of
//   bad tokens stay cheap. Each connection's token is checked again
//   every `push.recheck_secs` (revocation by logout or password change, disabled user, changed
//   permissions and monitor ACL); at its expiry the connection ends unless the client sent a
//   newer token (`refresh_token`).
// - Delivery: one socket.io room per topic and monitor (`alarm:3`, `event:3`); a connection is in
//   a room only while it subscribed to that monitor, may see it (row ACL) and holds the topic's
//   feature permission, so a hidden monitor's messages never reach it and subscribing to one
//   answers exactly like subscribing to a missing one.
// - Back-pressure: a connection with `push.max_queued_messages` unsent messages at the
//   once-a-second sweep, or four times that at any message, is disconnected (reason
//   slow_consumer); it can reconnect and ask for the events it missed (`replay`), so memory stays
//   bounded and nobody waits for it.
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Server, Socket } from 'socket.io';
import type { AuthService, AuthUser } from '../../auth/auth-service.js';
import { canSee, type MonitorAcl, type MonitorScope } from '../../auth/monitor-acl.js';
import { allows, type Permissions } from '../../auth/permissions.js';
import type { AppConfig } from '../../config/types.js';
import type { ZoneClock } from '../../db/zone-clock.js';
import {
  ApiError,
  BadRequestError,
  InvalidInputError,
  PermissionDeniedError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
} from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import { EventWatcher } from './event-watcher.js';
import {
  monitorOf,
  nowIso,
  PUSH_PATH,
  PUSH_PROTOCOL_VERSION,
  topicOf,
  type DaemonChange,
  type PushMessage,
  type Topic,
} from './messages.js';
import { MonitorWatcher } from './monitor-watcher.js';
import { eventsSince, isClosed, toPushEvent, type Queryable } from './push-queries.js';
import type { Services } from '../../registry.js';
import { ZoneMinderClock } from '../../zm/event-time.js';
import { refuseUpgrade } from '../../media/refuse-upgrade.js';
import { ClusterService } from '../../infra/cluster/cluster-service.js';

export interface PushServiceOptions {
  config: Pick<AppConfig, 'push' | 'zoneminder'>;
  log: Logger;
  auth: Pick<AuthService, 'authenticate' | 'clock'>;
  acl: Pick<MonitorAcl, 'scope'>;
  db: Queryable;
  clock: () => Promise<ZoneClock>;
  /** Multi-server (src/infra/cluster/): the Redis adapter, and which monitors this host announces. */
  cluster?: Pick<ClusterService, 'pushAdapter' | 'publishes' | 'sharesPush'>;
  /** Messages published and delivered, connections ended (src/metrics.ts). */
  metrics?: Pick<Metrics, 'pushMessage' | 'pushEnded'>;
}

/** Why a connection was ended by the server (the `session_ended` message). */
export type EndReason = 'expired' | 'revoked' | 'disabled' | 'slow_consumer' | 'rate_limited' | 'shutdown';

interface Client {
  socket: Socket;
  user: AuthUser;
  token: string;
  scope: MonitorScope;
  /** Monitors asked for: 'all' follows new monitors too. */
  monitors: 'all' | Set<number>;
  topics: Set<Topic>;
  timers: NodeJS.Timeout[];
  replaying: boolean;
  window: { start: number; count: number };
}

const TOPICS: readonly Topic[] = ['alarm', 'event', 'daemon'];
const CLIENT_MESSAGES = new Set(['subscribe', 'unsubscribe', 'refresh_token', 'replay']);
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_TOKEN_CHARS = 8192;
const REFUSED_TTL_MS = 60_000;
const REFUSED_MAX = 4096;
/** Client messages per 10 s before the connection is ended (they cost queries and room work). */
const MESSAGES_PER_WINDOW = 100;
const MAX_SUBSCRIBE_IDS = 10_000;
/** A queue this many times push.max_queued_messages drops the client at once. */
const HARD_LIMIT_FACTOR = 4;
/** How often queues are compared with push.max_queued_messages. */
const SWEEP_MS = 1000;

/** The feature permission each topic needs (Stream or Monitors View for alarms and status). */
export function allowedTopics(perms: Permissions): Set<Topic> {
  const out = new Set<Topic>();
  if (allows(perms, 'stream', 'View') || allows(perms, 'monitors', 'View')) out.add('alarm');
  if (allows(perms, 'events', 'View')) out.add('event');
  if (allows(perms, 'system', 'View')) out.add('daemon');
  return out;
}

function envelope(err: unknown): ReturnType<ApiError['toEnvelope']> {
  const api = err instanceof ApiError ? err : new InvalidInputError('Invalid message');
  return api.toEnvelope();
}

function endReasonOf(err: UnauthorizedError): EndReason {
  if (/expired/i.test(err.message)) return 'expired';
  if (/disabled|removed/i.test(err.message)) return 'disabled';
  return 'revoked';
}

export class PushService {
  /** One per app, from the registry; server.ts routes its path and starts it. */
  static from(s: Services): PushService {
    return new PushService({
      config: s.config,
      log: s.log,
      auth: s.auth,
      acl: s.acl,
      db: s.pool,
      clock: s.get(ZoneMinderClock),
      cluster: s.get(ClusterService),
      metrics: s.metrics,
    });
  }

  readonly monitors: MonitorWatcher;
  readonly events: EventWatcher;
  readonly #o: PushServiceOptions;
  readonly #engineHost: HttpServer = createServer();
  readonly #clients = new Map<string, Client>();
  readonly #refused = new Map<string, number>();
  /** Handshake requests whose `?token=` was checked before the engine saw them. */
  readonly #checked = new WeakMap<IncomingMessage, AuthUser>();
  #recheck: NodeJS.Timeout | null = null;
  #sweep: NodeJS.Timeout | null = null;
  #rechecking = false;
  #started = false;
  /** Published through the Redis adapter: other hosts' clients may be in the room. */
  readonly #shared: boolean;
  /** The socket.io server once loaded (#server()); null before the first push request. */
  #io: Server | null = null;
  #ioLoading: Promise<Server> | null = null;

  constructor(options: PushServiceOptions) {
    this.#o = options;
    const push = options.config.push;
    // Multi-server: messages go through Redis to the clients of every host (off without redis_url).
    this.#shared = options.cluster?.sharesPush ?? false;
    const publish = (m: PushMessage) => this.publish(m);
    this.monitors = new MonitorWatcher({
      db: options.db,
      mapDir: options.config.zoneminder.path_map,
      log: options.log,
      alarmPollMs: push.alarm_poll_ms,
      statusPollSecs: push.status_poll_secs,
      fpsThreshold: push.capture_fps_threshold,
      publish,
      onMonitors: () => {
        for (const c of this.#clients.values()) this.#sync(c);
      },
      // Without connections nothing needs the shared memory (nor keeps it mapped).
      // Multi-server with Redis: clients of other hosts may be listening.
      active: () => this.#shared || this.#clients.size > 0,
    });
    this.events = new EventWatcher({
      db: options.db,
      clock: options.clock,
      log: options.log,
      periodMs: push.event_poll_ms,
      publish,
    });
  }

  get enabled(): boolean {
    return this.#o.config.push.enabled;
  }

  get clientCount(): number {
    return this.#clients.size;
  }

  /**
   * The socket.io server, loaded and built on first use (the first push request; at start when
   * Redis shares push between hosts).
   */
  #server(): Promise<Server> {
    this.#ioLoading ??= (async () => {
      const { Server } = await import('socket.io');
      const io = new Server({
        path: PUSH_PATH,
        serveClient: false,
        // Client messages are tiny; a big frame is refused by the engine before it is buffered.
        maxHttpBufferSize: 16 * 1024,
        connectTimeout: 10_000,
      });
      const adapter = this.#shared ? await this.#o.cluster?.pushAdapter() : null;
      if (adapter) io.adapter(adapter);
      io.attach(this.#engineHost);
      io.use(
        (socket, next) =>
          void this.#authenticateSocket(socket).then(
            () => next(),
            (err) => next(this.#connectError(err)),
          ),
      );
      io.on('connection', (socket) => this.#onConnection(socket));
      this.#io = io;
      return io;
    })();
    return this.#ioLoading;
  }

  /** Starts the detectors and the periodic re-check (nothing runs before). */
  start(): void {
    if (this.#started || !this.enabled) return;
    this.#started = true;
    if (this.#shared)
      this.#server().catch((err: Error) =>
        this.#o.log.error({ err: { message: err.message } }, 'push: socket.io could not be loaded'),
      );
    void this.monitors.start();
    this.events.start();
    this.#recheck = setInterval(() => void this.recheckAll(), this.#o.config.push.recheck_secs * 1000);
    this.#recheck.unref();
    this.#startSweep();
  }

  /** Drops the clients whose queue is still over the limit (a fast client drains within ms). */
  #startSweep(): void {
    this.#sweep ??= setInterval(() => {
      const max = this.#o.config.push.max_queued_messages;
      for (const client of [...this.#clients.values()])
        if (queued(client.socket) >= max) this.#end(client, 'slow_consumer');
    }, SWEEP_MS);
    this.#sweep.unref();
  }

  /** True for requests this service answers (HTTP long-polling and WebSocket upgrades). */
  owns(req: IncomingMessage): boolean {
    if (!this.enabled) return false;
    const url = req.url ?? '';
    return url.startsWith(`${PUSH_PATH}/`) || url === PUSH_PATH || url.startsWith(`${PUSH_PATH}?`);
  }

  handleRequest(req: IncomingMessage, res: ServerResponse): void {
    const gate = this.#gate(req);
    if (gate === null && this.#io) {
      this.#io.engine.handleRequest(req as never, res);
      return;
    }
    void this.#afterGate(gate).then((passed) =>
      passed instanceof ApiError ? refuseRequest(res, passed) : passed.engine.handleRequest(req as never, res),
    );
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const gate = this.#gate(req);
    if (gate === null && this.#io) {
      this.#io.engine.handleUpgrade(req as never, socket, head);
      return;
    }
    void this.#afterGate(gate).then((passed) =>
      passed instanceof ApiError
        ? refuseUpgrade(socket, passed)
        : passed.engine.handleUpgrade(req as never, socket, head),
    );
  }

  /** The gate's refusal, or the socket.io server (loaded now if this is the first push request). */
  async #afterGate(gate: Promise<ApiError | null> | null): Promise<ApiError | Server> {
    const refusal = await gate;
    if (refusal) return refusal;
    try {
      return await this.#server();
    } catch (err) {
      this.#o.log.error({ err: { message: (err as Error).message } }, 'push: socket.io could not be loaded');
      return new ServiceUnavailableError('Live push is unavailable, try again');
    }
  }

  /** The request handler for the listener: push requests here, everything else to `app`. */
  wrap(app: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => (this.owns(req) ? this.handleRequest(req, res) : app(req, res));
  }

  /**
   * Sends a message to every connection allowed to see it. Used by the detectors, and by the
   * daemon supervisor through publishDaemon().
   */
  publish(message: PushMessage): void {
    const monitor = monitorOf(message);
    const topic = topicOf(message);
    const room = monitor === null ? topic : `${topic}:${monitor}`;
    // Multi-server: one host speaks for each monitor (its owner), the others stay silent about it.
    if (monitor !== null && this.#o.cluster && !this.#o.cluster.publishes(monitor)) return;
    // Not loaded: no push client has connected yet (with Redis it loads at start).
    const io = this.#io;
    const members = io?.sockets.adapter.rooms.get(room);
    if (!io || (!this.#shared && (!members || members.size === 0))) {
      this.#o.metrics?.pushMessage(message.type, 0);
      return;
    }
    // A burst published in one tick queues for every client alike, the fast ones too; only a
    // queue several times the limit is dropped here, the sweep judges the rest once drained.
    const hard = this.#o.config.push.max_queued_messages * HARD_LIMIT_FACTOR;
    for (const id of [...(members ?? [])]) {
      const client = this.#clients.get(id);
      if (client && queued(client.socket) >= hard) this.#end(client, 'slow_consumer');
    }
    io.to(room).emit(message.type, message);
    // This host's connections only (with Redis, other hosts count their own).
    this.#o.metrics?.pushMessage(message.type, members?.size ?? 0);
  }

  /** The hook for the daemon supervisor (takeover mode): a daemon started, exited or is restarting. */
  publishDaemon(change: DaemonChange): void {
    this.publish({ v: 1, type: 'daemon', cause: null, restart_in_secs: null, ...change, time: nowIso() });
  }

  /** Checks every connection's token, permissions and ACL again (also run by the timer). */
  async recheckAll(): Promise<void> {
    if (this.#rechecking) return;
    this.#rechecking = true;
    try {
      const byToken = new Map<string, Promise<AuthUser>>();
      // Every user row as it is now, not as the API's short cache holds it (docs/push.md).
      const readSince = this.#o.auth.clock();
      await Promise.all(
        [...this.#clients.values()].map(async (client) => {
          const token = client.token;
          let check = byToken.get(token);
          if (!check) {
            check = this.#o.auth.authenticate(token, readSince);
            byToken.set(token, check);
          }
          try {
            const user = await check;
            if (client.token !== token || !this.#clients.has(client.socket.id)) return; // refreshed or gone meanwhile
            client.user = { ...user, expiresAt: client.user.expiresAt };
            client.scope = await this.#o.acl.scope(user);
            this.#sync(client);
          } catch (err) {
            if (err instanceof UnauthorizedError) this.#end(client, endReasonOf(err));
            // Anything else (database down): keep the connection and its last known rights.
          }
        }),
      );
    } finally {
      this.#rechecking = false;
    }
  }

  async close(): Promise<void> {
    this.events.stop();
    this.monitors.stop();
    if (this.#recheck) clearInterval(this.#recheck);
    if (this.#sweep) clearInterval(this.#sweep);
    for (const c of [...this.#clients.values()]) this.#end(c, 'shutdown');
    const io = await this.#ioLoading?.catch(() => null);
    if (io) await new Promise<void>((resolve) => io.close(() => resolve()));
  }

  // ------------------------------------------------------------------------------------------
  // Handshake

  /**
   * The check of a handshake before the engine sees it: null for requests of an open session
   * (they carry its `sid`; the engine knows them), else a promise of the refusal (null: go on).
   * Refusals are the API's error envelope: 400 for a malformed URL, 503 beyond
   * push.max_clients, 401 for a bad `?token=` (a handshake with `auth.token` is checked by
   * the socket.io middleware, its refusal is a connect_error).
   */
  #gate(req: IncomingMessage): Promise<ApiError | null> | null {
    let query: URLSearchParams;
    try {
      query = new URL(req.url ?? '/', 'http://localhost').searchParams;
    } catch {
      return Promise.resolve(new BadRequestError('Malformed request URL', [['url', 'not a valid request target']]));
    }
    if (query.has('sid')) return null;
    const max = this.#o.config.push.max_clients;
    if ((this.#io?.engine.clientsCount ?? 0) >= max)
      return Promise.resolve(
        new ServiceUnavailableError('Too many push connections', [['push.max_clients', String(max)]], 5),
      );
    const token = query.get('token');
    if (token === null) return Promise.resolve(null);
    return this.#check(token).then(
      (user) => {
        this.#checked.set(req, user);
        return null;
      },
      (err: unknown) => this.#asApiError(err),
    );
  }

  /** Validates a token: shape and refusal memory first (no crypto), then the real check. */
  async #check(token: unknown): Promise<AuthUser> {
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

  async #authenticateSocket(socket: Socket): Promise<void> {
    const auth = socket.handshake.auth as Record<string, unknown> | undefined;
    const query = socket.handshake.query.token;
    const fromQuery = !(auth && auth.token !== undefined);
    const token = fromQuery ? (Array.isArray(query) ? query[0] : query) : auth.token;
    // A `?token=` was checked by #gate a moment ago on this very request.
    const checked = fromQuery ? this.#checked.get(socket.request) : undefined;
    const user = checked ?? (await this.#check(token));
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
  #connectError(err: unknown): Error {
    const api = this.#asApiError(err);
    return Object.assign(new Error(api.message), { data: api.toEnvelope() });
  }

  /** Known refusals as they are; anything else (the database down) is a logged 503. */
  #asApiError(err: unknown): ApiError {
    if (err instanceof ApiError) return err;
    this.#o.log.warn({ err: { message: (err as Error)?.message } }, 'push: handshake check failed');
    return new ServiceUnavailableError('Authentication is unavailable, try again');
  }

  // ------------------------------------------------------------------------------------------
  // Connections

  #onConnection(socket: Socket): void {
    const { user, token, scope } = socket.data as { user: AuthUser; token: string; scope: MonitorScope };
    const client: Client = {
      socket,
      user,
      token,
      scope,
      monitors: new Set(),
      topics: new Set(TOPICS),
      timers: [],
      replaying: false,
      window: { start: Date.now(), count: 0 },
    };
    this.#clients.set(socket.id, client);
    // The first connection wakes the idle alarm detector: a baseline now, so a subscription made
    // at once already gets each monitor's status.
    if (this.#clients.size === 1) this.monitors.scan();
    this.#armExpiry(client);
    socket.on('disconnect', () => {
      for (const t of client.timers) clearTimeout(t);
      this.#clients.delete(socket.id);
    });
    socket.onAny((name: unknown, ...args: unknown[]) => {
      if (!this.#counted(client)) return;
      if (typeof name === 'string' && CLIENT_MESSAGES.has(name)) return;
      const ack = args.find((a) => typeof a === 'function') as ((r: unknown) => void) | undefined;
      this.#fail(
        client,
        ack,
        new InvalidInputError('Unknown message', [
          ['message', String(name).slice(0, 64)],
          ['known', [...CLIENT_MESSAGES].join(',')],
        ]),
      );
    });
    const handle = (name: string, fn: (c: Client, payload: Record<string, unknown>) => Promise<unknown> | unknown) => {
      socket.on(name, (...args: unknown[]) => {
        const ack = typeof args[args.length - 1] === 'function' ? (args.pop() as (r: unknown) => void) : undefined;
        const payload = args[0];
        Promise.resolve()
          .then(() => {
            if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
              throw new InvalidInputError('Invalid message', [['payload', 'must be a JSON object']]);
            return fn(client, payload as Record<string, unknown>);
          })
          .then(
            (result) => ack?.({ ok: true, ...(result as object) }),
            (err) => this.#fail(client, ack, err),
          );
      });
    };
    handle('subscribe', (c, p) => this.#subscribe(c, p));
    handle('unsubscribe', (c, p) => this.#unsubscribe(c, p));
    handle('refresh_token', (c, p) => this.#refreshToken(c, p));
    handle('replay', (c, p) => this.#replay(c, p));
    socket.emit('hello', {
      v: PUSH_PROTOCOL_VERSION,
      type: 'hello',
      user: { id: user.id, username: user.username },
      expires_at: nowIso(user.expiresAt * 1000),
      topics: [...allowedTopics(user.perms)],
      time: nowIso(),
    });
  }

  /** Counts a client message; beyond the window's budget the connection ends. */
  #counted(client: Client): boolean {
    const now = Date.now();
    if (now - client.window.start > 10_000) client.window = { start: now, count: 0 };
    if (++client.window.count <= MESSAGES_PER_WINDOW) return true;
    if (client.window.count === MESSAGES_PER_WINDOW + 1) {
      this.#fail(client, undefined, new TooManyRequestsError('Too many push messages'));
      this.#end(client, 'rate_limited');
    }
    return false;
  }

  #fail(client: Client, ack: ((r: unknown) => void) | undefined, err: unknown): void {
    if (!(err instanceof ApiError))
      this.#o.log.warn({ err: { message: (err as Error)?.message } }, 'push: message failed');
    const error = err instanceof ApiError ? envelope(err) : new ServiceUnavailableError('Try again later').toEnvelope();
    if (ack) ack({ ok: false, error });
    else client.socket.emit('push_error', { v: PUSH_PROTOCOL_VERSION, type: 'push_error', error, time: nowIso() });
  }

  #end(client: Client, reason: EndReason): void {
    if (!this.#clients.delete(client.socket.id)) return;
    for (const t of client.timers) clearTimeout(t);
    this.#o.log.debug({ user_id: client.user.id, reason }, 'push: connection ended');
    this.#o.metrics?.pushEnded(reason);
    client.socket.emit('session_ended', { v: PUSH_PROTOCOL_VERSION, type: 'session_ended', reason, time: nowIso() });
    client.socket.disconnect(true);
  }

  /** Warns a minute (or half the lifetime) before the token expires; ends the connection at expiry. */
  #armExpiry(client: Client): void {
    for (const t of client.timers) clearTimeout(t);
    const left = client.user.expiresAt * 1000 - Date.now();
    const warnIn = Math.max(0, left - Math.min(60_000, left / 2));
    const warn = setTimeout(() => {
      client.socket.emit('token_expiring', {
        v: PUSH_PROTOCOL_VERSION,
        type: 'token_expiring',
        expires_at: nowIso(client.user.expiresAt * 1000),
        time: nowIso(),
      });
    }, warnIn);
    const end = setTimeout(() => this.#end(client, 'expired'), Math.max(0, left));
    warn.unref();
    end.unref();
    client.timers = [warn, end];
  }

  // ------------------------------------------------------------------------------------------
  // Client messages

  #ids(value: unknown, field: string): 'all' | Set<number> {
    if (value === 'all') return 'all';
    if (
      !Array.isArray(value) ||
      value.length > MAX_SUBSCRIBE_IDS ||
      !value.every((v) => Number.isInteger(v) && v >= 0 && v <= 2 ** 31 - 1)
    ) {
      throw new InvalidInputError('Invalid input', [
        [field, `must be "all" or an array of at most ${MAX_SUBSCRIBE_IDS} monitor ids`],
      ]);
    }
    return new Set(value as number[]);
  }

  #subscribe(client: Client, p: Record<string, unknown>) {
    const monitors = this.#ids(p.monitors, 'monitors');
    if (p.topics !== undefined) {
      if (!Array.isArray(p.topics) || !p.topics.every((t) => TOPICS.includes(t as Topic))) {
        throw new InvalidInputError('Invalid input', [['topics', `must be an array of ${TOPICS.join(', ')}`]]);
      }
      client.topics = new Set(p.topics as Topic[]);
    }
    if (monitors === 'all' || client.monitors === 'all') client.monitors = monitors === 'all' ? 'all' : client.monitors;
    else for (const id of monitors) client.monitors.add(id);
    const joined = this.#sync(client);
    // The current status (and alarm in progress) of each newly joined monitor, so a client
    // starts from a known state.
    for (const room of joined) {
      const m = /^alarm:(\d+)$/.exec(room);
      if (!m) continue;
      const status = this.monitors.statusOf(Number(m[1]));
      const alarm = this.monitors.alarmOf(Number(m[1]));
      if (status) client.socket.emit('monitor_status', status);
      if (alarm) client.socket.emit('alarm', alarm);
    }
    return this.#summary(client);
  }

  #unsubscribe(client: Client, p: Record<string, unknown>) {
    const monitors = this.#ids(p.monitors, 'monitors');
    if (monitors === 'all') client.monitors = new Set();
    else if (client.monitors === 'all')
      client.monitors = new Set([...this.#visible(client)].filter((id) => !monitors.has(id)));
    else for (const id of monitors) client.monitors.delete(id);
    this.#sync(client);
    return this.#summary(client);
  }

  async #refreshToken(client: Client, p: Record<string, unknown>) {
    if (typeof p.token !== 'string')
      throw new InvalidInputError('Invalid input', [['token', 'must be an access token']]);
    const user = await this.#check(p.token);
    if (user.id !== client.user.id) throw new PermissionDeniedError('The token belongs to another user');
    client.token = p.token;
    client.user = user;
    client.scope = await this.#o.acl.scope(user);
    this.#armExpiry(client);
    this.#sync(client);
    return { expires_at: nowIso(user.expiresAt * 1000) };
  }

  async #replay(client: Client, p: Record<string, unknown>) {
    const since = p.since_event_id;
    if (!Number.isSafeInteger(since) || (since as number) < 0)
      throw new InvalidInputError('Invalid input', [['since_event_id', 'must be an integer >= 0']]);
    if (client.replaying) throw new TooManyRequestsError('A replay is already running on this connection');
    const until = this.events.lastId;
    const monitors = [...client.socket.rooms].flatMap((r) => (/^event:(\d+)$/.exec(r) ? [Number(r.slice(6))] : []));
    // Nothing in the answer may tell of events the caller cannot see: without a subscribed, visible
    // monitor it learns nothing, and last_event_id is the newest event it was sent (or `since`).
    if (until === null || monitors.length === 0) return { count: 0, last_event_id: since, truncated: false };
    client.replaying = true;
    try {
      const limit = this.#o.config.push.replay_max;
      const rows = await eventsSince(this.#o.db, since as number, until, monitors, limit);
      const clock = await this.#o.clock();
      for (const row of rows) {
        const event = toPushEvent(row, clock);
        client.socket.emit('event_start', { v: 1, type: 'event_start', event, replay: true, time: nowIso() });
        if (isClosed(row))
          client.socket.emit('event_end', { v: 1, type: 'event_end', event, replay: true, time: nowIso() });
      }
      const truncated = rows.length === limit;
      // Truncated: ask again from the last id returned; otherwise the client is up to date.
      const last = rows.length ? Number(rows[rows.length - 1].Id) : (since as number);
      return { count: rows.length, last_event_id: last, truncated };
    } finally {
      client.replaying = false;
    }
  }

  // ------------------------------------------------------------------------------------------
  // Rooms

  /** Monitors that exist and the user may see. */
  #visible(client: Client): Set<number> {
    return new Set([...this.monitors.ids].filter((id) => canSee(client.scope, id)));
  }

  #summary(client: Client) {
    const monitors = [...this.#subscribed(client)].sort((a, b) => a - b);
    const allowed = allowedTopics(client.user.perms);
    return { monitors, topics: [...client.topics].filter((t) => allowed.has(t)) };
  }

  #subscribed(client: Client): Set<number> {
    const visible = this.#visible(client);
    if (client.monitors === 'all') return visible;
    const asked = client.monitors;
    return new Set([...visible].filter((id) => asked.has(id)));
  }

  /** Puts the connection in exactly the rooms it may receive; returns the rooms joined now. */
  #sync(client: Client): string[] {
    const allowed = allowedTopics(client.user.perms);
    const topics = [...client.topics].filter((t) => allowed.has(t));
    const want = new Set<string>();
    const monitors = this.#subscribed(client);
    for (const topic of topics) for (const id of monitors) want.add(`${topic}:${id}`);
    if (topics.includes('daemon')) want.add('daemon');
    const socket = client.socket;
    const joined: string[] = [];
    for (const room of socket.rooms) if (room !== socket.id && !want.has(room)) void socket.leave(room);
    for (const room of want) {
      if (socket.rooms.has(room)) continue;
      void socket.join(room);
      joined.push(room);
    }
    return joined;
  }
}

/** Answers a refused handshake over HTTP with the API's error envelope (as the REST routes do). */
function refuseRequest(res: ServerResponse, error: ApiError): void {
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

/** Messages waiting in the engine for this client (socket.io keeps them in its write buffer). */
function queued(socket: Socket): number {
  return (socket.conn as unknown as { writeBuffer?: unknown[] }).writeBuffer?.length ?? 0;
}
