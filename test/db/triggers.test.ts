// The 1.39.22 triggers at work on a converged database: Event_Summaries follows DiskSpace
// changes, archiving and deletes through the bucket tables; Monitors.ZoneCount follows Zones.
import test from 'ava';
import { createConnection, type Connection } from 'mariadb';
import { convergeSchema } from '../../src/db/converge/index.js';
import { freshDatabase } from '../helpers/mariadb.js';

const BUCKETS = ['Hour', 'Day', 'Week', 'Month'] as const;

interface Summary {
  TotalEvents: number | null;
  TotalEventDiskSpace: number | null;
  HourEvents: number | null;
  HourEventDiskSpace: number | null;
  DayEvents: number | null;
  DayEventDiskSpace: number | null;
  WeekEvents: number | null;
  WeekEventDiskSpace: number | null;
  MonthEvents: number | null;
  MonthEventDiskSpace: number | null;
  ArchivedEvents: number | null;
  ArchivedEventDiskSpace: number | null;
}

async function convergedDatabase(prefix: string): Promise<Connection> {
  const fresh = await freshDatabase(prefix);
  const conn = await createConnection({ ...fresh.userConfig, bigIntAsNumber: true, decimalAsNumber: true });
  await convergeSchema(conn, { database: fresh.name });
  return conn;
}

async function addMonitor(conn: Connection, id: number): Promise<void> {
  await conn.query('INSERT INTO Monitors (Id, Name) VALUES (?, ?)', [id, `Monitor ${id}`]);
}

/** What zmc does when an event starts (1.39: no insert trigger; it writes these rows itself). */
async function startEvent(
  conn: Connection,
  id: number,
  monitorId: number,
  diskSpace: number | null = null,
): Promise<void> {
  await conn.query(
    "INSERT INTO Events (Id, MonitorId, Name, StartDateTime, StateId, DiskSpace) VALUES (?, ?, 'New Event', NOW(), 1, ?)",
    [id, monitorId, diskSpace],
  );
  for (const bucket of BUCKETS) {
    await conn.query(
      `INSERT INTO Events_${bucket} (EventId, MonitorId, StartDateTime, DiskSpace) VALUES (?, ?, NOW(), ?)`,
      [id, monitorId, diskSpace],
    );
  }
  await conn.query(
    `INSERT INTO Event_Summaries (MonitorId, TotalEvents, TotalEventDiskSpace, HourEvents, DayEvents, WeekEvents, MonthEvents)
     VALUES (?, 1, ?, 1, 1, 1, 1)
     ON DUPLICATE KEY UPDATE TotalEvents = COALESCE(TotalEvents, 0) + 1, HourEvents = COALESCE(HourEvents, 0) + 1,
       DayEvents = COALESCE(DayEvents, 0) + 1, WeekEvents = COALESCE(WeekEvents, 0) + 1, MonthEvents = COALESCE(MonthEvents, 0) + 1,
       TotalEventDiskSpace = COALESCE(TotalEventDiskSpace, 0) + COALESCE(VALUES(TotalEventDiskSpace), 0)`,
    [monitorId, diskSpace],
  );
  if (diskSpace !== null) {
    for (const bucket of BUCKETS) {
      await conn.query(
        `UPDATE Event_Summaries SET ${bucket}EventDiskSpace = COALESCE(${bucket}EventDiskSpace, 0) + ? WHERE MonitorId = ?`,
        [diskSpace, monitorId],
      );
    }
  }
}

async function summary(conn: Connection, monitorId: number): Promise<Summary> {
  const rows = (await conn.query('SELECT * FROM Event_Summaries WHERE MonitorId = ?', [monitorId])) as (Summary & {
    MonitorId: number;
  })[];
  const { MonitorId: _ignored, ...rest } = rows[0];
  return rest;
}

async function bucketSpace(conn: Connection, eventId: number): Promise<(number | null)[]> {
  const out: (number | null)[] = [];
  for (const bucket of BUCKETS) {
    const rows = (await conn.query(`SELECT DiskSpace FROM Events_${bucket} WHERE EventId = ?`, [eventId])) as {
      DiskSpace: number | null;
    }[];
    out.push(rows.length ? rows[0].DiskSpace : -1);
  }
  return out;
}

async function count(conn: Connection, sql: string, values: unknown[]): Promise<number> {
  const rows = (await conn.query(sql, values)) as { n: number }[];
  return Number(rows[0].n);
}

// What startEvent() leaves for a monitor's first event of unknown size.
const base: Summary = {
  TotalEvents: 1,
  TotalEventDiskSpace: null,
  HourEvents: 1,
  HourEventDiskSpace: null,
  DayEvents: 1,
  DayEventDiskSpace: null,
  WeekEvents: 1,
  WeekEventDiskSpace: null,
  MonthEvents: 1,
  MonthEventDiskSpace: null,
  ArchivedEvents: null,
  ArchivedEventDiskSpace: null,
};

test('no insert trigger: a new event creates no bucket rows by itself (1.37.77)', async (t) => {
  const conn = await convergedDatabase('trig_insert');
  try {
    await addMonitor(conn, 1);
    await conn.query("INSERT INTO Events (Id, MonitorId, Name, StateId) VALUES (10, 1, 'New Event', 1)");
    t.is(await count(conn, 'SELECT COUNT(*) AS n FROM Events_Hour WHERE EventId = ?', [10]), 0);
    t.is(await count(conn, 'SELECT COUNT(*) AS n FROM Event_Summaries', []), 0);
  } finally {
    await conn.end();
  }
});

test('DiskSpace changes reach the bucket rows and every disk-space counter; other updates change nothing', async (t) => {
  const conn = await convergedDatabase('trig_space');
  try {
    await addMonitor(conn, 1);
    await startEvent(conn, 10, 1);
    t.deepEqual(await summary(conn, 1), base);
    t.deepEqual(await bucketSpace(conn, 10), [null, null, null, null]);

    await conn.query('UPDATE Events SET DiskSpace = 1000 WHERE Id = 10');
    t.deepEqual(await bucketSpace(conn, 10), [1000, 1000, 1000, 1000]);
    t.deepEqual(await summary(conn, 1), {
      ...base,
      TotalEventDiskSpace: 1000,
      HourEventDiskSpace: 1000,
      DayEventDiskSpace: 1000,
      WeekEventDiskSpace: 1000,
      MonthEventDiskSpace: 1000,
    });

    // A shrink is a negative difference on an unsigned column: must not error or wrap.
    await conn.query('UPDATE Events SET DiskSpace = 400 WHERE Id = 10');
    const at400 = {
      ...base,
      TotalEventDiskSpace: 400,
      HourEventDiskSpace: 400,
      DayEventDiskSpace: 400,
      WeekEventDiskSpace: 400,
      MonthEventDiskSpace: 400,
    };
    t.deepEqual(await summary(conn, 1), at400);

    // Closing the event without a size change touches nothing.
    await conn.query("UPDATE Events SET Name = 'Event-10', EndDateTime = NOW(), Length = 12.5 WHERE Id = 10");
    t.deepEqual(await summary(conn, 1), at400);

    // Back to NULL counts as 0, never as NULL in the sums.
    await conn.query('UPDATE Events SET DiskSpace = NULL WHERE Id = 10');
    t.deepEqual(await bucketSpace(conn, 10), [null, null, null, null]);
    t.deepEqual(await summary(conn, 1), {
      ...base,
      TotalEventDiskSpace: 0,
      HourEventDiskSpace: 0,
      DayEventDiskSpace: 0,
      WeekEventDiskSpace: 0,
      MonthEventDiskSpace: 0,
    });
  } finally {
    await conn.end();
  }
});

test('archiving and unarchiving keep Events_Archived and the Archived counters in step', async (t) => {
  const conn = await convergedDatabase('trig_archive');
  try {
    await addMonitor(conn, 1);
    await startEvent(conn, 10, 1);
    await conn.query('UPDATE Events SET DiskSpace = 500 WHERE Id = 10');

    await conn.query('UPDATE Events SET Archived = 1 WHERE Id = 10');
    t.deepEqual(await conn.query('SELECT EventId, MonitorId, DiskSpace FROM Events_Archived'), [
      { EventId: 10, MonitorId: 1, DiskSpace: 500 },
    ]);
    let s = await summary(conn, 1);
    t.is(s.ArchivedEvents, 1);
    t.is(s.ArchivedEventDiskSpace, 500);
    t.is(s.TotalEventDiskSpace, 500, 'archiving does not change the total');

    // The size of an archived event changes: the archive row and counter follow.
    await conn.query('UPDATE Events SET DiskSpace = 800 WHERE Id = 10');
    t.deepEqual(await conn.query('SELECT DiskSpace FROM Events_Archived WHERE EventId = 10'), [{ DiskSpace: 800 }]);
    s = await summary(conn, 1);
    t.is(s.ArchivedEventDiskSpace, 800);
    t.is(s.TotalEventDiskSpace, 800);

    // Archiving again (no flip) does not count twice.
    await conn.query('UPDATE Events SET Archived = 1 WHERE Id = 10');
    t.is((await summary(conn, 1)).ArchivedEvents, 1);

    await conn.query('UPDATE Events SET Archived = 0 WHERE Id = 10');
    t.is(await count(conn, 'SELECT COUNT(*) AS n FROM Events_Archived', []), 0);
    s = await summary(conn, 1);
    t.is(s.ArchivedEvents, 0);
    t.is(s.ArchivedEventDiskSpace, 0);
    t.is(s.TotalEvents, 1);
  } finally {
    await conn.end();
  }
});

test('deleting an event removes its bucket and archive rows and takes it off every counter', async (t) => {
  const conn = await convergedDatabase('trig_delete');
  try {
    await addMonitor(conn, 1);
    await startEvent(conn, 10, 1);
    await startEvent(conn, 11, 1);
    await conn.query('UPDATE Events SET DiskSpace = 300 WHERE Id = 10');
    await conn.query('UPDATE Events SET DiskSpace = 700 WHERE Id = 11');
    await conn.query('UPDATE Events SET Archived = 1 WHERE Id = 11');
    const before = await summary(conn, 1);
    t.like(before, {
      TotalEvents: 2,
      TotalEventDiskSpace: 1000,
      HourEvents: 2,
      HourEventDiskSpace: 1000,
      ArchivedEvents: 1,
      ArchivedEventDiskSpace: 700,
    });

    await conn.query('DELETE FROM Events WHERE Id = 11');
    for (const bucket of BUCKETS)
      t.is(await count(conn, `SELECT COUNT(*) AS n FROM Events_${bucket} WHERE EventId = 11`, []), 0, bucket);
    t.is(await count(conn, 'SELECT COUNT(*) AS n FROM Events_Archived', []), 0);
    t.deepEqual(await summary(conn, 1), {
      TotalEvents: 1,
      TotalEventDiskSpace: 300,
      HourEvents: 1,
      HourEventDiskSpace: 300,
      DayEvents: 1,
      DayEventDiskSpace: 300,
      WeekEvents: 1,
      WeekEventDiskSpace: 300,
      MonthEvents: 1,
      MonthEventDiskSpace: 300,
      ArchivedEvents: 0,
      ArchivedEventDiskSpace: 0,
    });

    // Deleting everything zeroes the counters (as observed on 1.36) and never goes below zero.
    await conn.query('DELETE FROM Events');
    await conn.query('DELETE FROM Events'); // nothing left: no change
    const after = await summary(conn, 1);
    for (const [name, value] of Object.entries(after)) t.is(value, 0, name);
  } finally {
    await conn.end();
  }
});

test('ageing a bucket (zmstats deleting old rows) decrements only that bucket', async (t) => {
  const conn = await convergedDatabase('trig_age');
  try {
    await addMonitor(conn, 1);
    await startEvent(conn, 10, 1);
    await conn.query('UPDATE Events SET DiskSpace = 250 WHERE Id = 10');
    await conn.query('DELETE FROM Events_Hour WHERE EventId = 10');
    t.like(await summary(conn, 1), {
      HourEvents: 0,
      HourEventDiskSpace: 0,
      DayEvents: 1,
      DayEventDiskSpace: 250,
      TotalEvents: 1,
      TotalEventDiskSpace: 250,
    });
    await conn.query('DELETE FROM Events_Month WHERE EventId = 10');
    t.like(await summary(conn, 1), { MonthEvents: 0, MonthEventDiskSpace: 0, WeekEvents: 1, WeekEventDiskSpace: 250 });
    // The event itself then goes: the remaining buckets and the total drop, nothing goes negative.
    await conn.query('DELETE FROM Events WHERE Id = 10');
    t.like(await summary(conn, 1), {
      HourEvents: 0,
      DayEvents: 0,
      WeekEvents: 0,
      MonthEvents: 0,
      TotalEvents: 0,
      TotalEventDiskSpace: 0,
    });
  } finally {
    await conn.end();
  }
});

test('a bucket row moving to another monitor moves its disk space between the summaries', async (t) => {
  const conn = await convergedDatabase('trig_move');
  try {
    await addMonitor(conn, 1);
    await addMonitor(conn, 2);
    await startEvent(conn, 10, 1, 600);
    await startEvent(conn, 20, 2, 50);
    t.is((await summary(conn, 1)).DayEventDiskSpace, 600);
    t.is((await summary(conn, 2)).DayEventDiskSpace, 50);

    await conn.query('UPDATE Events_Day SET MonitorId = 2 WHERE EventId = 10');
    t.is((await summary(conn, 1)).DayEventDiskSpace, 0);
    t.is((await summary(conn, 2)).DayEventDiskSpace, 650);
    t.is((await summary(conn, 1)).HourEventDiskSpace, 600, 'other buckets untouched');

    // Size and monitor change together: the old size leaves monitor 2, the new one arrives at 1.
    await conn.query('UPDATE Events_Day SET MonitorId = 1, DiskSpace = 900 WHERE EventId = 10');
    t.is((await summary(conn, 1)).DayEventDiskSpace, 900);
    t.is((await summary(conn, 2)).DayEventDiskSpace, 50);
  } finally {
    await conn.end();
  }
});

test('NULL counters are treated as 0 and stay non-negative', async (t) => {
  const conn = await convergedDatabase('trig_nulls');
  try {
    await addMonitor(conn, 1);
    await conn.query("INSERT INTO Events (Id, MonitorId, Name, StateId, DiskSpace) VALUES (10, 1, 'e', 1, 100)");
    await conn.query('INSERT INTO Events_Week (EventId, MonitorId, DiskSpace) VALUES (10, 1, 100)');
    await conn.query('INSERT INTO Event_Summaries (MonitorId) VALUES (1)'); // every counter NULL
    await conn.query('UPDATE Events SET DiskSpace = 150 WHERE Id = 10');
    t.like(await summary(conn, 1), { WeekEventDiskSpace: 50, TotalEventDiskSpace: 50 });
    await conn.query('DELETE FROM Events WHERE Id = 10');
    t.like(await summary(conn, 1), { WeekEvents: 0, WeekEventDiskSpace: 0, TotalEvents: 0, TotalEventDiskSpace: 0 });
  } finally {
    await conn.end();
  }
});

test('Monitors.ZoneCount follows inserts and deletes of Zones, per monitor', async (t) => {
  const conn = await convergedDatabase('trig_zones');
  try {
    await addMonitor(conn, 1);
    await addMonitor(conn, 2);
    const zoneCounts = async () =>
      ((await conn.query('SELECT Id, ZoneCount FROM Monitors ORDER BY Id')) as { Id: number; ZoneCount: number }[]).map(
        (m) => m.ZoneCount,
      );
    t.deepEqual(await zoneCounts(), [0, 0]);

    await conn.query("INSERT INTO Zones (MonitorId, Name, Coords) VALUES (1, 'All', '0,0 100,0 100,100 0,100')");
    await conn.query("INSERT INTO Zones (MonitorId, Name, Coords) VALUES (1, 'Door', '0,0 10,0 10,10')");
    await conn.query("INSERT INTO Zones (MonitorId, Name, Coords) VALUES (2, 'All', '0,0 100,0 100,100 0,100')");
    t.deepEqual(await zoneCounts(), [2, 1]);

    await conn.query("DELETE FROM Zones WHERE MonitorId = 1 AND Name = 'Door'");
    t.deepEqual(await zoneCounts(), [1, 1]);

    // A drifted count heals on the next change: it is a recount, not +1/-1.
    await conn.query('UPDATE Monitors SET ZoneCount = 9 WHERE Id = 2');
    await conn.query("INSERT INTO Zones (MonitorId, Name, Coords) VALUES (2, 'Gate', '0,0 10,0 10,10')");
    t.deepEqual(await zoneCounts(), [1, 2]);
  } finally {
    await conn.end();
  }
});
