// Conversions between instants and ZoneMinder's wall-clock DATETIMEs for one IANA zone. A
// wall-clock Date carries the local digits in its UTC fields (as the Prisma adapter reads them).
const HOUR_MS = 3_600_000;
// Every zone's offset changes only at multiples of 15 minutes of UTC, so an offset found for
// any instant of a quarter hour holds for the whole quarter hour.
const QUARTER_MS = 900_000;

/** Conversions for one IANA zone, with the formatter and offsets cached (lists convert a lot). */
export class ZoneClock {
  private readonly format: Intl.DateTimeFormat;
  private readonly offsets = new Map<number, number>();

  constructor(readonly timeZone: string) {
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
  }

  /** Milliseconds the zone's wall clock is ahead of UTC at `instant`. */
  offsetAt(instant: number): number {
    const quarter = Math.floor(instant / QUARTER_MS);
    let offset = this.offsets.get(quarter);
    if (offset === undefined) {
      const at = quarter * QUARTER_MS;
      const p = Object.fromEntries(this.format.formatToParts(new Date(at)).map((x) => [x.type, Number(x.value)]));
      const wall = new Date(Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second));
      wall.setUTCFullYear(p.year);
      offset = wall.getTime() - at;
      if (this.offsets.size > 50_000) this.offsets.clear();
      this.offsets.set(quarter, offset);
    }
    return offset;
  }

  /** The wall-clock Date (UTC fields = local digits) for an instant. */
  toWall(instant: Date): Date {
    return new Date(instant.getTime() + this.offsetAt(instant.getTime()));
  }

  /**
   * The instant a wall-clock Date denotes. In the hour a DST change repeats, the earlier
   * instant; a wall-clock time skipped by DST moves forward by the gap.
   */
  fromWall(wall: Date): Date {
    const local = wall.getTime();
    const before = this.offsetAt(local - 24 * HOUR_MS);
    const after = this.offsetAt(local + 24 * HOUR_MS);
    const valid = [local - before, local - after].filter((t) => t + this.offsetAt(t) === local);
    return new Date(valid.length ? Math.min(...valid) : local - before);
  }

  /**
   * A stored wall-clock Date -> `YYYY-MM-DDTHH:MM:SSZ` (null stays null); with `millis`,
   * `YYYY-MM-DDTHH:MM:SS.sssZ` when the value has milliseconds (a DATETIME(3) column).
   */
  toUtcString(wall: Date | null | undefined, millis = false): string | null {
    if (!wall || Number.isNaN(wall.getTime())) return null;
    const iso = this.fromWall(wall).toISOString();
    return millis && wall.getUTCMilliseconds() ? iso : `${iso.slice(0, 19)}Z`;
  }

  /** Wall-clock "now" in this zone, as ZoneMinder would write it. */
  now(): Date {
    return this.toWall(new Date());
  }
}

/** True when `tz` is an IANA zone name this runtime knows. */
export function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The process's own zone (TZ env, else the system zone). */
export function processTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}
