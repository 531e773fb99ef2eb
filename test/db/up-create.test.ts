// `zmgate-db up` on a server where the database does not exist yet: it creates it when the user
// may (and says so), and otherwise prints the statements to run as root. Every failure ends with
// a `fix:` line.
import test from 'ava';
import { freshDatabase, sharedMariaDb } from '../helpers/mariadb.js';
import { zmgateDb } from '../helpers/zm136.js';

let counter = 0;
const newName = (prefix: string) => `${prefix}_${process.pid}_${++counter}`;

async function databaseExists(name: string): Promise<boolean> {
  const server = await sharedMariaDb();
  const rows = await server.query('SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [name]);
  return rows.length === 1;
}

test('up creates a missing database it may create, reports it, and fills it', async (t) => {
  const server = await sharedMariaDb();
  const name = newName('up_create');
  // As a ZoneMinder install sets it up: the user has every privilege on `zm` before `zm` exists.
  const owner = await freshDatabase('up_create_owner');
  await server.exec(`GRANT ALL PRIVILEGES ON \`${name}\`.* TO '${owner.user}'@'127.0.0.1'`);
  t.false(await databaseExists(name));

  const r = await zmgateDb(['up', '-u', server.url(name, owner.user, owner.password)]);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, new RegExp(`^created database ${name} \\(utf8mb4\\)$`, 'm'));
  t.regex(r.stdout, /^done: \d+ step\(s\) .* is at ZoneMinder 1\.39\.22 \(baseline applied\)$/m);
  const [tables] = await server.query<{ n: number }>(
    'SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?',
    [name],
  );
  t.is(Number(tables!.n), 58);
  const [charset] = await server.query<{ c: string }>(
    'SELECT DEFAULT_CHARACTER_SET_NAME AS c FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
    [name],
  );
  t.is(charset!.c, 'utf8mb4');

  // Now it exists and is not empty: refused as before.
  const again = await zmgateDb(['up', '-u', server.url(name, owner.user, owner.password)]);
  t.is(again.code, 3);
  t.regex(again.stderr, /refused: database .* is not empty/);
});

test('up --dry-run on a missing database says it would create it and creates nothing', async (t) => {
  const server = await sharedMariaDb();
  const name = newName('up_dry');
  const r = await zmgateDb(['up', '--dry-run', '-u', server.url(name)]);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, new RegExp(`database ${name} does not exist; 'zmgate-db up' creates it`));
  t.regex(r.stderr, /dry run: nothing was changed/);
  t.false(await databaseExists(name));
});

test('a user who may not create the database gets the statements to run as root', async (t) => {
  const server = await sharedMariaDb();
  const other = await freshDatabase('up_noright'); // a user with rights on another database only
  const name = newName('up_denied');
  const r = await zmgateDb(['up', '-u', server.url(name, other.user, other.password)]);
  t.is(r.code, 1);
  t.regex(
    r.stderr,
    new RegExp(
      `fix: as the server's root .*CREATE DATABASE IF NOT EXISTS \`${name}\` .*GRANT ALL PRIVILEGES ON \`${name}\`\\.\\* TO '${other.user}'@'localhost'`,
    ),
  );
  t.false(await databaseExists(name));
});

test('status and bridge on a missing database fail and point at up; a wrong password points at the credentials', async (t) => {
  const server = await sharedMariaDb();
  const name = newName('missing');
  for (const command of ['status', 'bridge']) {
    const r = await zmgateDb([command, '-u', server.url(name)]);
    t.is(r.code, 1, command);
    t.regex(r.stderr, new RegExp(`database ${name} does not exist`), command);
    t.regex(r.stderr, /^fix: .*'zmgate-db up -u URL', which creates it$/m, command);
  }
  t.false(await databaseExists(name));

  const fresh = await freshDatabase('badpass');
  const denied = await zmgateDb(['status', '-u', server.url(fresh.name, fresh.user, 'wrong')]);
  t.is(denied.code, 1);
  t.regex(denied.stderr, /^fix: check the user and password in the URL/m);
  t.notRegex(denied.stderr, /wrong/, 'the password is not printed');

  const unreachable = await zmgateDb(['status', '-u', 'mysql://nobody:x@127.0.0.1:1/zm']);
  t.is(unreachable.code, 1);
  t.regex(unreachable.stderr, /^fix: start the database server/m);
});
