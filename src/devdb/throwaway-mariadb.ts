// A throwaway MariaDB server: its own data dir under a temp dir, loopback only,
// started from Debian's mariadb-server binaries. Used by the test harness and by
// `npm run demo`, so it must work both as root and as an ordinary user.
//
// Server settings worth knowing:
// - sql_mode is MariaDB's default (STRICT_TRANS_TABLES, ERROR_FOR_DIVISION_BY_ZERO,
//   NO_AUTO_CREATE_USER, NO_ENGINE_SUBSTITUTION); we do not relax it, so code tested
//   here behaves as on a stock server.
// - root has no password, over the socket ('root'@'localhost') and over TCP
//   ('root'@'127.0.0.1'). Everything listens on 127.0.0.1 only.
// - Binary logging is off, durability is relaxed (flush at commit = 2): it is throwaway.

import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, closeSync, constants as fsConstants, openSync, rmSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createConnection, type Connection, type ConnectionConfig } from 'mariadb';

export interface ThrowawayMariaDbOptions {
  /** Parent of the temp dir; default os.tmpdir(). */
  baseDir?: string;
  /** TCP port on 127.0.0.1; 0 or absent picks a free one. */
  port?: number;
  /** Receives lifecycle lines (not the server log, which is in `<dir>/error.log`). */
  log?: (line: string) => void;
  /** Leave the temp dir behind on stop() / process exit (for post-mortems). */
  keep?: boolean;
  /** How long to wait for the server to accept connections; default 30 s. */
  startTimeoutMs?: number;
}

export interface ThrowawayMariaDb {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** Unix socket path; root can log in here without a password. */
  readonly socket: string;
  readonly rootUser: 'root';
  /** Root has no password, over the socket and over TCP. */
  readonly rootPassword: '';
  /** The temp dir holding everything (data, socket, logs). */
  readonly baseDir: string;
  readonly dataDir: string;
  /** The server's error log, useful when a test fails. */
  readonly errorLog: string;
  /** True while the server process is up (false after pause() or stop()). */
  readonly running: boolean;
  /** Milliseconds the first start took, install included. */
  readonly startupMs: number;
  /**
   * `mysql://user[:password]@127.0.0.1:port/[database]`, root when no user is given.
   * Note: the `mariadb` npm driver only parses `mariadb://` URLs with a database;
   * for the driver use connectionConfig() instead.
   */
  url(database?: string, user?: string, password?: string): string;
  /** TCP connection options for the `mariadb` driver (or the service's db config). */
  connectionConfig(database?: string, user?: string, password?: string): ConnectionConfig;
  /** CREATE DATABASE with utf8mb4; fails if it exists. */
  createDatabase(name: string): Promise<void>;
  /** Creates (or re-passwords) user@'127.0.0.1' and user@'localhost' with ALL on database.*. */
  createUser(user: string, password: string, database: string): Promise<void>;
  /** Runs SQL as root; several statements separated by ';' are allowed. */
  exec(sql: string, database?: string): Promise<void>;
  /** Runs one statement as root with `?` placeholders and returns the rows. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], database?: string): Promise<T[]>;
  /** Stops the server process (SIGTERM, waits for exit) and keeps the data. */
  pause(): Promise<void>;
  /** Starts the paused server again on the same port and socket. */
  resume(): Promise<void>;
  /** Kills the server, waits for it, removes the temp dir unless `keep`. Idempotent. */
  stop(): Promise<void>;
}

const INSTALL_HINT = "install Debian's mariadb-server (apt-get install mariadb-server)";
// sun_path is 108 bytes on Linux; leave some slack.
const MAX_SOCKET_PATH = 100;
const SHUTDOWN_TIMEOUT_MS = 30_000;
// ER_ACCESS_DENIED_ERROR, ER_ACCESS_DENIED_NO_PASSWORD_ERROR
const ACCESS_DENIED = new Set([1045, 1698]);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

// Settings that keep startup fast and memory small; shared by install and server.
const INNODB_ARGS = ['--innodb-buffer-pool-size=32M', '--innodb-log-file-size=8M'];

export async function startThrowawayMariaDb(options: ThrowawayMariaDbOptions = {}): Promise<ThrowawayMariaDb> {
  const bins = findBinaries();
  const log = options.log ?? (() => {});
  const t0 = performance.now();

  const baseDir = await mkdtemp(path.join(options.baseDir ?? os.tmpdir(), 'zmgate-db-'));
  const server = new Server(bins, baseDir, options, log);
  try {
    if (Buffer.byteLength(server.socket) > MAX_SOCKET_PATH) {
      throw new Error(`socket path too long for a unix socket (${server.socket}); pass a shorter baseDir`);
    }
    await server.install();
    await server.firstStart(options.port ?? 0);
    server.startupMs = Math.round(performance.now() - t0);
    log(`mariadb ready on 127.0.0.1:${server.port} in ${server.startupMs} ms (${baseDir})`);
    return server;
  } catch (error) {
    await server.stop().catch(() => {});
    throw error;
  }
}

interface Binaries {
  server: string;
  installDb: string;
  /** util-linux setpriv, to make the server die with us even on SIGKILL; may be absent. */
  setpriv: string | null;
}

function findBinaries(): Binaries {
  // Debian puts mariadbd in /usr/sbin, which is not on an ordinary user's PATH.
  const dirs = ['/usr/sbin', '/usr/local/sbin', ...(process.env.PATH ?? '').split(path.delimiter), '/usr/bin'];
  const find = (names: string[]): string | null => {
    for (const name of names) {
      for (const dir of dirs) {
        if (!dir) continue;
        const candidate = path.join(dir, name);
        try {
          accessSync(candidate, fsConstants.X_OK);
          return candidate;
        } catch {
          // not here
        }
      }
    }
    return null;
  };
  const server = find(['mariadbd', 'mysqld']);
  const installDb = find(['mariadb-install-db', 'mysql_install_db']);
  if (!server || !installDb) {
    const missing = [!server && 'mariadbd', !installDb && 'mariadb-install-db'].filter(Boolean).join(' and ');
    throw new Error(`throwaway MariaDB: ${missing} not found; ${INSTALL_HINT}`);
  }
  return { server, installDb, setpriv: find(['setpriv']) };
}

class Server implements ThrowawayMariaDb {
  readonly host = '127.0.0.1' as const;
  readonly rootUser = 'root' as const;
  readonly rootPassword = '' as const;
  readonly dataDir: string;
  readonly socket: string;
  readonly errorLog: string;
  readonly keep: boolean;
  port = 0;
  startupMs = 0;

  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly tmpDir: string;
  private readonly outLog: string;
  private readonly startTimeoutMs: number;

  constructor(
    private readonly bins: Binaries,
    readonly baseDir: string,
    options: ThrowawayMariaDbOptions,
    private readonly log: (line: string) => void,
  ) {
    this.dataDir = path.join(baseDir, 'data');
    this.socket = path.join(baseDir, 'mysqld.sock');
    this.errorLog = path.join(baseDir, 'error.log');
    this.outLog = path.join(baseDir, 'mariadbd.out');
    this.tmpDir = path.join(baseDir, 'tmp');
    this.keep = options.keep ?? false;
    this.startTimeoutMs = options.startTimeoutMs ?? 30_000;
    live.add(this);
    installProcessHooks();
  }

  get running(): boolean {
    return this.child !== null;
  }

  async install(): Promise<void> {
    await mkdir(this.tmpDir);
    const args = [
      '--no-defaults', // must come first; ignore /etc/mysql/my.cnf
      ...(isRoot ? ['--user=root'] : []),
      `--datadir=${this.dataDir}`,
      // Our own tmpdir: concurrent bootstraps sharing /tmp clash on temp table names.
      `--tmpdir=${this.tmpDir}`,
      '--auth-root-authentication-method=normal', // root@localhost with no password, not unix_socket
      '--skip-test-db',
      '--skip-name-resolve',
      ...INNODB_ARGS,
    ];
    const { code, output } = await run(this.bins.installDb, args, this.baseDir, 60_000);
    if (code !== 0) {
      throw new Error(`mariadb-install-db failed (${code}):\n${summarize(output)}`);
    }
  }

  async firstStart(requestedPort: number): Promise<void> {
    // A port picked by us can be taken by someone else before mariadbd binds it; retry then.
    for (let attempt = 1; ; attempt++) {
      this.port = requestedPort || (await pickFreePort());
      try {
        await this.startProcess();
        break;
      } catch (error) {
        const portClash = /Address already in use|Bind on TCP\/IP port/i.test(String(error));
        if (requestedPort || !portClash || attempt >= 5) throw error;
        this.log(`port ${this.port} was taken, retrying`);
      }
    }
    // install-db normally creates root@127.0.0.1 too; make sure, so url() works over TCP.
    await this.exec(
      "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1';" +
        "GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;",
    );
  }

  url(database?: string, user: string = this.rootUser, password?: string): string {
    const auth = encodeURIComponent(user) + (password ? ':' + encodeURIComponent(password) : '');
    return `mysql://${auth}@${this.host}:${this.port}/${database ? encodeURIComponent(database) : ''}`;
  }

  connectionConfig(database?: string, user: string = this.rootUser, password?: string): ConnectionConfig {
    // The driver's default connect timeout is 1 s; a test machine running many suites at once
    // has been seen to need longer for a TCP connect to a healthy local server.
    return { host: this.host, port: this.port, user, password: password ?? '', database, connectTimeout: 10_000 };
  }

  async createDatabase(name: string): Promise<void> {
    await this.exec(`CREATE DATABASE ${quoteIdent(name)} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
  }

  async createUser(user: string, password: string, database: string): Promise<void> {
    await this.withRoot(undefined, async (conn) => {
      // Both hosts: TCP clients arrive as 127.0.0.1 (skip-name-resolve), socket clients as localhost.
      for (const host of ['127.0.0.1', 'localhost']) {
        await conn.query('CREATE USER IF NOT EXISTS ?@? IDENTIFIED BY ?', [user, host, password]);
        await conn.query('ALTER USER ?@? IDENTIFIED BY ?', [user, host, password]);
        await conn.query(`GRANT ALL PRIVILEGES ON ${quoteIdent(database)}.* TO ?@?`, [user, host]);
      }
    });
  }

  async exec(sql: string, database?: string): Promise<void> {
    await this.withRoot(database, (conn) => conn.query(sql));
  }

  async query<T = Record<string, unknown>>(sql: string, params?: unknown[], database?: string): Promise<T[]> {
    const rows = await this.withRoot(database, (conn) => conn.query(sql, params));
    // DML returns an OkPacket, not rows; callers of query() want rows.
    return Array.isArray(rows) ? (rows as T[]) : [];
  }

  async pause(): Promise<void> {
    if (this.stopped) throw new Error('throwaway MariaDB was stopped');
    if (!this.child) return;
    await this.terminate('SIGTERM');
    this.log(`mariadb on port ${this.port} paused`);
  }

  async resume(): Promise<void> {
    if (this.stopped) throw new Error('throwaway MariaDB was stopped');
    if (this.child) return;
    await this.startProcess();
    this.log(`mariadb on port ${this.port} resumed`);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    // A kept data dir should be reusable, so shut down cleanly; otherwise just kill.
    await this.terminate(this.keep ? 'SIGTERM' : 'SIGKILL');
    live.delete(this);
    if (!this.keep) await rm(this.baseDir, { recursive: true, force: true });
    this.log(`mariadb on port ${this.port} stopped${this.keep ? `, kept ${this.baseDir}` : ''}`);
  }

  /** Synchronous last-resort cleanup for process exit. */
  killSync(): void {
    if (this.child?.pid) {
      try {
        process.kill(this.child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    this.child = null;
    if (!this.keep) rmSync(this.baseDir, { recursive: true, force: true });
  }

  private serverArgs(): string[] {
    return [
      '--no-defaults', // must come first; ignore /etc/mysql/my.cnf
      // As root mariadbd refuses to run unless told which user to be; as anyone else --user is ignored with a warning.
      ...(isRoot ? ['--user=root'] : []),
      `--datadir=${this.dataDir}`,
      `--socket=${this.socket}`,
      `--port=${this.port}`,
      '--bind-address=127.0.0.1',
      `--pid-file=${path.join(this.baseDir, 'mariadbd.pid')}`,
      `--log-error=${this.errorLog}`,
      `--tmpdir=${this.tmpDir}`,
      '--skip-log-bin',
      '--skip-name-resolve',
      '--max-connections=200',
      '--performance-schema=OFF',
      '--innodb-flush-log-at-trx-commit=2',
      '--sync-binlog=0',
      '--character-set-server=utf8mb4',
      '--collation-server=utf8mb4_general_ci',
      ...INNODB_ARGS,
    ];
  }

  /** Spawns mariadbd and waits until root can log in over the socket. */
  private async startProcess(): Promise<void> {
    const logOffset = fileSize(this.errorLog);
    let command = this.bins.server;
    let args = this.serverArgs();
    if (this.bins.setpriv) {
      // The kernel SIGKILLs the server if we die without running exit handlers (e.g. SIGKILL).
      args = ['--pdeathsig', 'KILL', '--', command, ...args];
      command = this.bins.setpriv;
    }
    // stdout/stderr go to a file, not a pipe: a pipe would keep our event loop alive.
    const out = openSync(this.outLog, 'a');
    let child: ChildProcess;
    try {
      child = spawn(command, args, { cwd: this.baseDir, stdio: ['ignore', out, out], detached: false });
    } finally {
      closeSync(out);
    }
    this.child = child;
    let exitInfo: string | null = null;
    this.exited = new Promise<void>((resolve) => {
      const done = (info: string) => {
        exitInfo ??= info;
        if (this.child === child) this.child = null;
        resolve();
      };
      child.once('exit', (code, signal) => done(`exited with ${signal ?? `code ${code}`}`));
      child.once('error', (error) => done(`failed to spawn: ${error.message}`));
    });

    const deadline = Date.now() + this.startTimeoutMs;
    let lastError = '';
    for (;;) {
      if (exitInfo !== null) {
        throw new Error(`mariadbd ${exitInfo} during startup:\n${await this.logTails(logOffset)}`);
      }
      if (Date.now() > deadline) {
        await this.terminate('SIGKILL');
        throw new Error(
          `mariadbd not ready after ${this.startTimeoutMs} ms (last: ${lastError}):\n${await this.logTails(logOffset)}`,
        );
      }
      try {
        const conn = await createConnection({ socketPath: this.socket, user: this.rootUser, connectTimeout: 1000 });
        await conn.end();
        break;
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
        // The server is up but refuses root: waiting will not help.
        if (ACCESS_DENIED.has((error as { errno?: number }).errno ?? 0)) {
          await this.terminate('SIGKILL');
          throw new Error(`mariadbd is up but root cannot log in over the socket: ${lastError}`, { cause: error });
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    // Idle servers must not keep the owner alive; the exit hook kills them. terminate() re-refs.
    child.unref();
  }

  private async terminate(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.ref(); // keep the loop alive until we've seen it exit
    child.kill(signal);
    const timedOut = await Promise.race([
      this.exited.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(resolve, SHUTDOWN_TIMEOUT_MS, true).unref()),
    ]);
    if (timedOut) {
      this.log(`mariadbd did not exit on ${signal} within ${SHUTDOWN_TIMEOUT_MS} ms, killing`);
      child.kill('SIGKILL');
      await this.exited;
    }
  }

  private async withRoot<T>(database: string | undefined, fn: (conn: Connection) => Promise<T>): Promise<T> {
    // A fresh connection per call: cheap on a local socket, and nothing goes stale across pause/resume.
    const conn = await createConnection({
      socketPath: this.socket,
      user: this.rootUser,
      database,
      multipleStatements: true,
      connectTimeout: 5000,
      bigIntAsNumber: true, // COUNT(*) as number, not bigint, in helper queries
    });
    try {
      return await fn(conn);
    } finally {
      await conn.end().catch(() => conn.destroy());
    }
  }

  private async logTails(errorLogOffset: number): Promise<string> {
    const errorLog = (await readFile(this.errorLog).catch(() => Buffer.alloc(0))).subarray(errorLogOffset);
    const out = await readFile(this.outLog, 'utf8').catch(() => '');
    return [`--- ${this.errorLog}`, summarize(errorLog.toString('utf8')), `--- ${this.outLog}`, summarize(out)].join(
      '\n',
    );
  }
}

// Servers not yet stopped, for the exit hook.
const live = new Set<Server>();
let hooksInstalled = false;

function installProcessHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  // 'exit' handlers must be synchronous: SIGKILL and rmSync.
  process.on('exit', () => {
    for (const server of live) server.killSync();
  });
  // Signals do not run 'exit' handlers by default. Act only when nobody else listens,
  // so an application's own graceful shutdown is not pre-empted; then die as before.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return;
      for (const server of live) server.killSync();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

function pickFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function run(
  command: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number | string; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-64 * 1024);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('error', (error) => resolve({ code: error.message, output }));
    child.once('close', (code, signal) => resolve({ code: code ?? signal ?? 'unknown', output }));
  });
}

function quoteIdent(name: string): string {
  if (!name || name.includes('\0')) throw new Error(`invalid SQL identifier: ${JSON.stringify(name)}`);
  return '`' + name.replaceAll('`', '``') + '`';
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The ERROR lines, then the last lines: install-db buries its error under boilerplate. */
function summarize(text: string): string {
  const lines = text.trimEnd().split('\n');
  const errors = lines.filter((line) => /\bERROR\b/.test(line)).slice(0, 10);
  const last = lines.slice(-15);
  const head = errors.filter((line) => !last.includes(line));
  return [...head, ...(head.length ? ['...'] : []), ...last].join('\n');
}
