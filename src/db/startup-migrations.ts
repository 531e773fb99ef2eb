// Start-up migrations: the service brings the database up to date by itself, but only with
// changes that add (tables, columns, indexes, triggers, ledger rows): a plan that would rewrite or
// remove data (a 1.36 database: Users.MonitorIds, zones to percent, ...) is refused as a whole and
// left to `zmgate-db bridge`, run by hand after a backup. On a database already at 1.39 (after
// ZoneMinder's own upgrade, whose result differs from a fresh install in nullable columns and
// column order) the steps that would rewrite data are left out with a warning and the rest runs:
// zmgate's own tables must not wait for a cosmetic difference. An empty database is left alone too: the
// service sits beside an existing ZoneMinder, so an empty one means a wrong database setting.
//
// Never throws. Any failure is one warning that says what failed and what is missing; the service
// starts anyway and the routes that need the missing parts answer with the error envelope.
import { createConnection, type Connection } from 'mariadb';
import type { AppConfig } from '../config/types.js';
import type { Logger } from '../log.js';
import { MigrationFailed, MigrationRefused, describeMissing, migrate } from './migrator.js';
import { convertedUnderOlderZoneMinder, installedZoneMinder, olderZoneMinderInstalled } from './migrations/version.js';
import { moveSideTables, prepareSideTables, TableNames } from './side-tables.js';

export interface StartupMigrationResult {
  /** The database is at the target and every migration is recorded. */
  ok: boolean;
  /** What is missing when not ok: schema differences ('table Notifications is missing', 'Monitors.X is missing', ...) and 'migration <id> pending'. */
  missing: string[];
  /** Where the app's statements find 1.39's tables an older ZoneMinder lacks (side-tables.ts). */
  tables: TableNames;
}

/** One line naming what is missing, grouped, for the log message. */
export function summariseMissing(missing: string[], max = 8): string {
  const groups: Record<string, string[]> = { tables: [], columns: [], migrations: [], other: [] };
  for (const line of missing) {
    const table = /^table (\S+) is missing$/.exec(line);
    const column = /^(\S+\.\S+) is missing$/.exec(line);
    const migration = /^migration (\S+) pending$/.exec(line);
    if (table) groups.tables.push(table[1]);
    else if (column) groups.columns.push(column[1]);
    else if (migration) groups.migrations.push(migration[1]);
    else groups.other.push(line);
  }
  const list = (names: string[]) =>
    names.slice(0, max).join(', ') + (names.length > max ? `, ... (${names.length} in all)` : '');
  const parts = [
    groups.tables.length ? `tables ${list(groups.tables)}` : '',
    groups.columns.length ? `columns ${list(groups.columns)}` : '',
    groups.other.length ? `${groups.other.length} other schema difference(s)` : '',
    groups.migrations.length ? `pending migrations ${list(groups.migrations)}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : 'nothing';
}

export async function runStartupMigrations(db: AppConfig['db'], log: Logger): Promise<StartupMigrationResult> {
  const database = db.database_name;
  let conn: Connection;
  try {
    conn = await createConnection({
      ...(db.socket ? { socketPath: db.socket } : { host: db.host, port: db.port }),
      user: db.username,
      password: db.password,
      database,
      connectTimeout: db.connect_timeout_secs * 1000,
      bigIntAsNumber: true,
      dateStrings: true,
    });
  } catch (error) {
    log.warn(
      { database, err: { message: (error as Error).message } },
      `database migrations not checked: cannot connect to database ${database} (${(error as Error).message}); the service continues`,
    );
    return { ok: false, missing: ['database connection'], tables: new TableNames() };
  }

  // ZoneMinder was upgraded since zmgate kept tables beside it: their rows go into its own now.
  // Also when the migrations stop short: ZoneMinder's own upgrade leaves a schema that differs from
  // a fresh 1.39 install in ways zmgate will not rewrite by itself, and the rows must move anyway.
  const moveSide = () =>
    moveSideTables(conn, log).catch((err: Error) =>
      log.warn(
        { database, err: { message: err.message } },
        `side tables not moved into ZoneMinder's own (${err.message}); they are kept and the move is tried at the next start`,
      ),
    );
  try {
    const result = await migrate(conn, 'bridge', {
      database,
      refuseDestructive: true,
      skipDestructive: true,
      lockTimeoutSecs: 10,
    });
    if (result.applied.length) {
      log.info(
        { database, steps: result.applied.map((a) => a.step.id), notes: result.notes },
        `database migrations: ${result.applied.length} step(s) applied`,
      );
    } else {
      log.debug({ database }, 'database migrations: nothing to do');
    }
    for (const warning of result.warnings) log.warn({ database }, `database migrations: ${warning}`);
    log.info(
      { database, zoneminder: installedZoneMinder(result.contents), dbVersion: result.contents.dbVersion },
      `database ${database}: ZoneMinder ${installedZoneMinder(result.contents) ?? 'unknown'} installed, schema ${result.contents.dbVersion ?? 'unknown'}`,
    );
    const converted = convertedUnderOlderZoneMinder(result.contents);
    if (converted)
      log.error({ database, zoneminder: installedZoneMinder(result.contents) }, `database ${database}: ${converted}`);
    await moveSide();
    return { ok: true, missing: [], tables: new TableNames() };
  } catch (error) {
    const missing = await describeMissing(conn, database).catch((e: Error) => [`unknown (${e.message})`]);
    if (error instanceof MigrationRefused && error.contents && olderZoneMinderInstalled(error.contents)) {
      const installed = installedZoneMinder(error.contents);
      const tables = await prepareSideTables(conn, log).catch((err: Error) => {
        log.warn({ database, err: { message: err.message } }, `side tables not prepared: ${err.message}`);
        return new TableNames();
      });
      const kept = new Set([...tables.entries()].map(([name]) => `table ${name} is missing`));
      const still = missing.filter((line) => !kept.has(line));
      log.warn(
        { database, zoneminder: installed, missing: still, side_tables: [...tables.entries()].map(([, side]) => side) },
        `database ${database} belongs to ZoneMinder ${installed}: zmgate leaves its schema as ZoneMinder's own and keeps ` +
          `1.39's tables it lacks beside it (${tables.size}). What else 1.39 has (${summariseMissing(still)}) is read as 1.39's defaults, ` +
          `or answers 503 until ZoneMinder itself is upgraded (README, "Beside ZoneMinder 1.36, 1.38 and 1.39")`,
      );
      return { ok: false, missing: still, tables };
    }
    await moveSide();
    const reason =
      error instanceof MigrationFailed
        ? `step ${error.step?.id ?? '?'} failed after ${error.applied.length} applied step(s): ${(error.cause as Error | undefined)?.message ?? error.message}`
        : error instanceof MigrationRefused
          ? error.message
          : (error as Error).message;
    log.warn(
      {
        database,
        failedStep: error instanceof MigrationFailed ? error.step?.id : undefined,
        applied: error instanceof MigrationFailed ? error.applied.map((a) => a.step.id) : [],
        missing,
        err: { message: (error as Error).message },
      },
      `database migrations did not complete: ${reason}. Missing: ${summariseMissing(missing)}. The service continues without them.`,
    );
    return { ok: false, missing, tables: new TableNames() };
  } finally {
    await conn.end().catch(() => conn.destroy());
  }
}
