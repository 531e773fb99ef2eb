// The driver read path of GET /events (src/features/events/event-rows.ts) must answer exactly
// what the Prisma path answers: the same JSON for every kind of column (wall-clock DATETIMEs,
// zero dates, open events, DECIMAL length and coordinates, flags, NULLs), the same tags in the
// same order, and the same totals for every filter.
import test from 'ava';
import { createPool, type DbPool } from '../../src/db/pool.js';
import { createPrismaClient, type PrismaClient } from '../../src/db/prisma.js';
import { EVENT_COLUMNS, toEventResponse, type EventRow } from '../../src/features/events/event-json.js';
import { EventRows } from '../../src/features/events/event-rows.js';
import { eventTagsOf } from '../../src/features/events/events-service.js';
import { zoneMinderClock } from '../../src/zm/event-time.js';
import { insertEvent, insertMonitor, sql } from '../helpers/events.js';
import { dbConfigFor, type FreshDatabase } from '../helpers/mariadb.js';
import { zmDatabase } from '../helpers/zmdb.js';

let db: FreshDatabase;
let pool: DbPool;
let prisma: PrismaClient;

test.before(async () => {
  db = await zmDatabase('evread');
  await sql(db, "INSERT INTO Config (Name, Value, Type) VALUES ('ZM_TIMEZONE', 'America/New_York', 'string')");
  for (const id of [1, 2]) await insertMonitor(db, id);
  await insertEvent(db, { monitorId: 1, name: 'Ünïcode 📷', notes: 'line\nbreak', cause: 'Motion' });
  await insertEvent(db, { monitorId: 1, start: '2026-03-08 07:30:00.250', end: null, length: '0.00', frames: null });
  await insertEvent(db, { monitorId: 2, archived: 1, locked: 1, diskSpace: 123_456_789_012, length: '99999999.99' });
  const [{ Id: odd }] = await sql(
    db,
    "INSERT INTO Events (MonitorId, Name, StartDateTime, EndDateTime, StorageId, Scheme, Length, StateId, Orientation, Latitude, Longitude, AvgScore, MaxScore) VALUES (2, 'geo', '2026-07-01 23:59:59', '2026-07-02 00:00:01', NULL, 'Deep', '2.00', 0, 'FLIP_HORI', 52.52000659, -13.40495400, NULL, NULL) RETURNING Id",
  );
  // A zero date, as old ZoneMinder versions wrote with sql_mode=''.
  await sql(
    db,
    "SET STATEMENT sql_mode='' FOR INSERT INTO Events (MonitorId, Name, StartDateTime, EndDateTime, StorageId, Scheme, Length, StateId) VALUES (1, 'zero', '2026-01-01 00:00:00', '0000-00-00 00:00:00', 0, 'Medium', '1.00', 0)",
  );
  await sql(
    db,
    "INSERT INTO Tags (Id, Name, CreateDate, CreatedBy) VALUES (1, 'zeta', NOW(), 0), (2, 'alpha', NOW(), 0)",
  );
  await sql(
    db,
    'INSERT INTO Events_Tags (TagId, EventId, AssignedDate) VALUES (1, ?, NOW()), (2, ?, NOW()), (2, 1, NOW())',
    [odd, odd],
  );
  pool = createPool(dbConfigFor(db, { idle_timeout_secs: 5 }));
  prisma = createPrismaClient(dbConfigFor(db, { idle_timeout_secs: 5 }));
});

test.after.always(async () => {
  await pool?.end();
  await prisma?.$disconnect();
});

test('every event reads the same through the driver as through Prisma', async (t) => {
  const clock = await zoneMinderClock(prisma)();
  const rows = new EventRows(pool);
  for (const [where, params, orderBy] of [
    ['', [], 'ORDER BY Id ASC'],
    ['', [], 'ORDER BY StartDateTime DESC, Id DESC'],
    ['WHERE MonitorId = ?', [2], 'ORDER BY StartDateTime DESC, Id DESC'],
    [
      'WHERE MonitorId IN (?, ?) AND StartDateTime >= ?',
      [1, 2, '2026-02-01 00:00:00.000'],
      'ORDER BY Length ASC, Id ASC',
    ],
  ] as Array<[string, unknown[], string]>) {
    const outer = orderBy.replace(/(\w+) (ASC|DESC)/g, 'e.$1 $2');
    const viaPrisma = await prisma.$queryRawUnsafe<EventRow[]>(
      `SELECT ${EVENT_COLUMNS.map((c) => `e.${c}`).join(', ')} FROM (SELECT Id FROM Events ${where} ${orderBy} LIMIT ? OFFSET ?) page JOIN Events e ON e.Id = page.Id ${outer}`,
      ...params,
      100,
      0,
    );
    const viaDriver = await rows.page(where, params, orderBy, 100, 0);
    t.true(viaPrisma.length > 0, where);
    const prismaTags = await eventTagsOf(
      prisma,
      viaPrisma.map((r) => r.Id),
    );
    const driverTags = await rows.tags(viaDriver.map((r) => r.Id));
    t.deepEqual(
      viaDriver.map((r) => toEventResponse(r, clock, driverTags.get(String(r.Id)))),
      viaPrisma.map((r) => toEventResponse(r, clock, prismaTags.get(String(r.Id)))),
      `${where} ${orderBy}`,
    );
    const [{ n }] = await prisma.$queryRawUnsafe<Array<{ n: bigint }>>(
      `SELECT COUNT(*) AS n FROM Events ${where}`,
      ...params,
    );
    t.is(await rows.count(where, params), Number(n), where);
  }
  // Tags come ordered by name, then id, on both paths.
  const [geo] = await rows.page("WHERE Name = 'geo'", [], 'ORDER BY Id ASC', 1, 0);
  t.deepEqual(
    (await rows.tags([geo!.Id])).get(String(geo!.Id))?.map((x) => x.name),
    ['alpha', 'zeta'],
  );
  t.deepEqual(await rows.tags([]), new Map());
});
