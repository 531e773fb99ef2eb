// Starts the app in-process on an ephemeral port against a throwaway database, with the log
// captured for assertions. Never reads /etc/zm or /etc/zmgate.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/log.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { FreshDatabase } from './mariadb.js';

export interface TestApp extends RunningServer {
  /** Parsed JSON log records written so far. */
  logs: Array<Record<string, any>>;
  api(path: string): string;
}

export interface TestAppOptions {
  db?: FreshDatabase;
  env?: Record<string, string>;
}

export function testEnv(options: TestAppOptions = {}): Record<string, string> {
  const db = options.db;
  return {
    APP_PROFILE: 'test',
    APP_SERVER__PORT: '0',
    APP_SERVER__ADDR: '127.0.0.1',
    APP_ZONEMINDER__CONFIG_PATH: '/nonexistent/zm.conf',
    APP_AUTH__STATE_DIR: mkdtempSync(join(tmpdir(), 'zmgate-state-')),
    ...(db
      ? {
          APP_DB__HOST: db.db.host,
          APP_DB__PORT: String(db.db.port),
          APP_DB__USERNAME: db.user,
          APP_DB__PASSWORD: db.password,
          APP_DB__DATABASE_NAME: db.name,
        }
      : { APP_DB__HOST: '127.0.0.1', APP_DB__PORT: '1' }),
    APP_DB__CONNECT_TIMEOUT_SECS: '2',
    // Test databases are prepared by each test; start-up migrations are tested on their own.
    APP_DB__MIGRATE_ON_START: 'false',
    APP_DB__ACQUIRE_TIMEOUT_SECS: '2',
    ...options.env,
  };
}

/** A log stream that keeps each JSON record, parsed, in `logs`. */
export function logCapture(): { logs: Array<Record<string, any>>; stream: Writable } {
  const logs: Array<Record<string, any>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) logs.push(JSON.parse(line));
      done();
    },
  });
  return { logs, stream };
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const { config } = loadConfig({ env: testEnv(options), defaultOperatorFile: '/nonexistent/prod.toml' });
  const { logs, stream } = logCapture();
  const log = createLogger({ level: 'debug', stream });
  const server = await startServer(config, log);
  return Object.assign(server, { logs, api: (path: string) => `${server.url}/api/v3${path}` });
}
