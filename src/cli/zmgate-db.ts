// `zmgate-db`: the database migration tool.
//
//   zmgate-db up     -u URL [--dry-run]          create ZoneMinder 1.39.22 in an empty database
//   zmgate-db bridge -u URL [--dry-run] [--yes]  bring an existing ZoneMinder 1.39 database up to date
//                    [--allow-older-zoneminder]  (1.36 on: only for a copy no older ZoneMinder uses)
//   zmgate-db status -u URL                      read-only: version, schema, migrations
//
// Exit codes: 0 done, 1 failed (connection, a step), 2 usage, 3 refused (the database is not what
// the command is for, or a destructive plan was not confirmed). The plan, the SQL of a dry run and
// status go to stdout; progress and messages to stderr.
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { createConnection, type Connection } from 'mariadb';
import type { SchemaStep, StepProgress } from '../db/converge/index.js';
import { DatabaseUrlError, parseDatabaseUrl, type ParsedDatabaseUrl } from '../db/migrations/database-url.js';
import {
  TARGET_ZONEMINDER_VERSION,
  convertedUnderOlderZoneMinder,
  localZmcVersion,
  olderZoneMinderInstalled,
  upgradePath,
} from '../db/migrations/version.js';
import {
  MigrationFailed,
  MigrationRefused,
  migrate,
  readStatus,
  type DatabaseStatus,
  type MigrationPlan,
  type MigrationResult,
} from '../db/migrator.js';
import { SERVICE_VERSION } from '../version.js';

export const EXIT = { ok: 0, failure: 1, usage: 2, refused: 3 } as const;

const USAGE = `Usage: zmgate-db <command> [-u <database_url>] [options]

Commands:
  up -u URL       create the ZoneMinder ${TARGET_ZONEMINDER_VERSION} schema, its seed rows and zmgate's tables
                  in a fresh, empty database (refuses a database that has anything in it)
  bridge -u URL   bring an existing ZoneMinder 1.39 database up to ${TARGET_ZONEMINDER_VERSION}: prints the plan, applies
                  it with progress, stamps the baseline, runs later migrations. Refuses a database whose
                  installed ZoneMinder is older than 1.39 (its daemons and web UI read the old model)
  status -u URL   read-only: the ZoneMinder found, what zmgate added, whether ZoneMinder's own upgrade
                  path is clear, and each migration, applied or pending

Options:
  -u, --url URL   mysql://user:password@host:port/database (or mariadb://); add ?socket=/path
                  to use a unix socket. Default: the DATABASE_URL environment variable
  --dry-run       up/bridge: print the plan and its SQL, change nothing
  -y, --yes       bridge: apply a plan with destructive steps without asking
  --allow-older-zoneminder
                  bridge: convert a 1.36/1.38 database anyway; only for a copy that no ZoneMinder
                  older than 1.39 uses (its zones, permissions and upgrade path would break)
  -h, --help      this text
  -V, --version   the version

Exit codes: 0 done, 1 failed, 2 usage, 3 refused. Back up the database before 'bridge'.
`;

export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  /** For the bridge confirmation prompt; no prompt without a TTY. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}

class UsageError extends Error {}

/**
 * Runs the tool. With no `io` it uses the process's streams and sets process.exitCode; tests
 * pass their own `io` and read the returned code.
 */
export async function run(argv: string[], io?: CliIo): Promise<number> {
  const streams: CliIo = io ?? {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    stdin: process.stdin,
  };
  let code: number;
  try {
    code = await main(argv, streams);
  } catch (error) {
    if (error instanceof UsageError) {
      streams.stderr.write(`zmgate-db: ${error.message}\n\n${USAGE}`);
      code = EXIT.usage;
    } else {
      streams.stderr.write(`zmgate-db: ${error instanceof Error ? error.message : String(error)}\n`);
      code = EXIT.failure;
    }
  }
  if (!io) process.exitCode = code;
  return code;
}

async function main(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        url: { type: 'string', short: 'u' },
        'dry-run': { type: 'boolean' },
        yes: { type: 'boolean', short: 'y' },
        'allow-older-zoneminder': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.version) {
    io.stdout.write(`${SERVICE_VERSION}\n`);
    return EXIT.ok;
  }
  if (values.help) {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  const [command, ...rest] = positionals;
  if (!command) throw new UsageError('no command given');
  if (!['up', 'bridge', 'status'].includes(command)) throw new UsageError(`unknown command '${command}'`);
  if (rest.length) throw new UsageError(`unexpected argument '${rest[0]}'`);
  if (command === 'status' && values['dry-run'])
    throw new UsageError('--dry-run is for up and bridge (status never writes)');
  if (command !== 'bridge' && values.yes) throw new UsageError('--yes is for bridge');
  if (command !== 'bridge' && values['allow-older-zoneminder'])
    throw new UsageError('--allow-older-zoneminder is for bridge');

  const urlText = values.url ?? io.env.DATABASE_URL;
  if (!urlText) throw new UsageError('no database URL: pass -u URL or set DATABASE_URL');
  let url: ParsedDatabaseUrl;
  try {
    url = parseDatabaseUrl(urlText);
  } catch (error) {
    if (error instanceof DatabaseUrlError) throw new UsageError(`bad database URL: ${error.message}`);
    throw error;
  }

  const dryRun = !!values['dry-run'];
  let conn: Connection;
  try {
    conn = await connectTo(url);
  } catch (error) {
    if (sqlErrno(error) !== ER_BAD_DB_ERROR) {
      io.stderr.write(
        `zmgate-db: cannot connect to ${url.display}: ${(error as Error).message}\n${connectFix(error, url)}\n`,
      );
      return EXIT.failure;
    }
    if (command !== 'up') {
      io.stderr.write(
        `zmgate-db: database ${url.database} does not exist on ${url.display}\n` +
          `fix: check the database name in the URL (ZM_DB_NAME in zm.conf); for a new install run 'zmgate-db up -u URL', which creates it\n`,
      );
      return EXIT.failure;
    }
    if (dryRun) {
      io.stdout.write(
        `-- database ${url.database} does not exist; 'zmgate-db up' creates it, then ZoneMinder ${TARGET_ZONEMINDER_VERSION} in it\n`,
      );
      io.stderr.write('dry run: nothing was changed\n');
      return EXIT.ok;
    }
    const created = await createDatabase(url, io);
    if (created !== EXIT.ok) return created;
    try {
      conn = await connectTo(url);
    } catch (again) {
      io.stderr.write(
        `zmgate-db: cannot connect to ${url.display}: ${(again as Error).message}\n${connectFix(again, url)}\n`,
      );
      return EXIT.failure;
    }
  }
  try {
    if (command === 'status') return await status(conn, url, io);
    return await migrateCommand(
      conn,
      command as 'up' | 'bridge',
      url,
      { dryRun, yes: !!values.yes, allowOlderZoneMinder: !!values['allow-older-zoneminder'] },
      io,
    );
  } catch (error) {
    io.stderr.write(
      `zmgate-db: ${error instanceof Error ? error.message : String(error)}\n${failureFix(error, url)}\n`,
    );
    return EXIT.failure;
  } finally {
    await conn.end().catch(() => conn.destroy());
  }
}

// connecting and creating the database -----------------------------------------------------------

const ER_DBACCESS_DENIED_ERROR = 1044;
const ER_ACCESS_DENIED_ERROR = 1045;
const ER_BAD_DB_ERROR = 1049;

/** The server's error number (system errors carry a negative errno: not one). */
const sqlErrno = (error: unknown): number | undefined => {
  const errno = (error as { errno?: number } | null)?.errno;
  return errno !== undefined && errno > 0 ? errno : undefined;
};

/** `withDatabase` false: no default database (to create it). */
function connectTo(url: ParsedDatabaseUrl, withDatabase = true): Promise<Connection> {
  const database = withDatabase ? url.database : undefined;
  return createConnection({
    ...url.connection,
    database,
    connectTimeout: 10_000,
    bigIntAsNumber: true,
    dateStrings: true,
  });
}

/** The user and host of the URL, as a GRANT names them. */
function account(url: ParsedDatabaseUrl): string {
  const host =
    url.connection.socketPath || !url.connection.host || url.connection.host === '127.0.0.1' ? 'localhost' : '%';
  return `'${url.connection.user}'@'${host}'`;
}

/** What to do about a failed connection, in one line starting with `fix:`. */
function connectFix(error: unknown, url: ParsedDatabaseUrl): string {
  const code = (error as { code?: string } | null)?.code;
  switch (sqlErrno(error) ?? code) {
    case ER_ACCESS_DENIED_ERROR:
      return `fix: check the user and password in the URL (ZM_DB_USER/ZM_DB_PASS in zm.conf), or create the user as the server's root: CREATE USER ${account(url)} IDENTIFIED BY '...'`;
    case ER_DBACCESS_DENIED_ERROR:
      return (
        `fix: as the server's root (e.g. sudo mysql): CREATE DATABASE IF NOT EXISTS \`${url.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci; ` +
        `GRANT ALL PRIVILEGES ON \`${url.database}\`.* TO ${account(url)}`
      );
    case 'ECONNREFUSED':
    case 'ENOENT':
      return 'fix: start the database server (systemctl start mariadb) or correct the host, port or ?socket= in the URL';
    case 'ETIMEDOUT':
    case 'ER_CONNECTION_TIMEOUT':
    case 'EHOSTUNREACH':
      return 'fix: the server did not answer; check the host and port in the URL and any firewall between';
    default:
      return 'fix: check the URL (mysql://user:password@host:port/database) and that the server accepts this user';
  }
}

/** What to do about a failure while reading or migrating, in one line starting with `fix:`. */
function failureFix(error: unknown, url: ParsedDatabaseUrl): string {
  const errno = sqlErrno(error);
  // Access denied to the database, a table or a privilege (CREATE, TRIGGER, SUPER, ...).
  if (errno !== undefined && [1044, 1142, 1143, 1227, 1370, 1419].includes(errno)) {
    return (
      `fix: the user lacks a privilege; as the server's root: GRANT ALL PRIVILEGES ON \`${url.database}\`.* TO ${account(url)}` +
      (errno === 1419 ? ' and SET GLOBAL log_bin_trust_function_creators = 1 (triggers with binary logging)' : '')
    );
  }
  if (/another zmgate migration .* is running/.test(String((error as Error)?.message))) {
    return 'fix: wait for the other run (a starting zmgate or another zmgate-db) to finish, then run this again';
  }
  if (errno !== undefined) return `fix: see the server's message above (MariaDB error ${errno})`;
  return 'fix: check that the server is up and reachable, then run this again';
}

/** `up` on a server without the database: create it (utf8mb4, as ZoneMinder's own script does) if the user may. */
async function createDatabase(url: ParsedDatabaseUrl, io: CliIo): Promise<number> {
  const name = url.database.replaceAll('`', '``');
  let conn: Connection;
  try {
    conn = await connectTo(url, false);
  } catch (error) {
    io.stderr.write(
      `zmgate-db: cannot connect to ${url.display}: ${(error as Error).message}\n${connectFix(error, url)}\n`,
    );
    return EXIT.failure;
  }
  try {
    await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
    io.stderr.write(`created database ${url.database} (utf8mb4)\n`);
    return EXIT.ok;
  } catch (error) {
    io.stderr.write(
      `zmgate-db: database ${url.database} does not exist and user ${url.connection.user} may not create it: ${(error as Error).message}\n` +
        `fix: as the server's root (e.g. sudo mysql), run:\n` +
        `  CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci;\n` +
        `  GRANT ALL PRIVILEGES ON \`${name}\`.* TO ${account(url)};\n` +
        `then run 'zmgate-db up' again\n`,
    );
    return EXIT.failure;
  } finally {
    await conn.end().catch(() => conn.destroy());
  }
}

// up / bridge -------------------------------------------------------------------------------------

async function migrateCommand(
  conn: Connection,
  mode: 'up' | 'bridge',
  url: ParsedDatabaseUrl,
  flags: { dryRun: boolean; yes: boolean; allowOlderZoneMinder: boolean },
  io: CliIo,
): Promise<number> {
  io.stderr.write(`zmgate-db ${mode}${flags.dryRun ? ' --dry-run' : ''}: ${url.display}\n`);
  if (mode === 'bridge' && !flags.dryRun) {
    io.stderr.write(
      `Back up the database first, e.g.: mysqldump --single-transaction --routines --triggers ${url.database} > ${url.database}-backup.sql\n`,
    );
  }
  const t0 = performance.now();
  let result: MigrationResult;
  try {
    result = await migrate(conn, mode, {
      database: url.database,
      dryRun: flags.dryRun,
      allowOlderZoneMinder: flags.allowOlderZoneMinder,
      onProgress: (p) => printProgress(p, io),
      confirm: async (plan) => {
        printPlan(plan, io);
        return confirmPlan(plan, flags.yes, io);
      },
    });
  } catch (error) {
    if (error instanceof MigrationRefused) {
      io.stderr.write(`zmgate-db: refused: ${error.message}\n`);
      return EXIT.refused;
    }
    if (error instanceof MigrationFailed) {
      io.stderr.write(`zmgate-db: failed: ${error.message}\n`);
      io.stderr.write(
        `${error.applied.length} step(s) before it were applied and stay (DDL cannot be rolled back); ` +
          (mode === 'up'
            ? `drop and re-create the database ${url.database}, fix the cause, and run 'zmgate-db up' again.\n`
            : "fix the cause and run 'zmgate-db bridge' again: it continues from where it stopped.\n"),
      );
      for (const note of error.notes) io.stdout.write(`${note}\n`);
      return EXIT.failure;
    }
    throw error;
  }

  if (flags.dryRun) {
    printDryRun(result, io);
    io.stderr.write('dry run: nothing was changed\n');
    return EXIT.ok;
  }
  if (!result.ran) {
    io.stderr.write(
      'zmgate-db: refused: the plan was not confirmed; nothing was changed (after a backup, re-run with --yes)\n',
    );
    return EXIT.refused;
  }
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  for (const note of result.notes) io.stdout.write(`${note}\n`);
  for (const warning of result.warnings) io.stderr.write(`warning: ${warning}\n`);
  if (!result.applied.length) {
    io.stdout.write(
      `nothing to do: ${url.database} is at ZoneMinder ${TARGET_ZONEMINDER_VERSION} and every migration is recorded\n`,
    );
  } else {
    io.stdout.write(
      `done: ${result.applied.length} step(s) in ${seconds} s; ${url.database} is at ZoneMinder ${TARGET_ZONEMINDER_VERSION}` +
        `${mode === 'up' ? ' (baseline applied)' : ' (baseline stamped)'}\n`,
    );
  }
  return EXIT.ok;
}

function stepLine(step: SchemaStep, index: number, total: number): string {
  const width = String(total).length;
  return `[${String(index + 1).padStart(width)}/${total}] ${step.destructive ? '! ' : ''}${step.id}: ${step.description}`;
}

function printPlan(plan: MigrationPlan, io: CliIo): void {
  const { contents } = plan;
  if (plan.mode === 'bridge') {
    io.stdout.write(
      `ZoneMinder ${contents.dbVersion} (code ${contents.codeVersion ?? 'unknown'}) -> ${TARGET_ZONEMINDER_VERSION}\n`,
    );
  }
  const destructive = plan.steps.filter((s) => s.destructive).length;
  io.stdout.write(
    `plan: ${plan.steps.length} step(s)${destructive ? `, ${destructive} marked ! rewrite or remove data` : ''}\n`,
  );
  if (plan.mode === 'up') return; // a new database: the list is the whole schema, not news
  plan.steps.forEach((step, i) => {
    io.stdout.write(`  ${stepLine(step, i, plan.steps.length)}\n`);
    for (const risk of step.risks) io.stdout.write(`      risk: ${risk}\n`);
  });
  for (const extra of plan.extras) io.stdout.write(`  kept: ${extra.kind} ${extra.name}: ${extra.detail}\n`);
  for (const warning of plan.warnings) io.stdout.write(`  warning: ${warning}\n`);
}

async function confirmPlan(plan: MigrationPlan, yes: boolean, io: CliIo): Promise<boolean> {
  const destructive = plan.steps.filter((s) => s.destructive).length;
  if (plan.mode !== 'bridge' || !destructive || yes) return true;
  if (!io.stdin?.isTTY) {
    io.stderr.write(
      `zmgate-db: the plan has ${destructive} destructive step(s); re-run with --yes to apply it (after a backup)\n`,
    );
    return false;
  }
  const rl = createInterface({ input: io.stdin, output: io.stderr as NodeJS.WritableStream });
  try {
    const answer = await rl.question(
      `Apply ${plan.steps.length} step(s), ${destructive} destructive, to ${plan.database}? [y/N] `,
    );
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

function printProgress(progress: StepProgress, io: CliIo): void {
  if (progress.phase === 'start') return;
  const { step, index, total } = progress;
  const width = String(total).length;
  const at = `[${String(index + 1).padStart(width)}/${total}]`;
  if (progress.phase === 'done') io.stderr.write(`${at} ok     ${step.id} (${progress.ms} ms)\n`);
  else io.stderr.write(`${at} FAILED ${step.id}: ${progress.error?.message}\n`);
}

function printDryRun(result: MigrationResult, io: CliIo): void {
  const { contents } = result;
  const from = result.mode === 'up' ? 'an empty database' : `ZoneMinder ${contents.dbVersion}`;
  io.stdout.write(
    `-- zmgate-db ${result.mode} --dry-run on ${result.database}: ${from} -> ZoneMinder ${TARGET_ZONEMINDER_VERSION}\n`,
  );
  io.stdout.write(`-- ${result.steps.length} step(s); nothing below has been run.\n`);
  if (!result.steps.length) io.stdout.write('-- nothing to do\n');
  result.steps.forEach((step, i) => {
    io.stdout.write(`\n-- ${stepLine(step, i, result.steps.length)}\n`);
    for (const risk of step.risks) io.stdout.write(`--   risk: ${risk}\n`);
    for (const sql of step.sql) io.stdout.write(`${sql};\n`);
    for (const line of result.describe.get(step.id) ?? []) io.stdout.write(`-- ${line.replace(/^-- /, '')}\n`);
  });
  for (const extra of result.extras) io.stdout.write(`\n-- kept: ${extra.kind} ${extra.name}: ${extra.detail}`);
  if (result.extras.length) io.stdout.write('\n');
  for (const warning of result.warnings) io.stdout.write(`-- warning: ${warning}\n`);
}

// status -------------------------------------------------------------------------------------------

/** What to do about a schema that differs from the target: nothing while an older ZoneMinder owns it. */
function schemaHint(contents: DatabaseStatus['contents']): string {
  if (contents.kind !== 'zoneminder') return '';
  if (olderZoneMinderInstalled(contents) && !convertedUnderOlderZoneMinder(contents))
    return ` (as expected: ZoneMinder ${contents.codeVersion ?? contents.dbVersion}'s own schema, which zmgate leaves as it is)`;
  return " (run 'zmgate-db bridge')";
}

async function status(conn: Connection, url: ParsedDatabaseUrl, io: CliIo): Promise<number> {
  const s: DatabaseStatus = await readStatus(conn, url.database);
  const out = (line = '') => io.stdout.write(`${line}\n`);
  out(`database:    ${url.display} (${s.server.version})`);
  const { contents } = s;
  if (contents.kind === 'empty') out("ZoneMinder:  none: the database is empty (create it with 'zmgate-db up')");
  else if (contents.kind === 'other')
    out(`ZoneMinder:  none: no Config/Monitors tables (${contents.objects.length} other object(s))`);
  else {
    out(
      `ZoneMinder:  ${contents.dbVersion ?? 'unknown'} (Config.ZM_DYN_DB_VERSION); installed code ${contents.codeVersion ?? 'unknown'} (ZM_DYN_CURR_VERSION)`,
    );
    const zmc = localZmcVersion();
    out(`zmc here:    ${zmc ? `${zmc.version} (${zmc.path} --version)` : 'none found in /usr/bin or /usr/local/bin'}`);
    out(`upgrade:     ${upgradePath(contents)}`);
    out('probes:');
    for (const probe of s.probes)
      out(`  ${probe.holds ? 'yes' : 'no '}  ${probe.what}${probe.holds ? `  => ${probe.meaning}` : ''}`);
  }
  if (contents.kind !== 'empty') {
    out(
      s.differences.length
        ? `schema:      ${s.differences.length} difference(s) from ZoneMinder ${TARGET_ZONEMINDER_VERSION} + zmgate tables${schemaHint(contents)}`
        : `schema:      matches ZoneMinder ${TARGET_ZONEMINDER_VERSION} + zmgate tables`,
    );
    for (const line of s.differences.slice(0, 20)) out(`  ${line}`);
    if (s.differences.length > 20) out(`  ... and ${s.differences.length - 20} more`);
  }
  out(`migrations:${s.ledger === null ? '  (no ledger table zmgate_migrations: nothing recorded yet)' : ''}`);
  const width = Math.max(...s.migrations.map((m) => m.id.length));
  for (const m of s.migrations) {
    const state = m.state === 'pending' ? 'pending' : m.state === 'stamped' ? 'applied (stamped)' : 'applied';
    const when = m.appliedAt ? `  ${m.appliedAt}` : '';
    const notes = [
      m.kind === 'unknown' ? 'not known to this zmgate' : '',
      m.changed ? 'changed since it was recorded' : '',
    ].filter(Boolean);
    out(
      `  ${m.id.padEnd(width)}  ${state.padEnd(17)}${when}${notes.length ? `  (${notes.join('; ')})` : ''}`.trimEnd(),
    );
  }
  return EXIT.ok;
}
