// Runs one of Debian's ZoneMinder 1.36.33 Perl tools (/usr/bin/zm*.pl) against a test database.
//
// ZoneMinder::Config reads /etc/zm/zm.conf and /etc/zm/conf.d, paths compiled into the module
// (1.36 has no environment override). The tool is run with a copy of that module that reads a
// zm.conf and a conf.d of the test's own (perl -I puts the copy first), so the machine's
// configuration is neither read nor changed. zm.conf values override the database's Config rows.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FreshDatabase } from './mariadb.js';
import { sql } from './events.js';

const CONFIG_PM = '/usr/share/perl5/ZoneMinder/Config.pm';

export interface ZmPerlRun {
  status: number | null;
  output: string;
}

/**
 * Runs `perl -wT -I<own lib> [extra perl args] <script> [args]` with a zm.conf pointing at `db`.
 * `settings` are added to zm.conf (logging to the database and syslog is off by default, so the
 * tool's own log lines do not land in the tables being compared). `modules` are extra Perl
 * modules written into the same lib directory (name → source).
 */
export function runZmPerl(
  db: FreshDatabase,
  script: string,
  options: {
    args?: string[];
    perlArgs?: string[];
    eventsDir?: string;
    settings?: Record<string, string>;
    modules?: Record<string, string>;
    timeoutMs?: number;
  } = {},
): ZmPerlRun {
  const dir = mkdtempSync(path.join(tmpdir(), 'zmgate-zmperl-'));
  const lib = path.join(dir, 'lib');
  mkdirSync(path.join(lib, 'ZoneMinder'), { recursive: true });
  mkdirSync(path.join(dir, 'conf.d'));
  mkdirSync(path.join(dir, 'logs'));
  const conf = path.join(dir, 'zm.conf');
  writeFileSync(
    path.join(lib, 'ZoneMinder', 'Config.pm'),
    readFileSync(CONFIG_PM, 'utf8')
      .replace("'/etc/zm/zm.conf'", `'${conf}'`)
      .replace("'/etc/zm/conf.d'", `'${path.join(dir, 'conf.d')}'`),
  );
  for (const [name, source] of Object.entries(options.modules ?? {}))
    writeFileSync(path.join(lib, `${name.replace(/::/g, '/')}.pm`), source);
  const logs = path.join(dir, 'logs');
  const settings: Record<string, string> = {
    ZM_DB_HOST: `${db.db.host}:${db.db.port}`,
    ZM_DB_NAME: db.name,
    ZM_DB_USER: db.user,
    ZM_DB_PASS: db.password,
    ZM_DIR_EVENTS: options.eventsDir ?? logs,
    ZM_PATH_LOGS: logs,
    ZM_PATH_SWAP: logs,
    ZM_PATH_SOCKS: logs,
    ZM_PATH_MAP: logs,
    ZM_PATH_DATA: '/usr/share/zoneminder',
    ZM_PATH_BIN: '/usr/bin',
    ZM_PATH_WEB: '/usr/share/zoneminder/www',
    // 1.36: -5 is "None".
    ZM_LOG_LEVEL_DATABASE: '-5',
    ZM_LOG_LEVEL_SYSLOG: '-5',
    ...options.settings,
  };
  writeFileSync(
    conf,
    `${Object.entries(settings)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n')}\n`,
  );
  const r = spawnSync('perl', ['-wT', `-I${lib}`, ...(options.perlArgs ?? []), script, ...(options.args ?? [])], {
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 120_000,
  });
  return {
    status: r.status,
    output: `${r.error ? `${r.error.message}\n` : ''}${r.stdout ?? ''}${r.stderr ?? ''}`,
  };
}

/**
 * The tables ZoneMinder's perl daemons derive from Events (the Events_Hour…Month buckets,
 * Event_Summaries, Storage.DiskSpace), in a form two databases can be compared by.
 */
export async function derivedTables(db: FreshDatabase): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const t of ['Events_Hour', 'Events_Day', 'Events_Week', 'Events_Month']) {
    out[t] = (await sql(db, `SELECT EventId, MonitorId, DiskSpace FROM ${t} ORDER BY EventId`)).map((r) => [
      Number(r.EventId),
      r.MonitorId,
      r.DiskSpace === null ? null : Number(r.DiskSpace),
    ]);
  }
  out.Event_Summaries = (await sql(db, 'SELECT * FROM Event_Summaries ORDER BY MonitorId')).map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : Number(v)])),
  );
  out.Storage = (await sql(db, 'SELECT Id, DiskSpace FROM Storage ORDER BY Id')).map((r) => [
    r.Id,
    r.DiskSpace === null ? null : Number(r.DiskSpace),
  ]);
  return out;
}
