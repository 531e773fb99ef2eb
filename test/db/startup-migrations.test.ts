// Start-up migrations: the service applies what it safely can, and when the migrations fail
// half-way it logs one warning naming the failed step and what is missing, and keeps serving.
import test from 'ava';
import { Writable } from 'node:stream';
import { createConnection } from 'mariadb';
import { introspectSchema } from '../../src/db/converge/index.js';
import { runStartupMigrations, summariseMissing } from '../../src/db/startup-migrations.js';
import { createLogger } from '../../src/log.js';
import type { AppConfig } from '../../src/config/types.js';
import { startTestApp } from '../helpers/app.js';
import { dbConfigFor, freshDatabase, type FreshDatabase } from '../helpers/mariadb.js';
import { dataFingerprint, database136, zmgateDb } from '../helpers/zm136.js';

function capturedLog() {
  const records: Record<string, any>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) records.push(JSON.parse(line));
      done();
    },
  });
  return { log: createLogger({ level: 'debug', stream }), records };
}

function dbConfig(fresh: FreshDatabase): AppConfig['db'] {
  return dbConfigFor(fresh, { pool_max: 2, connect_timeout_secs: 2, acquire_timeout_secs: 2, migrate_on_start: true });
}

const WARN = 40;

test('migrations that fail half-way: the service still answers health_check, the warning names the step and what is missing', async (t) => {
  // A converged database, then drift: three tables and a column gone, and a view squatting on
  // one of the table names, so the plan runs its first steps and fails at create-table:Reports.
  const fresh = await freshDatabase('st_half');
  t.is((await zmgateDb(['up', '-u', fresh.userUrl])).code, 0);
  await fresh.db.exec(
    'DROP TABLE Menu_Items; DROP TABLE Object_Types; DROP TABLE Reports; DROP TABLE Server_Stats; ALTER TABLE Monitors DROP COLUMN StartupDelay; CREATE VIEW Reports AS SELECT 1 AS Id',
    fresh.name,
  );

  // The server runs the start-up migrations itself, before it listens.
  const app = await startTestApp({ db: fresh, env: { APP_DB__MIGRATE_ON_START: 'true' } });
  try {
    const result = await runStartupMigrations(app.config.db, capturedLog().log);
    t.false(result.ok);
    t.true(result.missing.includes('table Reports is missing'));
    t.true(result.missing.includes('table Server_Stats is missing'));
    t.true(result.missing.includes('Monitors.StartupDelay is missing'));
    t.false(result.missing.includes('table Menu_Items is missing'), 'the steps before the failure were applied');
    t.false(result.missing.includes('table Object_Types is missing'));

    const warning = app.logs.find((r) => r.level === WARN && /database migrations did not complete/.test(r.msg));
    t.truthy(warning, JSON.stringify(app.logs.map((r) => r.msg)));
    t.regex(warning?.msg ?? '', /step create-table:Reports failed after \d+ applied step\(s\): .*already exists/);
    t.regex(warning?.msg ?? '', /Missing: tables Reports, Server_Stats; columns Monitors\.StartupDelay/);
    t.regex(warning?.msg ?? '', /The service continues without them\.$/);
    t.is(warning?.failedStep, 'create-table:Reports');
    t.deepEqual(warning?.applied, ['create-table:Menu_Items', 'create-table:Object_Types']);

    const health = await fetch(app.api('/server/health_check'));
    t.is(health.status, 200);
    // Still up and serving after the failure, more than once.
    t.is((await fetch(app.api('/server/health_check'))).status, 200);
  } finally {
    await app.close();
  }

  // Once the cause is gone, the next start-up finishes the job.
  await fresh.db.exec('DROP VIEW Reports', fresh.name);
  const { log, records } = capturedLog();
  t.like(await runStartupMigrations(dbConfig(fresh), log), { ok: true, missing: [] });
  t.true(records.some((r) => /database migrations: \d+ step\(s\) applied/.test(r.msg)));
  const conn = await createConnection(fresh.userConfig);
  try {
    const live = await introspectSchema(conn, fresh.name);
    t.true(live.tables.some((x) => x.name === 'Reports'));
    t.true(live.tables.find((x) => x.name === 'Monitors')!.columns.some((c) => c.name === 'StartupDelay'));
  } finally {
    await conn.end();
  }
});

test('a 1.36 database keeps its schema and data at start-up: ZoneMinder 1.36 owns it; zmgate adds only its side tables', async (t) => {
  const fresh = await database136('st_136');
  const conn = await createConnection({ ...fresh.userConfig, bigIntAsNumber: true });
  // ZoneMinder's part: every table but zmgate's own.
  const zoneminderOnly = async () => {
    const live = await introspectSchema(conn, fresh.name);
    const data = await dataFingerprint(conn, fresh.name);
    return {
      schema: JSON.stringify({
        tables: live.tables.filter((x) => !x.name.startsWith('zmgate_')),
        views: live.views,
        triggers: live.triggers,
      }),
      data: Object.fromEntries(Object.entries(data).filter(([name]) => !name.startsWith('zmgate_'))),
    };
  };
  try {
    const before = await zoneminderOnly();
    const { log, records } = capturedLog();
    const result = await runStartupMigrations(dbConfig(fresh), log);
    t.false(result.ok);
    t.true(result.missing.includes('table zmgate_migrations is missing'));
    t.true(result.missing.includes('migration 0001_baseline_1_39_22 pending'));
    const warning = records.find((r) => r.level === WARN);
    t.regex(
      warning?.msg ?? '',
      /^database st_136_\w+ belongs to ZoneMinder 1\.36\.33: zmgate leaves its schema as ZoneMinder's own and keeps 1\.39's tables it lacks beside it \(18\)\. What else 1\.39 has \(tables .*zmgate_migrations.*\) is read as 1\.39's defaults, or answers 503 until ZoneMinder itself is upgraded/,
    );
    t.false(result.missing.includes('table Tags is missing'), 'kept beside it');
    t.true(result.missing.includes('table Groups_Permissions is missing'), 'not kept beside it');
    t.is(result.tables.of('Monitors_Permissions'), 'zmgate_side_Monitors_Permissions');
    t.deepEqual(await zoneminderOnly(), before);
    t.is(result.tables.of('Tags'), 'zmgate_side_Tags');
    t.is(result.tables.of('Snapshots_Events'), 'Snapshot_Events');
  } finally {
    await conn.end();
  }
});

test('a database an earlier bridge converted while ZoneMinder 1.36 is installed: start-up says what that broke, at error level', async (t) => {
  const fresh = await database136('st_conv');
  t.is((await zmgateDb(['bridge', '--allow-older-zoneminder', '--yes', '-u', fresh.userUrl])).code, 0);
  const { log, records } = capturedLog();
  t.like(await runStartupMigrations(dbConfig(fresh), log), { ok: true, missing: [] });
  const error = records.find((r) => r.level === 50);
  t.regex(
    error?.msg ?? '',
    /^database st_conv_\w+: the database was converted to ZoneMinder 1\.39\.22 \(Config\.ZM_DYN_DB_VERSION\) while ZoneMinder 1\.36\.33 \(ZM_DYN_CURR_VERSION\) is installed: .*zones in percent.*Restore the backup taken before 'zmgate-db bridge', or upgrade ZoneMinder itself to 1\.39/,
  );
  t.is(error?.zoneminder, '1.36.33');
});

test('an up-to-date database: ok, nothing applied; an empty or unreachable one: a warning, never a throw', async (t) => {
  const upped = await freshDatabase('st_ok');
  t.is((await zmgateDb(['up', '-u', upped.userUrl])).code, 0);
  const ok = capturedLog();
  t.like(await runStartupMigrations(dbConfig(upped), ok.log), { ok: true, missing: [] });
  t.false(ok.records.some((r) => r.level >= WARN));

  const empty = await freshDatabase('st_empty');
  const e = capturedLog();
  const emptyResult = await runStartupMigrations(dbConfig(empty), e.log);
  t.false(emptyResult.ok);
  t.regex(
    e.records.find((r) => r.level === WARN)?.msg ?? '',
    /database st_empty_\w+ is empty: nothing to bridge \(use 'zmgate-db up' for a new install\)/,
  );
  t.deepEqual(
    await empty.db.query('SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?', [empty.name]),
    [{ n: 0 }],
  );

  const u = capturedLog();
  const unreachable = await runStartupMigrations({ ...dbConfig(empty), port: 1 }, u.log);
  t.like(unreachable, { ok: false, missing: ['database connection'] });
  t.is(unreachable.tables.size, 0);
  t.regex(
    u.records.find((r) => r.level === WARN)?.msg ?? '',
    /database migrations not checked: cannot connect to database st_empty_\w+/,
  );
});

test('the warning summary groups what is missing', (t) => {
  t.is(
    summariseMissing([
      'table A is missing',
      'table B is missing',
      'Monitors.X is missing',
      'Events.Cause type is text, expected varchar(32)',
      'migration 0002_x pending',
    ]),
    'tables A, B; columns Monitors.X; 1 other schema difference(s); pending migrations 0002_x',
  );
  t.is(summariseMissing([]), 'nothing');
  t.is(
    summariseMissing(
      Array.from({ length: 10 }, (_, i) => `table T${i} is missing`),
      3,
    ),
    'tables T0, T1, T2, ... (10 in all)',
  );
});
