// A zmgate in takeover mode for tests: its own temporary ZM_PATH_BIN of stand-ins, socket and
// shared-memory directories, a fast reconcile loop, and a client for the zmdc.sock shim.
import { mkdirSync, mkdtempSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from './app.js';
import type { FreshDatabase } from './mariadb.js';

export interface TakeoverDirs {
  root: string;
  bin: string;
  socks: string;
  map: string;
  journal: string;
}

export function takeoverDirs(bin: string): TakeoverDirs {
  const root = mkdtempSync(join(tmpdir(), 'zmgate-takeover-'));
  const dirs = { root, bin, socks: join(root, 'socks'), map: join(root, 'map'), journal: join(root, 'journal.sock') };
  mkdirSync(dirs.socks);
  mkdirSync(dirs.map);
  return dirs;
}

export function takeoverEnv(dirs: TakeoverDirs, extra: Record<string, string> = {}): Record<string, string> {
  return {
    APP_AUTH__RATE_LIMIT__ENABLED: 'false',
    APP_DAEMON__ENABLED: 'true',
    APP_DAEMON__BIN_DIR: dirs.bin,
    APP_DAEMON__JOURNAL_SOCKET: dirs.journal,
    APP_DAEMON__RECONCILE_INTERVAL_SECS: '1',
    APP_DAEMON__START_STAGGER_MS: '0',
    APP_DAEMON__STOP_GRACE_SECS: '2',
    APP_ZONEMINDER__PATH_SOCKS: dirs.socks,
    APP_ZONEMINDER__PATH_MAP: dirs.map,
    ...extra,
  };
}

export function startTakeoverApp(
  db: FreshDatabase,
  dirs: TakeoverDirs,
  extra: Record<string, string> = {},
): Promise<TestApp> {
  return startTestApp({ db, env: takeoverEnv(dirs, extra) });
}

/** One zmdc.pl exchange: the message without a newline, half-close, read to EOF. */
export function zmdcSend(socketPath: string, message: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let out = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.end(message));
    socket.on('data', (d: string) => (out += d));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

/** Inserts Config rows (Name, Value) the way ZoneMinder stores them. */
export async function setZmConfig(db: FreshDatabase, values: Record<string, string>): Promise<void> {
  for (const [name, value] of Object.entries(values)) {
    await db.db.query(
      "INSERT INTO Config (Name, Value, Type) VALUES (?, ?, 'integer') ON DUPLICATE KEY UPDATE Value = VALUES(Value)",
      [name, value],
      db.name,
    );
  }
}
