// Crash recovery for retention's deletions. The deletion path moves an event's folder aside
// (`.zmgate-trash.<Id>.<pid>.<ms>` beside it) before its rows go, and removes it after the commit.
// A crash in between leaves that folder behind. So before each deletion the pass notes the
// event's parent folder in `<storage>/.zmgate-retention/<Id>` and drops the note afterwards; the
// next pass reads the notes first and settles each leftover by the Events row:
//   - row still there: the deletion never committed; the folder is renamed back (nothing lost);
//   - row gone: the deletion committed; the leftover folder is removed.
// Folders of a live process (another deletion in flight) are left alone.
// See docs/operations/retention.md.
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import type { PrismaClient } from '../../db/prisma.js';
import type { Logger } from '../../log.js';
import { eventPaths, type EventScheme } from '../events/event-paths.js';
import { TRASH_PREFIX } from '../events/event-deletion.js';

export const JOURNAL_DIR = '.zmgate-retention';

export async function noteDeletion(realRoot: string, eventId: bigint, parent: string): Promise<void> {
  const dir = path.join(realRoot, JOURNAL_DIR);
  await fsp.mkdir(dir, { recursive: true });
  await fsp.writeFile(path.join(dir, String(eventId)), parent);
}

export async function dropNote(realRoot: string, eventId: bigint): Promise<void> {
  await fsp.unlink(path.join(realRoot, JOURNAL_DIR, String(eventId))).catch(() => undefined);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Settles the leftovers the notes point at; returns how many folders were restored or removed. */
export async function recoverNotes(
  prisma: PrismaClient,
  realRoot: string,
  storageRoot: string,
  log: Logger,
): Promise<number> {
  const dir = path.join(realRoot, JOURNAL_DIR);
  const notes = await fsp.readdir(dir).catch(() => [] as string[]);
  let settled = 0;
  for (const note of notes.filter((n) => /^\d+$/.test(n))) {
    const parent = (await fsp.readFile(path.join(dir, note), 'utf8').catch(() => '')).trim();
    // A note can only send us inside the storage.
    if (!parent.startsWith(realRoot + path.sep) || parent.split(path.sep).includes('..')) {
      await fsp.unlink(path.join(dir, note)).catch(() => undefined);
      continue;
    }
    const names = await fsp.readdir(parent).catch(() => [] as string[]);
    let pending = false;
    for (const name of names.filter((n) => n.startsWith(`${TRASH_PREFIX}${note}.`))) {
      const pid = Number(name.slice(`${TRASH_PREFIX}${note}.`.length).split('.')[0]);
      if (pid === process.pid || (pid > 0 && alive(pid))) {
        pending = true; // a deletion in flight: not ours to settle
        continue;
      }
      const trash = path.join(parent, name);
      const rows = await prisma.$queryRawUnsafe<
        Array<{ MonitorId: unknown; StartDateTime: Date | null; Scheme: EventScheme }>
      >('SELECT MonitorId, StartDateTime, Scheme FROM Events WHERE Id = ?', note);
      if (rows[0]) {
        const home = eventPaths(
          {
            id: BigInt(note),
            monitorId: Number(rows[0].MonitorId),
            startDateTime: rows[0].StartDateTime,
            scheme: rows[0].Scheme,
          },
          storageRoot,
        ).eventDir;
        const taken = await fsp.lstat(home).then(
          () => true,
          () => false,
        );
        if (taken || path.relative(storageRoot, path.dirname(home)) !== path.relative(realRoot, parent)) {
          log.error(
            { event_id: Number(note), moved_to: trash, original: home },
            'retention: an interrupted deletion left a folder that cannot be put back automatically; rename it back by hand',
          );
          pending = true;
          continue;
        }
        await fsp.rename(trash, home);
        log.warn(
          { event_id: Number(note), dir: home },
          'retention: an interrupted deletion was rolled back: the event still has its rows, its folder is back',
        );
      } else {
        await fsp.rm(trash, { recursive: true, force: true });
        log.warn(
          { event_id: Number(note), dir: trash },
          'retention: an interrupted deletion was completed: the rows were gone, the moved-aside folder is removed',
        );
      }
      settled++;
    }
    if (!pending) await fsp.unlink(path.join(dir, note)).catch(() => undefined);
  }
  return settled;
}
