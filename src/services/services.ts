// The composition of services one app instance uses. Controllers receive this object.
import type { AppConfig } from '../config/types.js';
import type { Logger } from '../log.js';
import type { DbPool } from '../db/pool.js';
import type { PrismaClient } from '../db/prisma.js';
import { AuthService } from '../auth/auth-service.js';
import { loadOrCreateKeys } from '../auth/keys.js';
import { DbMonitorAcl, type MonitorAcl } from '../auth/monitor-acl.js';
import { TokenService } from '../auth/tokens.js';
import { UserDirectory } from '../auth/user-directory.js';
import { LiveHub } from '../live/hub.js';
import { PushService } from '../features/push/push-service.js';
import { zoneMinderClock } from './event-time.js';
import { MeService } from './me-service.js';
import { ServerService } from './server-service.js';

/**
 * Shared infrastructure and the cross-cutting services. Domain services (one per resource
 * family) are small classes that controllers build from this object on demand.
 */
export interface Services {
  config: AppConfig;
  log: Logger;
  prisma: PrismaClient;
  /** The plain driver pool, for the few hot reads where Prisma's row mapping costs too much (monitor-rows.ts). */
  pool: DbPool;
  server: ServerService;
  auth: AuthService;
  acl: MonitorAcl;
  me: MeService;
  /**
   * Live video: the shared per-monitor stream readers (LiveFeeds, src/live/feed.ts) and the HLS
   * sessions. Nothing starts until a live route is used; closed on shutdown.
   */
  live: LiveHub;
  /**
   * Live event push over socket.io (src/features/push/): idle until server.ts routes its path
   * and starts it. `push.publishDaemon()` is the hook for daemon state changes.
   */
  push: PushService;
}

export function createServices(config: AppConfig, log: Logger, pool: DbPool, prisma: PrismaClient): Services {
  const keys = loadOrCreateKeys(config.auth.state_dir);
  if (keys.created) log.info({ dir: config.auth.state_dir }, 'created JWT signing keys');
  const tokens = new TokenService(keys, {
    access: config.auth.access_token_ttl_secs,
    refresh: config.auth.refresh_token_ttl_secs,
  });
  const users = new UserDirectory(pool);
  const auth = new AuthService(users, tokens, log);
  const acl = new DbMonitorAcl(pool);
  return {
    config,
    log,
    prisma,
    pool,
    server: new ServerService(pool, log),
    auth,
    // Row-level ACL: a few queries per user, cached for a few seconds (DbMonitorAcl).
    acl,
    me: new MeService(users),
    live: new LiveHub({ socketDir: config.zoneminder.path_socks, hls: config.streaming.hls, log }),
    push: new PushService({ config, log, auth, acl, db: pool, clock: zoneMinderClock(prisma, log) }),
  };
}
