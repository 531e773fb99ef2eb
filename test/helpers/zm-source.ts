// ZoneMinder's own database scripts, read from a git repository of its source (ZMGATE_ZM_SOURCE: a
// clone, its .git, or a bare mirror) at a tag or commit: db/zm_create.sql.in and the
// db/zm_update-*.sql that zmupdate.pl runs. The .sql.in files are configured as ZoneMinder's
// db/CMakeLists.txt configures them. Nothing of them is committed here; CI has no such repository
// (only package registries are reachable from it), so the tests that need it are skipped there
// with the reason.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FreshDatabase } from './mariadb.js';

/** The git directory of ZoneMinder's source, or why there is none. */
export function zmSource(): { gitDir: string } | { unavailable: string } {
  const source = process.env.ZMGATE_ZM_SOURCE;
  if (!source) return { unavailable: "ZMGATE_ZM_SOURCE is not set (a git repository of ZoneMinder's source)" };
  const gitDir = existsSync(path.join(source, '.git')) ? path.join(source, '.git') : source;
  if (!existsSync(gitDir)) return { unavailable: `ZMGATE_ZM_SOURCE ${source} does not exist` };
  return { gitDir };
}

/** Version strings compared part by part, as zmupdate.pl's version->parse does. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export interface ZmDbScripts {
  /** The extracted db/ directory. */
  dir: string;
  /** db/zm_update-<version>.sql, in version order. */
  updates: Array<{ version: string; file: string }>;
}

/** ZoneMinder's db/ directory at `rev`, extracted under `work`, its .sql.in configured. */
export function zmDbScripts(gitDir: string, rev: string, work: string): ZmDbScripts {
  const root = path.join(work, rev.replace(/[^A-Za-z0-9.]/g, '_'));
  execFileSync('sh', [
    '-c',
    'mkdir -p "$2" && git --git-dir="$1" archive "$3" db | tar -x -C "$2"',
    'sh',
    gitDir,
    root,
    rev,
  ]);
  const dir = path.join(root, 'db');
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.sql.in'))) {
    // The database name stays a placeholder (loadZmCreate fills it per database).
    const text = readFileSync(path.join(dir, name), 'utf8')
      .replaceAll('@PKGDATADIR@', root)
      .replaceAll('@ZM_MYSQL_ENGINE@', 'InnoDB')
      .replaceAll('@ZM_DIR_EVENTS@', '/var/cache/zoneminder/events');
    writeFileSync(path.join(dir, name.replace(/\.in$/, '')), text);
  }
  const updates = readdirSync(dir)
    .map((n) => /^zm_update-([\d.]+)\.sql$/.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ version: m[1], file: path.join(dir, m[0]) }))
    .sort((a, b) => compareVersions(a.version, b.version));
  return { dir, updates };
}

function runSql(db: FreshDatabase, sql: string, what: string): void {
  const r = spawnSync('mariadb', [`--socket=${db.db.socket}`, '-uroot', db.name], {
    input: sql,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (r.status !== 0)
    throw new Error(`${what} failed on ${db.name}: ${(r.stderr ?? r.error?.message ?? '').slice(0, 2000)}`);
}

/** Loads db/zm_create.sql into `db` (its CREATE DATABASE/USE aimed at `db`), as a fresh install does. */
export function loadZmCreate(db: FreshDatabase, scripts: ZmDbScripts): void {
  const sql = readFileSync(path.join(scripts.dir, 'zm_create.sql'), 'utf8')
    .replace(/^CREATE DATABASE .*$/m, '')
    .replaceAll('@ZM_DB_NAME@', db.name);
  runSql(db, sql, 'zm_create.sql');
}

/** zmupdate.pl's loop: every script from `from` (inclusive) up to `to`, each through the client. */
export function runZmUpdates(db: FreshDatabase, scripts: ZmDbScripts, from: string, to: string): string[] {
  const applied: string[] = [];
  for (const { version, file } of scripts.updates) {
    if (compareVersions(version, from) < 0 || compareVersions(version, to) > 0) continue;
    runSql(db, readFileSync(file, 'utf8'), `zm_update-${version}.sql`);
    applied.push(version);
  }
  return applied;
}
