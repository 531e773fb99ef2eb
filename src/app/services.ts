// The composition root: builds the infrastructure one app instance uses (keys, tokens, the user
// directory, the row ACL, the live hub) and the registry that builds each domain service once, on
// first use. Controllers and media routes read from it; nothing else constructs services.
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
import { LiveHub } from '../live/hub.js';
import type { ServiceClass, Services } from '../registry.js';

export type { Services } from '../registry.js';

/** `parts` substitutes infrastructure before anything is built from it (tests: another ACL). */
export function createServices(
  config: AppConfig,
  log: Logger,
  pool: DbPool,
  prisma: PrismaClient,
  parts: Partial<Pick<Services, 'acl'>> = {},
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
    users,
    auth: new AuthService(users, tokens, log),
    // Row-level ACL: a few queries per user, cached for a few seconds (DbMonitorAcl).
    acl: parts.acl ?? new DbMonitorAcl(pool),
    live: new LiveHub({ socketDir: config.zoneminder.path_socks, hls: config.streaming.hls, log }),
    get<T>(service: ServiceClass<T>): T {
      if (!built.has(service)) built.set(service, service.from(services));
      return built.get(service) as T;
    },
    provide<T>(service: ServiceClass<T>, instance: T): void {
      built.set(service, instance);
    },
  };
  return services;
}
