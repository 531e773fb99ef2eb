// Finding an event's files on disk, safely, for the playback routes.
//
// Only numbers and the event row reach the filesystem: the directory comes from eventPaths()
// (numeric ids, date parts of StartDateTime, the event's Scheme) under the Storage root, and a
// file inside it is looked up by a name we build or a plain base name (DefaultVideo) that is
// checked first. Every file is then resolved with realpath() and must still lie inside the
// event directory's real path, so neither `..` nor a symlink can lead a request out of it.
// Hidden events (row ACL) and missing events give the same 404.
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { AuthUser } from '../../auth/auth-service.js';
import type { MonitorAcl } from '../../auth/monitor-acl.js';
import type { PrismaClient } from '../../db/prisma.js';
import { InternalError, NotFoundError } from '../../errors.js';
import type { Orientation } from '../../api/wrappers.js';
import type { Logger } from '../../log.js';
import { eventPaths, isSafeRoot, type EventScheme } from '../../zm/event-paths.js';

/** Containers ZoneMinder writes (OutputContainer) or that a DefaultVideo may name. */
export const VIDEO_EXTENSIONS = ['mp4', 'm4v', 'mov', 'mkv', 'webm', 'avi'];
const VIDEO_EXT = new RegExp(`\\.(${VIDEO_EXTENSIONS.join('|')})$`, 'i');
const JPEG_FRAME = /^(\d+)-(capture|analyse)\.jpg$/;

export type StillKind = 'capture' | 'analyse';

export interface EventRecord {
  id: bigint;
  monitorId: number;
  inProgress: boolean;
  orientation: Orientation;
  lengthSeconds: number;
  width: number;
  height: number;
  frames: number;
  defaultVideo: string;
  /** The event directory's real path; null when it does not exist (or the storage is unusable). */
  dir: string | null;
}

export interface VideoFile {
  /** Real path inside the event directory. */
  path: string;
  name: string;
  /** Lower-case extension: mp4, mkv, webm, … */
  container: string;
}

export const eventNotFound = (id: bigint | number | string) =>
  new NotFoundError(`Event ${id} not found`, [['event_id', String(id)]], 'EVENT');

export const fileNotFound = (id: bigint | number | string, reason: string) =>
  new NotFoundError(
    reason,
    [
      ['event_id', String(id)],
      ['reason', reason],
    ],
    'FILE',
  );

/** A single path component that names a file in the same directory: no separators, NUL, `.` or `..`. */
export function isPlainFileName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && !/[/\\\0]/.test(name) && name !== '.' && name !== '..';
}

/** DefaultVideo is used only when it is a plain file name with a video extension (docs/zoneminder/event-storage.md). */
export function usableDefaultVideo(name: string | null | undefined): string | null {
  const n = (name ?? '').trim();
  return isPlainFileName(n) && VIDEO_EXT.test(n) ? n : null;
}

export class EventMediaLocator {
  private digits: { value: number; at: number } | null = null;
  /** Directory listings are read per request; this memoises them within one lookup object. */
  private readonly listings = new WeakMap<EventRecord, Promise<string[]>>();

  constructor(
    private readonly prisma: PrismaClient,
    private readonly acl: MonitorAcl,
    /** ZM_DIR_EVENTS: the root for StorageId 0 or a missing Storage row. */
    private readonly defaultEventsDir: string,
    private readonly log: Logger,
  ) {}

  /** The event, when it exists and its monitor is visible to the caller; else 404. */
  async event(user: AuthUser, id: bigint): Promise<EventRecord> {
    const [row, scope] = await Promise.all([
      this.prisma.events.findUnique({
        where: { Id: id },
        select: {
          Id: true,
          MonitorId: true,
          StorageId: true,
          StartDateTime: true,
          EndDateTime: true,
          DefaultVideo: true,
          Scheme: true,
          Orientation: true,
          Length: true,
          Width: true,
          Height: true,
          Frames: true,
        },
      }),
      this.acl.scope(user),
    ]);
    if (!row || (scope.visible && !scope.visible.has(row.MonitorId))) throw eventNotFound(id);
    const storage = row.StorageId
      ? await this.prisma.storage.findUnique({ where: { Id: row.StorageId }, select: { Path: true } })
      : null;
    const root = storage?.Path || this.defaultEventsDir;
    if (!isSafeRoot(root)) {
      this.log.error(
        { event_id: String(id), storage_id: row.StorageId },
        'event media refused: the storage path is not an absolute path without ..',
      );
      throw new InternalError(`The storage of event ${id} is misconfigured`);
    }
    const computed = eventPaths(
      { id: row.Id, monitorId: row.MonitorId, startDateTime: row.StartDateTime, scheme: row.Scheme as EventScheme },
      root,
    ).eventDir;
    const dir = await realpath(computed).catch(() => null);
    return {
      id: row.Id,
      monitorId: row.MonitorId,
      inProgress: row.EndDateTime === null,
      orientation: row.Orientation as Orientation,
      lengthSeconds: Number(row.Length),
      width: row.Width,
      height: row.Height,
      frames: row.Frames ?? 0,
      defaultVideo: row.DefaultVideo,
      dir:
        dir &&
        (await stat(dir).then(
          (s) => s.isDirectory(),
          () => false,
        ))
          ? dir
          : null,
    };
  }

  /** The real path of regular file `name` inside the event directory, or null. */
  async file(event: EventRecord, name: string): Promise<string | null> {
    if (!event.dir || !isPlainFileName(name)) return null;
    let real: string;
    try {
      real = await realpath(path.join(event.dir, name));
    } catch {
      return null;
    }
    // A symlink (or anything else) that resolves outside the directory is treated as missing.
    if (path.dirname(real) !== event.dir) {
      this.log.warn(
        { event_id: String(event.id), name },
        'event media refused: the file resolves outside the event directory',
      );
      return null;
    }
    return (await stat(real).then(
      (s) => s.isFile(),
      () => false,
    ))
      ? real
      : null;
  }

  /** The names in the event directory (empty when there is none). */
  list(event: EventRecord): Promise<string[]> {
    let listing = this.listings.get(event);
    if (!listing) {
      listing = event.dir
        ? readdir(event.dir).then(
            (names) => names.sort(),
            () => [],
          )
        : Promise.resolve([]);
      this.listings.set(event, listing);
    }
    return listing;
  }

  /**
   * The recording (docs/zoneminder/event-storage.md): DefaultVideo when it is a safe name; while recording, the
   * `incomplete.*` file; then `<Id>-video.mp4`, `<Id>-video.h264.mp4`, `<Id>.mp4`; then any
   * `<Id>-video[.<codec>].<container>`; last, an `incomplete.*` left by an event that was closed
   * without its file being renamed.
   */
  async video(event: EventRecord): Promise<VideoFile | null> {
    const id = String(event.id);
    const names = await this.list(event);
    const incomplete = names.filter((n) => n.startsWith('incomplete.') && VIDEO_EXT.test(n));
    const named = new RegExp(`^${id}-video(\\.[A-Za-z0-9]+)?\\.(${VIDEO_EXTENSIONS.join('|')})$`, 'i');
    const candidates = [
      usableDefaultVideo(event.defaultVideo),
      ...(event.inProgress ? incomplete : []),
      `${id}-video.mp4`,
      `${id}-video.h264.mp4`,
      `${id}.mp4`,
      ...names.filter((n) => named.test(n)),
      ...incomplete,
    ];
    for (const name of candidates) {
      if (!name) continue;
      const real = await this.file(event, name);
      if (real) return { path: real, name, container: path.extname(name).slice(1).toLowerCase() };
    }
    return null;
  }

  /** Frame numbers that have a `<NNNNN>-<kind>.jpg` in the directory, ascending. */
  async frameNumbers(event: EventRecord, kind: StillKind): Promise<number[]> {
    const numbers: number[] = [];
    for (const name of await this.list(event)) {
      const m = JPEG_FRAME.exec(name);
      if (m && m[2] === kind) numbers.push(Number(m[1]));
    }
    return numbers.sort((a, b) => a - b);
  }

  /** The still of frame `n` (`%0<digits>d-<kind>.jpg`, ZM_EVENT_IMAGE_DIGITS wide), or null. */
  async frameFile(event: EventRecord, n: number, kind: StillKind): Promise<string | null> {
    const exact = await this.file(event, `${String(n).padStart(await this.imageDigits(), '0')}-${kind}.jpg`);
    if (exact) return exact;
    // Written under another ZM_EVENT_IMAGE_DIGITS: any zero padding of the same number.
    const other = (await this.list(event)).find((name) => {
      const m = JPEG_FRAME.exec(name);
      return m !== null && m[2] === kind && Number(m[1]) === n;
    });
    return other ? this.file(event, other) : null;
  }

  /** ZM_EVENT_IMAGE_DIGITS from the Config table (default 5), re-read at most once a minute. */
  private async imageDigits(): Promise<number> {
    if (this.digits && Date.now() - this.digits.at < 60_000) return this.digits.value;
    const row = await this.prisma.config
      .findUnique({ where: { Name: 'ZM_EVENT_IMAGE_DIGITS' }, select: { Value: true } })
      .catch(() => null);
    const n = Number(row?.Value);
    const value = Number.isInteger(n) && n >= 1 && n <= 12 ? n : 5;
    this.digits = { value, at: Date.now() };
    return value;
  }
}
