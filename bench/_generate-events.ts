// Fills a throwaway ZoneMinder 1.39.22 database with a big install's events: 50 monitors and
// 1,000,000 closed events over the last 90 days (ids grow with time, as zmc writes them),
// random monitors, lengths, scores and causes, plus Event_Summaries computed from those rows.
// With `zm: '1.36'` the database is ZoneMinder 1.36.33's own (Debian's zm_create.sql and
// triggers.sql, test/helpers/zm136.ts); its event buckets then hold what 1.36's triggers and
// zmstats.pl leave: the last hour's, day's, week's and month's events.
//
// Used by bench/events-api.ts; on its own it generates, prints the timing and row counts, and
// throws the server away:
//   npx tsx bench/_generate-events.ts [--events N] [--monitors N] [--days N]
// Rows go in as multi-row INSERTs of literal values (no placeholders) in batches of 5,000.
import { createConnection, type Connection } from 'mariadb';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { convergeSchema } from '../src/db/converge/index.js';
import { startThrowawayMariaDb, type ThrowawayMariaDb } from '../src/devdb/throwaway-mariadb.js';
import { createScriptFor, runScript, zoneminder136Files } from '../test/helpers/zm136.js';
import { numberFlag } from './_args.js';

export interface GenerateOptions {
  events?: number;
  monitors?: number;
  days?: number;
  /** InnoDB buffer pool for the run; the throwaway server starts with 32M. */
  bufferPoolBytes?: number;
  /** The schema: zmgate's 1.39.22 (default) or ZoneMinder 1.36.33's own. */
  zm?: '1.39' | '1.36';
  log?: (line: string) => void;
}

export interface Generated {
  database: string;
  events: number;
  monitors: number;
  /** Wall-clock (UTC fields = stored digits) of the newest event's start. */
  newestStart: Date;
  ms: number;
}

const BATCH = 5_000;
const CAUSES = ['Motion', 'Motion', 'Motion', 'Signal', 'Forced Web', 'ONVIF', 'Continuous'];

/** A small deterministic PRNG (mulberry32), so two runs generate the same data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sqlDate = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

export async function generateEvents(
  server: ThrowawayMariaDb,
  database: string,
  options: GenerateOptions = {},
): Promise<Generated> {
  const events = options.events ?? 1_000_000;
  const monitors = options.monitors ?? 50;
  const days = options.days ?? 90;
  const log = options.log ?? (() => {});
  const t0 = performance.now();
  await server.createDatabase(database);
  if (options.bufferPoolBytes)
    await server.exec(`SET GLOBAL innodb_buffer_pool_size = ${Math.floor(options.bufferPoolBytes)}`);
  const conn: Connection = await createConnection({ ...server.connectionConfig(database), multipleStatements: false });
  let newest: number;
  const is136 = options.zm === '1.36';
  try {
    if (is136) {
      runScript(server.socket, database, createScriptFor(database), "ZoneMinder 1.36's zm_create.sql");
      // Its per-row bucket trigger would make the load take many minutes; the buckets are filled
      // below as the trigger and zmstats.pl would leave them, and the trigger is put back.
      await conn.query('DROP TRIGGER event_insert_trigger');
      log(`ZoneMinder 1.36 schema loaded in ${Math.round(performance.now() - t0)} ms`);
    } else {
      await convergeSchema(conn, { database });
      log(`schema converged in ${Math.round(performance.now() - t0)} ms`);
    }
    await conn.query(
      // REPLACE: 1.36's zm_create.sql has its own Storage row 1.
      `REPLACE INTO Storage (Id, Path, Name, Scheme) VALUES (1, '/var/cache/zoneminder/events', 'Default', 'Medium')`,
    );
    await conn.query(
      `INSERT INTO Monitors (Id, Name, StorageId) VALUES ${Array.from({ length: monitors }, (_, i) => `(${i + 1}, 'Camera ${i + 1}', 1)`).join(', ')}`,
    );

    // The process zone is ZoneMinder's zone here (no ZM_TIMEZONE row); "now" as its wall clock.
    const offsetMs = -new Date().getTimezoneOffset() * 60_000;
    const end = Date.now() + offsetMs;
    const begin = end - days * 86_400_000;
    const step = (end - begin) / events;
    const random = prng(1_039_022);
    newest = begin;
    await conn.query('SET unique_checks = 0');
    for (let first = 0; first < events; first += BATCH) {
      const rows: string[] = [];
      for (let i = first; i < Math.min(events, first + BATCH); i++) {
        const start = Math.floor(begin + i * step + random() * step);
        const length = 5 + random() * 600;
        const frames = Math.floor(length * 10);
        const alarm = random() < 0.3 ? 0 : Math.floor(random() * Math.min(frames, 200));
        const max = alarm ? 1 + Math.floor(random() * 255) : 0;
        const avg = alarm ? Math.floor(max / 2) : 0;
        const monitor = 1 + Math.floor(random() * monitors);
        const cause = CAUSES[Math.floor(random() * CAUSES.length)];
        const archived = random() < 0.01 ? 1 : 0;
        newest = Math.max(newest, start);
        rows.push(
          `(${monitor},1,'Event-${i + 1}','${cause}','${sqlDate(start)}','${sqlDate(start + length * 1000)}',1920,1080,${length.toFixed(2)},${frames},${alarm},'${i + 1}-video.mp4',3,${avg * alarm},${avg},${max},${archived},1,'${cause}: All',0,${Math.floor(length * 250_000)},'Medium')`,
        );
      }
      await conn.query(
        `INSERT INTO Events (MonitorId, StorageId, Name, Cause, StartDateTime, EndDateTime, Width, Height, Length, Frames, AlarmFrames, DefaultVideo, SaveJPEGs, TotScore, AvgScore, MaxScore, Archived, Videoed, Notes, StateId, DiskSpace, Scheme) VALUES ${rows.join(',')}`,
      );
      if ((first / BATCH) % 40 === 39) log(`${first + BATCH} events (${Math.round(performance.now() - t0)} ms)`);
    }
    await conn.query('SET unique_checks = 1');
    // What zmc and the triggers would have kept: per-monitor totals and the recent windows.
    const now = sqlDate(end);
    await conn.query(
      `INSERT INTO Event_Summaries (MonitorId, TotalEvents, TotalEventDiskSpace, HourEvents, HourEventDiskSpace, DayEvents, DayEventDiskSpace,
         WeekEvents, WeekEventDiskSpace, MonthEvents, MonthEventDiskSpace, ArchivedEvents, ArchivedEventDiskSpace)
       SELECT MonitorId, COUNT(*), SUM(DiskSpace),
         SUM(StartDateTime >= '${now}' - INTERVAL 1 HOUR), SUM(IF(StartDateTime >= '${now}' - INTERVAL 1 HOUR, DiskSpace, 0)),
         SUM(StartDateTime >= '${now}' - INTERVAL 1 DAY), SUM(IF(StartDateTime >= '${now}' - INTERVAL 1 DAY, DiskSpace, 0)),
         SUM(StartDateTime >= '${now}' - INTERVAL 1 WEEK), SUM(IF(StartDateTime >= '${now}' - INTERVAL 1 WEEK, DiskSpace, 0)),
         SUM(StartDateTime >= '${now}' - INTERVAL 1 MONTH), SUM(IF(StartDateTime >= '${now}' - INTERVAL 1 MONTH, DiskSpace, 0)),
         SUM(Archived), SUM(IF(Archived, DiskSpace, 0))
       FROM Events GROUP BY MonitorId`,
    );
    if (is136) {
      for (const [table, window] of [
        ['Events_Hour', '1 HOUR'],
        ['Events_Day', '1 DAY'],
        ['Events_Week', '1 WEEK'],
        ['Events_Month', '1 MONTH'],
      ])
        await conn.query(
          `INSERT INTO ${table} (EventId, MonitorId, StartDateTime, DiskSpace)
           SELECT Id, MonitorId, StartDateTime, DiskSpace FROM Events WHERE StartDateTime >= '${now}' - INTERVAL ${window}`,
        );
      const triggers = readFileSync(zoneminder136Files().triggersSql, 'utf8');
      runScript(server.socket, database, triggers, "ZoneMinder 1.36's triggers.sql");
    }
    await conn.query('ANALYZE TABLE Events');
  } finally {
    await conn.end();
  }
  const ms = Math.round(performance.now() - t0);
  log(`${events} events on ${monitors} monitors generated in ${ms} ms`);
  return { database, events, monitors, newestStart: new Date(newest), ms };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const server = await startThrowawayMariaDb({ startTimeoutMs: 60_000 });
  try {
    const result = await generateEvents(server, 'zm_bench', {
      events: numberFlag('events', 1_000_000),
      monitors: numberFlag('monitors', 50),
      days: numberFlag('days', 90),
      bufferPoolBytes: 512 * 1024 * 1024,
      log: (line) => console.log(line),
    });
    const [row] = await server.query<{ n: bigint }>('SELECT COUNT(*) AS n FROM Events', [], result.database);
    console.log(`Events rows: ${row.n}`);
  } finally {
    await server.stop();
  }
}
