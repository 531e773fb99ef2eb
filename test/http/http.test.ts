import test from 'ava';
import { gzipSync } from 'node:zlib';
import { freshDatabase, privateMariaDb, sharedMariaDb } from '../helpers/mariadb.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { compressible } from '../../src/http/app.js';
import { isEnvelope, request } from '../helpers/http.js';

let app: TestApp;

test.before(async () => {
  const db = await freshDatabase('http');
  await db.db.exec(
    'CREATE TABLE Config (Name varchar(32) PRIMARY KEY, Value text NOT NULL); ' +
      "INSERT INTO Config VALUES ('ZM_DYN_CURR_VERSION', '1.36.33'), ('ZM_DYN_DB_VERSION', '1.36.33')",
    db.name,
  );
  app = await startTestApp({ db, env: { APP_SERVER__MIDDLEWARE__BODY_LIMIT_BYTES: '1024' } });
});
test.after.always(async () => {
  await app?.close();
});

test('health_check answers 200 {"message":"Ok"} while the database is up', async (t) => {
  const res = await request(app.api('/server/health_check'));
  t.is(res.status, 200);
  t.deepEqual(res.body, { message: 'Ok' });
});

test('getVersion reports ZoneMinder, schema and API versions', async (t) => {
  const res = await request(app.api('/host/getVersion'));
  t.is(res.status, 200);
  t.deepEqual(res.body, { version: '1.36.33', api_version: '3.0.0-alpha.1', db_version: '1.36.33' });
});

test('an unknown /api path is a JSON 404 envelope', async (t) => {
  const res = await request(app.api('/nope'));
  t.is(res.status, 404);
  t.true(isEnvelope(res.body));
  t.is(res.body.kind, 'NOT_FOUND_ERROR');
  t.is(res.body.code, null);
  t.regex(res.headers.get('content-type') ?? '', /application\/json/);
});

test('a known path with the wrong method is 405 with Allow', async (t) => {
  const res = await request(app.api('/server/health_check'), { method: 'DELETE' });
  t.is(res.status, 405);
  t.is(res.body.kind, 'METHOD_NOT_ALLOWED_ERROR');
  t.is(res.headers.get('allow'), 'GET, HEAD');
});

test('routes are grouped by resource without changing what answers: any case, 405 within a group', async (t) => {
  // Express matches paths case-insensitively; the grouping by first segment (route-index.ts) too.
  const upper = await request(app.api('/server/health_check').replace('/api/v3/server/', '/API/V3/Server/'));
  t.is(upper.status, 200);
  // The monitors group holds the list (GET, POST); the 405 names both, as before.
  const wrong = await request(app.api('/monitors'), { method: 'DELETE' });
  t.is(wrong.status, 405);
  t.is(wrong.headers.get('allow'), 'GET, HEAD, POST');
  // An unknown segment under /api/v3 is a 404, not a crash in the lookup.
  t.is((await request(app.api('/no-such-group/1'))).status, 404);
  t.is((await request(app.api('/'))).status, 404);
});

test('a malformed JSON body is 400 INVALID_INPUT_ERROR naming the body', async (t) => {
  const res = await request(app.api('/server/health_check'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"username": ',
  });
  t.is(res.status, 400);
  t.is(res.body.kind, 'INVALID_INPUT_ERROR');
  t.deepEqual(res.body.details, [['body', 'malformed JSON']]);
  t.false(res.text.includes('SyntaxError'));
});

test('a body over server.middleware.body_limit_bytes is a 413 envelope', async (t) => {
  const res = await request(app.api('/server/health_check'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pad: 'x'.repeat(2048) }),
  });
  t.is(res.status, 413);
  t.true(isEnvelope(res.body));
  t.is(res.body.kind, 'PAYLOAD_TOO_LARGE_ERROR');
});

test('security headers are set and HSTS is not sent without TLS', async (t) => {
  const res = await request(app.api('/server/health_check'));
  t.is(res.headers.get('x-content-type-options'), 'nosniff');
  t.is(res.headers.get('x-frame-options'), 'DENY');
  t.is(res.headers.get('referrer-policy'), 'no-referrer');
  t.is(res.headers.get('strict-transport-security'), null);
  t.is(res.headers.get('x-powered-by'), null);
  t.truthy(res.headers.get('x-request-id'));
});

test('CORS echoes an allowed origin and ignores others; preflight answers 204', async (t) => {
  const ok = await request(app.api('/server/health_check'), { headers: { origin: 'http://localhost:5173' } });
  t.is(ok.headers.get('access-control-allow-origin'), 'http://localhost:5173');
  t.is(ok.headers.get('access-control-allow-credentials'), 'true');
  const other = await request(app.api('/server/health_check'), { headers: { origin: 'http://evil.example' } });
  t.is(other.headers.get('access-control-allow-origin'), null);
  const pre = await request(app.api('/server/health_check'), {
    method: 'OPTIONS',
    headers: { origin: 'http://127.0.0.1:3000', 'access-control-request-method': 'POST' },
  });
  t.is(pre.status, 204);
  t.regex(pre.headers.get('access-control-allow-methods') ?? '', /PATCH/);
});

test('JSON is compressed on request; streaming paths never are', async (t) => {
  const doc = await fetch(`${app.url}/api-docs/openapi.json`, { headers: { 'accept-encoding': 'gzip' } });
  t.truthy(JSON.parse(await doc.text()).openapi);
  t.is(doc.headers.get('content-encoding'), 'gzip');
  const plain = await fetch(`${app.url}/api-docs/openapi.json`, { headers: { 'accept-encoding': 'identity' } });
  await plain.arrayBuffer();
  t.is(plain.headers.get('content-encoding'), null);
  const asked = (path: string) =>
    compressible(
      { originalUrl: path, headers: { 'accept-encoding': 'gzip' } } as any,
      { getHeader: (h: string) => (h.toLowerCase() === 'content-type' ? 'application/json' : undefined) } as any,
    );
  t.true(asked('/api/v3/monitors?page=1'));
  for (const media of [
    '/api/v3/live/1/hls/live.m3u8',
    '/api/v3/events/7/video',
    '/api/v3/events/7/stream/video.mp4',
    '/api/v3/events/7/thumbnail',
    '/api/v3/monitors/2/snapshot?token=x',
  ]) {
    t.false(asked(media), media);
  }
});

test('a gzip-encoded JSON body is accepted by the parser', async (t) => {
  const res = await request(app.api('/server/health_check'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: gzipSync('{"a":1}'),
  });
  t.is(res.status, 405, 'parsed, then refused for the method, not for the body');
});

test('request logs are JSON with the token query value redacted', async (t) => {
  await request(app.api('/nope?token=supersecret&x=1'));
  await new Promise((r) => setTimeout(r, 50));
  const record = app.logs.find((l) => l.msg === 'request' && String(l.url).startsWith('/api/v3/nope?'));
  t.truthy(record);
  t.is(record!.url, '/api/v3/nope?token=[REDACTED]&x=1');
  t.false(JSON.stringify(app.logs).includes('supersecret'));
  t.is(record!.status, 404);
});

test('stopping the database makes health_check 503 and the service keeps running', async (t) => {
  const server = await privateMariaDb();
  const db = await freshDatabase('down', server);
  const own = await startTestApp({ db });
  try {
    t.is((await request(own.api('/server/health_check'))).status, 200);
    await server.pause();
    const down = await request(own.api('/server/health_check'));
    t.is(down.status, 503);
    t.is(down.body.kind, 'SERVICE_UNAVAILABLE_ERROR');
    t.false(/sql|select|econnrefused|127\.0\.0\.1/i.test(down.text), down.text);
    const version = await request(own.api('/host/getVersion'));
    t.is(version.status, 200, 'version still answers without a database');
    t.is(version.body.version, 'unknown');
    await server.resume();
    let status = 0;
    for (let i = 0; i < 20 && status !== 200; i++) {
      status = (await request(own.api('/server/health_check'))).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    t.is(status, 200, 'recovers once the database is back');
  } finally {
    await own.close();
    await server.stop();
  }
});

test('the global per-IP limiter answers 429 with Retry-After and skips streaming paths', async (t) => {
  const db = await freshDatabase('limit', await sharedMariaDb());
  const own = await startTestApp({
    db,
    env: {
      APP_SERVER__MIDDLEWARE__RATE_LIMIT__ENABLED: 'true',
      APP_SERVER__MIDDLEWARE__RATE_LIMIT__BURST_SIZE: '3',
      APP_SERVER__MIDDLEWARE__RATE_LIMIT__RATE_LIMIT_PERIOD_SECS: '60',
    },
  });
  try {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await request(own.api('/host/getVersion'))).status);
    t.deepEqual(statuses, [200, 200, 200, 429]);
    const limited = await request(own.api('/host/getVersion'));
    t.is(limited.body.kind, 'TOO_MANY_REQUESTS_ERROR');
    t.truthy(Number(limited.headers.get('retry-after')) >= 1);
    t.is(
      (await request(own.api('/live/1/hls/live.m3u8'))).status,
      401,
      'streaming path is not limited (refused for the missing token, not 429)',
    );
  } finally {
    await own.close();
  }
});
