// Event trees for the retention tests: Events rows plus their folders exactly where ZoneMinder
// puts them (every scheme, with the Deep symlink and the Shallow marker), holding real media
// (an ffmpeg-made mp4 and JPEG stills) or plain bytes of a chosen size.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fromLocalDateTimeString } from '../../src/db/datetime.js';
import { eventPaths } from '../../src/zm/event-paths.js';
import { insertEvent, insertMonitor, sql, type EventSeed } from './events.js';
import type { FreshDatabase } from './mariadb.js';

const run = promisify(execFile);

export interface RealMedia {
  mp4: Buffer;
  jpeg: Buffer;
}

let media: Promise<RealMedia> | undefined;

/** A one-second H.264 mp4 and a JPEG still, made by ffmpeg once per process. */
export function realMedia(): Promise<RealMedia> {
  media ??= (async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'zmgate-ret-media-'));
    const mp4 = path.join(dir, 'clip.mp4');
    const jpg = path.join(dir, 'still.jpg');
    await run('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=320x240:rate=10:duration=1',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      mp4,
    ]);
    await run('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=320x240:rate=1:duration=1',
      '-frames:v',
      '1',
      jpg,
    ]);
    return { mp4: await readFile(mp4), jpeg: await readFile(jpg) };
  })();
  return media;
}

export interface TreeEvent extends EventSeed {
  /** Bytes of filler in the folder (ignored with `media`). */
  fill?: number;
  /** Real media: the mp4 plus this many JPEG stills. */
  media?: { real: RealMedia; stills: number };
  /** No folder at all (already gone). */
  noFolder?: boolean;
}

export interface SeededEvent {
  id: number;
  monitorId: number;
  eventDir: string;
  deepMarker: string | null;
}

/** Inserts the row (and the monitor if new) and writes the folder under `root`. */
export async function seedTreeEvent(db: FreshDatabase, root: string, e: TreeEvent): Promise<SeededEvent> {
  await insertMonitor(db, e.monitorId).catch(() => undefined);
  const id = await insertEvent(db, e);
  const start = e.start ? fromLocalDateTimeString(e.start) : null;
  const paths = eventPaths({ id, monitorId: e.monitorId, startDateTime: start, scheme: e.scheme ?? 'Medium' }, root);
  if (!e.noFolder) {
    mkdirSync(paths.eventDir, { recursive: true });
    if (e.media) {
      writeFileSync(path.join(paths.eventDir, `${id}-video.mp4`), e.media.real.mp4);
      for (let i = 1; i <= e.media.stills; i++)
        writeFileSync(path.join(paths.eventDir, `${String(i).padStart(5, '0')}-capture.jpg`), e.media.real.jpeg);
      writeFileSync(path.join(paths.eventDir, 'snapshot.jpg'), e.media.real.jpeg);
    } else {
      writeFileSync(path.join(paths.eventDir, `${id}-video.mp4`), Buffer.alloc(e.fill ?? 4096, id % 251));
    }
    if ((e.scheme ?? 'Medium') === 'Shallow') writeFileSync(path.join(paths.eventDir, `.${id}`), '');
    if (paths.deepMarker) symlinkSync(path.relative(path.dirname(paths.deepMarker), paths.eventDir), paths.deepMarker);
  }
  return { id, monitorId: e.monitorId, eventDir: paths.eventDir, deepMarker: paths.deepMarker };
}

/** Every path under `dir` with its type and (for files) a content hash: equal trees, equal maps. */
export function treeListing(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = lstatSync(p);
      const rel = path.relative(dir, p);
      if (st.isSymbolicLink()) out.set(rel, `link:${readlinkSync(p)}`);
      else if (st.isDirectory()) {
        out.set(rel, 'dir');
        walk(p);
      } else out.set(rel, `file:${createHash('sha1').update(readFileSync(p)).digest('hex')}`);
    }
  };
  walk(dir);
  return out;
}

/** CHECKSUM TABLE over the tables a deletion touches: equal checksums, equal rows. */
export async function rowChecksums(db: FreshDatabase): Promise<Record<string, string>> {
  const tables = [
    'Events',
    'Frames',
    'Stats',
    'Event_Data',
    'Events_Tags',
    'Events_Hour',
    'Events_Day',
    'Events_Week',
    'Events_Month',
    'Events_Archived',
    'Event_Summaries',
    'Storage',
    'Logs',
  ];
  const rows = await sql(db, `CHECKSUM TABLE ${tables.join(', ')}`);
  return Object.fromEntries(rows.map((r: any) => [String(r.Table).split('.').pop(), String(r.Checksum)]));
}

/** Wall-clock 'YYYY-MM-DD HH:MM:SS' `days` before a wall-clock Date. */
export function wallDaysBefore(wallNow: Date, days: number, seconds = 0): string {
  return new Date(wallNow.getTime() - days * 86_400_000 - seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}
