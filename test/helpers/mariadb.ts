// Test harness access to a throwaway MariaDB.
//
// ava runs each test file in its own process (workerThreads: false), so "shared" means
// one server per test FILE, started on first use. Nothing needs to stop it: the server
// handle does not keep the process alive, and the module's exit hook kills it and
// removes its temp dir when the worker exits.
//
// Tests in a file run concurrently, so never pause() or stop() the shared server;
// use privateMariaDb() for that.

import { randomBytes } from 'node:crypto';
import type { ConnectionConfig } from 'mariadb';
import type { AppConfig } from '../../src/config/types.js';
import { startThrowawayMariaDb, type ThrowawayMariaDb } from '../../src/devdb/throwaway-mariadb.js';

// ZMGATE_TEST_DB_LOG=1 prints server lifecycle lines (ports, startup time).
const log = process.env.ZMGATE_TEST_DB_LOG ? (line: string) => console.error(`[mariadb] ${line}`) : undefined;

let shared: Promise<ThrowawayMariaDb> | null = null;

/** The server shared by all tests of the current test file. */
export function sharedMariaDb(): Promise<ThrowawayMariaDb> {
  // A failed start is remembered on purpose: retrying a broken install per test only adds noise.
  shared ??= startThrowawayMariaDb({ log });
  return shared;
}

/** A server of one's own, for tests that pause, resume or stop it. Caller stops it. */
export function privateMariaDb(): Promise<ThrowawayMariaDb> {
  return startThrowawayMariaDb({ log });
}

export interface FreshDatabase {
  name: string;
  user: string;
  password: string;
  /** mysql:// URL as root. */
  url: string;
  /** mysql:// URL as `user`, over TCP. */
  userUrl: string;
  /** `mariadb` driver options as `user`, over TCP. */
  userConfig: ConnectionConfig;
  db: ThrowawayMariaDb;
}

let counter = 0;

/**
 * Creates a uniquely named database and a user owning it, on `db` (default: the shared server).
 * `prefix` should be a short word; it is sanitised to [a-z0-9_].
 */
export async function freshDatabase(prefix: string, db?: ThrowawayMariaDb): Promise<FreshDatabase> {
  const server = db ?? (await sharedMariaDb());
  const clean =
    prefix
      .toLowerCase()
      .replace(/[^a-z0-9_]/g, '_')
      .slice(0, 32) || 'db';
  const unique = `${process.pid}_${++counter}`;
  const name = `${clean}_${unique}`;
  const user = `u_${unique}`; // user names are limited (80 chars) and show up in errors; keep short
  const password = randomBytes(9).toString('base64url');

  await server.createDatabase(name);
  await server.createUser(user, password, name);
  return {
    name,
    user,
    password,
    url: server.url(name),
    userUrl: server.url(name, user, password),
    userConfig: server.connectionConfig(name, user, password),
    db: server,
  };
}

/** The service's `db` settings for a fresh database (as its owning user, over TCP). */
export function dbConfigFor(fresh: FreshDatabase, overrides: Partial<AppConfig['db']> = {}): AppConfig['db'] {
  return {
    host: fresh.db.host,
    port: fresh.db.port,
    socket: null,
    username: fresh.user,
    password: fresh.password,
    database_name: fresh.name,
    pool_min: 0,
    pool_max: 5,
    connect_timeout_secs: 5,
    acquire_timeout_secs: 5,
    idle_timeout_secs: 60,
    query_timeout_secs: 30,
    migrate_on_start: false,
    ...overrides,
  };
}
