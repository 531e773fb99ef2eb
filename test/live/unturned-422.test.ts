// The 4:2:2 case of development zmc (docs/zoneminder/orientation.md): a yuv422p/yuvj422p slot of a
// ROTATE_90/270 monitor holds the camera's unturned picture while the monitor's size is swapped.
// The snapshot reads it at the camera's size and turns it once: checked by the still's size and
// by where a marker drawn into the source ended up. A 4:2:0 slot of the same monitor shape is
// served as zmc turned it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import bcrypt from 'bcryptjs';
import { turnUnturned422 } from '../../src/media/yuv422-turn.js';
import { sharedMemoryPath } from '../../src/native/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { markerCorner } from '../helpers/playback.js';
import { login } from '../helpers/rest.js';
import { writeShmFixture } from '../helpers/shm-fixture.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';

const run = promisify(execFile);
/** The camera's size; rows need no padding at 32-byte alignment (128 and 64 bytes). */
const W = 128;
const H = 96;
const mapDir = mkdtempSync(join(tmpdir(), 'zmgate-422-'));
let app: TestApp;
let db: FreshDatabase;
let token: string;

/** The camera's picture (grey, red marker top-left) as packed planes in `format`. */
async function picture(format: string, turn: string | null = null): Promise<Buffer> {
  const vf = `drawbox=x=0:y=0:w=40:h=20:color=red:t=fill${turn ? `,${turn}` : ''}`;
  const { stdout } = await run(
    'ffmpeg',
    [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      `color=c=gray:s=${W}x${H}:d=1`,
      '-vf',
      vf,
      '-frames:v',
      '1',
      '-pix_fmt',
      format,
      '-f',
      'rawvideo',
      'pipe:1',
    ],
    {
      encoding: 'buffer',
      maxBuffer: 1 << 20,
    },
  );
  return stdout as unknown as Buffer;
}

/** A 1.39.17 file whose geometry is the monitor's swapped size, slot 1 holding `bytes`. */
function shmWith(id: number, format: 'yuv422p' | 'yuvj422p' | 'yuv420p', bytes: Buffer) {
  const nowS = Math.floor(Date.now() / 1000);
  const path = sharedMemoryPath(mapDir, id);
  const fx = writeShmFixture(path, {
    layout: 888,
    width: H,
    height: W,
    format,
    imageBufferCount: 3,
    images: [{ slot: 1, timestampUs: Date.now() * 1000 }],
    fields: { heartbeat_time: nowS, startup_time: nowS - 60 },
  });
  const file = readFileSync(path);
  bytes.copy(file, fx.offsets.images + fx.slotSize);
  writeFileSync(path, file);
}

test.before(async () => {
  db = await zmDatabase('unturned422');
  await insertUser(db, {
    username: 'viewer',
    password: 'viewer',
    stored: bcrypt.hashSync('viewer', 4),
    perms: { Stream: 'View', Monitors: 'View' },
  });
  const monitors: Array<[number, string]> = [
    [1, 'ROTATE_90'],
    [2, 'ROTATE_270'],
    [3, 'ROTATE_90'],
  ];
  for (const [id, o] of monitors) {
    await db.db.query(
      'INSERT INTO Monitors (Id, Name, Width, Height, Orientation, ImageBufferCount) VALUES (?, ?, ?, ?, ?, 3)',
      [id, `m${id}`, W, H, o],
      db.name,
    );
  }
  shmWith(1, 'yuv422p', await picture('yuv422p'));
  shmWith(2, 'yuvj422p', await picture('yuvj422p'));
  // 4:2:0 is turned by zmc: the slot holds the turned picture with 32-aligned rows (96 → 96, 48 → 64).
  const turned = await picture('yuv420p', 'transpose=clock');
  const padded = Buffer.alloc(96 * 128 + 2 * 64 * 64);
  turned.copy(padded, 0, 0, 96 * 128);
  for (let plane = 0; plane < 2; plane++) {
    for (let row = 0; row < 64; row++)
      turned.copy(
        padded,
        96 * 128 + plane * 64 * 64 + row * 64,
        96 * 128 + plane * 48 * 64 + row * 48,
        96 * 128 + plane * 48 * 64 + row * 48 + 48,
      );
  }
  shmWith(3, 'yuv420p', padded);
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_ZONEMINDER__PATH_MAP: mapDir } });
  token = await login(app, 'viewer');
});
test.after.always(async () => {
  await app?.close();
  rmSync(mapDir, { recursive: true, force: true });
});

async function snapshot(id: number) {
  const res = await fetch(app.api(`/monitors/${id}/snapshot`), { headers: { authorization: `Bearer ${token}` } });
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`${res.status} ${body.toString()}`);
  return markerCorner(body);
}

test('an unturned yuv422p slot of a ROTATE_90 monitor is turned clockwise once, at the swapped size', async (t) => {
  t.deepEqual(await snapshot(1), { width: H, height: W, corner: 'top-right' });
});

test('an unturned yuvj422p slot of a ROTATE_270 monitor is turned counter-clockwise once', async (t) => {
  t.deepEqual(await snapshot(2), { width: H, height: W, corner: 'bottom-left' });
});

test('a 4:2:0 slot of a ROTATE_90 monitor is already turned by zmc and served as it is', async (t) => {
  t.deepEqual(await snapshot(3), { width: H, height: W, corner: 'top-right' });
});

test('turnUnturned422: slot data too short for the camera-size picture gives null', (t) => {
  t.is(turnUnturned422(new Uint8Array(100), 'yuv422p', W, H, 'ROTATE_90'), null);
  const ok = turnUnturned422(new Uint8Array(W * H * 2), 'yuvj422p', W, H, 'ROTATE_270');
  t.like(ok, { format: 'yuvj420p', width: H, height: W, linesize: [H, H / 2, H / 2] });
});
