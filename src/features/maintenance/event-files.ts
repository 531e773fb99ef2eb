// What the audit needs to know about an event's directory: its size on disk as ZoneMinder
// counts it (regular files, hard links once) and whether it holds a recording.
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

const VIDEO = /\.(mp4|mkv|mov|m4v|webm|avi)$/i;
const STILL = /^\d+-(capture|analyse)\.jpg$/;

export interface DirFacts {
  exists: boolean;
  bytes: number;
  /** A video file or frame stills: a recording worth keeping. */
  hasMedia: boolean;
}

export async function dirFacts(dir: string): Promise<DirFacts> {
  const seen = new Set<string>();
  let bytes = 0;
  let hasMedia = false;
  const walk = async (d: string, top: boolean): Promise<boolean> => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch (err) {
      if (top && ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '')) return false;
      throw err;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        await walk(p, false);
      } else if (e.isFile()) {
        if (VIDEO.test(e.name) || STILL.test(e.name)) hasMedia = true;
        try {
          const st = await lstat(p);
          const key = `${st.dev}:${st.ino}`;
          if (!seen.has(key)) {
            seen.add(key);
            bytes += st.size;
          }
        } catch {
          // removed while we looked: not counted
        }
      }
    }
    return true;
  };
  const exists = await walk(dir, true);
  return { exists, bytes, hasMedia };
}
