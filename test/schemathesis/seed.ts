// Rows for the schema-fuzzing databases, so that the ids the fuzzer tries exist and operations
// are exercised past their 404. Only ever run on the throwaway databases run.ts creates.
//
// ZoneMinder's own seed rows (Config, Controls, presets, Storage, Filters, ...; not its admin
// user) come first, then two rows (ids 1 and 2) in every table that is still empty, with
// realistic values where a column's default would be nonsense (a zone without coordinates, a
// monitor without a size). Every `*Id` column points at row 1 of its table. Storage points at a
// temporary directory: deletions the fuzzer asks for remove nothing outside it.
import { createConnection, type Connection } from 'mariadb';
import { ZONEMINDER_CONFIG, ZONEMINDER_SEED_ROWS, insertSeedRows } from '../../src/db/seed/index.js';
import type { Queryable } from '../../src/db/converge/introspect.js';
import type { FreshDatabase } from '../helpers/mariadb.js';

/** The ids every seeded table has; the fuzz copy of the document names the first as the example. */
export const SEEDED_IDS = [1, 2];
/** A Config option that exists (ZoneMinder's seed), the example of `{name}`. */
export const SEEDED_CONFIG_NAME = 'ZM_LANG_DEFAULT';
/** A web session id of the seeded Sessions rows. */
export const SEEDED_SESSION_ID = 'seed-session-1';

const now = (n: number) => new Date(Date.now() - n * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');

/** Column values that differ from "row n, every *Id is 1, Name is '<Table> n'". */
function overrides(table: string, n: number): Record<string, unknown> {
  switch (table) {
    case 'Monitors':
      return {
        Type: 'Ffmpeg',
        Function: 'Modect',
        Capturing: 'Always',
        Analysing: 'Always',
        Recording: 'OnMotion',
        Enabled: 1,
        Path: `/dev/null/seed-${n}.mp4`,
        Width: 640,
        Height: 480,
        Colours: 4,
        Orientation: 'ROTATE_0',
        StorageId: 1,
        ServerId: null,
        ControlId: null,
        Controllable: 0,
        Sequence: n,
      };
    case 'Zones':
      return { Type: 'Active', Units: 'Percent', NumCoords: 4, Coords: '0,0 639,0 639,479 0,479', Area: 307200 };
    case 'Events':
      return {
        Cause: 'Motion',
        Notes: 'Motion: seed',
        StartDateTime: now(n + 1),
        EndDateTime: now(n),
        Width: 640,
        Height: 480,
        Length: 60,
        Frames: 10,
        AlarmFrames: 2,
        TotScore: 20,
        AvgScore: 10,
        MaxScore: 10,
        Archived: 0,
        Scheme: 'Medium',
        DefaultVideo: '',
        SaveJPEGs: 3,
        Locked: 0,
        SecondaryStorageId: null,
      };
    case 'Frames':
      return { FrameId: n, Type: 'Normal', TimeStamp: now(2), Delta: n, Score: 0 };
    case 'Sessions':
      return { id: `seed-session-${n}`, access: Math.floor(Date.now() / 1000), data: '' };
    case 'Servers':
      return { Hostname: '127.0.0.1', Protocol: 'http', Port: 80, Status: 'Running' };
    case 'Logs':
      return {
        TimeKey: Date.now() / 1000 - n,
        Component: 'zmc',
        Code: 'INF',
        Level: 0,
        Message: `seed ${n}`,
        File: 'zmc.cpp',
        Line: 1,
      };
    case 'Groups':
      return { ParentId: null };
    default:
      return {};
  }
}

interface Column {
  TABLE_NAME: string;
  COLUMN_NAME: string;
  DATA_TYPE: string;
  COLUMN_KEY: string;
  IS_NULLABLE: string;
  COLUMN_DEFAULT: string | null;
}

async function seedTable(conn: Connection, table: string, columns: Column[]): Promise<void> {
  const names = new Set(columns.map((c) => c.COLUMN_NAME));
  for (const n of SEEDED_IDS) {
    const row: Record<string, unknown> = {};
    for (const c of columns) {
      const numeric = /int|decimal|float|double/.test(c.DATA_TYPE);
      if (c.COLUMN_KEY === 'PRI') row[c.COLUMN_NAME] = numeric ? n : `seed-${n}`;
      else if (numeric && /Id$/.test(c.COLUMN_NAME)) row[c.COLUMN_NAME] = 1;
      else if (c.COLUMN_NAME === 'Name') row[c.COLUMN_NAME] = `${table} ${n}`;
      else if (/datetime|timestamp/.test(c.DATA_TYPE) && c.IS_NULLABLE === 'NO') row[c.COLUMN_NAME] = now(n);
    }
    for (const [k, v] of Object.entries(overrides(table, n))) if (names.has(k)) row[k] = v;
    const cols = Object.keys(row);
    await conn.query(
      `INSERT IGNORE INTO \`${table}\` (${cols.map((c) => `\`${c}\``).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
      cols.map((c) => row[c]),
    );
  }
}

/** Seeds `db` (see the file comment); `storageDir` becomes the path of every Storage row. */
export async function seedFuzzDatabase(
  db: FreshDatabase,
  storageDir: string,
  /** false on a database whose own zm_create.sql already wrote ZoneMinder's rows (1.36). */
  zoneminderRows = true,
): Promise<Record<string, number>> {
  const conn = await createConnection(db.db.connectionConfig(db.name));
  try {
    // Rows are written table by table: referenced rows may come later, and unset NOT NULL
    // columns take their type's implicit default.
    await conn.query("SET SESSION sql_mode = '', FOREIGN_KEY_CHECKS = 0");
    if (zoneminderRows)
      for (const seed of [...ZONEMINDER_SEED_ROWS, ZONEMINDER_CONFIG])
        if (seed.table !== 'Users') await insertSeedRows(conn as unknown as Queryable, seed);
    await conn.query('UPDATE Storage SET Path = ?, ServerId = NULL', [storageDir]);
    // An ordinary user with id 1 beside the fuzzing admin (whose id is far away).
    await conn.query(
      "INSERT IGNORE INTO Users (Id, Username, Password, Enabled, APIEnabled, Stream, Events, Monitors) VALUES (1, 'viewer', '', 1, 1, 'View', 'View', 'View')",
    );
    const columns = (await conn.query(
      'SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_KEY, IS_NULLABLE, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION',
      [db.name],
    )) as Column[];
    const byTable = new Map<string, Column[]>();
    // The service's own bookkeeping tables (zmgate_*) are not ZoneMinder's: left as they are.
    for (const c of columns)
      if (!c.TABLE_NAME.startsWith('zmgate_')) byTable.set(c.TABLE_NAME, [...(byTable.get(c.TABLE_NAME) ?? []), c]);
    // Monitors first: the triggers of zones and events update rows of their monitor.
    const order = ['Monitors', ...[...byTable.keys()].filter((t) => t !== 'Monitors')];
    for (const table of order) {
      const [{ n }] = (await conn.query(`SELECT COUNT(*) AS n FROM \`${table}\``)) as { n: bigint }[];
      if (Number(n) === 0) await seedTable(conn, table, byTable.get(table)!);
    }
    // The event buckets as ZoneMinder's triggers keep them: rows of existing events only, and
    // Events_Archived of archived ones (the triggers insert a row when an event is made or
    // archived; a row already there for that id would be a duplicate).
    for (const bucket of ['Events_Hour', 'Events_Day', 'Events_Week', 'Events_Month'])
      await conn.query(`DELETE b FROM ${bucket} b LEFT JOIN Events e ON e.Id = b.EventId WHERE e.Id IS NULL`);
    await conn.query(
      'DELETE ea FROM Events_Archived ea LEFT JOIN Events e ON e.Id = ea.EventId WHERE e.Id IS NULL OR e.Archived = 0',
    );
    const counts: Record<string, number> = {};
    for (const table of order) {
      const [{ n }] = (await conn.query(`SELECT COUNT(*) AS n FROM \`${table}\``)) as { n: bigint }[];
      counts[table] = Number(n);
    }
    return counts;
  } finally {
    await conn.end();
  }
}
