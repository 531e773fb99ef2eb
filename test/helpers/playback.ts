// Fixtures for the playback tests (test/playback/): real media made by ffmpeg (cached across test
// files and runs), laid out as ZoneMinder does (docs/zoneminder/event-storage.md) under temporary Storage roots in the
// Deep, Medium and Shallow schemes, with Events/Frames rows to match.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/index.js';
import { createPool } from '../../src/db/pool.js';
import { createPrismaClient } from '../../src/db/prisma.js';
import { fromLocalDateTimeString } from '../../src/db/datetime.js';
import { createApp } from '../../src/http/app.js';
import { createLogger } from '../../src/log.js';
import {
  AppPlayback,
  createPlayback,
  type Playback,
  type PlaybackParts,
} from '../../src/features/playback/playback.js';
import { createServices } from '../../src/app/services.js';
import { testEnv } from './app.js';
import { eventPaths, type EventScheme } from '../../src/zm/event-paths.js';
import { insertEvent, insertMonitor, insertStorage, sql, type EventSeed } from './events.js';
import type { FreshDatabase } from './mariadb.js';

const run = promisify(execFile);

/** Sizes that tell the stills apart in assertions. */
export const SIZES = {
  video: { width: 640, height: 360 },
  /** A frame taken from the video for a thumbnail is scaled to 320 wide. */
  videoThumb: { width: 320, height: 180 },
  snapshot: { width: 480, height: 272 },
  alarm: { width: 400, height: 224 },
  capture: { width: 352, height: 288 },
  analyse: { width: 176, height: 144 },
  objdetect: { width: 208, height: 160 },
} as const;

export const CLIP_SECONDS = 3;

/** ffmpeg commands per fixture file; the output path is appended. */
const RECIPES: Record<string, string[]> = {
  // zmc 1.36 style: a plain MP4, moov at the end.
  'h264.mp4': [
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=640x360:rate=15`,
    '-t',
    String(CLIP_SECONDS),
    '-c:v',
    'libx264',
    '-profile:v',
    'baseline',
    '-pix_fmt',
    'yuv420p',
    '-g',
    '15',
  ],
  // zmc 1.39 style: fragmented MP4.
  'h264-frag.mp4': [
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=640x360:rate=15`,
    '-t',
    String(CLIP_SECONDS),
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-g',
    '15',
    '-movflags',
    'frag_keyframe+empty_moov+default_base_moof',
  ],
  // Remux/HLS fixtures: B-frames with AAC (composition offsets, an edit list, audio priming), 9 s
  // so the ~4 s VOD plan has three segments; and a 10 s fragmented file for events in progress.
  'h264-bf-aac.mp4': [
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=320x240:rate=15',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:sample_rate=48000',
    '-t',
    '9',
    '-map',
    '0:v',
    '-map',
    '1:a',
    '-c:v',
    'libx264',
    '-profile:v',
    'high',
    '-bf',
    '2',
    '-g',
    '15',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-b:a',
    '32k',
  ],
  'h264-frag-long.mp4': [
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=320x240:rate=10',
    '-t',
    '10',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-g',
    '10',
    '-movflags',
    'frag_keyframe+empty_moov+default_base_moof',
  ],
  'h265.mp4': [
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=640x360:rate=15',
    '-t',
    '2',
    '-c:v',
    'libx265',
    '-tag:v',
    'hvc1',
    '-x265-params',
    'log-level=none',
    '-pix_fmt',
    'yuv420p',
  ],
  'h264.mkv': [
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=640x360:rate=15',
    '-t',
    '2',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-f',
    'matroska',
  ],
  'vp8.webm': [
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=320x240:rate=10',
    '-t',
    '1',
    '-c:v',
    'libvpx',
    '-deadline',
    'realtime',
    '-b:v',
    '200k',
    '-f',
    'webm',
  ],
  // A grey clip with the red marker top-left, and the same clip as zmc's encoder would write it
  // after turning each image (ROTATE_90, ROTATE_180, FLIP_HORI): the marker tells how a frame taken
  // from it was turned.
  'marker.mp4': markerClip(null),
  'marker-turned-ROTATE_90.mp4': markerClip('transpose=clock'),
  'marker-turned-ROTATE_180.mp4': markerClip('hflip,vflip'),
  'marker-turned-FLIP_HORI.mp4': markerClip('hflip'),
  'snapshot.jpg': still(SIZES.snapshot),
  'alarm.jpg': still(SIZES.alarm),
  'capture.jpg': still(SIZES.capture),
  'analyse.jpg': still(SIZES.analyse),
  'objdetect.jpg': still(SIZES.objdetect),
};

/**
 * Fixtures made from another fixture (ffmpeg -i <from> ...args). zmc's VideoStore with Orientation
 * ROTATE_90 copies the camera's packets and tags the stream `rotate=90` (a display matrix); only a
 * stream copy keeps that tag with Debian's ffmpeg 5.1.
 */
const DERIVED: Record<string, { from: string; args: string[] }> = {
  'h264-rotate90.mp4': { from: 'h264.mp4', args: ['-c', 'copy', '-metadata:s:v:0', 'rotate=90'] },
  'marker-rotate90.mp4': { from: 'marker.mp4', args: ['-c', 'copy', '-metadata:s:v:0', 'rotate=90'] },
};

/** SIZES.video, 2 s of grey with the red 40x20 marker top-left, then `turn` (an ffmpeg filter). */
function markerClip(turn: string | null): string[] {
  const { width, height } = SIZES.video;
  const vf = `drawbox=x=0:y=0:w=40:h=20:color=red:t=fill${turn ? `,${turn}` : ''}`;
  return [
    '-f',
    'lavfi',
    '-i',
    `color=c=gray:s=${width}x${height}:r=15:d=2`,
    '-vf',
    vf,
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-g',
    '15',
  ];
}

/** A grey still with a red 40x20 marker in its top-left corner, so a test can tell how it was turned. */
function still(size: { width: number; height: number }): string[] {
  return [
    '-f',
    'lavfi',
    '-i',
    `color=c=gray:s=${size.width}x${size.height}:d=1,drawbox=x=0:y=0:w=40:h=20:color=red:t=fill`,
    '-frames:v',
    '1',
    '-q:v',
    '3',
    '-f',
    'mjpeg',
  ];
}

let ffmpegVersion: Promise<string> | undefined;

/** The fixture file `name` (see RECIPES), generated once per ffmpeg version and cached. */
export async function fixture(name: keyof typeof RECIPES | string): Promise<string> {
  const derived = DERIVED[name];
  const recipe = derived ? ['-i', await fixture(derived.from), ...derived.args] : RECIPES[name];
  if (!recipe) throw new Error(`no fixture ${name}`);
  ffmpegVersion ??= run('ffmpeg', ['-version']).then((r) => r.stdout.split('\n')[0]);
  const key = createHash('sha256')
    .update(JSON.stringify([recipe, await ffmpegVersion]))
    .digest('hex')
    .slice(0, 16);
  const dir = path.join(tmpdir(), 'zmgate-playback-fixtures');
  const file = path.join(dir, `${key}-${name}`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const tmp = path.join(dir, `.tmp-${process.pid}-${randomBytes(4).toString('hex')}-${name}`); // ffmpeg picks the format by extension
    await run('ffmpeg', ['-v', 'error', '-y', ...recipe, tmp]);
    renameSync(tmp, file); // atomic: a parallel test process writes the same bytes
  }
  return file;
}

/** Where the red marker of a fixture still ended up after a transform (null: not in a corner). */
export async function markerCorner(jpeg: Buffer): Promise<{
  width: number;
  height: number;
  corner: 'top-left' | 'top-right' | 'bottom-left' | 'bottom-right' | null;
}> {
  const { width, height } = await probeBuffer(jpeg);
  const rgb = await new Promise<Buffer>((resolve, reject) => {
    const child = execFile(
      'ffmpeg',
      ['-v', 'error', '-f', 'jpeg_pipe', '-i', 'pipe:0', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
      { encoding: 'buffer', maxBuffer: 64 << 20 },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
    child.stdin!.end(jpeg);
  });
  const red = (x: number, y: number) => {
    const i = (y * width + x) * 3;
    return rgb[i] > 180 && rgb[i + 1] < 90 && rgb[i + 2] < 90;
  };
  const corners = [
    ['top-left', 4, 4],
    ['top-right', width - 5, 4],
    ['bottom-left', 4, height - 5],
    ['bottom-right', width - 5, height - 5],
  ] as const;
  const hit = corners.filter(([, x, y]) => red(x, y));
  return { width, height, corner: hit.length === 1 ? hit[0][0] : null };
}

/** ffprobe's view of an image or video held in a buffer. */
export async function probeBuffer(data: Buffer): Promise<{ width: number; height: number; codec: string }> {
  const file = path.join(tmpdir(), `zmgate-probe-${process.pid}-${randomBytes(6).toString('hex')}`);
  writeFileSync(file, data);
  try {
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-select_streams',
      'v:0',
      '-show_entries',
      'stream=codec_name,width,height',
      '-of',
      'json',
      file,
    ]);
    const s = JSON.parse(stdout).streams[0];
    return { width: s.width, height: s.height, codec: s.codec_name };
  } finally {
    rmSync(file, { force: true });
  }
}

export interface StorageRoots {
  base: string;
  /** Storage ids: 1 Deep, 2 Medium, 3 Shallow; the default events dir (StorageId 0) is Medium-schemed per event. */
  byScheme: Record<EventScheme, { id: number; root: string }>;
  defaultDir: string;
}

/** Three Storage rows (Deep, Medium, Shallow) and a default events directory, under a temp dir. */
export async function makeStorages(db: FreshDatabase, prefix: string): Promise<StorageRoots> {
  const base = mkdtempSync(path.join(tmpdir(), `zmgate-${prefix}-`));
  const byScheme = {
    Deep: { id: 1, root: path.join(base, 'deep') },
    Medium: { id: 2, root: path.join(base, 'medium') },
    Shallow: { id: 3, root: path.join(base, 'shallow') },
  } as Record<EventScheme, { id: number; root: string }>;
  for (const [scheme, s] of Object.entries(byScheme)) {
    mkdirSync(s.root, { recursive: true });
    await insertStorage(db, { id: s.id, path: s.root, scheme });
  }
  const defaultDir = path.join(base, 'default');
  mkdirSync(defaultDir, { recursive: true });
  return { base, byScheme, defaultDir };
}

export interface MediaEventSeed extends Omit<EventSeed, 'monitorId' | 'scheme' | 'storageId'> {
  monitorId?: number;
  scheme?: EventScheme;
  /** Storage row; default: the row of the scheme. 0 = the default events directory. */
  storageId?: number;
  /** `{id}` is replaced by the event id (also in `files` names). */
  defaultVideo?: string;
  orientation?: string;
  width?: number;
  height?: number;
  /** Files to place in the event directory: name → fixture name or literal content. */
  files?: Record<string, { fixture: string } | { text: string }>;
  /** Frames rows: [FrameId, Delta]. */
  frameRows?: Array<[number, number]>;
}

export interface MediaEvent {
  id: number;
  dir: string;
}

/** Inserts the event row and lays out its directory as zmc would. */
export async function insertMediaEvent(
  db: FreshDatabase,
  roots: StorageRoots,
  seed: MediaEventSeed,
): Promise<MediaEvent> {
  const scheme = seed.scheme ?? 'Medium';
  const storageId = seed.storageId ?? roots.byScheme[scheme].id;
  const root = storageId === 0 ? roots.defaultDir : Object.values(roots.byScheme).find((s) => s.id === storageId)!.root;
  const monitorId = seed.monitorId ?? 1;
  await insertMonitor(db, monitorId).catch(() => undefined);
  const id = await insertEvent(db, { ...seed, monitorId, scheme, storageId });
  await sql(db, 'UPDATE Events SET DefaultVideo = ?, Orientation = ?, Width = ?, Height = ? WHERE Id = ?', [
    (seed.defaultVideo ?? '').replaceAll('{id}', String(id)),
    seed.orientation ?? 'ROTATE_0',
    seed.width ?? 640,
    seed.height ?? 360,
    id,
  ]);
  // The stored digits as the wall-clock Date zmgate computes paths from (src/db/datetime.ts).
  const [row] = await sql(db, "SELECT DATE_FORMAT(StartDateTime, '%Y-%m-%d %H:%i:%s') AS s FROM Events WHERE Id = ?", [
    id,
  ]);
  const start = row.s ? fromLocalDateTimeString(row.s as string) : null;
  const paths = eventPaths({ id, monitorId, startDateTime: start, scheme }, root);
  mkdirSync(paths.eventDir, { recursive: true });
  if (paths.deepMarker) symlinkSync(path.relative(path.dirname(paths.deepMarker), paths.eventDir), paths.deepMarker);
  if (scheme === 'Shallow') writeFileSync(path.join(paths.eventDir, `.${id}`), '');
  for (const [name, content] of Object.entries(seed.files ?? {})) {
    const target = path.join(paths.eventDir, name.replaceAll('{id}', String(id)));
    if ('fixture' in content) copyFileSync(await fixture(content.fixture), target);
    else writeFileSync(target, content.text);
  }
  for (const [frameId, delta] of seed.frameRows ?? []) {
    await sql(db, 'INSERT INTO Frames (EventId, FrameId, Type, Score, Delta) VALUES (?, ?, ?, 0, ?)', [
      id,
      frameId,
      'Normal',
      delta,
    ]);
  }
  return { id, dir: paths.eventDir };
}

/** `n` capture JPEGs named as zmc does (`%05d-capture.jpg`). */
export function captures(
  numbers: number[],
  kind: 'capture' | 'analyse' = 'capture',
): Record<string, { fixture: string }> {
  return Object.fromEntries(
    numbers.map((n) => [`${String(n).padStart(5, '0')}-${kind}.jpg`, { fixture: `${kind}.jpg` }]),
  );
}

export async function bytesOf(res: Response): Promise<Buffer> {
  return Buffer.from(await res.arrayBuffer());
}

export interface PlaybackApp {
  url: string;
  api(path: string): string;
  playback: Playback;
  close(): Promise<void>;
}

/** The app with chosen playback parts (runner, rotator, remuxer): the seams the tests exercise. */
export async function startPlaybackApp(
  db: FreshDatabase,
  env: Record<string, string>,
  parts: Partial<PlaybackParts>,
): Promise<PlaybackApp> {
  const { config } = loadConfig({ env: testEnv({ db, env }), defaultOperatorFile: '/nonexistent/prod.toml' });
  const log = createLogger({ level: 'fatal' });
  const pool = createPool(config.db);
  const prisma = createPrismaClient(config.db);
  const services = createServices(config, log, pool, prisma);
  const playback = createPlayback(services, parts);
  services.provide(AppPlayback, playback);
  const server = http.createServer(createApp(services));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    api: (p) => `${url}/api/v3${p}`,
    playback,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
      await prisma.$disconnect();
    },
  };
}
