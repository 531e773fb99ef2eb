// The real ZoneMinder 1.36 schema for tests: Debian 12's `zoneminder` package (1.36.33), its
// db/zm_create.sql and db/triggers.sql, loaded into a fresh test database with the `mariadb`
// command-line client (the files use client commands: `delimiter`, `source`).
//
// The package is fetched with `apt-get download` (no root needed when the package lists are
// there; `apt-get update` first otherwise, which does need root) and only its db/ directory is
// kept, in a cache under the system temp dir, so later runs do not download again. Nothing of
// it is committed. When it cannot be fetched the tests fail with the reason; they never skip.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  cpSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { introspectSchema, type Queryable } from '../../src/db/converge/index.js';
import { freshDatabase, type FreshDatabase } from './mariadb.js';

const CACHE = path.join(os.tmpdir(), 'zmgate-zoneminder-1.36');
const EXTRACTED = path.join(CACHE, 'db');
const PINNED = 'zoneminder=1.36.33+dfsg1-1';

export interface ZoneMinder136Files {
  /** Debian package version, e.g. 1.36.33+dfsg1-1. */
  packageVersion: string;
  createSql: string;
  triggersSql: string;
}

function run(command: string, args: string[], cwd: string): { ok: boolean; output: string } {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 300_000 });
  return { ok: r.status === 0, output: `${r.error?.message ?? ''}${r.stdout ?? ''}${r.stderr ?? ''}`.trim() };
}

function download(dir: string): string {
  const attempts: string[] = [];
  const tries: [string, string[]][] = [
    ['apt-get', ['download', PINNED]],
    ['apt-get', ['download', 'zoneminder']],
  ];
  for (const [command, args] of tries) {
    const r = run(command, args, dir);
    if (r.ok) return r.output;
    attempts.push(`${command} ${args.join(' ')}: ${r.output.split('\n').slice(-3).join(' | ')}`);
  }
  // The package lists may be missing or stale (a fresh machine): refresh them and try again.
  const update = run('apt-get', ['update', '-qq'], dir);
  attempts.push(`apt-get update: ${update.ok ? 'ok' : update.output.split('\n').slice(-3).join(' | ')}`);
  for (const [command, args] of tries) {
    const r = run(command, args, dir);
    if (r.ok) return r.output;
    attempts.push(`${command} ${args.join(' ')}: ${r.output.split('\n').slice(-3).join(' | ')}`);
  }
  throw new Error(
    "cannot fetch Debian's zoneminder 1.36 package for the bridge tests (needs Debian's package archive, and root for 'apt-get update'):\n  " +
      attempts.join('\n  '),
  );
}

/** Downloads and extracts once per machine; later calls read the cache. */
export function zoneminder136Files(): ZoneMinder136Files {
  const versionFile = path.join(EXTRACTED, 'PACKAGE_VERSION');
  if (!existsSync(versionFile)) {
    mkdirSync(CACHE, { recursive: true });
    const work = mkdtempSync(path.join(CACHE, 'work-'));
    try {
      download(work);
      const deb = readdirSync(work).find((name) => /^zoneminder_.*\.deb$/.test(name));
      if (!deb) throw new Error(`apt-get download left no zoneminder_*.deb in ${work}`);
      const packageVersion = decodeURIComponent(deb.split('_')[1]);
      if (!packageVersion.startsWith('1.36.')) throw new Error(`expected a ZoneMinder 1.36 package, got ${deb}`);
      const x = run('dpkg-deb', ['-x', deb, 'x'], work);
      if (!x.ok) throw new Error(`dpkg-deb -x ${deb} failed: ${x.output}`);
      const db = path.join(work, 'db');
      cpSync(path.join(work, 'x', 'usr', 'share', 'zoneminder', 'db'), db, { recursive: true });
      writeFileSync(path.join(db, 'PACKAGE_VERSION'), packageVersion);
      // Another test process may have finished first; either copy is the same.
      try {
        renameSync(db, EXTRACTED);
      } catch {
        if (!existsSync(versionFile)) throw new Error(`could not move the extracted files to ${EXTRACTED}`);
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  return {
    packageVersion: readFileSync(versionFile, 'utf8').trim(),
    createSql: path.join(EXTRACTED, 'zm_create.sql'),
    triggersSql: path.join(EXTRACTED, 'triggers.sql'),
  };
}

/**
 * zm_create.sql rewritten for database `name`: Debian's copy is rendered for `zm` (CREATE
 * DATABASE zm; USE zm) and sources triggers.sql by its installed path, which is inlined.
 */
export function createScriptFor(name: string, files: ZoneMinder136Files = zoneminder136Files()): string {
  const create = readFileSync(files.createSql, 'utf8');
  const triggers = readFileSync(files.triggersSql, 'utf8');
  const checks: [RegExp, string][] = [
    [/^CREATE DATABASE .*`zm`;$/m, ''],
    [/^USE `zm`;$/m, `USE \`${name}\`;`],
    [/^source \S*triggers\.sql$/m, triggers],
  ];
  let sql = create;
  for (const [pattern, replacement] of checks) {
    if (!pattern.test(sql)) throw new Error(`zm_create.sql no longer matches ${pattern}; update test/helpers/zm136.ts`);
    sql = sql.replace(pattern, () => replacement);
  }
  return sql;
}

/** Loads ZoneMinder 1.36's zm_create.sql (+ triggers.sql) into `fresh`, as root over the socket. */
export function load136(fresh: FreshDatabase): void {
  runScript(fresh.db.socket, fresh.name, createScriptFor(fresh.name), 'zm_create.sql');
}

/** `sql` through the `mariadb` client (it holds client commands), as root over `socket`. */
export function runScript(socket: string, database: string, sql: string, what: string): void {
  const r = spawnSync('mariadb', [`--socket=${socket}`, '-uroot', '--batch', database], {
    input: sql,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) {
    throw new Error(`loading ${what} into ${database} failed (${r.error?.message ?? `exit ${r.status}`}): ${r.stderr}`);
  }
}

/** A fresh database holding ZoneMinder 1.36.33 exactly as Debian's package creates it. */
export async function database136(prefix: string): Promise<FreshDatabase> {
  const fresh = await freshDatabase(prefix);
  load136(fresh);
  return fresh;
}

// Shared by the database-tool tests (45-49): running zmgate-db in-process, and fingerprints to
// prove that a command changed nothing.

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `zmgate-db ...args` in this process (the same run() bin/zmgate-db.js calls), output captured. */
export async function zmgateDb(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const { run } = await import('../../src/cli/zmgate-db.js');
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env,
  });
  return { code, stdout, stderr };
}

/** A hash of everything information_schema says about the schema (tables, columns, indexes, keys, triggers with bodies, views). */
export async function schemaFingerprint(conn: Queryable, database: string): Promise<string> {
  const live = await introspectSchema(conn, database);
  return createHash('sha256')
    .update(JSON.stringify({ tables: live.tables, views: live.views, triggers: live.triggers }))
    .digest('hex');
}

/** CHECKSUM TABLE of every base table: equal before and after means no row changed. */
export async function dataFingerprint(conn: Queryable, database: string): Promise<Record<string, string>> {
  const tables = (await conn.query(
    "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME",
    [database],
  )) as { name: string }[];
  if (!tables.length) return {};
  const rows = (await conn.query(
    `CHECKSUM TABLE ${tables.map((t) => `\`${database}\`.\`${t.name}\``).join(', ')}`,
  )) as {
    Table: string;
    Checksum: unknown;
  }[];
  return Object.fromEntries(rows.map((row) => [row.Table.split('.').pop()!, String(row.Checksum)]));
}

/**
 * ZoneMinder's schema as its daemons and scripts see it: SHOW CREATE TABLE of every table but
 * zmgate's own (AUTO_INCREMENT counters aside) and every trigger's body, by name.
 */
export async function zoneminderSchema(db: FreshDatabase): Promise<Record<string, string>> {
  const q = <T>(sql: string) => db.db.query<T>(sql, [], db.name);
  const out: Record<string, string> = {};
  const tables = await q<{ name: string }>(
    "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'zmgate\\_%' ORDER BY 1",
  );
  for (const { name } of tables) {
    const [row] = await q<Record<string, string>>(`SHOW CREATE TABLE \`${name}\``);
    out[name] = (row['Create Table'] ?? row['Create View']).replace(/ AUTO_INCREMENT=\d+/, '');
  }
  for (const trg of await q<{ name: string; body: string }>(
    'SELECT TRIGGER_NAME AS name, ACTION_STATEMENT AS body FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() ORDER BY 1',
  ))
    out[`trigger ${trg.name}`] = trg.body;
  return out;
}
