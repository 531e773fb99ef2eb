// The Prisma client over a database the real converger created: every model is queryable,
// DATETIMEs round-trip as local wall-clock digits, zero dates read as null instead of throwing,
// BigInt ids serialise as JSON numbers. Needs src/generated/prisma (npm run db:generate).
//
// A process time zone far from UTC proves the conversions never consult it.
process.env.TZ = 'America/New_York';

import test from 'ava';
import { createConnection } from 'mariadb';
import type { AppConfig } from '../../src/config/types.js';
import { convergeSchema } from '../../src/db/converge/index.js';
import { fromLocalDateTimeString, toLocalDateTimeString } from '../../src/db/datetime.js';
import { createPrismaClient, type PrismaClient } from '../../src/db/prisma.js';
import { poolConfig } from '../../src/db/pool.js';
import { toJson } from '../../src/db/prisma-json.js';
import { Prisma } from '../../src/generated/prisma/client.js';
import type { ThrowawayMariaDb } from '../../src/devdb/throwaway-mariadb.js';
import { dbConfigFor, freshDatabase, privateMariaDb, sharedMariaDb, type FreshDatabase } from '../helpers/mariadb.js';

/** A fresh database converged to the target, and a client for it as its (non-root) user. */
async function convergedClient(
  prefix: string,
  server?: ThrowawayMariaDb,
  overrides: Partial<AppConfig['db']> = {},
): Promise<{ fresh: FreshDatabase; prisma: PrismaClient }> {
  const fresh = await freshDatabase(prefix, server);
  const conn = await createConnection(fresh.db.connectionConfig(fresh.name));
  try {
    await convergeSchema(conn, { database: fresh.name });
  } finally {
    await conn.end();
  }
  const db = dbConfigFor(fresh, { pool_max: 4, acquire_timeout_secs: 10, ...overrides });
  return { fresh, prisma: createPrismaClient(db) };
}

/** The client's delegate for a model: `Events` -> prisma.events, `AI_Models` -> prisma.aI_Models. */
function delegate(prisma: PrismaClient, model: string): { findFirst(): Promise<unknown>; count(): Promise<number> } {
  return (prisma as unknown as Record<string, never>)[model[0].toLowerCase() + model.slice(1)];
}

test('findFirst() and count() work on every model of the converged schema', async (t) => {
  const { fresh, prisma } = await convergedClient('prisma_models');
  try {
    const models = Object.values(Prisma.ModelName);
    const tables = await fresh.db.query<{ n: number }>(
      "SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'",
      [fresh.name],
    );
    t.is(models.length, tables[0].n, 'one model per table');
    for (const model of models) {
      // Model names are the table names; only the converger's own log has rows by now.
      const [{ n }] = await fresh.db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM \`${model}\``, [], fresh.name);
      t.is(await delegate(prisma, model).count(), n, model);
      t.is((await delegate(prisma, model).findFirst()) === null, n === 0, model);
    }
    t.is(await prisma.events.findFirst(), null);
  } finally {
    await prisma.$disconnect();
  }
});

test('an Events row round-trips local wall-clock DATETIMEs, a decimal and a BigInt id', async (t) => {
  const { fresh, prisma } = await convergedClient('prisma_events');
  try {
    const created = await prisma.events.create({
      data: {
        Id: 2n ** 40n, // above 2^32: a real BigInt, still a safe JSON number
        MonitorId: 1,
        StateId: 1,
        Name: 'Event 1',
        StartDateTime: fromLocalDateTimeString('2026-11-22T08:53:58'),
        EndDateTime: fromLocalDateTimeString('2026-11-22 09:03:37'),
        Length: '579.93',
      },
    });
    // Exactly the digits given are stored: no shift by the process or server time zone.
    const [stored] = await fresh.db.query<{ s: string; e: string }>(
      "SELECT DATE_FORMAT(StartDateTime, '%Y-%m-%d %H:%i:%s') AS s, DATE_FORMAT(EndDateTime, '%Y-%m-%d %H:%i:%s') AS e FROM Events",
      [],
      fresh.name,
    );
    t.deepEqual(stored, { s: '2026-11-22 08:53:58', e: '2026-11-22 09:03:37' });

    // A row ZoneMinder wrote reads back as the same digits.
    await fresh.db.exec(
      "INSERT INTO Events (Id, MonitorId, StateId, Name, StartDateTime) VALUES (7, 1, 1, 'zm', '2026-03-08 02:30:00')",
      fresh.name,
    );
    const zm = await prisma.events.findUniqueOrThrow({ where: { Id: 7n } });
    t.is(toLocalDateTimeString(zm.StartDateTime), '2026-03-08T02:30:00'); // a time New York skips (DST)

    const read = await prisma.events.findUniqueOrThrow({ where: { Id: created.Id } });
    const json = toJson(read) as Record<string, unknown>;
    t.is(json.Id, 2 ** 40);
    t.is(json.StartDateTime, '2026-11-22T08:53:58');
    t.is(json.EndDateTime, '2026-11-22T09:03:37');
    t.is(json.Length, '579.93');
    t.is(JSON.parse(JSON.stringify(json)).Id, 1099511627776);

    // Filters use the same convention.
    const inRange = await prisma.events.count({
      where: {
        StartDateTime: {
          gte: fromLocalDateTimeString('2026-11-22T08:53:58'),
          lt: fromLocalDateTimeString('2026-11-22T08:53:59'),
        },
      },
    });
    t.is(inRange, 1);
  } finally {
    await prisma.$disconnect();
  }
});

test('zero and invalid dates read as null and never make a query throw', async (t) => {
  const { fresh, prisma } = await convergedClient('prisma_zero');
  try {
    // What old ZoneMinder versions (or sql_mode='') leave behind, in nullable and NOT NULL columns.
    await fresh.db.exec(
      "SET SESSION sql_mode = '';" +
        "INSERT INTO Events (Id, MonitorId, StateId, Name, StartDateTime, EndDateTime) VALUES (1, 1, 1, 'zero', '0000-00-00 00:00:00', '2024-00-10 10:00:00');" +
        "INSERT INTO Events_Lock (EventId, LockedAt, ExpiresAt) VALUES (1, '0000-00-00 00:00:00', '0000-00-00 00:00:00');" +
        "INSERT INTO Frames (EventId, FrameId, TimeStamp) VALUES (1, 1, '0000-00-00 00:00:00');" +
        "INSERT INTO Events (Id, MonitorId, StateId, Name, StartDateTime) VALUES (2, 1, 1, 'good', '2026-11-22 08:53:58')",
      fresh.name,
    );
    const events = await prisma.events.findMany({ orderBy: { Id: 'asc' } });
    t.deepEqual(
      events.map((e) => [e.Name, toLocalDateTimeString(e.StartDateTime), e.EndDateTime]),
      [
        ['zero', null, null],
        ['good', '2026-11-22T08:53:58', null],
      ],
    );
    const lock = await prisma.events_Lock.findFirstOrThrow();
    t.deepEqual([lock.LockedAt, lock.ExpiresAt], [null, null]);
    t.is((await prisma.frames.findFirstOrThrow()).TimeStamp, null);

    // Raw queries, transactions (a connection of their own) and relation loads go the same way.
    const raw = await prisma.$queryRaw<{ StartDateTime: Date | null }[]>`SELECT StartDateTime FROM Events WHERE Id = 1`;
    t.deepEqual(raw, [{ StartDateTime: null }]);
    const inTx = await prisma.$transaction(async (tx) => tx.events.findUniqueOrThrow({ where: { Id: 1n } }));
    t.is(inTx.StartDateTime, null);
    const withTags = await prisma.events.findUniqueOrThrow({ where: { Id: 1n }, include: { Events_Tags: true } });
    t.is(withTags.EndDateTime, null);
    t.deepEqual(toJson({ start: withTags.StartDateTime }), { start: null });
  } finally {
    await prisma.$disconnect();
  }
});

test("DATETIME defaults are the database's local clock, not Prisma's UTC now()", async (t) => {
  // A server of our own: its time zone is set globally, far from UTC.
  const server = await privateMariaDb();
  try {
    await server.exec("SET GLOBAL time_zone = '+05:30'");
    const { fresh, prisma } = await convergedClient('prisma_now', server);
    try {
      // Frames.TimeStamp is TIMESTAMP DEFAULT current_timestamp(), zmgate_migrations.applied_at
      // DATETIME(3) DEFAULT current_timestamp(3); with now() Prisma would send its UTC clock.
      await prisma.frames.create({ data: { EventId: 1n, FrameId: 1 } });
      await prisma.zmgate_migrations.create({ data: { id: '0001', name: 'test' } });
      const [{ now }] = await fresh.db.query<{ now: string }>("SELECT DATE_FORMAT(NOW(), '%Y-%m-%dT%H:%i:%s') AS now");
      const stored = [
        (await prisma.frames.findFirstOrThrow()).TimeStamp,
        (await prisma.zmgate_migrations.findFirstOrThrow()).applied_at,
      ];
      for (const value of stored) {
        const skew = Math.abs(value!.getTime() - fromLocalDateTimeString(now).getTime());
        t.true(skew < 60_000, `stored ${toLocalDateTimeString(value)}, database clock ${now}`);
      }
    } finally {
      await prisma.$disconnect();
    }
  } finally {
    await server.stop();
  }
});

test('the client connects over the unix socket when db.socket is set (host and port unused)', async (t) => {
  const server = await sharedMariaDb();
  const { prisma } = await convergedClient('prisma_socket', server, {
    socket: server.socket,
    host: 'nowhere.invalid',
    port: 1,
  });
  try {
    const [{ user }] = await prisma.$queryRaw<{ user: string }[]>`SELECT CURRENT_USER() AS user`;
    t.regex(user, /@localhost$/); // socket clients are user@localhost, TCP ones user@127.0.0.1
  } finally {
    await prisma.$disconnect();
  }
});

test('poolConfig() maps the layered config onto the driver pool', (t) => {
  const db: AppConfig['db'] = {
    host: 'db.example',
    port: 3307,
    socket: null,
    username: 'zmuser',
    password: 'zmpass',
    database_name: 'zm',
    pool_min: 1,
    pool_max: 7,
    connect_timeout_secs: 3,
    acquire_timeout_secs: 4,
    idle_timeout_secs: 600,
    query_timeout_secs: 30,
    migrate_on_start: true,
  };
  t.like(poolConfig(db), {
    host: 'db.example',
    port: 3307,
    user: 'zmuser',
    password: 'zmpass',
    database: 'zm',
    connectionLimit: 7,
    minimumIdle: 1,
    connectTimeout: 3000,
    acquireTimeout: 4000,
    idleTimeout: 600,
  });
  const viaSocket = poolConfig({ ...db, socket: '/run/mysqld/mysqld.sock' });
  t.is(viaSocket.socketPath, '/run/mysqld/mysqld.sock');
  t.false('host' in viaSocket);
});

test('the client reconnects after $disconnect() (a fresh pool per connect)', async (t) => {
  const { prisma } = await convergedClient('prisma_reconnect');
  await prisma.$connect();
  t.is(await prisma.events.count(), 0);
  await prisma.$disconnect();
  t.is(await prisma.events.count(), 0);
  await prisma.$disconnect();
});
