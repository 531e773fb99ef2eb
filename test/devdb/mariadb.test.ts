// The throwaway MariaDB helper: users over TCP and socket, multi-statement exec,
// pause/resume, stop, and startup failures surfacing the server's log.

import test from 'ava';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import net from 'node:net';
import { createConnection, type Connection } from 'mariadb';
import { startThrowawayMariaDb } from '../../src/devdb/throwaway-mariadb.js';
import { freshDatabase, privateMariaDb, sharedMariaDb } from '../helpers/mariadb.js';

async function scalar(conn: Connection, sql: string): Promise<unknown> {
  const rows = (await conn.query(sql)) as Record<string, unknown>[];
  return Object.values(rows[0])[0];
}

test('a fresh user reaches its database over TCP and over the socket, and nothing else', async (t) => {
  const fresh = await freshDatabase('users');
  const db = fresh.db;

  // The driver's 1 s default once failed a CI run that had many suites connecting at once.
  t.true((fresh.userConfig.connectTimeout ?? 1000) >= 10_000);
  const tcp = await createConnection(fresh.userConfig);
  try {
    t.is(await scalar(tcp, 'SELECT CURRENT_USER()'), `${fresh.user}@127.0.0.1`);
    t.is(await scalar(tcp, 'SELECT DATABASE()'), fresh.name);
    await tcp.query('CREATE TABLE t (id INT PRIMARY KEY)');
    await tcp.query('INSERT INTO t VALUES (7)');
    // Grants are real (no --skip-grant-tables): other databases stay closed.
    await t.throwsAsync(tcp.query('CREATE DATABASE not_mine'), { message: /access denied/i });
    await t.throwsAsync(tcp.query('SELECT * FROM mysql.user'), { message: /denied/i });
  } finally {
    await tcp.end();
  }

  const sock = await createConnection({
    socketPath: db.socket,
    user: fresh.user,
    password: fresh.password,
    database: fresh.name,
  });
  try {
    t.is(await scalar(sock, 'SELECT CURRENT_USER()'), `${fresh.user}@localhost`);
    t.is(await scalar(sock, 'SELECT id FROM t'), 7);
  } finally {
    await sock.end();
  }

  await t.throwsAsync(createConnection({ ...fresh.userConfig, password: 'wrong' }), { message: /access denied/i });
});

test('url() carries what a client needs, and root works over TCP with it', async (t) => {
  const fresh = await freshDatabase('urls');
  const user = new URL(fresh.userUrl);
  t.is(user.protocol, 'mysql:');
  t.is(user.hostname, '127.0.0.1');
  t.is(Number(user.port), fresh.db.port);
  t.is(decodeURIComponent(user.username), fresh.user);
  t.is(decodeURIComponent(user.password), fresh.password);
  t.is(user.pathname, `/${fresh.name}`);

  const root = new URL(fresh.db.url());
  t.is(root.username, 'root');
  t.is(root.password, '');
  t.is(root.pathname, '/');
  const conn = await createConnection({ host: root.hostname, port: Number(root.port), user: root.username });
  try {
    t.is(await scalar(conn, 'SELECT CURRENT_USER()'), 'root@127.0.0.1');
  } finally {
    await conn.end();
  }
});

test('exec runs several statements; query binds parameters', async (t) => {
  const { name, db } = await freshDatabase('exec');
  await db.exec(
    `CREATE TABLE Monitors (Id INT PRIMARY KEY, Name VARCHAR(64) NOT NULL);
     INSERT INTO Monitors VALUES (1, 'front');
     INSERT INTO Monitors VALUES (2, 'back door');`,
    name,
  );
  const rows = await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM Monitors', [], name);
  t.deepEqual(rows, [{ n: 2 }]);
  const named = await db.query<{ Id: number }>('SELECT Id FROM Monitors WHERE Name = ?', ['back door'], name);
  t.deepEqual(
    named.map((r) => r.Id),
    [2],
  );
  // Statements are not silently dropped after an error.
  await t.throwsAsync(db.exec('INSERT INTO Monitors VALUES (3, NULL); INSERT INTO Monitors VALUES (4, "x")', name));
  t.deepEqual(await db.query('SELECT Id FROM Monitors WHERE Id > 2', [], name), []);
  // MariaDB's default sql_mode stays in force (documented in the module).
  const [mode] = await db.query<{ m: string }>('SELECT @@GLOBAL.sql_mode AS m');
  t.regex(mode.m, /STRICT_TRANS_TABLES/);
});

test('pause stops the server keeping data; resume brings it back on the same port', async (t) => {
  const db = await privateMariaDb();
  t.teardown(() => db.stop());
  const fresh = await freshDatabase('pause', db);
  await db.exec('CREATE TABLE kept (v INT); INSERT INTO kept VALUES (42);', fresh.name);
  const port = db.port;

  await db.pause();
  t.false(db.running);
  await t.throwsAsync(createConnection({ ...fresh.userConfig, connectTimeout: 2000 }));
  await t.throwsAsync(db.query('SELECT 1'));

  await db.resume();
  t.true(db.running);
  t.is(db.port, port);
  const conn = await createConnection(fresh.userConfig);
  try {
    t.is(await scalar(conn, 'SELECT v FROM kept'), 42);
  } finally {
    await conn.end();
  }
});

test('stop kills the server and removes its temp dir; keep leaves it', async (t) => {
  const db = await privateMariaDb();
  const { baseDir, socket } = db;
  t.true(existsSync(db.dataDir));
  await db.stop();
  t.false(db.running);
  t.false(existsSync(baseDir));
  await t.throwsAsync(createConnection({ socketPath: socket, user: 'root', connectTimeout: 2000 }));
  await t.notThrowsAsync(db.stop()); // idempotent
  await t.throwsAsync(db.resume(), { message: /stopped/ });

  const kept = await startThrowawayMariaDb({ keep: true });
  t.teardown(() => rm(kept.baseDir, { recursive: true, force: true }));
  await kept.stop();
  t.true(existsSync(kept.dataDir));
  t.false(existsSync(kept.socket)); // clean shutdown removed the socket
});

test('a server that cannot start rejects with the tail of its error log', async (t) => {
  // Hold a port so mariadbd fails to bind it.
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  const port = (holder.address() as net.AddressInfo).port;

  const error = await t.throwsAsync(startThrowawayMariaDb({ port }));
  t.regex(error?.message ?? '', /during startup/);
  t.regex(error?.message ?? '', /Address already in use|Bind on TCP\/IP port/);
});

test('the shared server is one per test file', async (t) => {
  t.is(await sharedMariaDb(), await sharedMariaDb());
});
