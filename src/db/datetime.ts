// ZoneMinder's DATETIME columns hold LOCAL wall-clock time with no zone. @prisma/adapter-mariadb
// reads '2026-11-22 08:53:58' as the Date 2026-11-22T08:53:58Z and writes a Date with its UTC
// getters. So inside zmgate a Prisma DateTime is a "wall-clock Date": its UTC fields are the
// stored digits. These helpers convert at the edges and never look at the process time zone,
// so the result is the same under any TZ.
import { processTimeZone, ZoneClock } from './zone-clock.js';

/** 'YYYY-MM-DD HH:MM:SS' or 'YYYY-MM-DDTHH:MM:SS', optional fraction; no zone or offset. */
const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?$/;

/**
 * A wall-clock Date (as Prisma returns DATETIMEs) -> 'YYYY-MM-DDTHH:MM:SS', the digits stored.
 * Milliseconds are appended only when non-zero (DATETIME(3) columns); ZoneMinder's own columns
 * are whole seconds. null, undefined and invalid Dates give null.
 */
export function toLocalDateTimeString(d: Date | null | undefined): string | null {
  if (!d || Number.isNaN(d.getTime())) return null;
  const iso = d.toISOString(); // the UTC fields, i.e. the stored digits
  return d.getUTCMilliseconds() ? iso.slice(0, 23) : iso.slice(0, 19);
}

/**
 * The inverse: a local wall-clock string -> the Date to hand to Prisma so that exactly these
 * digits are stored. Strings with 'Z' or an offset name an instant, not a wall-clock time, and
 * are refused (convert them with toWallClock()). Throws RangeError when malformed or not a real
 * calendar date, so a bad input never turns into a silently wrong row.
 */
export function fromLocalDateTimeString(s: string): Date;
export function fromLocalDateTimeString(s: string | null | undefined): Date | null;
export function fromLocalDateTimeString(s: string | null | undefined): Date | null {
  if (s === null || s === undefined) return null;
  const m = WALL_CLOCK.exec(s.trim());
  if (!m) throw new RangeError(`not a local date-time (YYYY-MM-DDTHH:MM:SS without offset): ${JSON.stringify(s)}`);
  const [y, mo, d, h = 0, mi = 0, sec = 0] = m.slice(1, 7).map((part) => Number(part ?? 0));
  const ms = Math.floor(Number(`0.${m[7] ?? '0'}`) * 1000);
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, sec, ms));
  date.setUTCFullYear(y); // Date.UTC maps years 0-99 to 1900-1999
  // Date.UTC rolls over (Feb 30 -> Mar 1); a real calendar date survives the round trip.
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || sec > 59) {
    throw new RangeError(`not a valid calendar date-time: ${JSON.stringify(s)}`);
  }
  return date;
}

/**
 * fromLocalDateTimeString for a client's input to a DATETIME column: also refuses years outside
 * 1000 to 9999 (MariaDB's DATETIME range). The driver cannot read earlier years back, so storing
 * one would make every later read of the row fail.
 */
export function fromLocalDateTimeInput(s: string): Date {
  const date = fromLocalDateTimeString(s);
  const year = date.getUTCFullYear();
  if (year < 1000 || year > 9999) throw new RangeError(`year out of range 1000-9999: ${JSON.stringify(s)}`);
  return date;
}

/**
 * The wall-clock Date for an instant as seen in `timeZone` (an IANA name; default: this
 * process's zone). Use it to write "now" the way ZoneMinder does: toWallClock(new Date(), tz).
 */
export function toWallClock(instant: Date, timeZone?: string): Date {
  return new ZoneClock(timeZone ?? processTimeZone()).toWall(instant);
}

/**
 * The instant a wall-clock Date denotes in `timeZone` (default: this process's zone), e.g. to
 * emit ISO 8601 with 'Z'. In the hour a DST change repeats, the earlier instant is chosen; a
 * wall-clock time skipped by DST moves forward by the gap.
 */
export function fromWallClock(wall: Date, timeZone?: string): Date {
  return new ZoneClock(timeZone ?? processTimeZone()).fromWall(wall);
}
