// GET /api/v3/events: filters and sort turned into SQL over the Events table.
//
// Speed on big installs (measured on 1,000,000 events, bench/events-api.ts) comes from the
// 1.39.22 indexes: (StartDateTime), (MonitorId, StartDateTime), (EndDateTime, MonitorId) and
// (StorageId). InnoDB appends the primary key to every secondary index, so ordering by
// `StartDateTime, Id` in one direction walks Events_StartDateTime_idx (or, with one monitor,
// Events_MonitorId_StartDateTime_idx) and stops after the page: no filesort.
// The page is fetched as a deferred join: the ordered LIMIT/OFFSET runs over ids only (an
// index-only walk for the common cases) and only the page's rows are read in full, so deep
// pages do not read every skipped row.
// The total is an exact COUNT(*) with the same WHERE (cached for at most 2 s, docs/api-caches.md): unfiltered, InnoDB counts the smallest
// secondary index; per monitor or time range, it counts an index range. Event_Summaries is not
// used for it: only zmc's own queued SQL and the triggers maintain TotalEvents, so it drifts on
// installs where events arrive any other way, and a total must equal the rows one can page to.
import { InvalidInputError } from '../../errors.js';
import { parseEventTime, wallClockSql, type ZoneClock } from '../../zm/event-time.js';

export const EVENT_SORT_FIELDS = {
  start_time: 'StartDateTime',
  end_time: 'EndDateTime',
  alarm_frames: 'AlarmFrames',
  max_score: 'MaxScore',
  avg_score: 'AvgScore',
  tot_score: 'TotScore',
  length: 'Length',
  id: 'Id',
  name: 'Name',
  cause: 'Cause',
  monitor_id: 'MonitorId',
  notes: 'Notes',
  frames: 'Frames',
} as const;
export type EventSortField = keyof typeof EVENT_SORT_FIELDS;

// ZoneMinder's own column names (ZM_WEB_EVENT_SORT_FIELD holds e.g. `StartDateTime`) are
// accepted as aliases of the v3 names.
const SORT_ALIASES = new Map<string, EventSortField>(
  Object.entries(EVENT_SORT_FIELDS).map(([field, column]) => [column, field as EventSortField]),
);

export interface EventListFilters {
  monitor_id?: number;
  start_time?: string;
  end_time?: string;
  sort?: string;
  direction?: string;
  alarm_frames_min?: number;
  archived?: boolean;
  cause?: string;
  name?: string;
  notes?: string;
  tag_id?: string;
  storage_id?: number;
}

export interface EventListSql {
  /** `WHERE …` (or '') over the Events table, with `?` placeholders. */
  where: string;
  params: unknown[];
  /** `ORDER BY …` over the Events table. */
  orderBy: string;
  /** True when no row can match (e.g. the caller may see no monitor). */
  empty: boolean;
}

/** LIKE pattern for a case-insensitive substring match, with the wildcards escaped. */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** An ISO 8601 filter value as the SQL literal of ZoneMinder's wall clock ('YYYY-MM-DD HH:MM:SS.mmm'). */
function parseTime(field: string, text: string, clock: ZoneClock): string {
  const wall = parseEventTime(text, clock);
  if (!wall) {
    throw new InvalidInputError('Invalid input', [
      [
        field,
        'must be an ISO 8601 date-time, e.g. 2026-11-22T08:53:58Z or 2026-11-22T08:53:58 (ZoneMinder local time)',
      ],
    ]);
  }
  return wallClockSql(wall);
}

export function parseSort(
  sort: string | undefined,
  direction: string | undefined,
): { field: EventSortField; dir: 'ASC' | 'DESC' } {
  let field: EventSortField = 'start_time';
  if (sort !== undefined && sort !== '') {
    const alias = Object.hasOwn(EVENT_SORT_FIELDS, sort) ? (sort as EventSortField) : SORT_ALIASES.get(sort);
    if (!alias)
      throw new InvalidInputError('Invalid input', [
        ['sort', `must be one of ${Object.keys(EVENT_SORT_FIELDS).join(', ')}`],
      ]);
    field = alias;
  }
  let dir: 'ASC' | 'DESC' = 'DESC';
  if (direction !== undefined && direction !== '') {
    const d = direction.toLowerCase();
    if (d !== 'asc' && d !== 'desc')
      throw new InvalidInputError('Invalid input', [['direction', 'must be asc or desc']]);
    dir = d === 'asc' ? 'ASC' : 'DESC';
  }
  return { field, dir };
}

function parseTagIds(text: string): string[] {
  const ids = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (!ids.length || ids.some((s) => !/^\d{1,19}$/.test(s)) || ids.length > 1000) {
    throw new InvalidInputError('Invalid input', [['tag_id', 'must be a comma-separated list of tag ids']]);
  }
  return ids;
}

/**
 * The SQL for a filtered, sorted event list. `visible` is the caller's monitor scope (null:
 * every monitor). Column names come from fixed maps only; every value is a placeholder.
 */
export function eventListSql(filters: EventListFilters, visible: Set<number> | null, clock: ZoneClock): EventListSql {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const { field, dir } = parseSort(filters.sort, filters.direction);
  const orderBy = `ORDER BY ${EVENT_SORT_FIELDS[field]} ${dir}${field === 'id' ? '' : `, Id ${dir}`}`;
  let empty = false;

  if (visible) {
    if (visible.size === 0) empty = true;
    else {
      conditions.push(`MonitorId IN (${[...visible].map(() => '?').join(', ')})`);
      params.push(...[...visible].sort((a, b) => a - b));
    }
  }
  if (filters.monitor_id !== undefined) {
    conditions.push('MonitorId = ?');
    params.push(filters.monitor_id);
  }
  if (filters.start_time !== undefined) {
    conditions.push('StartDateTime >= ?');
    params.push(parseTime('start_time', filters.start_time, clock));
  }
  if (filters.end_time !== undefined) {
    // As the reference: an event matches when it ENDED by end_time (open events do not).
    conditions.push('EndDateTime <= ?');
    params.push(parseTime('end_time', filters.end_time, clock));
  }
  if (filters.alarm_frames_min !== undefined) {
    conditions.push('AlarmFrames >= ?');
    params.push(filters.alarm_frames_min);
  }
  if (filters.archived !== undefined) conditions.push(filters.archived ? 'Archived <> 0' : 'Archived = 0');
  if (filters.storage_id !== undefined) {
    // StorageId 0 and NULL both mean the default storage (ZM_DIR_EVENTS).
    conditions.push(filters.storage_id === 0 ? '(StorageId = 0 OR StorageId IS NULL)' : 'StorageId = ?');
    if (filters.storage_id !== 0) params.push(filters.storage_id);
  }
  for (const [name, column] of [
    ['name', 'Name'],
    ['cause', 'Cause'],
    ['notes', 'Notes'],
  ] as const) {
    const text = filters[name];
    if (text === undefined || text === '') continue;
    // LOWER() on both sides: the match is case-insensitive whatever the column's collation.
    conditions.push(`LOWER(${column}) LIKE ?`);
    params.push(containsPattern(text));
  }
  if (filters.tag_id !== undefined && filters.tag_id !== '') {
    const tags = parseTagIds(filters.tag_id);
    conditions.push(
      `EXISTS (SELECT 1 FROM Events_Tags et WHERE et.EventId = Events.Id AND et.TagId IN (${tags.map(() => '?').join(', ')}))`,
    );
    params.push(...tags);
  }
  return { where: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', params, orderBy, empty };
}
