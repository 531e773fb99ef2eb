// Routes the v3 reference's router serves outside its OpenAPI document (#34 item 4), and the
// WebRTC WebSocket path asked for without upgrade headers. Each row names the reference source it
// follows (SteveGilvarry/zm-api): the route, the gate `protect(..., Feature::X)` in
// src/routes/mod.rs and the handler's answer.
import test from 'ava';
import bcrypt from 'bcryptjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertEvent, insertMonitor, login, sql } from '../helpers/events.js';
import { request, isEnvelope } from '../helpers/http.js';
import { servedDocument } from '../helpers/coverage.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
const tokens: Record<string, string> = {};
let eventId = 0;

const USERS = {
  events: { Events: 'View', Monitors: 'View' },
  noevents: { Events: 'None', Monitors: 'View' },
  system: { System: 'Edit' },
  sysview: { System: 'View' },
  stream: { Stream: 'View', Monitors: 'View' },
  nostream: { Stream: 'None', Monitors: 'View' },
  /** Events and Stream, but monitor 1 hidden (Monitors_Permissions None). */
  hidden: { Events: 'View', Stream: 'View', Monitors: 'View' },
} as const;

test.before(async () => {
  db = await zmDatabase('refroutes');
  const ids: Record<string, number> = {};
  for (const [name, perms] of Object.entries(USERS))
    ids[name] = await insertUser(db, { username: name, password: name, stored: bcrypt.hashSync(name, 4), perms });
  await insertMonitor(db, 1);
  await insertMonitor(db, 2);
  await sql(db, "INSERT INTO Monitors_Permissions (UserId, MonitorId, Permission) VALUES (?, 1, 'None')", [ids.hidden]);
  eventId = await insertEvent(db, { monitorId: 1, start: '2026-01-10 08:00:00', end: '2026-01-10 08:01:00' });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  for (const name of Object.keys(USERS)) tokens[name] = await login(app, name);
});

test.after.always(async () => app?.close());

const send = (method: string, path: string, token?: string) =>
  request(app.api(path), { method, headers: token ? { authorization: `Bearer ${token}` } : {} });

interface Row {
  /** The reference source the row follows. */
  ref: string;
  method: 'GET' | 'POST';
  /** `{id}` stands for the seeded event. */
  path: string;
  /** A user with the feature, and one without. */
  allowed: keyof typeof USERS;
  denied: keyof typeof USERS;
  status: number;
  /** Omitted where zmgate's kind differs (listed in docs/contract/clients.md). */
  kind?: string;
  message?: string;
}

// AppError::ServiceUnavailableError's Display (src/error/mod.rs) is the message.
const synopsisOff = 'service unavailable: motion synopsis is disabled';
const ROWS: Row[] = [
  {
    ref: 'src/routes/events_playback.rs (media_auth, Feature::Events); handlers/synopsis.rs get_event_synopsis_review: event lookup, then 503 when disabled',
    method: 'GET',
    path: '/events/{id}/synopsis/review',
    allowed: 'events',
    denied: 'noevents',
    status: 503,
    kind: 'SERVICE_UNAVAILABLE_ERROR',
    message: synopsisOff,
  },
  {
    ref: 'handlers/synopsis.rs get_event_synopsis_layout: event lookup, then 503 when disabled',
    method: 'GET',
    path: '/events/{id}/synopsis/layout?class=1,2',
    allowed: 'events',
    denied: 'noevents',
    status: 503,
    kind: 'SERVICE_UNAVAILABLE_ERROR',
    message: synopsisOff,
  },
  {
    ref: 'handlers/synopsis.rs get_event_synopsis: event lookup, then 503 when disabled',
    method: 'GET',
    path: '/events/{id}/synopsis',
    allowed: 'events',
    denied: 'noevents',
    status: 503,
    kind: 'SERVICE_UNAVAILABLE_ERROR',
    message: synopsisOff,
  },
  {
    ref: 'handlers/synopsis.rs get_event_synopsis_mp4: no enabled check; no rendered row -> not_found_event',
    method: 'GET',
    path: '/events/{id}/synopsis/mp4',
    allowed: 'events',
    denied: 'noevents',
    status: 404,
    kind: 'EVENT_NOT_FOUND_ERROR',
  },
  {
    ref: 'handlers/synopsis.rs get_range_synopsis: Query(monitor_id, from, to), monitor ACL, then 503 when disabled',
    method: 'GET',
    path: '/events/synopsis?monitor_id=1&from=1700000000&to=1700003600',
    allowed: 'events',
    denied: 'noevents',
    status: 503,
    kind: 'SERVICE_UNAVAILABLE_ERROR',
    message: synopsisOff,
  },
  {
    ref: 'src/routes/server.rs add_server_routes: states/change/{action} -> server::change_state, protect(Feature::System); a bad action is its 400',
    method: 'POST',
    path: '/states/change/bogus',
    allowed: 'system',
    denied: 'sysview',
    // The reference's kind here is BAD_REQUEST_ERROR; zmgate's server/control answers
    // INVALID_INPUT_ERROR, and the alias answers as server/control does (test below).
    status: 400,
  },
];

for (const row of ROWS) {
  test(`${row.method} ${row.path} — ${row.ref}`, async (t) => {
    const path = row.path.replace('{id}', String(eventId));
    const noToken = await send(row.method, path);
    t.is(noToken.status, 401, 'no token');
    t.true(isEnvelope(noToken.body));
    t.is((await send(row.method, path, 'not-a-jwt')).status, 401, 'bad token');
    const denied = await send(row.method, path, tokens[row.denied]);
    t.is(denied.status, 403, 'without the permission');
    t.true(isEnvelope(denied.body));
    const res = await send(row.method, path, tokens[row.allowed]);
    t.is(res.status, row.status, res.text);
    t.true(isEnvelope(res.body));
    if (row.kind) t.is(res.body.kind, row.kind);
    if (row.message) t.is(res.body.error_message, row.message);
  });
}

test('synopsis: a missing event is the 404 of a missing event, before the 503; the token also as ?token=', async (t) => {
  const missing = await send('GET', '/events/999999/synopsis/review', tokens.events);
  t.is(missing.status, 404);
  t.like(missing.body, { kind: 'EVENT_NOT_FOUND_ERROR', code: 8, details: [['event_id', '999999']] });
  t.is((await send('GET', '/events/abc/synopsis')).status, 401, 'auth before the id');
  t.is((await send('GET', '/events/abc/synopsis', tokens.events)).status, 400);
  const viaQuery = await send('GET', `/events/${eventId}/synopsis?token=${tokens.events}`);
  t.is(viaQuery.status, 503);
  t.is((await send('GET', '/events/synopsis?monitor_id=1', tokens.events)).status, 400, 'from and to are required');
});

test("synopsis: a hidden event or monitor answers as a missing one (the reference's get_event_entity, scope.allows)", async (t) => {
  const hidden = await send('GET', `/events/${eventId}/synopsis/review`, tokens.hidden);
  t.is(hidden.status, 404);
  t.like(hidden.body, { kind: 'EVENT_NOT_FOUND_ERROR', details: [['event_id', String(eventId)]] });
  const range = await send('GET', '/events/synopsis?monitor_id=1&from=0&to=60', tokens.hidden);
  t.is(range.status, 404);
  t.like(range.body, { kind: 'MONITOR_NOT_FOUND_ERROR', details: [['monitor_id', '1']] });
  t.is((await send('GET', '/events/synopsis?monitor_id=2&from=0&to=60', tokens.hidden)).status, 503);
});

test('states/change/{action} answers as server/control/{action}', async (t) => {
  const alias = await send('POST', '/states/change/bogus', tokens.system);
  const current = await send('POST', '/server/control/bogus', tokens.system);
  t.is(alias.status, current.status);
  t.deepEqual(alias.body, current.body);
});

test('OpenAPI: the alias is deprecated, the synopsis operations are listed with the Events gate', async (t) => {
  const doc = await servedDocument(app.url);
  const alias = doc.paths['/api/v3/states/change/{action}']?.post;
  t.true(alias?.deprecated, 'states/change is deprecated');
  t.deepEqual(alias.security, [{ jwt: ['system'] }]);
  t.falsy(doc.paths['/api/v3/server/control/{action}'].post.deprecated);
  for (const path of [
    '/api/v3/events/{id}/synopsis/review',
    '/api/v3/events/{id}/synopsis/layout',
    '/api/v3/events/{id}/synopsis',
    '/api/v3/events/{id}/synopsis/mp4',
    '/api/v3/events/synopsis',
  ])
    t.deepEqual(doc.paths[path]?.get?.security, [{ jwt: ['events'] }], path);
});

// src/routes/mod.rs: live routes are protect(..., Feature::Stream) around monitor_path_guard around
// handlers/live.rs webrtc_websocket_handler, whose WebSocketUpgrade extractor refuses a plain GET:
// the token (401) and Stream (403) are checked before anything else.
test('GET /live/{id}/webrtc/ws without upgrade headers: 401, 403, 400/404 for the id, then a 400', async (t) => {
  const path = '/live/1/webrtc/ws';
  t.is((await send('GET', path)).status, 401, 'no token');
  t.is((await send('GET', path, 'not-a-jwt')).status, 401, 'bad token');
  const denied = await send('GET', path, tokens.nostream);
  t.is(denied.status, 403, 'no Stream permission');
  t.true(isEnvelope(denied.body));
  const plain = await send('GET', path, tokens.stream);
  t.is(plain.status, 400, plain.text);
  t.like(plain.body, { kind: 'BAD_REQUEST_ERROR', details: [['upgrade', '']] });
  t.is((await send('GET', '/live/abc/webrtc/ws')).status, 401, 'auth before the id');
  t.is((await send('GET', '/live/abc/webrtc/ws', tokens.stream)).status, 400);
  const hidden = await send('GET', path, tokens.hidden);
  t.is(hidden.status, 404, 'monitor_path_guard: a hidden monitor');
  t.is(hidden.body.kind, 'MONITOR_NOT_FOUND_ERROR');
  t.is((await send('GET', '/live/2/webrtc/ws', tokens.hidden)).status, 400);
  t.is((await send('GET', `${path}?token=${tokens.nostream}`)).status, 403, 'token as ?token=');
});

// src/routes/mod.rs: discovery is merged only with the `onvif-discovery` build feature; without it
// the path falls to fallback_handler, a 404 envelope whatever the token.
test('POST /discovery/probe is not served: the 404 of an unknown route', async (t) => {
  for (const token of [undefined, tokens.system]) {
    const res = await send('POST', '/discovery/probe', token);
    t.is(res.status, 404);
    t.is(res.body.kind, 'NOT_FOUND_ERROR');
  }
});
