// Crash recovery for retention's deletions. The deletion path moves an event's folder aside
// (`.zmgate-trash.<Id>.<pid>.<ms>` beside it) before its rows go, and removes it after the commit.
// A crash in between leaves that folder behind. So before each deletion the pass notes the
// event's parent folder in `<storage>/.zmgate-retention/<Id>` and drops the note afterwards; the
// next pass reads the notes first and settles each leftover by the Events row:
//   - row still there: the deletion never committed; the folder is renamed back (nothing lost);
//   - row gone: the deletion committed; the leftover folder is removed.
// Folders of a live process (another deletion in flight) are left alone.
//
// On a full volume (zmc writes until nothing is available) a note with content cannot be written:
// the note is then an empty file whose name carries the parent folder (`<Id>@<folder relative to
// the storage, '/' as '%'>`), which needs an inode and a directory entry but no data block, so
// retention can free a full disk. Where even the notes' folder cannot be made, that file goes in
// the storage's root, its name prefixed `.zmgate-retention@`. See docs/operations/retention.md.
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import type { PrismaClient } from '../../db/prisma.js';
import type { Logger } from '../../log.js';
import { eventPaths, type EventScheme } from '../../zm/event-paths.js';
import { TRASH_PREFIX } from '../../zm/event-deletion.js';

export const JOURNAL_DIR = '.zmgate-retention';

/** Errors of a volume with no room left for data (the note then goes into its name). */
const FULL = new Set(['ENOSPC', 'EDQUOT']);

/** The empty note's name: the event id and its parent folder relative to the storage. */
const namedNote = (eventId: bigint, relativeParent: string) => `${eventId}@${relativeParent.split(path.sep).join('%')}`;

const isFull = (err: unknown) => FULL.has((err as NodeJS.ErrnoException).code ?? '');

/** Prefix of an empty note kept in the storage's root (the notes' folder could not be made). */
const ROOT_NOTE = `${JOURNAL_DIR}@`;

export async function noteDeletion(realRoot: string, eventId: bigint, parent: string): Promise<void> {
  const dir = path.join(realRoot, JOURNAL_DIR);
  const named = namedNote(eventId, path.relative(realRoot, parent));
  try {
    await fsp.mkdir(dir, { recursive: true });
  } catch (err) {
    if (!isFull(err)) throw err;
    await fsp.writeFile(path.join(realRoot, ROOT_NOTE + named), '');
    return;
  }
  try {
    await fsp.writeFile(path.join(dir, String(eventId)), parent);
  } catch (err) {
    if (!isFull(err)) throw err;
    await fsp.unlink(path.join(dir, String(eventId))).catch(() => undefined);
    await fsp.writeFile(path.join(dir, named), '');
  }
}

/** Every note of `eventId`, in the notes' folder or the storage's root. */
async function notesOf(realRoot: string, eventId: bigint): Promise<string[]> {
  const dir = path.join(realRoot, JOURNAL_DIR);
  const inDir = (await fsp.readdir(dir).catch(() => [] as string[]))
    .filter((n) => n === String(eventId) || n.startsWith(`${eventId}@`))
    .map((n) => path.join(dir, n));
  const inRoot = (await fsp.readdir(realRoot).catch(() => [] as string[]))
    .filter((n) => n.startsWith(`${ROOT_NOTE}${eventId}@`))
    .map((n) => path.join(realRoot, n));
  return [...inDir, ...inRoot];
}

export async function dropNote(realRoot: string, eventId: bigint): Promise<void> {
  for (const file of await notesOf(realRoot, eventId)) await fsp.unlink(file).catch(() => undefined);
}

/** The event id and parent folder a note names (its content, or its name for an empty note). */
async function readNote(dir: string, realRoot: string, name: string): Promise<{ id: string; parent: string } | null> {
  const named = /^(\d+)@(.*)$/.exec(name);
  if (named) return { id: named[1], parent: path.join(realRoot, ...named[2].split('%')) };
  if (!/^\d+$/.test(name)) return null;
  return { id: name, parent: (await fsp.readFile(path.join(dir, name), 'utf8').catch(() => '')).trim() };
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
  const notes = [
    ...(await fsp.readdir(dir).catch(() => [] as string[])).map((n) => ({ name: n, file: path.join(dir, n) })),
    ...(await fsp.readdir(realRoot).catch(() => [] as string[]))
      .filter((n) => n.startsWith(ROOT_NOTE))
      .map((n) => ({ name: n.slice(ROOT_NOTE.length), file: path.join(realRoot, n) })),
  ];
  let settled = 0;
  for (const { name, file } of notes) {
    const read = await readNote(dir, realRoot, name);
    if (!read) continue;
    const { id: note, parent } = read;
    // A note can only send us inside the storage.
    if (!parent.startsWith(realRoot + path.sep) || parent.split(path.sep).includes('..')) {
      await fsp.unlink(file).catch(() => undefined);
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
    if (!pending) await fsp.unlink(file).catch(() => undefined);
  }
  return settled;
}
