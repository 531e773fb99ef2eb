// The hot-read lane (src/http/hot-reads.ts) against the full chain: two apps on one set of
// services and one database, one with the lane and one without. Every request is sent to both
// and the answers compared byte for byte (status, headers but Date and X-Request-Id, body, and
// the request's log record). The lane's count says which requests it answered.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import test, { type ExecutionContext } from 'ava';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/log.js';
import { createPool } from '../../src/db/pool.js';
import { createPrismaClient } from '../../src/db/prisma.js';
import { createServices } from '../../src/app/services.js';
import { createApp } from '../../src/http/app.js';
import type { HotReadLane } from '../../src/http/fast-path/hot-reads.js';
import { logCapture, testEnv } from '../helpers/app.js';
import { insertEvent, insertMonitor, sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { addUser, login } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}
interface Pair {
  lane: HotReadLane;
  laneUrl: string;
  chainUrl: string;
  logs: Array<Record<string, any>>;
  close(): Promise<void>;
}

let db: FreshDatabase;
const closers: Array<() => Promise<void>> = [];

test.before(async () => {
  db = await zmDatabase('hotreads');
  // 40 monitors: the list (~3 KB a row) is well above the compression threshold.
  for (let id = 1; id <= 40; id++) await insertMonitor(db, id);
  for (let i = 0; i < 30; i++) {
    const start = `2026-01-10 ${String(i % 24).padStart(2, '0')}:${String(i).padStart(2, '0')}:00`;
    await insertEvent(db, { monitorId: 1 + (i % 3), name: `E${i}`, start, end: start });
  }
  await addUser(db, 'hradmin', { Monitors: 'Edit', Events: 'Edit', System: 'Edit' });
  const viewer = await addUser(db, 'hrviewer', { Monitors: 'View', Events: 'View' });
  await sql(db, "INSERT INTO Monitors_Permissions (MonitorId, UserId, Permission) VALUES (2, ?, 'None')", [viewer]);
});
test.after.always(async () => {
  for (const close of closers) await close();
});

async function listen(handler: http.RequestListener): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function pair(env: Record<string, string> = {}): Promise<Pair> {
  const { config } = loadConfig({
    env: testEnv({ db, env: { APP_SERVER__ALLOWED_ORIGINS: 'http://ui.test', ...env } }),
    defaultOperatorFile: '/nonexistent/prod.toml',
  });
  const { logs, stream } = logCapture();
  const log = createLogger({ level: 'info', stream });
  const pool = createPool(config.db);
  const prisma = createPrismaClient(config.db);
  const services = createServices(config, log, pool, prisma);
  const withLane = createApp(services);
  const lane = withLane.locals.hotReads as HotReadLane;
  const a = await listen(withLane);
  const b = await listen(createApp(services, { hotReads: false }));
  const close = async () => {
    for (const s of [a.server, b.server]) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
    await pool.end();
    await prisma.$disconnect();
  };
  closers.push(close);
  return { lane, laneUrl: a.url, chainUrl: b.url, logs, close };
}

function send(url: string, method: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Headers for a test's message, without the token. */
const shown = (headers: Record<string, string>) =>
  JSON.stringify({ ...headers, ...(headers.authorization ? { authorization: '…' } : {}) });

const comparable = (a: Answer) => {
  const { date: _date, 'x-request-id': _id, ...headers } = a.headers;
  return { status: a.status, headers, body: a.body.toString('base64') };
};
/** The request's log record, written when its answer is finished (which may be after the client has it). */
async function logAfter(p: Pair, count: number): Promise<Record<string, any>> {
  for (let i = 0; i < 100 && p.logs.length <= count; i++) await new Promise((r) => setTimeout(r, 10));
  const { req_id: _id, duration_ms: _ms, time: _t, ...rest } = p.logs.at(-1) ?? {};
  return rest;
}

/** Sends the request to both apps; returns the lane's answer and whether the lane gave it. */
async function both(
  t: ExecutionContext,
  p: Pair,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ answer: Answer; laned: boolean }> {
  let count = p.logs.length;
  const chain = await send(p.chainUrl + path, method, headers);
  const chainLog = await logAfter(p, count);
  const before = p.lane.answered;
  count = p.logs.length;
  const answer = await send(p.laneUrl + path, method, headers);
  t.deepEqual(comparable(answer), comparable(chain), `${method} ${path} ${shown(headers)}`);
  t.deepEqual(await logAfter(p, count), chainLog, `log record of ${method} ${path}`);
  t.truthy(answer.headers['x-request-id']);
  return { answer, laned: p.lane.answered > before };
}

/** The lane's operations, with queries a console sends. */
const POLLED: Array<[string, string[]]> = [
  ['/api/v3/monitors', ['', '?page=1&page_size=100', '?page_size=3&page=2', '?page=0', '?page_size=1000']],
  ['/api/v3/monitor-status', ['', '?page=1&page_size=1000']],
  [
    '/api/v3/events',
    [
      '?page=1&page_size=10',
      '',
      '?monitor_id=3&page_size=5',
      '?page=2&page_size=4&storage_id=0',
      '?alarm_frames_min=1',
      '?page=1&page_size=1000&start_time=2026-01-10T05:00:00Z',
      '?start_time=2026-01-10T00%3A00%3A00Z&end_time=2026-01-10T12:00:00Z&sort=start_time&direction=asc',
      '?name=E1&cause=Motion&page_size=5',
    ],
  ],
  ['/api/v3/me', ['']],
];

test.serial('the lane answers the polled reads exactly as the full chain does', async (t) => {
  const p = await pair();
  const admin = await login({ api: (path) => `${p.laneUrl}/api/v3${path}` }, 'hradmin');
  const viewer = await login({ api: (path) => `${p.laneUrl}/api/v3${path}` }, 'hrviewer');
  const encodings = [undefined, 'gzip', 'br', 'gzip, deflate, br, zstd', 'br;q=0.5, gzip', 'identity', 'identity;q=0'];
  for (const [path, queries] of POLLED)
    for (const token of [admin, viewer])
      for (const query of queries)
        for (const encoding of encodings) {
          const headers: Record<string, string> = { authorization: `Bearer ${token}` };
          if (encoding) headers['accept-encoding'] = encoding;
          const { answer, laned } = await both(t, p, path + query, headers);
          t.true(laned, `the lane answered ${path}${query} ${encoding}`);
          t.is(answer.status, 200);
        }
  // The kept forms decode to the JSON the plain request gets, and the viewer's list lacks monitor 2.
  const plain = await send(`${p.laneUrl}/api/v3/monitors?page_size=100`, 'GET', { authorization: `Bearer ${viewer}` });
  const br = await send(`${p.laneUrl}/api/v3/monitors?page_size=100`, 'GET', {
    authorization: `Bearer ${viewer}`,
    'accept-encoding': 'br',
  });
  const gz = await send(`${p.laneUrl}/api/v3/monitors?page_size=100`, 'GET', {
    authorization: `Bearer ${viewer}`,
    'accept-encoding': 'gzip',
  });
  t.is(br.headers['content-encoding'], 'br');
  t.is(gz.headers['content-encoding'], 'gzip');
  t.deepEqual(brotliDecompressSync(br.body), plain.body);
  t.deepEqual(gunzipSync(gz.body), plain.body);
  const ids = (JSON.parse(plain.body.toString()) as { items: Array<{ id: number }> }).items.map((m) => m.id);
  t.is(ids.length, 39);
  t.false(ids.includes(2));
});

test.serial('requests the lane cannot answer exactly get the full chain, with its answer', async (t) => {
  const p = await pair();
  const admin = await login({ api: (path) => `${p.laneUrl}/api/v3${path}` }, 'hradmin');
  const auth = { authorization: `Bearer ${admin}` };
  const cases: Array<[string, Record<string, string>, string?]> = [
    ['/api/v3/monitors', {}], // no token: 401
    ['/api/v3/monitors', { authorization: 'Bearer not-a-token' }],
    ['/api/v3/monitors', { authorization: 'Basic abc' }],
    ['/api/v3/monitors', { ...auth, origin: 'http://ui.test' }], // CORS headers
    ['/api/v3/monitors', { ...auth, origin: 'http://elsewhere.test' }],
    ['/api/v3/monitors', { ...auth, 'accept-encoding': 'deflate' }],
    ['/api/v3/monitors', { ...auth, 'if-none-match': '*' }],
    ['/api/v3/monitors', auth, 'HEAD'],
    ['/api/v3/monitors/', auth],
    ['/api/v3/monitors?page_size=1001', auth],
    ['/api/v3/monitors?page=-1', auth],
    ['/api/v3/monitors?page=abc', auth],
    ['/api/v3/monitors?page=01', auth],
    ['/api/v3/monitors?page=1&page=2', auth],
    ['/api/v3/monitors?page_size=2&sort=name', auth],
    ['/api/v3/monitors?token=x', auth],
    ['/api/v3/monitors?page', auth],
    ['/api/v3/monitors/1', auth],
    ['/api/v3/events?archived=true', auth], // a boolean: the full chain's validation
    ['/api/v3/events?start_time=yesterday', auth], // the service refuses it: 400 from the full chain
    ['/api/v3/events?sort=bogus', auth],
    ['/api/v3/events?start_time=', auth],
    ['/api/v3/events?sort=start_time&sort=id', auth],
    ['/api/v3/events?monitor_id=-1', auth],
    ['/api/v3/monitor-status?page_size=1001', auth],
    ['/api/v3/me?page=1', auth],
  ];
  for (const [path, headers, method] of cases) {
    const { laned } = await both(t, p, path, headers, method);
    t.false(laned, `${method ?? 'GET'} ${path} ${shown(headers)} went down the full chain`);
  }
  // Upper case: the same route on both (the router matches paths case-insensitively).
  const { laned } = await both(t, p, '/API/V3/Monitors', auth);
  t.true(laned);
});

test.serial('a write through the API and a revoked token are seen by the lane at once', async (t) => {
  const p = await pair();
  const base = { api: (path: string) => `${p.laneUrl}/api/v3${path}` };
  const admin = await login(base, 'hradmin');
  const auth = { authorization: `Bearer ${admin}` };
  const name = async () => {
    const before = p.lane.answered;
    const res = await send(`${p.laneUrl}/api/v3/monitors?page_size=100`, 'GET', auth);
    t.is(p.lane.answered, before + 1);
    return (JSON.parse(res.body.toString()) as { items: Array<{ id: number; name: string }> }).items.find(
      (m) => m.id === 5,
    )?.name;
  };
  t.is(await name(), 'Cam 5');
  const patch = await fetch(`${p.laneUrl}/api/v3/monitors/5`, {
    method: 'PATCH',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Lane 5' }),
  });
  t.is(patch.status, 200);
  t.is(await name(), 'Lane 5');
  const out = await fetch(`${p.laneUrl}/api/v3/auth/logout`, { headers: auth });
  t.is(out.status, 200);
  const { answer, laned } = await both(t, p, '/api/v3/monitors', auth);
  t.is(answer.status, 401);
  t.false(laned);
});

test.serial("the lane counts against the caller's bucket, and an empty bucket gets the full chain's 429", async (t) => {
  const p = await pair({
    APP_SERVER__MIDDLEWARE__RATE_LIMIT__ENABLED: 'true',
    APP_SERVER__MIDDLEWARE__RATE_LIMIT__BURST_SIZE: '4',
    APP_SERVER__MIDDLEWARE__RATE_LIMIT__RATE_LIMIT_PERIOD_SECS: '600',
  });
  // The login takes one token too (it passes the global limiter as well as its own).
  const admin = await login({ api: (path) => `${p.laneUrl}/api/v3${path}` }, 'hradmin');
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) {
    statuses.push((await send(`${p.laneUrl}/api/v3/monitors`, 'GET', { authorization: `Bearer ${admin}` })).status);
  }
  t.deepEqual(statuses, [200, 200, 200, 429, 429, 429]);
  t.is(p.lane.answered, 3);
  const refused = await send(`${p.laneUrl}/api/v3/monitors`, 'GET', { authorization: `Bearer ${admin}` });
  t.truthy(refused.headers['retry-after']);
});

test.serial('behind a trusted proxy the lane keys the limiter and the log on the forwarded address', async (t) => {
  const p = await pair({
    APP_SERVER__MIDDLEWARE__TRUST_PROXY_HEADERS: 'true',
    APP_SERVER__MIDDLEWARE__RATE_LIMIT__ENABLED: 'true',
    APP_SERVER__MIDDLEWARE__RATE_LIMIT__BURST_SIZE: '2',
    APP_SERVER__MIDDLEWARE__RATE_LIMIT__RATE_LIMIT_PERIOD_SECS: '600',
  });
  const admin = await login({ api: (path) => `${p.laneUrl}/api/v3${path}` }, 'hradmin');
  const from = (ip: string) => ({ authorization: `Bearer ${admin}`, 'x-forwarded-for': ip });
  // Same answer and log record (remote: the forwarded address) on both apps; each app has its own buckets.
  const first = await both(t, p, '/api/v3/monitors', from('203.0.113.7'));
  t.true(first.laned);
  t.is(p.logs.at(-1)?.remote, '203.0.113.7');
  const status = async (ip: string) => (await send(`${p.laneUrl}/api/v3/monitors`, 'GET', from(ip))).status;
  t.is(await status('203.0.113.7'), 200);
  t.is(await status('203.0.113.7'), 429, "that client's bucket of 2 is empty");
  t.is(await status('203.0.113.8'), 200, 'another client behind the proxy has its own');
});
