// Live-streaming test fixtures: a database with monitors and Stream users, fake zmcs serving
// long real clips in one socket directory, a shared-memory directory, and the app pointed at
// them. Also small LL-HLS playlist readers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApp, type TestApp } from './app.js';
import { FakeZmc } from './fake-zmc.js';
import { insertMonitor, sql } from './events.js';
import type { FreshDatabase } from './mariadb.js';
import { type ClipSpec, mediaClip } from './media.js';
import { addUser } from './rest.js';

/** About a minute of small H.264 at 25 fps, one keyframe a second: enough for a test file. */
export const LIVE_CLIP: ClipSpec = { video: 'h264-baseline', width: 320, height: 180, fps: 25, seconds: 60 };

export interface LiveFixture {
  sockDir: string;
  mapDir: string;
  zmcs: Map<number, FakeZmc>;
  /** Restarts monitor `id`'s fake zmc (the socket disappears, then a new one serves from the clip start). */
  restart(id: number): Promise<FakeZmc>;
  close(): Promise<void>;
}

/** Fake zmcs for `socketMonitors` (realtime pace), and shared-memory files for `shmMonitors`. */
export async function liveFixture(
  socketMonitors: number[],
  shmMonitors: number[] = [],
  spec: ClipSpec = LIVE_CLIP,
): Promise<LiveFixture> {
  const sockDir = mkdtempSync(join(tmpdir(), 'zm_live_'));
  const mapDir = mkdtempSync(join(tmpdir(), 'zm_map_'));
  for (const id of shmMonitors) writeFileSync(join(mapDir, `zm.mmap.${id}`), Buffer.alloc(4096));
  const clip = await mediaClip(spec);
  const zmcs = new Map<number, FakeZmc>();
  const start = (monitorId: number) => FakeZmc.start({ clip, monitorId, dir: sockDir, pace: 'realtime' });
  for (const id of socketMonitors) zmcs.set(id, await start(id));
  return {
    sockDir,
    mapDir,
    zmcs,
    async restart(id) {
      await zmcs.get(id)?.close();
      await sleep(300); // the reader sees the socket gone and backs off once
      const z = await start(id);
      zmcs.set(id, z);
      return z;
    },
    async close() {
      for (const z of zmcs.values()) await z.close();
      rmSync(sockDir, { recursive: true, force: true });
      rmSync(mapDir, { recursive: true, force: true });
    },
  };
}

export function liveEnv(f: LiveFixture, extra: Record<string, string> = {}): Record<string, string> {
  return {
    APP_ZONEMINDER__PATH_SOCKS: f.sockDir,
    APP_ZONEMINDER__PATH_MAP: f.mapDir,
    APP_AUTH__RATE_LIMIT__ENABLED: 'false',
    ...extra,
  };
}

export async function startLiveApp(
  db: FreshDatabase,
  f: LiveFixture,
  extra: Record<string, string> = {},
): Promise<TestApp> {
  return startTestApp({ db, env: liveEnv(f, extra) });
}

/**
 * Monitors 1..n and users: `viewer` (Stream View), `nostream` (Stream None), `limited` (Stream
 * View, monitor 2 hidden by a None row).
 */
export async function seedLive(db: FreshDatabase, monitors: number): Promise<void> {
  for (let id = 1; id <= monitors; id++) await insertMonitor(db, id);
  await addUser(db, 'viewer', { Stream: 'View', Monitors: 'View' });
  await addUser(db, 'nostream', { Stream: 'None', Monitors: 'View' });
  const limited = await addUser(db, 'limited', { Stream: 'View', Monitors: 'View' });
  await sql(db, 'INSERT INTO Monitors_Permissions (UserId, MonitorId, Permission) VALUES (?, 2, ?)', [limited, 'None']);
}

export interface PlaylistPart {
  msn: number;
  part: number;
  uri: string;
}

/** The URIs of a playlist: plain lines and URI="…" attributes. */
export function playlistUris(text: string): string[] {
  const uris: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (!line.startsWith('#')) uris.push(line);
    for (const m of line.matchAll(/URI="([^"]*)"/g)) uris.push(m[1]);
  }
  return uris;
}

/** EXT-X-PART and PRELOAD-HINT parts by their reference names (segment_NNNNN.P.m4s). */
export function playlistParts(text: string): { parts: PlaylistPart[]; hint: PlaylistPart | null; segments: number[] } {
  const parse = (uri: string): PlaylistPart => {
    const m = /^segment_(\d+)\.(\d+)\.m4s/.exec(uri);
    if (!m) throw new Error(`not a part URI: ${uri}`);
    return { msn: Number(m[1]), part: Number(m[2]), uri };
  };
  const parts = [...text.matchAll(/^#EXT-X-PART:.*URI="([^"]+)"/gm)].map((m) => parse(m[1]));
  const hintMatch = /^#EXT-X-PRELOAD-HINT:TYPE=PART,URI="([^"]+)"/m.exec(text);
  const segments = [...text.matchAll(/^segment_(\d+)\.m4s/gm)].map((m) => Number(m[1]));
  return { parts, hint: hintMatch ? parse(hintMatch[1]) : null, segments };
}
