// Live push: a socket.io server on the main listener at /api/v3/socket.io/ (docs/push.md). This
// file is the engine: loading socket.io, routing requests and upgrades to it, publishing messages
// to rooms, and the periodic re-check of every connection. Beside it: push-handshake.ts (who may
// connect), push-clients.ts (each connection, its messages, back-pressure), push-rooms.ts (which
// rooms a connection is in), the detectors monitor-watcher.ts and event-watcher.ts.
//
// Decisions:
// - socket.io runs detached from the listener (its engine is bound to a server that never
//   listens); server.ts hands it exactly the requests and upgrades under PUSH_PATH, so the
//   WebRTC WebSocket handler keeps every other upgrade. socket.io itself (and the Redis adapter)
//   loads on the first push request, so a service nobody subscribes to does not hold it; with
//   Redis sharing push between hosts it loads at start (other hosts' clients may listen).
// - Each connection's token is checked again every `push.recheck_secs` (revocation by logout or
//   password change, disabled user, changed permissions and monitor ACL); at its expiry the
//   connection ends unless the client sent a newer token (`refresh_token`).
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Server } from 'socket.io';
import type { AuthService, AuthUser } from '../../auth/auth-service.js';
import type { MonitorAcl } from '../../auth/monitor-acl.js';
import type { AppConfig } from '../../config/types.js';
import type { ZoneClock } from '../../db/zone-clock.js';
import { ApiError, ServiceUnavailableError, UnauthorizedError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import { EventWatcher } from './event-watcher.js';
import { monitorOf, nowIso, PUSH_PATH, topicOf, type DaemonChange, type PushMessage } from './messages.js';
import { MonitorWatcher } from './monitor-watcher.js';
import { endReasonOf, PushClients } from './push-clients.js';
import { PushHandshake, refuseRequest } from './push-handshake.js';
import type { Queryable } from './push-queries.js';
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
  readonly #handshake: PushHandshake;
  readonly #clients: PushClients;
  #recheck: NodeJS.Timeout | null = null;
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
        for (const c of this.#clients.all()) this.#clients.sync(c);
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
    this.#handshake = new PushHandshake(options);
    this.#clients = new PushClients({
      ...options,
      monitors: this.monitors,
      events: this.events,
      check: (token) => this.#handshake.check(token),
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
          void this.#handshake.authenticateSocket(socket).then(
            () => next(),
            (err) => next(this.#handshake.connectError(err)),
          ),
      );
      io.on('connection', (socket) => this.#clients.connect(socket));
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
    this.#clients.startSweep();
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
    this.#clients.dropFarBehind(members ?? []);
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
        this.#clients.all().map(async (client) => {
          const token = client.token;
          let check = byToken.get(token);
          if (!check) {
            check = this.#o.auth.authenticate(token, readSince);
            byToken.set(token, check);
          }
          try {
            const user = await check;
            if (client.token !== token || !this.#clients.has(client)) return; // refreshed or gone meanwhile
            client.user = { ...user, expiresAt: client.user.expiresAt };
            client.scope = await this.#o.acl.scope(user);
            this.#clients.sync(client);
          } catch (err) {
            if (err instanceof UnauthorizedError) this.#clients.end(client, endReasonOf(err));
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
    this.#clients.close();
    const io = await this.#ioLoading?.catch(() => null);
    if (io) await new Promise<void>((resolve) => io.close(() => resolve()));
  }

  /** The handshake's check before the engine sees a request (push-handshake.ts). */
  #gate(req: IncomingMessage): Promise<ApiError | null> | null {
    return this.#handshake.gate(req, this.#io?.engine.clientsCount ?? 0);
  }
}
