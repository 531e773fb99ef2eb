// The filesystem walk of the audit (step 2 of audit-fs.ts): event directories under a Storage
// root are identified by the evidence inside them, never by their place alone: a video named
// with the event id, the Shallow marker `.<Id>`, the Deep link `dd/.<Id> -> HH/MM/SS`, or a
// numeric leaf where the scheme puts the id. Directories with recordings or files but no (or
// conflicting) evidence are unidentified and left alone. Reads only.
import { readdir, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { isSafeRoot } from '../../zm/event-paths.js';

const VIDEO_ID = /^(\d+)-video\./;
const MARKER = /^\.(\d+)$/;
const DATE_DIR = /^\d{4}-\d{2}-\d{2}$/;
export const errno = (err: unknown) => (err as NodeJS.ErrnoException)?.code ?? '';

export interface Found {
  dir: string;
  id: number;
  /** The Deep link that names this directory, removed with it. */
  link: string | null;
}

export interface Walk {
  found: Found[];
  unidentified: string[];
  vanished: number;
}

/** Why a Storage root must not be audited (an unmounted disk looks like "every event is an orphan"), or null. */
export async function rootRefusal(root: string): Promise<string | null> {
  if (!isSafeRoot(root)) return 'not an absolute path';
  let st;
  try {
    st = await stat(root);
  } catch (err) {
    return `missing (${errno(err) || 'error'})`;
  }
  if (!st.isDirectory()) return 'not a directory';
  const entries = await readdir(root, { withFileTypes: true });
  if (!entries.some((e) => e.isDirectory() && /^\d+$/.test(e.name))) return 'holds no monitor directory (unmounted?)';
  return null;
}

/**
 * Walks <root>/<MonitorId>/… and identifies event directories by the evidence inside (see
 * audit-fs.ts, step 2); the rest is reported as unidentified.
 */
export async function walkStorage(root: string): Promise<Walk> {
  const walk: Walk = { found: [], unidentified: [], vanished: 0 };
  const deepLinks = new Map<string, { id: number; link: string }>();
  const list = slots(WALK_CONCURRENCY);
  const visit = async (dir: string, monitorDir: string): Promise<void> => {
    let entries;
    try {
      entries = await list(() => readdir(dir, { withFileTypes: true }));
    } catch (err) {
      if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR') {
        walk.vanished += 1;
        return;
      }
      throw err;
    }
    for (const e of entries) {
      const m = MARKER.exec(e.name);
      if (m && e.isSymbolicLink()) {
        try {
          deepLinks.set(path.resolve(dir, await readlink(path.join(dir, e.name))), {
            id: Number(m[1]),
            link: path.join(dir, e.name),
          });
        } catch {
          // vanished meanwhile
        }
      }
    }
    const subdirs = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.'));
    const files = entries.filter((e) => e.isFile()).map((e) => e.name);
    const ids = new Set<number>();
    for (const name of files) {
      const id = VIDEO_ID.exec(name)?.[1] ?? MARKER.exec(name)?.[1];
      if (id) ids.add(Number(id));
    }
    const link = deepLinks.get(dir);
    if (link) ids.add(link.id);
    const leaf = subdirs.length === 0;
    const name = path.basename(dir);
    const parent = path.dirname(dir);
    // A numeric leaf names its event where the scheme puts the id; an empty one is no evidence.
    if (
      leaf &&
      files.length &&
      /^\d+$/.test(name) &&
      (parent === monitorDir || (DATE_DIR.test(path.basename(parent)) && path.dirname(parent) === monitorDir))
    )
      ids.add(Number(name));
    if (ids.size === 1 && (leaf || files.some((f) => VIDEO_ID.test(f) || MARKER.test(f)))) {
      walk.found.push({ dir, id: [...ids][0], link: link?.link ?? null });
      return;
    }
    if (ids.size > 1 || (leaf && files.length)) {
      walk.unidentified.push(dir);
      return;
    }
    // Siblings are read concurrently (a parent is always read before its children, so a Deep
    // link is known before the directory it points at is visited).
    await Promise.all(subdirs.map((s) => visit(path.join(dir, s.name), monitorDir)));
  };
  for (const e of await readdir(root, { withFileTypes: true })) {
    if (e.isDirectory() && /^\d+$/.test(e.name)) {
      const monitorDir = path.join(root, e.name);
      const subdirs = (await readdir(monitorDir, { withFileTypes: true }).catch(() => [])).filter(
        (s) => s.isDirectory() && !s.name.startsWith('.'),
      );
      await Promise.all(subdirs.map((s) => visit(path.join(monitorDir, s.name), monitorDir)));
    }
  }
  return walk;
}

/**
 * Directory reads in flight at once during the walk. One at a time, a 100,000-directory tree took
 * most of a pass waiting on each readdir in turn (bench/maintenance.ts); a few in flight keep the
 * disk (and libuv's four threads) busy without flooding them.
 */
const WALK_CONCURRENCY = 8;

/** Runs at most `n` of the given tasks at a time. */
function slots(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    // A finished task hands its slot straight to the next waiting one.
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    else active += 1;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    }
  };
}
