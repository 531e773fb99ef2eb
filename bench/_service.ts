// What the benches that run the service share: its configuration against a throwaway MariaDB
// (user bench/bench-pass), starting it as its own process, logging in, and the process's CPU
// time and RSS from /proc (Linux).
import { type ChildProcess, spawn, type StdioOptions } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** APP_* settings for the service on 127.0.0.1 (any port) against `database`, limiter off. */
export function serviceEnv(
  db: { host: string; port: number },
  database: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    APP_SERVER__PORT: '0',
    APP_SERVER__ADDR: '127.0.0.1',
    APP_ZONEMINDER__CONFIG_PATH: '/nonexistent/zm.conf',
    APP_AUTH__STATE_DIR: mkdtempSync(path.join(tmpdir(), 'zmgate-bench-state-')),
    APP_AUTH__RATE_LIMIT__ENABLED: 'false',
    APP_DB__HOST: db.host,
    APP_DB__PORT: String(db.port),
    APP_DB__USERNAME: 'bench',
    APP_DB__PASSWORD: 'bench-pass',
    APP_DB__DATABASE_NAME: database,
    ...extra,
  };
}

/** utime + stime of a process, in seconds (clock ticks are 100 per second on Linux). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // fields 14 and 15 of stat
}

/** Resident set size of a process, in MiB. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Open file descriptors of a process (/proc/<pid>/fd). */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/**
 * How many of a process's open fds are TCP connections to `port` (e.g. its database pools'):
 * the sockets' inodes from /proc/<pid>/net/tcp{,6} (remote port, field 3), matched to its fd links.
 */
export function socketsTo(pid: number, port: number): number {
  const inodes = new Set<string>();
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length > 9 && Number.parseInt(fields[2].split(':')[1] ?? '', 16) === port) inodes.add(fields[9]);
    }
  }
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m && inodes.has(m[1])) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

/**
 * How the service is started as shipped (`npm start`, /usr/bin/zmgate and its systemd unit):
 * package.json's zmgateRuntime (node flags and environment defaults), read from there.
 */
export function serviceLaunch(root: string): { nodeFlags: string[]; env: Record<string, string> } {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    zmgateRuntime: { nodeFlags: string[]; env: Record<string, string> };
  };
  return { nodeFlags: pkg.zmgateRuntime.nodeFlags, env: pkg.zmgateRuntime.env };
}

/** A free TCP port on 127.0.0.1 (closed again, for the service to take). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface RunningService {
  proc: ChildProcess;
  /** http://127.0.0.1:<port> */
  base: string;
  /** `/api/v3<p>` on the service. */
  api: (p: string) => string;
}

/**
 * Starts the built service (bin/zmgate.js, so dist/) as `npm start` runs it (serviceLaunch) on a
 * free loopback port, with `env` (serviceEnv's settings) over this process's environment, and
 * resolves once it answers.
 */
export async function startService(
  root: string,
  env: Record<string, string>,
  options: { nodeArgs?: string[]; stdio?: StdioOptions; detached?: boolean } = {},
): Promise<RunningService> {
  const port = await freePort();
  const launch = serviceLaunch(root);
  const proc = spawn(
    process.execPath,
    [...launch.nodeFlags, ...(options.nodeArgs ?? []), path.join(root, 'bin', 'zmgate.js')],
    {
      cwd: root,
      env: { ...process.env, ...launch.env, ...env, APP_SERVER__PORT: String(port) },
      // Default logging (one JSON line per request) goes where a service manager would take it.
      stdio: options.stdio ?? ['ignore', 'ignore', 'inherit'],
      detached: options.detached ?? false,
    },
  );
  const base = `http://127.0.0.1:${port}`;
  const api = (p: string) => `${base}/api/v3${p}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(api('/host/getVersion'));
      return { proc, base, api };
    } catch {
      if (i > 300 || proc.exitCode !== null) throw new Error('zmgate did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Stops a child with SIGTERM (SIGKILL after `graceMs`); resolves with the exit, and how long it took. */
export function stopChild(proc: ChildProcess, graceMs = 30_000): Promise<{ ms: number; killed: boolean }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve({ ms: 0, killed: false });
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      proc.kill('SIGKILL');
    }, graceMs);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve({ ms: performance.now() - t0, killed });
    });
    proc.kill('SIGTERM');
  });
}

export interface LoginAnswer {
  access_token: string;
  refresh_token: string;
  /** seconds */
  expire_in: number;
}

/** POST /auth/login; throws unless it answers 200. */
export async function apiLogin(api: (p: string) => string, username: string, password: string): Promise<LoginAnswer> {
  const res = await fetch(api('/auth/login'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (res.status !== 200) throw new Error(`login ${username}: ${res.status} ${await res.text()}`);
  return (await res.json()) as LoginAnswer;
}
