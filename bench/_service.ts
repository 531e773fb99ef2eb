// What the benches that run the service share: its configuration against a throwaway MariaDB
// (user bench/bench-pass), and the process's CPU time and RSS from /proc (Linux).
import { mkdtempSync, readFileSync } from 'node:fs';
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
