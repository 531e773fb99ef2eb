// The composition root: builds the infrastructure one app instance uses (keys, tokens, the user
// directory, the row ACL, the live hub) and the registry that builds each domain service once, on
// first use. Controllers and media routes read from it; nothing else constructs services. Where one
// feature's news is another's input, the connection is made here (connect()), so features never
// import each other for it.
import type { AppConfig } from '../config/types.js';
import type { Logger } from '../log.js';
import type { DbPool } from '../db/pool.js';
import type { PrismaClient } from '../db/prisma.js';
import { AuthService } from '../auth/auth-service.js';
import { loadOrCreateKeys } from '../auth/keys.js';
import { isMultiServer, PeerKeyStore } from '../auth/peer-keys.js';
import { DbMonitorAcl } from '../auth/monitor-acl.js';
import { TokenService } from '../auth/tokens.js';
import { UserDirectory } from '../auth/user-directory.js';
import type { DbGate } from '../db/bounded.js';
import { LiveColumns } from '../db/live-columns.js';
import type { TableNames } from '../db/side-tables.js';
import { LiveHub } from '../live-hub/hub.js';
import { Metrics } from '../metrics.js';
import type { ServiceClass, Services } from '../registry.js';
import { Daemons, type DaemonManager } from '../features/daemons/daemon-manager.js';
import type { DaemonChange } from '../features/daemons/supervisor.js';
import type { DaemonChange as DaemonPush } from '../features/push/messages.js';
import { PushService } from '../features/push/push-service.js';
import { registerMetrics } from './metrics.js';

export type { Services } from '../registry.js';

/**
 * `parts` substitutes infrastructure before anything is built from it (tests: another ACL); `gate`
 * is the pools' database gate, reported by the metrics.
 */
export function createServices(
  config: AppConfig,
  log: Logger,
  pool: DbPool,
  prisma: PrismaClient,
  parts: Partial<Pick<Services, 'acl'>> & { gate?: DbGate; tables?: TableNames } = {},
): Services {
  const keys = loadOrCreateKeys(config.auth.state_dir);
  if (keys.created) log.info({ dir: config.auth.state_dir }, 'created JWT signing keys');
  const tokens = new TokenService(
    keys,
    { access: config.auth.access_token_ttl_secs, refresh: config.auth.refresh_token_ttl_secs },
    undefined,
    // Multi-server: tokens issued by the other hosts verify with the keys they published.
    isMultiServer(config) ? new PeerKeyStore(pool) : null,
  );
  const users = new UserDirectory(pool);
  const built = new Map<ServiceClass<unknown>, unknown>();
  const services: Services = {
    config,
    log,
    prisma,
    pool,
    columns: new LiveColumns(pool, parts.tables),
    users,
    auth: new AuthService(users, tokens, log),
    // Row-level ACL: a few queries per user, cached for a few seconds (DbMonitorAcl).
    acl: parts.acl ?? new DbMonitorAcl(pool),
    live: new LiveHub({ socketDir: config.zoneminder.path_socks, hls: config.streaming.hls, log }),
    metrics: new Metrics(config.metrics.enabled),
    get<T>(service: ServiceClass<T>): T {
      if (!built.has(service)) {
        const instance = service.from(services);
        built.set(service, instance);
        connect(services, service, instance);
      }
      return built.get(service) as T;
    },
    provide<T>(service: ServiceClass<T>, instance: T): void {
      built.set(service, instance);
    },
  };
  registerMetrics(services, parts.gate);
  return services;
}

/** The daemon supervisor's wording of a change as the push `daemon` message carries it. */
export function daemonPush(change: DaemonChange): DaemonPush {
  const base = { daemon: change.daemon, monitor_id: change.monitorId ?? null, state: change.state };
  if (change.state === 'exited') return { ...base, cause: change.cause };
  if (change.state === 'restarting') return { ...base, restart_in_secs: change.inSecs };
  return base;
}

/** Connects a newly built service to the others that want its news. */
function connect(services: Services, service: ServiceClass<unknown>, instance: unknown): void {
  // Takeover mode: every daemon start, exit and scheduled restart becomes a push `daemon` message
  // (System View; a monitor's daemon only to those who may see the monitor).
  if (service === Daemons && instance) {
    (instance as DaemonManager).onChange((change) => {
      if (services.config.push.enabled) services.get(PushService).publishDaemon(daemonPush(change));
    });
  }
}
