// Where an event's files live (docs/zoneminder/event-storage.md). The root is the event's Storage row Path; StorageId
// 0/NULL or a missing row means ZM_DIR_EVENTS. The layout is the event's own Scheme (copied at
// creation; never the Storage row's current Scheme), with date parts taken from StartDateTime,
// which is zmc's local wall-clock time: the stored digits, read through the UTC getters of the
// wall-clock Date (src/db/datetime.ts).
//
//   Deep     <root>/<M>/<yy>/<mm>/<dd>/<HH>/<MM>/<SS>   marker: symlink <root>/<M>/<yy>/<mm>/<dd>/.<Id> -> HH/MM/SS
//   Medium   <root>/<M>/<YYYY-MM-DD>/<Id>               no marker
//   Shallow  <root>/<M>/<Id>                            marker: empty file <root>/<M>/<Id>/.<Id>
//
// Deep and Medium events without a start time fall back to the Shallow path.
import path from 'node:path';

export type EventScheme = 'Deep' | 'Medium' | 'Shallow';

export interface EventPathInput {
  id: number | bigint;
  monitorId: number;
  startDateTime: Date | null;
  scheme: EventScheme;
}

export interface EventPaths {
  root: string;
  /** <root>/<MonitorId>: never removed. */
  monitorDir: string;
  eventDir: string;
  /** The Deep scheme's symlink (outside eventDir); null for the other schemes. */
  deepMarker: string | null;
  /**
   * Directories between eventDir and monitorDir, innermost first, that may be removed once
   * empty (Deep: SS's parents up to yy; Medium: the day folder; Shallow: none).
   */
  parents: string[];
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A storage root is usable for file operations only when absolute and free of `..` segments;
 * anything else would let a bad Storage row point deletions somewhere unexpected.
 */
export function isSafeRoot(root: string): boolean {
  return path.isAbsolute(root) && !root.split(/[\\/]+/).includes('..') && !root.includes('\0');
}

export function eventPaths(event: EventPathInput, root: string): EventPaths {
  const id = String(event.id);
  const monitorDir = path.join(root, String(event.monitorId));
  const start = event.startDateTime && !Number.isNaN(event.startDateTime.getTime()) ? event.startDateTime : null;
  const scheme = start ? event.scheme : 'Shallow';
  if (scheme === 'Deep' && start) {
    const day = path.join(
      monitorDir,
      pad(start.getUTCFullYear() % 100),
      pad(start.getUTCMonth() + 1),
      pad(start.getUTCDate()),
    );
    const hour = path.join(day, pad(start.getUTCHours()));
    const minute = path.join(hour, pad(start.getUTCMinutes()));
    return {
      root,
      monitorDir,
      eventDir: path.join(minute, pad(start.getUTCSeconds())),
      deepMarker: path.join(day, `.${id}`),
      parents: [minute, hour, day, path.dirname(day), path.dirname(path.dirname(day))],
    };
  }
  if (scheme === 'Medium' && start) {
    const date = `${String(start.getUTCFullYear()).padStart(4, '0')}-${pad(start.getUTCMonth() + 1)}-${pad(start.getUTCDate())}`;
    const day = path.join(monitorDir, date);
    return { root, monitorDir, eventDir: path.join(day, id), deepMarker: null, parents: [day] };
  }
  return { root, monitorDir, eventDir: path.join(monitorDir, id), deepMarker: null, parents: [] };
}
