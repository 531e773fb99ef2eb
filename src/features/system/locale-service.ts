// ZoneMinder's locale for clients that format dates (docs/contract/clients.md, §14): the time zone
// ZoneMinder records wall-clock times in, its current UTC offset, and the display patterns.
//
// - timezone: Config ZM_TIMEZONE when it names a zone this runtime knows; else (empty, the
//   default, or unknown) this process's zone, which is the host's unless TZ says otherwise:
//   the same rule the event times follow, so a client converting with it gets the same instants.
// - utc_offset / utc_offset_seconds: that zone's offset now ("+01:00" / 3600; DST included).
// - date_format / datetime_format / time_format: ZM_DATE_FORMAT_PATTERN,
//   ZM_DATETIME_FORMAT_PATTERN and ZM_TIME_FORMAT_PATTERN as stored (ICU patterns, as ZoneMinder's
//   web UI uses them); null when unset (the seed leaves them empty), so clients use their own.
import type { PrismaClient } from '../../db/prisma.js';
import { toWallClock } from '../../db/datetime.js';
import type { Logger } from '../../log.js';
import type { Services } from '../../registry.js';

export interface LocaleResponse {
  /** IANA time zone of ZoneMinder's wall-clock times. */
  timezone?: string | null;
  /** Current offset from UTC, "+HH:MM" or "-HH:MM". */
  utc_offset: string;
  /** Current offset from UTC in seconds (east positive). @isInt */
  utc_offset_seconds: number;
  /** ZM_DATE_FORMAT_PATTERN (ICU), or null when unset. */
  date_format?: string | null;
  /** ZM_DATETIME_FORMAT_PATTERN (ICU), or null when unset. */
  datetime_format?: string | null;
  /** ZM_TIME_FORMAT_PATTERN (ICU), or null when unset. */
  time_format?: string | null;
}

const OPTIONS = ['ZM_TIMEZONE', 'ZM_DATE_FORMAT_PATTERN', 'ZM_DATETIME_FORMAT_PATTERN', 'ZM_TIME_FORMAT_PATTERN'];

function knownZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** "+05:30" for 19800 s, "-03:00" for -10800 s. */
export function formatOffset(seconds: number): string {
  const abs = Math.abs(seconds);
  const hh = String(Math.floor(abs / 3600)).padStart(2, '0');
  const mm = String(Math.floor((abs % 3600) / 60)).padStart(2, '0');
  return `${seconds < 0 ? '-' : '+'}${hh}:${mm}`;
}

/** Seconds `timeZone` is ahead of UTC at `instant`. */
export function offsetSeconds(timeZone: string, instant: Date): number {
  const whole = new Date(Math.floor(instant.getTime() / 1000) * 1000);
  return Math.round((toWallClock(whole, timeZone).getTime() - whole.getTime()) / 1000);
}

/** Invalid ZM_TIMEZONE values already reported, so a bad option is logged once, not per request. */
const reported = new Set<string>();

export class LocaleService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): LocaleService {
    return new LocaleService(s.prisma, s.log);
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async get(): Promise<LocaleResponse> {
    const rows = await this.prisma.config.findMany({
      where: { Name: { in: OPTIONS } },
      select: { Name: true, Value: true },
    });
    const value = (name: string) => rows.find((r) => r.Name === name)?.Value?.trim() || null;
    const configured = value('ZM_TIMEZONE');
    if (configured && !knownZone(configured) && !reported.has(configured)) {
      reported.add(configured);
      this.log.warn(
        { ZM_TIMEZONE: configured.slice(0, 64) },
        'ZM_TIMEZONE is not a known time zone; using the process time zone',
      );
    }
    const timezone =
      configured && knownZone(configured) ? configured : Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
    const seconds = offsetSeconds(timezone, this.now());
    return {
      timezone,
      utc_offset: formatOffset(seconds),
      utc_offset_seconds: seconds,
      date_format: value('ZM_DATE_FORMAT_PATTERN'),
      datetime_format: value('ZM_DATETIME_FORMAT_PATTERN'),
      time_format: value('ZM_TIME_FORMAT_PATTERN'),
    };
  }
}
