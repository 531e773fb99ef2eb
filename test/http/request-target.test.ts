// A request path that does not percent-decode is a 400 BAD_REQUEST_ERROR naming the path,
// decided at the door (src/http/middleware/request-target.ts): on JSON routes, media routes and
// beside the hot-read lane's paths, with or without a token, and logged as the request's one
// line only (no error line, no stack). Query strings are decoded leniently and never fail a
// request: their values get the route's own answer.
import test, { type ExecutionContext } from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertEvent, insertMonitor } from '../helpers/events.js';
import { isEnvelope, request } from '../helpers/http.js';
import { addUser, login } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let token: string;

test.before(async () => {
  const db = await zmDatabase('target');
  await addUser(db, 'admin', { System: 'Edit', Monitors: 'Edit', Events: 'Edit', Stream: 'View' });
  await insertMonitor(db, 1, 'front');
  await insertEvent(db, { id: 1, monitorId: 1 });
  app = await startTestApp({ db, env: { APP_SERVER__MIDDLEWARE__RATE_LIMIT__ENABLED: 'false' } });
  token = await login(app, 'admin');
});
test.after.always(async () => {
  await app?.close();
});

/** `%zz` and a lone `%` are not escapes; `%ff`, `%c0` and a truncated `%e2%82` are not UTF-8. */
const MALFORMED = ['%c0', '%ff', '%zz', '%', '%e2%82', '%41%zz'];

/** `{x}` stands for the malformed segment. */
const PATHS = [
  // JSON routes (express's chain).
  '/api/v3/monitors/{x}',
  '/api/v3/events/{x}',
  '/api/v3/monitors/{x}/zones',
  // Media routes.
  '/api/v3/events/{x}/video',
  '/api/v3/live/{x}/mjpeg',
  // Beside the hot-read lane's paths (src/http/polled-reads.ts).
  '/api/v3/monitors{x}',
  '/api/v3/events{x}',
  '/api/v3/me{x}',
];

/** The request's log records, once its request line is written (the log is asynchronous). */
async function logsOf(reqId: string | null): Promise<Array<Record<string, any>>> {
  const mine = () => app.logs.filter((l) => l.req_id === reqId);
  for (let i = 0; i < 200 && !mine().some((l) => l.msg === 'request'); i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return mine();
}

/** At most one line per request, below error, and never a stack. */
async function quietLog(t: ExecutionContext, reqId: string | null, what: string): Promise<void> {
  const lines = await logsOf(reqId);
  t.true(
    lines.some((l) => l.msg === 'request'),
    `${what}: its request line`,
  );
  t.deepEqual(
    lines.filter((l) => l.level >= 50).map((l) => l.msg),
    [],
    `${what}: no error line`,
  );
  t.true(lines.filter((l) => l.level >= 40).length <= 1, `${what}: one warning at most`);
  t.false(JSON.stringify(lines).includes('stack'), `${what}: no stack`);
}

for (const withToken of [true, false]) {
  test(`a malformed escape in the path is 400 naming the path, before authentication (${withToken ? 'with' : 'without'} a token)`, async (t) => {
    const headers: Record<string, string> = withToken ? { authorization: `Bearer ${token}` } : {};
    for (const template of PATHS) {
      for (const bad of MALFORMED) {
        const path = template.replace('{x}', bad);
        const res = await request(`${app.url}${path}`, { headers });
        const what = `GET ${path}: ${res.status} ${res.text.slice(0, 160)}`;
        t.is(res.status, 400, what);
        t.true(isEnvelope(res.body), what);
        t.is(res.body?.kind, 'BAD_REQUEST_ERROR', what);
        t.deepEqual(res.body?.details?.[0], ['path', path], what);
        t.is(res.headers.get('content-type'), 'application/json; charset=utf-8', what);
        await quietLog(t, res.headers.get('x-request-id'), what);
      }
    }
  });
}

test('well-formed escapes still reach their route', async (t) => {
  const headers = { authorization: `Bearer ${token}` };
  // %31 is "1"; %2F is an escaped slash inside one segment (no such monitor).
  const one = await request(app.api('/monitors/%31'), { headers });
  t.is(one.status, 200, one.text.slice(0, 200));
  t.is(one.body?.id, 1);
  const slash = await request(app.api('/monitors/1%2F2'), { headers });
  t.is(slash.status, 400, slash.text.slice(0, 200));
  t.is(slash.body?.kind, 'INVALID_INPUT_ERROR', 'judged by the route, not the door');
});

test('malformed escapes in a query string never fail a request: the route judges the value', async (t) => {
  const headers = { authorization: `Bearer ${token}` };
  const cases: Array<[string, number]> = [
    // Lane reads: an integer that is not one is the route's 400.
    ['/monitors?page=%zz', 400],
    ['/events?page=%c0', 400],
    ['/events?page_size=%', 400],
    // Parameters a route does not take are ignored, as any other.
    ['/events?x=%zz', 200],
    ['/events?%e2%82=1', 200],
    ['/monitors/1?x=%ff', 200],
  ];
  for (const [path, status] of cases) {
    const res = await request(app.api(path), { headers });
    const what = `GET ${path}: ${res.status} ${res.text.slice(0, 160)}`;
    t.is(res.status, status, what);
    if (status >= 400) t.true(isEnvelope(res.body), what);
    await quietLog(t, res.headers.get('x-request-id'), what);
  }
});
