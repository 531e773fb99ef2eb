// The one path that deletes an event: `DELETE /api/v3/events/{id}` now, retention later.
//
// Ordering, chosen so that nothing is lost and nothing is left half-done:
//   1. Checks: the event exists, is closed (EndDateTime set), not archived, not locked.
//   2. The event directory is moved aside with one rename() to a hidden sibling
//      `.zmgate-trash.<Id>.<pid>.<ms>` in the same parent, so on the same filesystem: atomic.
//      If that fails for any reason but "no such directory", nothing has changed: we stop.
//   3. One transaction removes the rows: Frames, Stats, Event_Data, Events_Tags, an expired
//      Events_Lock row, the Events row (whose BEFORE DELETE trigger removes the
//      Events_Hour/Day/Week/Month and Events_Archived rows, and the bucket triggers take the
//      counts and disk space off Event_Summaries), any bucket row left behind, and the event's
//      DiskSpace off its Storage row (1.39 keeps Storage.DiskSpace in code, docs/zoneminder/database.md).
//      Lock order is the documented Events -> buckets -> Event_Summaries: the Events row is
//      locked first (SELECT … FOR UPDATE), and the conditions are checked again under the lock.
//   4. If the transaction fails, the directory is renamed back: rows and files as before.
//      If it commits, the moved directory is removed, then the Deep marker symlink and the
//      parent folders left empty (never the monitor folder). A failure here is logged loudly
//      with the path: the rows are gone, the files wait in the trash folder for the audit.
//   A crash between 2 and 4 leaves `.zmgate-trash.<Id>.*` beside the event's folder; whether
//   the Events row still exists says whether to rename it back or remove it. While the row
//   exists, the next deletion of that event finds the moved folder (step 2 looks for it when the
//   event's own folder is gone) and finishes the job with it, so a crash never turns into rows
//   deleted while the files stay behind unnoticed (docs/operations/retention.md).
//
// With Storage.DoDelete = 0 the rows are removed and the files are left alone (docs/zoneminder/event-storage.md).
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { ConflictError, InternalError, NotFoundError } from '../errors.js';
import type { PrismaClient } from '../db/prisma.js';
import type { Logger } from '../log.js';
import { eventPaths, isSafeRoot, type EventPaths, type EventScheme } from './event-paths.js';

/** The name prefix of directories moved aside for deletion. */
export const TRASH_PREFIX = '.zmgate-trash.';

/** The filesystem calls deletion makes; tests substitute failing ones. */
export interface DeletionFs {
  rename(from: string, to: string): Promise<void>;
  rm(target: string): Promise<void>;
  lstat(target: string): Promise<{ isSymbolicLink(): boolean }>;
  unlink(target: string): Promise<void>;
  rmdir(target: string): Promise<void>;
  readdir(target: string): Promise<string[]>;
}

export const nodeDeletionFs: DeletionFs = {
  rename: (from, to) => fsp.rename(from, to),
  rm: (target) => fsp.rm(target, { recursive: true, force: true }),
  lstat: (target) => fsp.lstat(target),
  unlink: (target) => fsp.unlink(target),
  rmdir: (target) => fsp.rmdir(target),
  readdir: (target) => fsp.readdir(target),
};

/**
 * A folder an earlier, interrupted deletion of this event moved aside (`.zmgate-trash.<Id>.*`
 * beside the event's folder), or null.
 */
export async function leftoverTrash(
  fs: Pick<DeletionFs, 'readdir'>,
  eventDir: string,
  id: string,
): Promise<string | null> {
  const parent = path.dirname(eventDir);
  let names: string[];
  try {
    names = await fs.readdir(parent);
  } catch {
    return null;
  }
  const hit = names.filter((n) => n.startsWith(`${TRASH_PREFIX}${id}.`)).sort()[0];
  return hit ? path.join(parent, hit) : null;
}

export interface DeletionRequest {
  /** Why: 'api' for DELETE /events/{id}; retention names the limit that triggered it. */
  reason: string;
  /** Who asked (user name), when a person did. */
  actor?: string;
}

export type FilesOutcome =
  /** The event directory was removed. */
  | 'removed'
  /** Storage.DoDelete = 0: the files were left on purpose. */
  | 'kept'
  /** There was no directory to remove. */
  | 'absent'
  /** Removal failed after the rows were deleted; the files wait in the trash folder. */
  | 'left';

export interface DeletionOutcome {
  eventId: number;
  monitorId: number;
  files: FilesOutcome;
  /** The event's directory as computed, or null when the storage root is unusable. */
  eventDir: string | null;
  /** Events.DiskSpace of the deleted row (null when ZoneMinder never filled it). */
  diskSpace: number | null;
}

interface EventForDeletion {
  Id: bigint;
  MonitorId: number;
  StorageId: number | null;
  StartDateTime: Date | null;
  EndDateTime: Date | null;
  Archived: number;
  Locked: boolean;
  DiskSpace: bigint | null;
  Scheme: EventScheme;
}

const isErrno = (err: unknown, ...codes: string[]) => codes.includes((err as NodeJS.ErrnoException)?.code ?? '');

function refuse(event: Pick<EventForDeletion, 'Id' | 'EndDateTime' | 'Archived' | 'Locked'>): void {
  const id = String(event.Id);
  if (!event.EndDateTime)
    throw new ConflictError(`Event ${id} is still being recorded`, [
      ['event_id', id],
      ['reason', 'in progress'],
    ]);
  if (event.Archived)
    throw new ConflictError(`Event ${id} is archived; unarchive it first`, [
      ['event_id', id],
      ['reason', 'archived'],
    ]);
  if (event.Locked)
    throw new ConflictError(`Event ${id} is locked; unlock it first`, [
      ['event_id', id],
      ['reason', 'locked'],
    ]);
}

export class EventDeletion {
  /** Events being deleted by this process: a second concurrent request gets a 409. */
  private static readonly inFlight = new Set<string>();

  constructor(
    private readonly prisma: PrismaClient,
    /** ZM_DIR_EVENTS (config `zoneminder.dir_events`): the root for StorageId 0 or a missing row. */
    private readonly defaultEventsDir: string,
    private readonly log: Logger,
    private readonly fs: DeletionFs = nodeDeletionFs,
  ) {}

  async delete(eventId: bigint, request: DeletionRequest): Promise<DeletionOutcome> {
    const key = String(eventId);
    if (EventDeletion.inFlight.has(key)) {
      throw new ConflictError(`Event ${key} is already being deleted`, [
        ['event_id', key],
        ['reason', 'deletion in progress'],
      ]);
    }
    EventDeletion.inFlight.add(key);
    try {
      return await this.deleteOnce(eventId, request);
    } finally {
      EventDeletion.inFlight.delete(key);
    }
  }

  private async deleteOnce(eventId: bigint, request: DeletionRequest): Promise<DeletionOutcome> {
    const id = String(eventId);
    const event = await this.prisma.events.findUnique({
      where: { Id: eventId },
      select: {
        Id: true,
        MonitorId: true,
        StorageId: true,
        StartDateTime: true,
        EndDateTime: true,
        Archived: true,
        Locked: true,
        DiskSpace: true,
        Scheme: true,
      },
    });
    if (!event) throw new NotFoundError(`Event ${id} not found`, [['event_id', id]], 'EVENT');
    refuse(event);

    const storage = event.StorageId ? await this.prisma.storage.findUnique({ where: { Id: event.StorageId } }) : null;
    const root = storage?.Path || this.defaultEventsDir;
    const doDelete = storage ? storage.DoDelete : true;
    const paths = isSafeRoot(root)
      ? eventPaths(
          { id: event.Id, monitorId: event.MonitorId, startDateTime: event.StartDateTime, scheme: event.Scheme },
          root,
        )
      : null;
    if (!paths && doDelete) {
      this.log.error(
        { event_id: id, storage_id: event.StorageId },
        'event deletion refused: the storage path is not an absolute path',
      );
      throw new InternalError(`Event ${id} cannot be deleted: its storage path is unusable`);
    }

    // 2. Move the directory aside (only when its files are ours to delete).
    let trash: string | null = null;
    let adopted = false;
    if (doDelete && paths) {
      const aside = path.join(path.dirname(paths.eventDir), `${TRASH_PREFIX}${id}.${process.pid}.${Date.now()}`);
      try {
        await this.fs.rename(paths.eventDir, aside);
        trash = aside;
      } catch (err) {
        if (!isErrno(err, 'ENOENT')) {
          this.log.error(
            {
              event_id: id,
              dir: paths.eventDir,
              err: { code: (err as NodeJS.ErrnoException).code, message: (err as Error).message },
            },
            'event deletion refused: the event directory could not be moved aside; nothing was deleted',
          );
          throw new InternalError(`Event ${id} was not deleted: its directory could not be moved`);
        }
        // The folder is gone: an interrupted deletion may have moved it aside already.
        trash = await leftoverTrash(this.fs, paths.eventDir, id);
        adopted = trash !== null;
        if (trash)
          this.log.warn(
            { event_id: id, moved_to: trash },
            'event deletion resumes an interrupted one: its folder was already moved aside',
          );
      }
    }

    // 3. The rows, in one transaction; 4. the directory back on failure.
    let diskSpace: bigint | null;
    try {
      diskSpace = await this.deleteRows(eventId);
    } catch (err) {
      // A folder found moved aside whose row is gone meanwhile belongs to a deletion that has
      // committed elsewhere: putting it back would make files without a row.
      if (trash && paths && !(adopted && err instanceof NotFoundError)) await this.restore(id, trash, paths.eventDir);
      throw err;
    }

    const files = await this.removeFiles(id, doDelete, paths, trash, storage?.Type === 's3fs');
    this.log.info(
      {
        event_id: Number(event.Id),
        monitor_id: event.MonitorId,
        storage_id: event.StorageId ?? 0,
        disk_space: diskSpace === null ? null : Number(diskSpace),
        reason: request.reason,
        actor: request.actor,
        files,
        dir: paths?.eventDir ?? null,
      },
      'event deleted',
    );
    return {
      eventId: Number(event.Id),
      monitorId: event.MonitorId,
      files,
      eventDir: paths?.eventDir ?? null,
      diskSpace: diskSpace === null ? null : Number(diskSpace),
    };
  }

  /** Deletes the rows; returns the event's DiskSpace. Throws ApiErrors for refusals. */
  private async deleteRows(eventId: bigint): Promise<bigint | null> {
    const id = String(eventId);
    return this.prisma.$transaction(
      async (tx) => {
        const rows = await tx.$queryRawUnsafe<
          Array<Omit<EventForDeletion, 'StartDateTime' | 'Scheme' | 'Locked'> & { Locked: number | boolean }>
        >(
          'SELECT Id, MonitorId, StorageId, EndDateTime, Archived, Locked, DiskSpace FROM Events WHERE Id = ? FOR UPDATE',
          eventId,
        );
        const event = rows[0];
        if (!event) throw new NotFoundError(`Event ${id} not found`, [['event_id', id]], 'EVENT');
        refuse({ ...event, Archived: Number(event.Archived), Locked: Boolean(Number(event.Locked)) });
        const locks = await tx.$queryRawUnsafe<Array<{ LockedBy: string; active: number | bigint }>>(
          'SELECT LockedBy, ExpiresAt > NOW() AS active FROM Events_Lock WHERE EventId = ? FOR UPDATE',
          eventId,
        );
        if (locks.some((l) => Number(l.active))) {
          throw new ConflictError(`Event ${id} is locked by ${locks[0].LockedBy.slice(0, 64)}`, [
            ['event_id', id],
            ['reason', 'locked by another process'],
          ]);
        }
        for (const table of ['Frames', 'Stats', 'Event_Data', 'Events_Tags', 'Events_Lock']) {
          await tx.$executeRawUnsafe(`DELETE FROM ${table} WHERE EventId = ?`, eventId);
        }
        await tx.$executeRawUnsafe('DELETE FROM Events WHERE Id = ?', eventId);
        // No-ops while event_delete_trigger exists; they keep the promise if it ever does not.
        for (const table of ['Events_Hour', 'Events_Day', 'Events_Week', 'Events_Month', 'Events_Archived']) {
          await tx.$executeRawUnsafe(`DELETE FROM ${table} WHERE EventId = ?`, eventId);
        }
        const space = event.DiskSpace === null ? null : BigInt(event.DiskSpace);
        const storageId = Number(event.StorageId ?? 0);
        if (space && storageId) {
          await tx.$executeRawUnsafe(
            'UPDATE Storage SET DiskSpace = GREATEST(CAST(DiskSpace AS SIGNED) - CAST(? AS SIGNED), 0) WHERE Id = ? AND DiskSpace IS NOT NULL',
            space.toString(),
            storageId,
          );
        }
        return space;
      },
      { maxWait: 10_000, timeout: 120_000 },
    );
  }

  private async restore(id: string, trash: string, eventDir: string): Promise<void> {
    try {
      await this.fs.rename(trash, eventDir);
    } catch (err) {
      this.log.fatal(
        {
          event_id: id,
          moved_to: trash,
          original: eventDir,
          err: { code: (err as NodeJS.ErrnoException).code, message: (err as Error).message },
        },
        'event deletion failed and its directory could NOT be moved back: rename it back by hand',
      );
    }
  }

  private async removeFiles(
    id: string,
    doDelete: boolean,
    paths: EventPaths | null,
    trash: string | null,
    s3fs: boolean,
  ): Promise<FilesOutcome> {
    if (!doDelete || !paths) return 'kept';
    let outcome: FilesOutcome = trash ? 'removed' : 'absent';
    if (trash) {
      try {
        await this.fs.rm(trash);
      } catch (err) {
        outcome = 'left';
        this.log.error(
          {
            event_id: id,
            dir: trash,
            err: { code: (err as NodeJS.ErrnoException).code, message: (err as Error).message },
          },
          'event rows deleted but its files could not be removed; they are left in the trash folder for the audit',
        );
      }
    }
    if (paths.deepMarker) {
      try {
        if ((await this.fs.lstat(paths.deepMarker)).isSymbolicLink()) await this.fs.unlink(paths.deepMarker);
      } catch (err) {
        if (!isErrno(err, 'ENOENT'))
          this.log.warn(
            { event_id: id, marker: paths.deepMarker, err: { message: (err as Error).message } },
            'could not remove the Deep-scheme marker',
          );
      }
    }
    // Empty parents go too, as ZoneMinder's own delete does (not on s3fs). rmdir only removes
    // empty folders, so a folder another event is being written to stays.
    if (!s3fs && outcome !== 'left') {
      for (const dir of paths.parents) {
        if (!dir.startsWith(paths.monitorDir + path.sep)) break;
        try {
          await this.fs.rmdir(dir);
        } catch {
          break;
        }
      }
    }
    return outcome;
  }
}
