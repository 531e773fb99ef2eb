// What every feature receives: the shared infrastructure of one app instance, and a registry that
// builds each domain service once, on first use (Services.get). Built by the composition root,
// src/app/services.ts; several apps in one process (the tests) each have their own.
import type { AppConfig } from './config/types.js';
import type { Logger } from './log.js';
import type { DbPool } from './db/pool.js';
import type { LiveColumns } from './db/live-columns.js';
import type { PrismaClient } from './db/prisma.js';
import type { AuthService } from './auth/auth-service.js';
import type { UserDirectory } from './auth/user-directory.js';
import type { MonitorAcl } from './auth/monitor-acl.js';
import type { LiveHub } from './live-hub/hub.js';
import type { Metrics } from './metrics.js';

/** A domain service class (or key object) that knows how to build itself from the app's infrastructure. */
export interface ServiceClass<T> {
  from(services: Services): T;
}

/**
 * A service class whose instance type is read from the class itself (`prototype`), so that a
 * `from` inherited from a base class (src/features/db-service.ts) serves every subclass.
 */
export interface InheritedServiceClass<T> {
  prototype: T;
  from(services: Services): NoInfer<T>;
}

/** Shared infrastructure, and the registry of domain services (one instance each per app). */
export interface Services {
  config: AppConfig;
  log: Logger;
  prisma: PrismaClient;
  /** The plain driver pool, for the few hot reads where Prisma's row mapping costs too much (monitor-rows.ts). */
  pool: DbPool;
  /**
   * The live database's columns, for the driver reads that answer on every ZoneMinder version
   * (a column an older one lacks is read as a stand-in; src/db/live-columns.ts).
   */
  columns: LiveColumns;
  /** ZoneMinder's users and roles as authentication sees them. */
  users: UserDirectory;
  auth: AuthService;
  acl: MonitorAcl;
  /**
   * Live video: the shared per-monitor stream readers (LiveFeeds, src/live-hub/feed.ts) and the HLS
   * sessions. Nothing starts until a live route is used; closed on shutdown.
   */
  live: LiveHub;
  /** Prometheus metrics (src/metrics.ts); records nothing unless `metrics.enabled`. */
  metrics: Metrics;
  /** The app's one instance of a domain service, built on first use. */
  get<T>(service: InheritedServiceClass<T>): T;
  get<T>(service: ServiceClass<T>): T;
  /** Puts an instance in the registry before first use (tests substitute parts this way). */
  provide<T>(service: InheritedServiceClass<T>, instance: T): void;
  provide<T>(service: ServiceClass<T>, instance: T): void;
}
