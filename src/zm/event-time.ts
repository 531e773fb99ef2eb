// Event times between ZoneMinder's local wall-clock DATETIMEs and the instants v3 clients
// expect.
//
// Events.StartDateTime/EndDateTime hold zmc's local wall-clock time with no zone (docs/zoneminder/event-storage.md).
// The reference schema types event start/end as `date-time`, and clients parse them with
// Date.parse expecting an offset or `Z` (docs/contract/clients.md, §18.11). A bare local string would
// be read in the *browser's* zone, wrong whenever browser and server zones differ; so event
// instants are emitted as UTC with `Z`, converted with ZoneMinder's zone: Config ZM_TIMEZONE
// when set and valid, else this process's zone (the reference used the process zone only,
// docs/contract/clients.md).
//
// Filters arrive as ISO 8601: with `Z` or an offset they name an instant, converted to
// ZoneMinder's wall clock before comparing with the stored digits; without an offset they are
// taken as ZoneMinder wall-clock time as stored.
import type { PrismaClient } from '../db/prisma.js';
import type { DbPool } from '../db/pool.js';
import type { Logger } from '../log.js';
import { isValidTimeZone, processTimeZone, ZoneClock } from '../db/zone-clock.js';
import type { Services } from '../registry.js';
import { InvalidInputError } from '../errors.js';

export { isValidTimeZone, processTimeZone, ZoneClock };

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/**
 * Parses an ISO 8601 date-time into a ZoneMinder wall-clock Date (see the header). Returns
 * null when the text is not a valid calendar date-time, or falls outside years 1000 to 9999
 * (MariaDB's DATETIME range; the driver cannot read earlier years back, so storing one would
 * break every later read of the row); callers turn that into a 400.
 */
export function parseEventTime(text: string, clock: ZoneClock): Date | null {
  const wall = parseIsoToWall(text, clock);
  if (!wall || Number.isNaN(wall.getTime())) return null;
  const year = wall.getUTCFullYear();
  return year < 1000 || year > 9999 ? null : wall;
}

function parseIsoToWall(text: string, clock: ZoneClock): Date | null {
  const m = ISO_8601.exec(text.trim());
  if (!m) return null;
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1, 7).map((part) => Number(part ?? 0));
  const ms = Math.floor(Number(`0.${m[7] ?? '0'}`) * 1000);
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null;
  const fields = new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
  fields.setUTCFullYear(y);
  if (fields.getUTCMonth() !== mo - 1 || fields.getUTCDate() !== d) return null; // Feb 30 and the like
  if (m[8] === undefined && m[9] === undefined) return fields;
  let offsetMin = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11] ?? 0);
    if (oh > 23 || om > 59) return null;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  return clock.toWall(new Date(fields.getTime() - offsetMin * 60_000));
}

/** A wall-clock Date as a DATETIME literal (the stored digits; never shifted by a zone). */
export function wallClockSql(wall: Date): string {
  return wall.toISOString().slice(0, 23).replace('T', ' ');
}

// A TIMESTAMP column holds 1970-01-01 00:00:01 to 2038-01-19 03:14:07 (UTC; the session zone
// shifts the bounds by at most a day, so a day of margin is kept on each side).
const TIMESTAMP_MIN = Date.UTC(1970, 0, 2);
const TIMESTAMP_MAX = Date.UTC(2038, 0, 18);

/**
 * A date-time sent to a write route, parsed as parseEventTime does (with `Z` or an offset an
 * instant, without one ZoneMinder's wall clock), so a client can send back what it read. For a
 * TIMESTAMP column (`timestamp: true`) the value must also fit that column's range. 400 naming
 * `field` otherwise.
 */
export function parseTimeInput(field: string, text: string, clock: ZoneClock, timestamp = false): Date {
  const wall = parseEventTime(text, clock);
  if (!wall)
    throw new InvalidInputError('Invalid input', [[field, 'must be an ISO 8601 date-time in years 1000 to 9999']]);
  if (timestamp && (wall.getTime() < TIMESTAMP_MIN || wall.getTime() > TIMESTAMP_MAX))
    throw new InvalidInputError('Invalid input', [[field, 'must be between 1970-01-02 and 2038-01-18']]);
  return wall;
}

const RELATIVE = /^([+-])\s*(\d{1,6})\s*(second|minute|hour|day|week|month)s?$/i;
const UNIT_MS: Record<string, number> = { second: 1000, minute: 60_000, hour: 3_600_000 };

/**
 * A filter time as ZoneMinder filters hold them (its UI and zmfilter.pl pass them to strtotime /
 * Date::Manip), restricted to a documented subset so every accepted value means the same thing
 * here and there:
 *   - `now`;
 *   - `-N unit` or `+N unit`, unit one of second, minute, hour, day, week, month (plural
 *     allowed, N at most 999999): seconds to hours move the instant; days, weeks and months
 *     move ZoneMinder's wall clock (so `-1 day` keeps the time of day across a DST change, as
 *     strtotime does);
 *   - an ISO 8601 date or date-time (parseEventTime).
 * Returns the ZoneMinder wall-clock Date, or null for anything else (callers answer 400).
 */
export function parseFilterTime(text: string, clock: ZoneClock, now: Date = new Date()): Date | null {
  const trimmed = text.trim();
  if (/^now$/i.test(trimmed)) return clock.toWall(now);
  const m = RELATIVE.exec(trimmed);
  if (!m) return parseEventTime(trimmed, clock);
  const amount = Number(m[2]) * (m[1] === '-' ? -1 : 1);
  const unit = m[3].toLowerCase();
  let wall: Date;
  if (UNIT_MS[unit]) {
    wall = clock.toWall(new Date(now.getTime() + amount * UNIT_MS[unit]));
  } else {
    wall = clock.toWall(now);
    if (unit === 'month') wall.setUTCMonth(wall.getUTCMonth() + amount);
    else wall.setUTCDate(wall.getUTCDate() + amount * (unit === 'week' ? 7 : 1));
  }
  const year = wall.getUTCFullYear();
  return Number.isNaN(wall.getTime()) || year < 1000 || year > 9999 ? null : wall;
}

// ZM_TIMEZONE rarely changes; it is re-read at most once a minute per app.
const CACHE_MS = 60_000;
// ZoneClocks are immutable: one per zone name for the process.
const clocks = new Map<string, ZoneClock>();

function clockFor(tz: string): ZoneClock {
  let clock = clocks.get(tz);
  if (!clock) clocks.set(tz, (clock = new ZoneClock(tz)));
  return clock;
}

/** Where ZM_TIMEZONE is read from: the app's driver pool, or a Prisma client (tests, tools). */
export type ZoneSource = PrismaClient | Pick<DbPool, 'query'>;

async function readZoneSetting(source: ZoneSource): Promise<string | null | undefined> {
  if ('query' in source && typeof source.query === 'function') {
    const rows = (await source.query('SELECT Value FROM Config WHERE Name = ?', ['ZM_TIMEZONE'])) as Array<{
      Value: string | null;
    }>;
    return rows[0]?.Value;
  }
  const row = await (source as PrismaClient).config.findUnique({
    where: { Name: 'ZM_TIMEZONE' },
    select: { Value: true },
  });
  return row?.Value;
}

async function readZoneMinderZone(source: ZoneSource, log?: Logger): Promise<ZoneClock> {
  const configured = (await readZoneSetting(source))?.trim() ?? '';
  if (configured && isValidTimeZone(configured)) return clockFor(configured);
  if (configured)
    log?.warn(
      { ZM_TIMEZONE: configured.slice(0, 64) },
      'ZM_TIMEZONE is not a known time zone; using the process time zone',
    );
  return clockFor(processTimeZone());
}

/** ZoneMinder's clock: ZM_TIMEZONE when set and valid, else the process zone. Cached. */
export function zoneMinderClock(source: ZoneSource, log?: Logger): () => Promise<ZoneClock> {
  let hit: { at: number; clock: Promise<ZoneClock> } | undefined;
  return () => {
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.clock;
    const clock = readZoneMinderZone(source, log);
    const entry = { at: Date.now(), clock };
    hit = entry;
    clock.catch(() => {
      if (hit === entry) hit = undefined; // a failed read is retried on the next request
    });
    return clock;
  };
}

/** The process zone's clock, for services built without the registry (tests, tools). */
export const processZoneClock = async (): Promise<ZoneClock> => clockFor(processTimeZone());

/**
 * The app's ZoneMinder clock in the registry: every service shares one cache of ZM_TIMEZONE.
 * Read through the driver pool: the clock is needed by the polled lists and the push watchers,
 * which otherwise never touch Prisma (its query compiler is loaded on first use).
 */
export const ZoneMinderClock = { from: (s: Services): (() => Promise<ZoneClock>) => zoneMinderClock(s.pool, s.log) };
