// The cache-miss path of GET /events?monitor_id=… (a page of 25, its COUNT(*) and its tags):
// through Prisma's raw API (as before) and through the driver (src/features/events/event-rows.ts),
// interleaved in one run on a throwaway MariaDB with a generated install. Prints this process's
// CPU and MariaDB's CPU per page for each path.
//
//   npx tsx bench/event-page-miss.ts [--events N] [--pages N] [--rounds N]
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { createPool } from '../src/db/pool.js';
import { createPrismaClient } from '../src/db/prisma.js';
import { startThrowawayMariaDb } from '../src/devdb/throwaway-mariadb.js';
import { EVENT_COLUMNS, type EventRow } from '../src/features/events/event-json.js';
import { EventRows } from '../src/features/events/event-rows.js';
import { eventTagsOf } from '../src/features/events/events-service.js';
import { generateEvents } from './_generate-events.js';
import { report } from './_results.js';
import { cpuSeconds } from './_service.js';
import { flag } from './_args.js';

const EVENTS = Number(flag('events') ?? 200_000);
const PAGES = Number(flag('pages') ?? 300);
const ROUNDS = Number(flag('rounds') ?? 3);

const db = await startThrowawayMariaDb({ startTimeoutMs: 60_000 });
try {
  const gen = await generateEvents(db, 'zm_miss', { events: EVENTS, log: () => {} });
  await db.createUser('bench', 'bench-pass', gen.database);
  const config = {
    host: db.host,
    port: db.port,
    username: 'bench',
    password: 'bench-pass',
    database_name: gen.database,
    pool_max: 10,
    pool_min: 0,
    connect_timeout_secs: 10,
    acquire_timeout_secs: 10,
    idle_timeout_secs: 30,
    query_timeout_secs: 30,
  } as Parameters<typeof createPool>[0];
  const pool = createPool(config);
  const prisma = createPrismaClient(config);
  const rows = new EventRows(pool);
  const dbPid = Number(readFileSync(path.join(db.baseDir, 'mariadbd.pid'), 'utf8'));
  const order = 'ORDER BY StartDateTime DESC, Id DESC';
  const where = 'WHERE MonitorId = ?';
  const viaPrisma = async (m: number) => {
    const outer = order.replace(/(\w+) (ASC|DESC)/g, 'e.$1 $2');
    const [page] = await Promise.all([
      prisma.$queryRawUnsafe<EventRow[]>(
        `SELECT ${EVENT_COLUMNS.map((c) => `e.${c}`).join(', ')} FROM (SELECT Id FROM Events ${where} ${order} LIMIT ? OFFSET ?) page JOIN Events e ON e.Id = page.Id ${outer}`,
        m,
        25,
        0,
      ),
      prisma.$queryRawUnsafe(`SELECT COUNT(*) AS n FROM Events ${where}`, m),
    ]);
    await eventTagsOf(
      prisma,
      page.map((r) => r.Id),
    );
  };
  const viaDriver = async (m: number) => {
    const [page] = await Promise.all([rows.page(where, [m], order, 25, 0), rows.count(where, [m])]);
    await rows.tags(page.map((r) => r.Id));
  };
  const measure = async (fn: (m: number) => Promise<void>) => {
    const cpu0 = process.cpuUsage();
    const db0 = cpuSeconds(dbPid);
    const t0 = performance.now();
    for (let i = 0; i < PAGES; i++) await fn((i % gen.monitors) + 1);
    const cpu = process.cpuUsage(cpu0);
    return {
      svc: (cpu.user + cpu.system) / 1000 / PAGES,
      db: ((cpuSeconds(dbPid) - db0) * 1000) / PAGES,
      wall: (performance.now() - t0) / PAGES,
    };
  };
  await measure(viaPrisma); // warm-up: Prisma's compiler, the buffer pool
  await measure(viaDriver);
  console.log(
    `# ${EVENTS} events, ${gen.monitors} monitors, ${PAGES} pages per path per round; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log('| round | path | svc CPU ms/page | DB CPU ms/page | wall ms/page |');
  console.log('|---|---|---|---|---|');
  const sums = { prisma: 0, driver: 0 };
  for (let r = 1; r <= ROUNDS; r++) {
    for (const [name, fn] of [
      ['prisma', viaPrisma],
      ['driver', viaDriver],
    ] as const) {
      const m = await measure(fn);
      sums[name] += m.svc;
      console.log(`| ${r} | ${name} | ${m.svc.toFixed(2)} | ${m.db.toFixed(2)} | ${m.wall.toFixed(2)} |`);
    }
  }
  report(
    { measure: 'event page miss via Prisma, svc CPU', unit: 'ms/page', value: sums.prisma / ROUNDS, decimals: 2 },
    { measure: 'event page miss via driver, svc CPU', unit: 'ms/page', value: sums.driver / ROUNDS, decimals: 2 },
  );
  await prisma.$disconnect();
  await pool.end();
} finally {
  await db.stop();
}
