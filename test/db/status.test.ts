// `zmgate-db status` is read-only: it reports the detected ZoneMinder version, the schema
// probes, how far the schema is from the target and each migration (applied or pending), and
// neither the schema nor a single row is different afterwards, not even on a database that has
// never seen zmgate (no ledger is created).
import test from 'ava';
import { createConnection, type Connection } from 'mariadb';
import { freshDatabase, type FreshDatabase } from '../helpers/mariadb.js';
import { dataFingerprint, database136, schemaFingerprint, zmgateDb } from '../helpers/zm136.js';

const connect = (fresh: FreshDatabase): Promise<Connection> =>
  createConnection({ ...fresh.userConfig, bigIntAsNumber: true });

async function unchanged(
  conn: Connection,
  database: string,
  action: () => Promise<void>,
): Promise<{ schema: boolean; data: boolean }> {
  const before = { schema: await schemaFingerprint(conn, database), data: await dataFingerprint(conn, database) };
  await action();
  return {
    schema: before.schema === (await schemaFingerprint(conn, database)),
    data: JSON.stringify(before.data) === JSON.stringify(await dataFingerprint(conn, database)),
  };
}

test('status on ZoneMinder 1.36.33: version, probes, differences, every migration pending; nothing written', async (t) => {
  const fresh = await database136('s_136');
  const conn = await connect(fresh);
  try {
    let out = '';
    const same = await unchanged(conn, fresh.name, async () => {
      const r = await zmgateDb(['status', '-u', fresh.userUrl]);
      t.is(r.code, 0, r.stderr);
      out = r.stdout;
    });
    t.deepEqual(same, { schema: true, data: true });
    t.regex(
      out,
      /^ZoneMinder: {2}1\.36\.33 \(Config\.ZM_DYN_DB_VERSION\); installed code 1\.36\.33 \(ZM_DYN_CURR_VERSION\)$/m,
    );
    t.regex(out, /^ {2}yes {2}column Users\.MonitorIds {2}=> < 1\.37\.76 \(1\.36 permission model\)$/m);
    t.regex(out, /^ {2}yes {2}trigger event_insert_trigger {2}=> < 1\.37\.77$/m);
    t.regex(out, /^ {2}no {3}column Monitors\.Capturing$/m);
    t.regex(
      out,
      /^schema: {6}\d+ difference\(s\) from ZoneMinder 1\.39\.22 \+ zmgate tables \(as expected: ZoneMinder 1\.36\.33's own schema, which zmgate leaves as it is\)$/m,
    );
    t.regex(
      out,
      /^upgrade: {5}clear: ZM_DYN_DB_VERSION is ZoneMinder's own \(1\.36\.33\); zmgate added nothing; ZoneMinder's zmupdate\.pl upgrades this database as usual$/m,
    );
    t.regex(
      out,
      /^zmc here: {4}(1\.36\.33 \(\/usr\/bin\/zmc --version\)|none found in \/usr\/bin or \/usr\/local\/bin)$/m,
    );
    t.regex(out, /^ {2}table zmgate_migrations is missing$/m);
    t.regex(out, /^migrations: {2}\(no ledger table zmgate_migrations: nothing recorded yet\)$/m);
    for (const id of [
      '0001_baseline_1_39_22',
      '0002_function_to_modes',
      '0003_monitor_ids_to_permissions',
      '0005_zones_pixels_to_percent',
      '0008_seed_new_tables',
    ]) {
      t.regex(out, new RegExp(`^ {2}${id} +pending$`, 'm'), id);
    }
    t.deepEqual(
      await conn.query(
        "SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'zmgate%'",
      ),
      [{ n: 0 }],
    );
  } finally {
    await conn.end();
  }
});

test('status after up and after bridge lists each migration as applied or stamped, read-only', async (t) => {
  const upped = await freshDatabase('s_up');
  t.is((await zmgateDb(['up', '-u', upped.userUrl])).code, 0);
  const conn = await connect(upped);
  try {
    let out = '';
    t.deepEqual(
      await unchanged(conn, upped.name, async () => {
        out = (await zmgateDb(['status', '-u', upped.userUrl])).stdout;
      }),
      { schema: true, data: true },
    );
    t.regex(out, /^ZoneMinder: {2}1\.39\.22 \(Config\.ZM_DYN_DB_VERSION\); installed code 1\.39\.22/m);
    t.regex(out, /^schema: {6}matches ZoneMinder 1\.39\.22 \+ zmgate tables$/m);
    t.regex(out, /^ {2}0001_baseline_1_39_22 +applied +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/m);
    t.regex(out, /^ {2}0003_monitor_ids_to_permissions +applied \(stamped\) +\d{4}-/m);
    t.notRegex(out, /pending/);

    // A migration recorded by some other (newer) zmgate, and a changed checksum, are reported.
    await upped.db.exec(
      "INSERT INTO zmgate_migrations (id, name, checksum) VALUES ('0099_future', 'from a newer zmgate', NULL); UPDATE zmgate_migrations SET checksum = REPEAT('0', 64) WHERE id = '0002_function_to_modes'",
      upped.name,
    );
    const again = await zmgateDb(['status', '-u', upped.userUrl]);
    t.regex(again.stdout, /^ {2}0099_future +applied +\S+ \S+ +\(not known to this zmgate\)$/m);
    t.regex(
      again.stdout,
      /^ {2}0002_function_to_modes +applied \(stamped\) +\S+ \S+ +\(changed since it was recorded\)$/m,
    );
  } finally {
    await conn.end();
  }

  // After a bridge from 1.36: the data migrations it ran are applied, the one it did not need stamped.
  const bridged = await database136('s_bridged');
  t.is((await zmgateDb(['bridge', '--allow-older-zoneminder', '--yes', '-u', bridged.userUrl])).code, 0);
  const out = (await zmgateDb(['status', '-u', bridged.userUrl])).stdout;
  t.regex(
    out,
    /^ZoneMinder: {2}1\.39\.22 \(Config\.ZM_DYN_DB_VERSION\); installed code 1\.36\.33 \(ZM_DYN_CURR_VERSION\)$/m,
  );
  t.regex(out, /^ {2}0001_baseline_1_39_22 +applied \(stamped\)/m);
  t.regex(out, /^ {2}0002_function_to_modes +applied +\d{4}-/m);
  t.regex(out, /^ {2}0006_user_preferences_names +applied \(stamped\)/m);
  // Converted while 1.36 is installed: status says what that broke.
  t.regex(
    out,
    /^upgrade: {5}not clear: the database was converted to ZoneMinder 1\.39\.22 \(Config\.ZM_DYN_DB_VERSION\) while ZoneMinder 1\.36\.33 \(ZM_DYN_CURR_VERSION\) is installed: .*zones in percent, which ZoneMinder 1\.36\.33's zma reads as pixels.*ZM_DYN_DB_VERSION raised/m,
  );
});

test('status on an empty database and on one that is not ZoneMinder says so and writes nothing', async (t) => {
  const empty = await freshDatabase('s_empty');
  const r = await zmgateDb(['status', '-u', empty.userUrl]);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /^ZoneMinder: {2}none: the database is empty \(create it with 'zmgate-db up'\)$/m);
  t.regex(r.stdout, /^ {2}0001_baseline_1_39_22 +pending$/m);
  t.deepEqual(
    await empty.db.query('SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?', [empty.name]),
    [{ n: 0 }],
  );

  const other = await freshDatabase('s_other');
  await other.db.exec(
    "CREATE TABLE notes (id int PRIMARY KEY, note text); INSERT INTO notes VALUES (1, 'x')",
    other.name,
  );
  const conn = await connect(other);
  try {
    let out = '';
    t.deepEqual(
      await unchanged(conn, other.name, async () => {
        out = (await zmgateDb(['status', '-u', other.userUrl])).stdout;
      }),
      { schema: true, data: true },
    );
    t.regex(out, /^ZoneMinder: {2}none: no Config\/Monitors tables \(1 other object\(s\)\)$/m);
  } finally {
    await conn.end();
  }
});
