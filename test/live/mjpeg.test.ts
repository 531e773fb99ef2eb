// GET /live/{id}/mjpeg: the live view of stock ZoneMinder, from shared memory only (no stream
// socket exists anywhere here). Parts are sent only for new images, `maxfps` is checked and
// capped, access rules match the other live routes, and a client that goes away releases the
// stream and its shared-memory mapping.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import test from 'ava';
import bcrypt from 'bcryptjs';

import { LIVE_IMAGE_ROUTES } from '../../src/features/live/live-image-routes.js';
import { isMediaPath } from '../../src/http/media-table.js';
import { LiveMjpegStreams } from '../../src/features/live/live-mjpeg.js';
import { MJPEG_BOUNDARY } from '../../src/media/mjpeg.js';
import { sharedMemoryPath } from '../../src/native/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { abandonRequest } from '../helpers/http.js';
import { login } from '../helpers/rest.js';
import { commitImage, writeShmFixture, type ShmFixture } from '../helpers/shm-fixture.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';

const mapDir = mkdtempSync(join(tmpdir(), 'zmgate-live-mjpeg-'));
const sockDir = mkdtempSync(join(tmpdir(), 'zmgate-no-socks-'));
let app: TestApp;
let db: FreshDatabase;
let fixture: ShmFixture;
const tokens: Record<string, string> = {};

test.before(async () => {
  db = await zmDatabase('livemjpeg');
  const add = (username: string, perms: Record<string, string>) =>
    insertUser(db, { username, password: username, stored: bcrypt.hashSync(username, 4), perms });
  await add('viewer', { Stream: 'View' });
  await add('nostream', { Stream: 'None', Monitors: 'View' });
  const limited = await add('limited', { Stream: 'View' });
  await db.db.query(
    "INSERT INTO Monitors (Id, Name, Width, Height, ImageBufferCount) VALUES (1, 'cam', 320, 240, 3), (2, 'hidden', 320, 240, 3), (3, 'off', 320, 240, 3)",
    [],
    db.name,
  );
  await db.db.query(
    "INSERT INTO Monitors_Permissions (UserId, MonitorId, Permission) VALUES (?, 2, 'None')",
    [limited],
    db.name,
  );
  const heartbeat = Math.floor(Date.now() / 1000);
  fixture = writeShmFixture(sharedMemoryPath(mapDir, 1), {
    layout: 888,
    format: 'rgb24',
    width: 320,
    height: 240,
    imageBufferCount: 3,
    // Every slot holds a picture (and its pixel format); slot 0 is the newest.
    images: [
      { slot: 1, timestampUs: 1_699_999_999_800_000 },
      { slot: 2, timestampUs: 1_699_999_999_900_000 },
      { slot: 0, timestampUs: 1_700_000_000_000_000 },
    ],
    fields: { heartbeat_time: heartbeat },
  });
  writeShmFixture(sharedMemoryPath(mapDir, 2), {
    layout: 888,
    format: 'rgb24',
    width: 320,
    height: 240,
    imageBufferCount: 3,
    images: [{ slot: 0, timestampUs: 1 }],
    fields: { heartbeat_time: heartbeat },
  });
  app = await startTestApp({
    db,
    env: {
      APP_AUTH__RATE_LIMIT__ENABLED: 'false',
      APP_ZONEMINDER__PATH_MAP: mapDir,
      APP_ZONEMINDER__PATH_SOCKS: sockDir,
      APP_METRICS__ENABLED: 'true', // the live bytes counter
    },
  });
  for (const name of ['viewer', 'nostream', 'limited']) tokens[name] = await login(app, name);
});
test.after.always(async () => {
  await app?.close();
  rmSync(mapDir, { recursive: true, force: true });
  rmSync(sockDir, { recursive: true, force: true });
});

/** zmc committing a new image into monitor 1's shared memory. */
const commit = (slot: number, timestampUs: number) =>
  commitImage(sharedMemoryPath(mapDir, 1), fixture, slot, timestampUs);

/** Reads parts of a multipart stream as they arrive. */
class PartReader {
  /** Each part, and its bytes on the wire (boundary and head included). */
  parts: Array<{ headers: Record<string, string>; body: Buffer; raw: number }> = [];
  #buf = Buffer.alloc(0);
  constructor(readonly res: Response) {
    void this.#pump();
  }
  async #pump() {
    const reader = this.res.body!.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        this.#buf = Buffer.concat([this.#buf, Buffer.from(value)]);
        this.#parse();
      }
    } catch {
      // aborted
    }
  }
  #parse() {
    for (;;) {
      const start = this.#buf.indexOf(`--${MJPEG_BOUNDARY}\r\n`);
      if (start < 0) return;
      const headEnd = this.#buf.indexOf('\r\n\r\n', start);
      if (headEnd < 0) return;
      const headers = Object.fromEntries(
        this.#buf
          .subarray(start, headEnd)
          .toString()
          .split('\r\n')
          .slice(1)
          .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      const len = Number(headers['content-length']);
      if (this.#buf.length < headEnd + 4 + len) return;
      // A part ends with CRLF after its body (before the next boundary).
      this.parts.push({
        headers,
        body: this.#buf.subarray(headEnd + 4, headEnd + 4 + len),
        raw: headEnd + 4 + len + 2 - start,
      });
      this.#buf = this.#buf.subarray(headEnd + 4 + len);
    }
  }
  async waitFor(n: number, timeoutMs = 10_000) {
    const end = Date.now() + timeoutMs;
    while (this.parts.length < n && Date.now() < end) await sleep(20);
    return this.parts.length;
  }
}

test.serial(
  'frames come from shared memory with no stream socket; only new images are sent; disconnect releases the stream',
  async (t) => {
    const abort = new AbortController();
    const res = await fetch(app.api(`/live/1/mjpeg?token=${tokens.viewer}&maxfps=10`), { signal: abort.signal });
    t.is(res.status, 200);
    t.regex(
      res.headers.get('content-type') ?? '',
      new RegExp(`^multipart/x-mixed-replace; boundary=${MJPEG_BOUNDARY}$`),
    );
    t.is(res.headers.get('content-encoding'), null);
    const reader = new PartReader(res);
    t.is(await reader.waitFor(1), 1);
    t.is(app.services.get(LiveMjpegStreams).count(), 1);
    t.deepEqual([...app.services.get(LiveMjpegStreams).viewers()], [[1, 1]]);
    const mapped = () => readFileSync('/proc/self/maps', 'utf8').includes(sharedMemoryPath(mapDir, 1));
    t.true(mapped(), "the stream holds the monitor's mapping");
    // Ten polls with nothing new: still one part.
    await sleep(1000);
    t.is(reader.parts.length, 1, 'an unchanged image is not sent again');
    commit(1, 1_700_000_000_100_000);
    t.is(await reader.waitFor(2), 2);
    commit(2, 1_700_000_000_200_000);
    t.is(await reader.waitFor(3), 3);
    for (const p of reader.parts) {
      t.is(p.headers['content-type'], 'image/jpeg');
      t.is(p.body.readUInt16BE(0), 0xffd8);
    }
    t.deepEqual(
      reader.parts.map((p) => p.headers['x-timestamp']),
      ['1700000000.000', '1700000000.100', '1700000000.200'],
    );
    // The live bytes metric: every part with its part head (the stream's bytes up to here).
    const sent = reader.parts.reduce((n, p) => n + p.raw, 0);
    t.regex(
      (await app.services.metrics.render()).body,
      new RegExp(`^zmgate_live_bytes_sent_total\\{monitor="1",transport="mjpeg"\\} ${sent}$`, 'm'),
    );
    abort.abort();
    const end = Date.now() + 5000;
    while (app.services.get(LiveMjpegStreams).count() > 0 && Date.now() < end) await sleep(20);
    t.is(
      app.services.get(LiveMjpegStreams).count(),
      0,
      'the stream and its mapping are released when the client goes away',
    );
    t.is(app.services.get(LiveMjpegStreams).viewers().size, 0);
    while (mapped() && Date.now() < end) await sleep(20);
    t.false(mapped(), 'and the file is unmapped');
  },
);

test.serial('access: 401, 403 without Stream, 404 hidden/missing, 503 not capturing, 400 bad maxfps', async (t) => {
  const get = (path: string, token?: string) =>
    fetch(app.api(path), { headers: token ? { authorization: `Bearer ${token}` } : {} });
  t.is((await get('/live/1/mjpeg')).status, 401);
  t.is((await get('/live/1/mjpeg', tokens.nostream)).status, 403);
  const hidden = await get('/live/2/mjpeg', tokens.limited);
  t.is(hidden.status, 404);
  t.is((await hidden.json()).kind, 'MONITOR_NOT_FOUND_ERROR');
  const missing = await get('/live/99/mjpeg', tokens.limited);
  t.is(missing.status, 404);
  t.like(
    await missing.json(),
    { kind: 'MONITOR_NOT_FOUND_ERROR', code: 4, details: [['monitor_id', '99']] },
    'a missing monitor answers as a hidden one',
  );
  const off = await get('/live/3/mjpeg', tokens.viewer);
  t.is(off.status, 503);
  t.is((await off.json()).kind, 'SERVICE_UNAVAILABLE_ERROR');
  // 0.001 would poll every 1000 s: past setTimeout's range, which then fires every 1 ms.
  for (const bad of ['0', '-1', 'abc', '1e3', '0.001', '0.0000000001']) {
    const res = await get(`/live/1/mjpeg?maxfps=${bad}`, tokens.viewer);
    t.is(res.status, 400, bad);
    t.deepEqual(
      (await res.json()).details.map((d: string[]) => d[0]),
      ['maxfps'],
    );
  }
  t.is((await get('/live/x/mjpeg', tokens.viewer)).status, 400);
  const deadline = Date.now() + 5000;
  while (app.services.get(LiveMjpegStreams).count() > 0 && Date.now() < deadline) await sleep(20);
  t.is(app.services.get(LiveMjpegStreams).count(), 0, 'refused requests open no stream');
});

test.serial(
  'a client gone before the first byte: the stream ends and releases its viewer count and mapping',
  async (t) => {
    const mapped = () => readFileSync('/proc/self/maps', 'utf8').includes(sharedMemoryPath(mapDir, 1));
    for (let i = 0; i < 3; i++)
      await abandonRequest(app.api(`/live/1/mjpeg?maxfps=10`), { authorization: `Bearer ${tokens.viewer}` });
    // The handler runs on after the client left (ACL, shared memory, first JPEG); then it must end.
    const end = Date.now() + 5000;
    while ((app.services.get(LiveMjpegStreams).count() > 0 || mapped()) && Date.now() < end) await sleep(50);
    await sleep(500); // a handler still in its first awaits would open a stream now
    while ((app.services.get(LiveMjpegStreams).count() > 0 || mapped()) && Date.now() < end + 3000) await sleep(50);
    t.is(app.services.get(LiveMjpegStreams).count(), 0, 'no stream is left waiting for a drain that never comes');
    t.is(app.services.get(LiveMjpegStreams).viewers().size, 0, 'no phantom viewer in /live/sources');
    t.false(mapped(), 'the shared memory is unmapped');
  },
);

test.serial('maxfps above the configured cap is lowered to it (not refused)', async (t) => {
  const abort = new AbortController();
  const res = await fetch(app.api(`/live/1/mjpeg?maxfps=1000`), {
    headers: { authorization: `Bearer ${tokens.viewer}` },
    signal: abort.signal,
  });
  t.is(res.status, 200);
  const reader = new PartReader(res);
  t.is(await reader.waitFor(1), 1);
  abort.abort();
});

test('the OpenAPI document declares every live-image route, the snapshot as the reference surface has it', async (t) => {
  const doc = await (await fetch(`${app.url}/api-docs/openapi.json`)).json();
  for (const route of LIVE_IMAGE_ROUTES) {
    const op = doc.paths[route.path]?.get;
    t.truthy(op, route.path);
    t.is(op?.operationId, route.operationId);
    t.true(
      op?.parameters.some((p: any) => p.in === 'query' && p.name === 'token'),
      `${route.path}: token parameter`,
    );
    t.true(
      isMediaPath(route.path.replace('{monitor_id}', '7')),
      `${route.path}: a media path (?token=, no compression, no limiter)`,
    );
  }
  const surface = JSON.parse(
    readFileSync(new URL('../../data/contract/v3-reference-surface.json', import.meta.url), 'utf8'),
  );
  const ref = surface.operations.find((o: any) => o.operationId === 'getMonitorSnapshot');
  t.is(ref.path, '/api/v3/monitors/{monitor_id}/snapshot');
  t.truthy(doc.paths[ref.path]?.[ref.method.toLowerCase()]);
});
