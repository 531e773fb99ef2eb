// Multi-server installs (docs/operations/multi-server.md): which ZoneMinder server this host is,
// how to reach the other hosts, and which host owns a monitor, an event or a frame. A host with
// no identity (no server id or name configured, or a name with no Servers row) is a single server
// and serves everything itself, exactly as without this feature.
import { isMultiServer, PeerKeyStore, type KeyQueryable } from '../../auth/peer-keys.js';
import type { TokenKeys } from '../../auth/keys.js';
import type { AppConfig } from '../../config/types.js';
import type { Logger } from '../../log.js';
import type { Services } from '../../registry.js';
import type { createAdapter } from '@socket.io/redis-adapter';
import type { createClient } from 'redis';
import { ClusterQueries, type ServerRow } from './cluster-queries.js';

/** Another host: its Servers row and the API base URL it is reached at (no trailing slash). */
export interface Peer {
  id: number;
  name: string;
  /** Empty when the host published no URL and its Servers row has no Hostname. */
  url: string;
}

/** The client with every promise its methods return marked as handled (the caller still sees it). */
function handled<T extends object>(client: T): T {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (result instanceof Promise) result.catch(() => undefined);
        return result;
      };
    },
  });
}

export type OwnedKind = 'monitor' | 'event' | 'frame';

const OWNER_TTL_MS = 2000;
const OWNER_CACHE_MAX = 10_000;
const API_PREFIX = '/api/v3';

export interface ClusterServiceOptions {
  config: Pick<AppConfig, 'cluster' | 'daemon' | 'server'>;
  log: Logger;
  db: KeyQueryable;
  keys: () => TokenKeys;
  now?: () => number;
}

export class ClusterService {
  static from(services: Services): ClusterService {
    return new ClusterService({
      config: services.config,
      log: services.log,
      db: services.pool,
      keys: () => services.auth.tokenKeys,
    });
  }

  readonly #o: ClusterServiceOptions;
  readonly #queries: ClusterQueries;
  readonly #now: () => number;
  #self: ServerRow | null = null;
  #peers = new Map<number, Peer>();
  #loadedAt = -Infinity;
  #loading?: Promise<void>;
  readonly #owners = new Map<string, { owner: number | null | undefined; at: number }>();
  /** Every monitor's ServerId as last read (push decides from it which host announces a monitor). */
  #monitorServers = new Map<number, number | null>();
  #serverIds = new Set<number>();
  #timer: NodeJS.Timeout | null = null;
  #redis: Array<ReturnType<typeof createClient>> = [];
  #adapter: ReturnType<typeof createAdapter> | null | undefined;
  /** Servers already reported as presenting this host's token keys (one warning each). */
  #sameKeysWarned = new Set<number>();
  #published = false;

  constructor(options: ClusterServiceOptions) {
    this.#o = options;
    this.#queries = new ClusterQueries(options.db);
    this.#now = options.now ?? Date.now;
  }

  /** True when the configuration names this host (an id or a name); the rest of the feature is idle otherwise. */
  get configured(): boolean {
    return isMultiServer(this.#o.config);
  }

  /** This host's Servers row, once resolved; null on a single server. */
  get self(): ServerRow | null {
    return this.#self;
  }

  /** The other hosts as last read. */
  peers(): Peer[] {
    return [...this.#peers.values()];
  }

  /** The other hosts, read again first when the last read is older than `refresh_secs`. */
  async currentPeers(): Promise<Peer[]> {
    if (this.configured && this.#now() - this.#loadedAt > this.#o.config.cluster.refresh_secs * 1000)
      await this.refresh().catch((err: Error) =>
        this.#o.log.warn({ err: { message: err.message } }, 'multi-server: cannot re-read the Servers rows'),
      );
    return this.peers();
  }

  /**
   * Start-up, once the listener is up: resolve this host's Servers row, publish its token keys
   * and URL, read the peers. Never throws: a failure is one warning and the host serves alone
   * until a later refresh succeeds.
   */
  async start(listenPort: number): Promise<void> {
    if (!this.configured) return;
    // The Servers rows and monitor owners are re-read periodically (push needs them without requests).
    this.#timer ??= setInterval(
      () =>
        void this.refresh().catch((err: Error) =>
          this.#o.log.warn({ err: { message: err.message } }, 'multi-server: cannot re-read the Servers rows'),
        ),
      this.#o.config.cluster.refresh_secs * 1000,
    );
    this.#timer.unref();
    try {
      await this.refresh();
      if (!this.#self) return;
      const apiUrl = this.#o.config.cluster.advertise_url.replace(/\/+$/, '') || this.#urlOf(this.#self, listenPort);
      await this.#checkSameKeys();
      await new PeerKeyStore(this.#o.db).publish(this.#o.keys(), {
        serverId: this.#self.Id,
        serverName: this.#self.Name,
        apiUrl,
      });
      this.#o.log.info(
        { server_id: this.#self.Id, server_name: this.#self.Name, api_url: apiUrl, peers: this.peers() },
        'multi-server: token keys and URL published',
      );
      this.#published = true;
    } catch (err) {
      this.#o.log.warn(
        { err: { message: (err as Error).message } },
        'multi-server: cannot publish this host (is zmgate_cluster_keys missing? run zmgate-db bridge); serving alone',
      );
    }
  }

  /** Re-reads the Servers rows and the published URLs (the forwarding path calls it when stale). */
  refresh(): Promise<void> {
    this.#loading ??= (async () => {
      try {
        const { cluster, daemon } = this.#o.config;
        const [servers, urls, monitors] = await Promise.all([
          this.#queries.servers(),
          this.#queries.publishedUrls().catch(() => new Map<number, string>()),
          this.#queries.monitorServers(),
        ]);
        this.#monitorServers = monitors;
        this.#serverIds = new Set(servers.map((s) => s.Id));
        const name = cluster.server_name || daemon.server_host;
        const self =
          cluster.server_id > 0
            ? servers.find((s) => s.Id === cluster.server_id)
            : servers.find((s) => s.Name === name);
        if (!self && !this.#self) {
          this.#o.log.warn(
            { server_id: cluster.server_id, server_name: name },
            'multi-server: this host has no Servers row; serving every monitor here as on a single server',
          );
        }
        this.#self = self ?? null;
        const peers = new Map<number, Peer>();
        for (const s of servers) {
          if (s.Id === self?.Id) continue;
          peers.set(s.Id, {
            id: s.Id,
            name: s.Name,
            url: urls.get(s.Id) ?? this.#urlOf(s, this.#o.config.server.port),
          });
        }
        this.#peers = peers;
        this.#loadedAt = this.#now();
        // Another host that published this host's keys since (it overwrote this host's rows).
        if (this.#published) await this.#checkSameKeys().catch(() => undefined);
      } finally {
        this.#loading = undefined;
      }
    })();
    return this.#loading;
  }

  /**
   * Warns once per other server found publishing this host's token keys: hosts started from the
   * same key files (a cloned disk or VM image, a shared auth.state_dir) overwrite each other's
   * published key rows (their URLs are kept apart, in rows of their own).
   */
  async #checkSameKeys(): Promise<void> {
    const self = this.#self;
    if (!self) return;
    for (const other of await new PeerKeyStore(this.#o.db).sharedWith(this.#o.keys(), self.Id)) {
      if (this.#sameKeysWarned.has(other.serverId)) continue;
      this.#sameKeysWarned.add(other.serverId);
      this.#o.log.warn(
        {
          server_id: self.Id,
          server_name: self.Name,
          other_server_id: other.serverId,
          other_server_name: other.serverName,
        },
        `multi-server: servers ${self.Id} (${self.Name}) and ${other.serverId} (${other.serverName}) present the same token keys (key files copied between hosts?), so each accepts the other's tokens as its own: stop one, remove jwt-access.key and jwt-refresh.key from its auth.state_dir and start it again (it makes new ones)`,
      );
    }
  }

  /** A host's API base from its Servers row: Protocol and Hostname, and zmgate's port (same on every host). */
  #urlOf(row: ServerRow, port: number): string {
    if (!row.Hostname || !port) return '';
    const scheme =
      row.Protocol || (this.#o.config.server.tls.enabled || this.#o.config.server.acme.enabled ? 'https' : 'http');
    const host = row.Hostname.includes(':') && !row.Hostname.startsWith('[') ? `[${row.Hostname}]` : row.Hostname;
    return `${scheme}://${host}:${port}${API_PREFIX}`;
  }

  /**
   * Push: whether this host announces a monitor's alarms, events and status. With the Redis
   * adapter every host's messages reach every host's clients, so exactly one host speaks for a
   * monitor: its owner; a monitor with no owner (NULL, 0, or a server with no row) is announced
   * by the host with the lowest Servers.Id. Without an identity every monitor is this host's.
   */
  publishes(monitorId: number): boolean {
    const self = this.#self;
    if (!this.configured || !self) return true;
    const owner = this.#monitorServers.get(monitorId);
    if (owner === undefined) return true;
    if (owner && this.#serverIds.has(owner)) return owner === self.Id;
    return self.Id === Math.min(...this.#serverIds);
  }

  /** True when push is shared between hosts through Redis (`cluster.redis_url` and an identity). */
  get sharesPush(): boolean {
    return this.#o.config.cluster.redis_url !== '' && this.configured;
  }

  /**
   * socket.io's Redis adapter when push is shared (sharesPush; null otherwise): push messages
   * published on any host reach the clients of every host. The Redis client and the adapter load
   * only then. The clients connect in the background and reconnect by themselves; failures are
   * logged.
   */
  async pushAdapter(): Promise<ReturnType<typeof createAdapter> | null> {
    if (this.#adapter !== undefined) return this.#adapter;
    if (!this.sharesPush) return (this.#adapter = null);
    const url = this.#o.config.cluster.redis_url;
    const [{ createAdapter }, { createClient }] = await Promise.all([
      import('@socket.io/redis-adapter'),
      import('redis'),
    ]);
    if (this.#adapter !== undefined) return this.#adapter;
    const pub = createClient({ url, socket: { reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5000) } });
    const sub = pub.duplicate();
    this.#redis = [pub, sub];
    let warned = false;
    for (const client of this.#redis) {
      client.on('error', (err: Error) => {
        if (warned) return;
        warned = true;
        this.#o.log.warn(
          { err: { message: err.message } },
          'multi-server: Redis unreachable; push stays on this host until it answers',
        );
      });
      client.on('ready', () => {
        warned = false;
      });
      void client.connect().catch(() => undefined);
    }
    // The adapter issues (p)subscribe and publish without handling their promises: a Redis that
    // drops the connection would reject them unhandled and end the process. Each command's
    // promise gets a handler here (the failure is logged once by the 'error' listener above).
    this.#adapter = createAdapter(handled(pub), handled(sub));
    return this.#adapter;
  }

  /** Stops the periodic refresh and closes the Redis connections. */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await Promise.all(this.#redis.map((c) => (c.isOpen ? c.quit().catch(() => c.destroy()) : c.destroy())));
    this.#redis = [];
  }

  /**
   * The host a request for this monitor, event or frame must go to, or null when this host
   * serves it: single server, owner unset (NULL or 0), this host, a row that does not exist (the
   * local route answers its 404), or an owner with no Servers row.
   */
  async ownerPeer(kind: OwnedKind, id: number): Promise<Peer | null> {
    if (!this.configured) return null;
    const now = this.#now();
    if (now - this.#loadedAt > this.#o.config.cluster.refresh_secs * 1000) {
      // The first read is awaited; later ones refresh in the background (a failure keeps the old peers).
      const loading = this.refresh().catch((err: Error) =>
        this.#o.log.warn({ err: { message: err.message } }, 'multi-server: cannot re-read the Servers rows'),
      );
      if (this.#loadedAt === -Infinity) await loading;
    }
    if (!this.#self) return null;
    const key = `${kind}:${id}`;
    let hit = this.#owners.get(key);
    if (!hit || now - hit.at > OWNER_TTL_MS) {
      const owner =
        kind === 'monitor'
          ? await this.#queries.monitorOwner(id)
          : kind === 'event'
            ? await this.#queries.eventOwner(id)
            : await this.#queries.frameOwner(id);
      if (this.#owners.size >= OWNER_CACHE_MAX) this.#owners.clear();
      hit = { owner, at: now };
      this.#owners.set(key, hit);
    }
    const owner = hit.owner;
    if (!owner || owner === this.#self.Id) return null;
    const peer = this.#peers.get(owner);
    // A host that started after the last read may have published its URL meanwhile: read again once.
    if (peer && !peer.url) {
      await this.refresh();
      return this.#peers.get(owner) ?? null;
    }
    return peer ?? null;
  }
}
