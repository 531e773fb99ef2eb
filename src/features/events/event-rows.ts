// The event list's reads (a page, its total, the page's tags) straight through the driver, as
// monitor-rows.ts does for monitors. On the cache-miss path of GET /events these three queries
// through Prisma's raw API cost ~3 ms of service CPU per page (the per-monitor list of a busy
// install misses often: 50 keys, each refreshed every 2 s); through the driver's binary protocol
// well under 1 ms. The rows are handed to toEventResponse() in the shape the Prisma adapter
// gives it: DATETIME as a Date whose UTC fields are ZoneMinder's stored wall-clock digits (the
// pool reads dates as text, never shifted by a zone), zero/invalid dates as null.
// test/events/read-path.test.ts checks both paths give identical responses. Writes stay on Prisma.
import type { Pool } from 'mariadb';
import type { LiveColumns } from '../../db/live-columns.js';
import { isValidDateText } from '../../db/prisma-zero-dates.js';
import { EVENT_COLUMNS, type EventRow, type TagSummary } from './event-json.js';

/** The part of the driver pool used here. */
export type EventRowsDb = Pick<Pool, 'execute'>;

/** Stored wall-clock text → a Date with those digits as UTC fields; zero or invalid dates → null. */
function wallDate(text: unknown): Date | null {
  if (typeof text !== 'string' || !isValidDateText(text)) return null;
  return new Date(`${text.replace(' ', 'T')}Z`);
}

/** Rows of Events as read here, with their DATETIMEs as the adapter gives them. */
function withWallDates(rows: Array<Record<string, unknown>>): EventRow[] {
  for (const r of rows) {
    r.StartDateTime = wallDate(r.StartDateTime);
    r.EndDateTime = wallDate(r.EndDateTime);
  }
  return rows as unknown as EventRow[];
}

export class EventRows {
  /**
   * `columns`: on a database of an older ZoneMinder (1.36, 1.38), the columns it lacks are read as
   * their 1.39 defaults and a missing tag table means no tags; without it all are read as they are.
   */
  constructor(
    private readonly db: EventRowsDb,
    private readonly columns?: LiveColumns,
  ) {}

  private async select(): Promise<string> {
    return this.columns
      ? this.columns.selectList('Events', EVENT_COLUMNS, 'e')
      : EVENT_COLUMNS.map((c) => `e.${c}`).join(', ');
  }

  /** One event, or null. */
  async byId(id: bigint | number): Promise<EventRow | null> {
    const rows = (await this.db.execute(`SELECT ${await this.select()} FROM Events e WHERE e.Id = ?`, [id])) as Array<
      Record<string, unknown>
    >;
    return withWallDates(rows)[0] ?? null;
  }

  /**
   * One page in `orderBy` order: a deferred join (the ordered LIMIT/OFFSET over ids only, then
   * the page's rows by primary key). `where`/`orderBy` come from eventListSql().
   */
  async page(where: string, params: unknown[], orderBy: string, take: number, skip: number): Promise<EventRow[]> {
    const outerOrder = orderBy.replace(/(\w+) (ASC|DESC)/g, 'e.$1 $2');
    const rows = (await this.db.execute(
      `SELECT ${await this.select()} FROM (SELECT Id FROM Events ${where} ${orderBy} LIMIT ? OFFSET ?) page JOIN Events e ON e.Id = page.Id ${outerOrder}`,
      [...params, take, skip],
    )) as Array<Record<string, unknown>>;
    return withWallDates(rows);
  }

  /** The exact number of rows matching `where`. */
  async count(where: string, params: unknown[]): Promise<number> {
    const [row] = (await this.db.execute(`SELECT COUNT(*) AS n FROM Events ${where}`, params)) as Array<{
      n: bigint | number;
    }>;
    return Number(row?.n ?? 0);
  }

  /** The tags of each event (keyed by the event id as a string), ordered by name then id. */
  async tags(ids: Array<number | bigint>): Promise<Map<string, TagSummary[]>> {
    const byEvent = new Map<string, TagSummary[]>();
    if (!ids.length) return byEvent;
    // ZoneMinder before 1.39 has no tags.
    if (this.columns && !(await this.columns.hasTable('Events_Tags'))) return byEvent;
    const rows = (await this.db.execute(
      `SELECT et.EventId, t.Id, t.Name FROM Events_Tags et JOIN Tags t ON t.Id = et.TagId WHERE et.EventId IN (${ids.map(() => '?').join(', ')}) ORDER BY t.Name, t.Id`,
      ids,
    )) as Array<{ EventId: bigint | number; Id: bigint | number; Name: string }>;
    for (const r of rows) {
      const key = String(r.EventId);
      const list = byEvent.get(key);
      const tag = { id: Number(r.Id), name: r.Name };
      if (list) list.push(tag);
      else byEvent.set(key, [tag]);
    }
    return byEvent;
  }
}
