// A live MJPEG viewer that stops reading (issue 36, item 5): its send queue is bounded by
// streaming.mjpeg.max_queue_bytes (frames are skipped while it is over), and once it has stayed
// over it for streaming.mjpeg.stall_timeout_seconds the server disconnects it and says so in one
// log line. A viewer that reads on alongside it keeps its stream. The source is the simulated
// camera's shared memory (src/sim), polled at 30 fps.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import test from 'ava';

import { LiveMjpegStreams } from '../../src/features/live/live-mjpeg.js';
import { SIM_CLIP, SimCamera } from '../../src/sim/camera.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertMonitor } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { addUser, login } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';

const dir = mkdtempSync(join(tmpdir(), 'zmgate-mjpeg-stall-'));
const STALL_LOG = 'MJPEG: the viewer stopped reading; disconnected';
let app: TestApp;
let db: FreshDatabase;
let cam: SimCamera;
let token: string;

test.before(async () => {
  db = await zmDatabase('mjpegstall');
  await insertMonitor(db, 1, 'cam', { Width: SIM_CLIP.width, Height: SIM_CLIP.height, ImageBufferCount: 3 });
  await addUser(db, 'viewer', { Stream: 'View', Monitors: 'View' });
  cam = await SimCamera.start({ monitorId: 1, socketDir: dir, mapDir: dir, shmFps: 30 });
  app = await startTestApp({
    db,
    env: {
      APP_AUTH__RATE_LIMIT__ENABLED: 'false',
      APP_ZONEMINDER__PATH_MAP: dir,
      APP_ZONEMINDER__PATH_SOCKS: dir,
      APP_STREAMING__MJPEG__MAX_FPS: '30',
      APP_STREAMING__MJPEG__MAX_QUEUE_BYTES: '65536',
      APP_STREAMING__MJPEG__STALL_TIMEOUT_SECONDS: '1',
    },
  });
  token = await login(app, 'viewer');
});
test.after.always(async () => {
  await app?.close();
  await cam?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function until(pred: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A raw HTTP client that sends the request and then never reads (its socket stays paused). */
async function stalledViewer(path: string): Promise<Socket> {
  const url = new URL(app.api(path));
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  socket.pause();
  socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
  return socket;
}

test('a viewer that stops reading is disconnected once its queue stays over the bound, with one log line; a reading viewer keeps its stream', async (t) => {
  const streams = app.services.get(LiveMjpegStreams);
  const reader = new AbortController();
  t.teardown(() => reader.abort());
  const res = await fetch(app.api(`/live/1/mjpeg?maxfps=30&token=${token}`), { signal: reader.signal });
  t.is(res.status, 200);
  let readBytes = 0;
  void (async () => {
    try {
      for await (const chunk of res.body!) readBytes += (chunk as Uint8Array).length;
    } catch {
      // aborted at the end
    }
  })();

  const stalled = await stalledViewer(`/live/1/mjpeg?maxfps=30&token=${token}`);
  t.teardown(() => stalled.destroy());
  const closed = once(stalled, 'close');
  await until(() => streams.count() === 2, 'both streams open', 10_000);

  // The kernel's socket buffers fill first, then the server's queue; the bound and the stall
  // timeout (1 s) then end the stalled stream. Before the fix it stayed open for good.
  await until(() => streams.count() === 1, 'the stalled stream to be ended', 60_000);
  const lines = app.logs.filter((l) => l.msg === STALL_LOG);
  t.is(lines.length, 1, 'one line for the stalled viewer, not one per frame');
  t.like(lines[0], { level: 40, monitor_id: 1, stream: 'live' });
  t.true(lines[0]!.queued_bytes > 65536);
  t.true(lines[0]!.skipped_parts >= 1);

  // The reading viewer still gets frames.
  const before = readBytes;
  await until(() => readBytes > before, 'more frames for the reading viewer', 10_000);
  t.is(streams.count(), 1);

  // The stalled client, reading again, finds its connection closed by the server.
  stalled.resume();
  await Promise.race([
    closed,
    sleep(30_000).then(() => {
      throw new Error('the stalled connection was not closed');
    }),
  ]);
  await sleep(500);
  t.is(app.logs.filter((l) => l.msg === STALL_LOG).length, 1, 'still one line');
});
