// The service's Prisma client is built on first use (src/db/lazy-prisma.ts): until then it costs
// nothing, closing it does nothing, and awaiting it does not build it; once used it answers like
// the real client, raw queries and model delegates alike.
import test from 'ava';
import { DbGate } from '../../src/db/bounded.js';
import { lazyPrismaClient } from '../../src/db/lazy-prisma.js';
import { dbConfigFor, freshDatabase } from '../helpers/mariadb.js';

test('a client never used closes at once, and awaiting it does not build it', async (t) => {
  const prisma = lazyPrismaClient(dbConfigFor(await freshDatabase('lazy_prisma_idle')), new DbGate());
  t.is(await Promise.resolve(prisma), prisma);
  t.is((prisma as unknown as { then?: unknown }).then, undefined);
  await t.notThrowsAsync(prisma.$disconnect());
});

test('the first use builds the real client: raw queries, model delegates and $disconnect work', async (t) => {
  const fresh = await freshDatabase('lazy_prisma_used');
  const prisma = lazyPrismaClient(dbConfigFor(fresh), new DbGate());
  try {
    const rows = await prisma.$queryRaw<Array<{ one: number | bigint }>>`SELECT 1 AS one`;
    t.is(Number(rows[0]!.one), 1);
    t.is(typeof prisma.monitors.findMany, 'function');
    t.true('monitors' in prisma);
    const [a, b] = await prisma.$transaction([prisma.$queryRaw`SELECT 2 AS two`, prisma.$queryRaw`SELECT 3 AS three`]);
    t.deepEqual(
      [a, b].map((r) => Number(Object.values((r as Array<Record<string, number>>)[0]!)[0])),
      [2, 3],
    );
  } finally {
    await prisma.$disconnect();
  }
});
