// Live push, the connections (docs/push.md): each accepted connection, its client messages
// (subscribe, unsubscribe, refresh_token, replay), its token's expiry, and back-pressure. A
// connection with `push.max_queued_messages` unsent messages at the once-a-second sweep, or four
// times that at any message, is disconnected (reason slow_consumer); it can reconnect and ask for
// the events it missed (`replay`), so memory stays bounded and nobody waits for it. More than 100
// client messages in 10 s end the connection too (rate_limited).
import type { Socket } from 'socket.io';
import type { AuthUser } from '../../auth/auth-service.js';
import type { MonitorAcl, MonitorScope } from '../../auth/monitor-acl.js';
import type { AppConfig } from '../../config/types.js';
import type { ZoneClock } from '../../db/zone-clock.js';
import {
  ApiError,
  InvalidInputError,
  PermissionDeniedError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
} from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import type { EventWatcher } from './event-watcher.js';
import { nowIso, PUSH_PROTOCOL_VERSION, type Topic } from './messages.js';
import type { MonitorWatcher } from './monitor-watcher.js';
import { eventsSince, isClosed, toPushEvent, type Queryable } from './push-queries.js';
import { allowedTopics, subscriptionSummary, syncRooms, TOPICS, visibleMonitors, type Client } from './push-rooms.js';

/** Why a connection was ended by the server (the `session_ended` message). */
export type EndReason = 'expired' | 'revoked' | 'disabled' | 'slow_consumer' | 'rate_limited' | 'shutdown';

const CLIENT_MESSAGES = new Set(['subscribe', 'unsubscribe', 'refresh_token', 'replay']);
/** Client messages per 10 s before the connection is ended (they cost queries and room work). */
const MESSAGES_PER_WINDOW = 100;
const MAX_SUBSCRIBE_IDS = 10_000;
/** A queue this many times push.max_queued_messages drops the client at once. */
const HARD_LIMIT_FACTOR = 4;
/** How often queues are compared with push.max_queued_messages. */
const SWEEP_MS = 1000;

export interface PushClientsOptions {
  config: Pick<AppConfig, 'push'>;
  log: Logger;
  acl: Pick<MonitorAcl, 'scope'>;
  db: Queryable;
  clock: () => Promise<ZoneClock>;
  metrics?: Pick<Metrics, 'pushEnded'>;
  monitors: Pick<MonitorWatcher, 'ids' | 'scan' | 'statusOf' | 'alarmOf'>;
  events: Pick<EventWatcher, 'lastId'>;
  /** The handshake's token check (push-handshake.ts), for refresh_token. */
  check: (token: unknown) => Promise<AuthUser>;
}

/** An unauthorised re-check's message as the reason the connection ends. */
export function endReasonOf(err: UnauthorizedError): EndReason {
  if (/expired/i.test(err.message)) return 'expired';
  if (/disabled|removed/i.test(err.message)) return 'disabled';
  return 'revoked';
}

function envelope(err: unknown): ReturnType<ApiError['toEnvelope']> {
  const api = err instanceof ApiError ? err : new InvalidInputError('Invalid message');
  return api.toEnvelope();
}

/** Messages waiting in the engine for this client (socket.io keeps them in its write buffer). */
function queued(socket: Socket): number {
  return (socket.conn as unknown as { writeBuffer?: unknown[] }).writeBuffer?.length ?? 0;
}

export class PushClients {
  readonly #o: PushClientsOptions;
  readonly #clients = new Map<string, Client>();
  #sweep: NodeJS.Timeout | null = null;

  constructor(options: PushClientsOptions) {
    this.#o = options;
  }

  get size(): number {
    return this.#clients.size;
  }

  /** The open connections (a copy: ending one while iterating is safe). */
  all(): Client[] {
    return [...this.#clients.values()];
  }

  has(client: Client): boolean {
    return this.#clients.has(client.socket.id);
  }

  /** Puts the connection in exactly the rooms it may receive now; returns the rooms joined. */
  sync(client: Client): string[] {
    return syncRooms(client, this.#o.monitors.ids);
  }

  /** Drops the clients whose queue is still over the limit (a fast client drains within ms). */
  startSweep(): void {
    this.#sweep ??= setInterval(() => {
      const max = this.#o.config.push.max_queued_messages;
      for (const client of this.all()) if (queued(client.socket) >= max) this.end(client, 'slow_consumer');
    }, SWEEP_MS);
    this.#sweep.unref();
  }

  /**
   * Before a message goes to a room: its members with a queue several times the limit are
   * dropped at once. A burst published in one tick queues for every client alike, the fast ones
   * too, so only that is judged here; the sweep judges the rest once drained.
   */
  dropFarBehind(socketIds: Iterable<string>): void {
    const hard = this.#o.config.push.max_queued_messages * HARD_LIMIT_FACTOR;
    for (const id of [...socketIds]) {
      const client = this.#clients.get(id);
      if (client && queued(client.socket) >= hard) this.end(client, 'slow_consumer');
    }
  }

  /** Ends every connection (reason shutdown) and stops the sweep. */
  close(): void {
    if (this.#sweep) clearInterval(this.#sweep);
    for (const c of this.all()) this.end(c, 'shutdown');
  }

  /** Takes a connection socket.io accepted (its handshake passed): greets it and handles its messages. */
  connect(socket: Socket): void {
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
    if (this.#clients.size === 1) this.#o.monitors.scan();
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
      this.end(client, 'rate_limited');
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

  /** Ends a connection with `session_ended` (reason), once. */
  end(client: Client, reason: EndReason): void {
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
    const end = setTimeout(() => this.end(client, 'expired'), Math.max(0, left));
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
    const joined = this.sync(client);
    // The current status (and alarm in progress) of each newly joined monitor, so a client
    // starts from a known state.
    for (const room of joined) {
      const m = /^alarm:(\d+)$/.exec(room);
      if (!m) continue;
      const status = this.#o.monitors.statusOf(Number(m[1]));
      const alarm = this.#o.monitors.alarmOf(Number(m[1]));
      if (status) client.socket.emit('monitor_status', status);
      if (alarm) client.socket.emit('alarm', alarm);
    }
    return subscriptionSummary(client, this.#o.monitors.ids);
  }

  #unsubscribe(client: Client, p: Record<string, unknown>) {
    const monitors = this.#ids(p.monitors, 'monitors');
    if (monitors === 'all') client.monitors = new Set();
    else if (client.monitors === 'all')
      client.monitors = new Set([...visibleMonitors(client, this.#o.monitors.ids)].filter((id) => !monitors.has(id)));
    else for (const id of monitors) client.monitors.delete(id);
    this.sync(client);
    return subscriptionSummary(client, this.#o.monitors.ids);
  }

  async #refreshToken(client: Client, p: Record<string, unknown>) {
    if (typeof p.token !== 'string')
      throw new InvalidInputError('Invalid input', [['token', 'must be an access token']]);
    const user = await this.#o.check(p.token);
    if (user.id !== client.user.id) throw new PermissionDeniedError('The token belongs to another user');
    client.token = p.token;
    client.user = user;
    client.scope = await this.#o.acl.scope(user);
    this.#armExpiry(client);
    this.sync(client);
    return { expires_at: nowIso(user.expiresAt * 1000) };
  }

  async #replay(client: Client, p: Record<string, unknown>) {
    const since = p.since_event_id;
    if (!Number.isSafeInteger(since) || (since as number) < 0)
      throw new InvalidInputError('Invalid input', [['since_event_id', 'must be an integer >= 0']]);
    if (client.replaying) throw new TooManyRequestsError('A replay is already running on this connection');
    const until = this.#o.events.lastId;
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
}
