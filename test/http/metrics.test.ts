// GET /metrics (docs/operations/metrics.md): off by default; on the main listener with a bearer
// token; on a listener of its own scraped by a real Prometheus (Debian's), where each camera's
// series appear and a camera that stops shows as its capture rate falling to 0.
import test from 'ava';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimCamera } from '../../src/sim/camera.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertMonitor } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { freePort } from '../helpers/pebble.js';
import { startPrometheus } from '../helpers/prometheus.js';
import { addUser, caller, login } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';

const TOKEN = 'scrape-secret-0123456789';
const ROOT = join(import.meta.dirname, '..', '..');

let db: FreshDatabase;
let dir: string;
const cams = new Map<number, SimCamera>();

test.before(async () => {
  db = await zmDatabase('metrics');
  for (const id of [1, 2]) await insertMonitor(db, id);
  await addUser(db, 'viewer', { Stream: 'View', Monitors: 'View', Events: 'View' });
  dir = mkdtempSync(join(tmpdir(), 'zmgate-metrics-'));
  for (const monitorId of [1, 2])
    cams.set(monitorId, await SimCamera.start({ monitorId, socketDir: dir, mapDir: dir }));
});

test.after.always(async () => {
  for (const cam of cams.values()) await cam.stop();
  rmSync(dir, { recursive: true, force: true });
});

const env = (extra: Record<string, string>) => ({
  APP_ZONEMINDER__PATH_SOCKS: dir,
  APP_ZONEMINDER__PATH_MAP: dir,
  APP_AUTH__RATE_LIMIT__ENABLED: 'false',
  ...extra,
});

/** `name{labels} value` lines of an exposition, by the metric's name and its label text. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    out.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return out;
}

test.serial('off by default: /metrics is a JSON 404 and nothing is collected', async (t) => {
  const app = await startTestApp({ db, env: env({}) });
  try {
    const res = await fetch(`${app.url}/metrics`);
    t.is(res.status, 404);
    t.like(await res.json(), { kind: 'NOT_FOUND_ERROR' });
    t.false(app.services.metrics.enabled);
    t.is((await app.services.metrics.render()).body.includes('zmgate_camera_up'), false);
  } finally {
    await app.close();
  }
});

test.serial(
  'on the main listener: the token is required, and requests, the fast path, cameras and live viewers are counted',
  async (t) => {
    const app: TestApp = await startTestApp({
      db,
      env: env({ APP_METRICS__ENABLED: 'true', APP_METRICS__BEARER_TOKEN: TOKEN }),
    });
    try {
      const scrape = (auth?: string, method = 'GET') =>
        fetch(`${app.url}/metrics`, { method, headers: auth ? { authorization: auth } : {} });
      const refused = await scrape();
      t.is(refused.status, 401);
      t.is(refused.headers.get('www-authenticate'), 'Bearer');
      t.like(await refused.json(), { kind: 'UNAUTHORIZED_ERROR' });
      t.is((await scrape(`Bearer ${TOKEN}x`)).status, 401);
      t.is((await scrape(`Bearer ${TOKEN}`, 'POST')).status, 405);

      const token = await login(app, 'viewer');
      const call = caller(app, token);
      t.is((await call('GET', '/monitors')).status, 200); // the hot-read lane
      t.is((await call('GET', '/monitors/1')).status, 200); // the full chain
      t.is((await call('GET', '/monitors/99')).status, 404);
      t.is((await call('GET', '/no-such-route/1')).status, 404);
      t.is((await call('POST', '/live/1/start')).status, 200); // an LL-HLS session: one reader, one hls viewer
      const master = await call('GET', '/live/1/hls/master.m3u8');
      t.is(master.status, 200);

      const res = await scrape(`Bearer ${TOKEN}`);
      t.is(res.status, 200);
      t.regex(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      const m = samples(text);
      t.is(m.get('zmgate_http_requests_total{route="/api/v3/monitors",method="GET",status="200"}'), 1);
      t.is(m.get('zmgate_http_fast_path_total{route="/api/v3/monitors"}'), 1);
      t.is(m.get('zmgate_http_requests_total{route="/api/v3/monitors/:id",method="GET",status="200"}'), 1);
      t.is(m.get('zmgate_http_requests_total{route="/api/v3/monitors/:id",method="GET",status="404"}'), 1);
      t.is(m.get('zmgate_http_requests_total{route="unmatched",method="GET",status="404"}'), 1);
      t.is(m.get('zmgate_http_request_duration_seconds_count{route="/api/v3/monitors/:id",method="GET"}'), 2);
      t.false(
        [...m.keys()].some((k) => k.includes('/monitors/99') || k.includes('no-such-route')),
        'no URL as a label',
      );
      // Both simulated cameras capture at the clip's rate.
      for (const id of [1, 2]) {
        t.is(m.get(`zmgate_camera_up{monitor="${id}"}`), 1, `camera ${id} up`);
        t.is(m.get(`zmgate_camera_capture_fps{monitor="${id}"}`), 25, `camera ${id} fps`);
        t.is(m.get(`zmgate_camera_alarm{monitor="${id}"}`), 0);
        t.true((m.get(`zmgate_camera_last_frame_age_seconds{monitor="${id}"}`) ?? -1) >= 0);
      }
      t.is(m.get('zmgate_live_readers'), 1);
      t.is(m.get('zmgate_live_hls_sessions'), 1);
      t.is(m.get('zmgate_live_viewers{monitor="1",transport="hls"}'), 1);
      t.is(m.get('zmgate_live_viewers{monitor="1",transport="webrtc"}'), 0);
      t.is(m.get('zmgate_live_bytes_sent_total{monitor="1",transport="hls"}'), Buffer.byteLength(master.text));
      t.is(m.get('zmgate_db_gate_closed'), 0);
      t.is(m.get('zmgate_db_pool_waiting'), 0);
      t.true(m.has('zmgate_process_cpu_seconds_total'), 'the default process metrics');
      t.true(m.has('zmgate_push_clients'));

      // Every metric the docs' tables and the Grafana dashboard name is one the service exports.
      const families = new Set([...text.matchAll(/^# HELP (\S+)/gm)].map((x) => x[1]));
      const docs = readFileSync(join(ROOT, 'docs/operations/metrics.md'), 'utf8');
      const documented = new Set([...docs.matchAll(/^\| `(zmgate_[a-z_]+)/gm)].map((x) => x[1]));
      t.true(documented.size >= 15);
      for (const name of documented) t.true(families.has(name), `documented ${name} is exported`);
      for (const name of families) {
        if (/^zmgate_(process|nodejs)_/.test(name)) continue; // prom-client's defaults, documented as a group
        t.true(documented.has(name), `exported ${name} is documented`);
      }
      const dashboard = readFileSync(join(ROOT, 'docs/operations/grafana-dashboard.json'), 'utf8');
      for (const [name] of dashboard.matchAll(/zmgate_[a-z_]+/g)) {
        const family = families.has(name) ? name : name.replace(/_(bucket|count|sum)$/, '');
        t.true(families.has(family), `dashboard's ${name} is exported`);
      }
    } finally {
      await app.close();
    }
  },
);

test.serial(
  'a real Prometheus scrapes the metrics listener: per-camera series appear, and a stopped camera falls to 0 fps',
  async (t) => {
    const port = await freePort();
    const app = await startTestApp({
      db,
      env: env({
        APP_METRICS__ENABLED: 'true',
        APP_METRICS__PORT: String(port),
        APP_METRICS__BEARER_TOKEN: TOKEN,
      }),
    });
    const prometheus = await startPrometheus({ url: app.metricsUrl!, token: TOKEN });
    try {
      t.is(app.metricsUrl, `http://127.0.0.1:${port}/metrics`);
      // The metrics are not on the main listener when they have their own, and only at their path there.
      t.is((await fetch(`${app.url}/metrics`)).status, 404);
      t.is((await fetch(`http://127.0.0.1:${port}/other`)).status, 404);

      const until = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
        const deadline = Date.now() + 60_000;
        for (;;) {
          const value = await probe();
          if (value !== undefined) return value;
          if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
          await new Promise((r) => setTimeout(r, 250));
        }
      };
      const up = await until('the target up', async () => {
        const v = (await prometheus.query('up{job="zmgate"}', 'job')).get('zmgate');
        return v === 1 ? v : undefined;
      });
      t.is(up, 1);
      const fps = await until('both cameras at 25 fps', async () => {
        const v = await prometheus.query('zmgate_camera_capture_fps', 'monitor');
        return v.get('1') === 25 && v.get('2') === 25 ? v : undefined;
      });
      t.deepEqual([...fps.keys()].sort(), ['1', '2']);

      await cams.get(2)!.stop();
      cams.delete(2);
      const after = await until('camera 2 at 0 fps', async () => {
        const v = await prometheus.query('zmgate_camera_capture_fps', 'monitor');
        return v.get('2') === 0 ? v : undefined;
      });
      t.is(after.get('1'), 25, 'the other camera goes on');
      t.is((await prometheus.query('zmgate_camera_up', 'monitor')).get('2'), 0);
    } finally {
      await prometheus.stop();
      await app.close();
    }
  },
);
