// Live push over socket.io (/api/v3/socket.io/) against the simulated cameras and their shared
// memory: a forced alarm and an Events row inserted as zmc does reach a subscriber; a user who
// may not see the monitor (row ACL) or lacks the feature permission receives nothing; logout and
// token expiry end the connection unless a fresh token was sent; bad handshakes and messages get
// a reason; the WebRTC upgrade route still answers beside it.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { loadOrCreateKeys } from '../../src/auth/keys.js';
import { noPermissions } from '../../src/auth/permissions.js';
import { TokenService } from '../../src/auth/tokens.js';
import { SimCamera } from '../../src/sim/camera.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertEvent, insertMonitor, sql } from '../helpers/events.js';
import { request } from '../helpers/http.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { PushClient } from '../helpers/push-client.js';
import { pushSchemaProblems } from '../helpers/push-schema.js';
import { addUser, caller, login } from '../helpers/rest.js';
import { refusedUpgrade } from '../helpers/ws-client.js';
import { zmDatabase } from '../helpers/zmdb.js';

let db: FreshDatabase;
let app: TestApp;
let dir: string;
const cams: SimCamera[] = [];
const ids: Record<string, number> = {};
const clients: PushClient[] = [];

const VIEW = { Stream: 'View', Monitors: 'View', Events: 'View' };
/** The acceptance's bounds with the default detector settings (alarm poll 100 ms, event poll 500 ms). */
const ALARM_BOUND_MS = 500;
const EVENT_BOUND_MS = 1000;

test.before(async () => {
  db = await zmDatabase('push');
  for (const id of [1, 2, 3]) await insertMonitor(db, id);
  ids.operator = await addUser(db, 'operator', { ...VIEW, Monitors: 'Edit' });
  ids.viewer = await addUser(db, 'viewer', VIEW);
  ids.limited = await addUser(db, 'limited', VIEW);
  await sql(db, 'INSERT INTO Monitors_Permissions (UserId, MonitorId, Permission) VALUES (?, 2, ?)', [
    ids.limited,
    'None',
  ]);
  ids.noevents = await addUser(db, 'noevents', { Stream: 'View', Monitors: 'View', Events: 'None' });
  ids.nothing = await addUser(db, 'nothing', { Stream: 'None', Monitors: 'None', Events: 'None' });
  ids.leaver = await addUser(db, 'leaver', VIEW);
  ids.changing = await addUser(db, 'changing', VIEW);
  dir = mkdtempSync(join(tmpdir(), 'zmgate-push-'));
  for (const monitorId of [1, 2]) cams.push(await SimCamera.start({ monitorId, socketDir: dir, mapDir: dir }));
  app = await startTestApp({
    db,
    env: {
      APP_ZONEMINDER__PATH_SOCKS: dir,
      APP_ZONEMINDER__PATH_MAP: dir,
      APP_AUTH__RATE_LIMIT__ENABLED: 'false',
      APP_PUSH__RECHECK_SECS: '1',
    },
  });
});

test.after.always(async () => {
  for (const c of clients) c.close();
  await app?.close();
  for (const c of cams) await c.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function connect(user: string, extra: { transports?: Array<'websocket' | 'polling'> } = {}): Promise<PushClient> {
  const client = new PushClient(app.url, { token: await login(app, user), ...extra });
  clients.push(client);
  await client.connected();
  await client.waitFor('hello');
  return client;
}

/** A real access token of `user` that expires in `seconds` (signed with the service's keys). */
function shortToken(user: string, seconds: number): string {
  const tokens = new TokenService(loadOrCreateKeys(app.config.auth.state_dir), { access: seconds, refresh: 60 });
  return tokens.issue({ id: ids[user], username: user, perms: noPermissions() }).access_token;
}

async function refusal(o: ConstructorParameters<typeof PushClient>[1]): Promise<any> {
  const client = new PushClient(app.url, o);
  clients.push(client);
  const err = await client.connected().then(
    () => null,
    (e) => e,
  );
  client.close();
  return err;
}

test.serial('the handshake is refused without a valid token, with the reason and the error envelope', async (t) => {
  const missing = await refusal({});
  t.is(missing.message, 'Missing access token (auth.token or ?token=)');
  t.is(missing.data.kind, 'UNAUTHORIZED_ERROR');
  const garbage = await refusal({ token: 'not-a-jwt' });
  t.is(garbage.message, 'Invalid token');
  t.is(garbage.data.code, missing.data.code);
  const wrongType = await refusal({ token: { nested: true } });
  t.is(wrongType.data.kind, 'UNAUTHORIZED_ERROR');
  const forged = await refusal({ token: `${shortToken('viewer', 60).slice(0, -4)}AAAA` });
  t.is(forged.message, 'Invalid token');
  // The same forged token again is refused from memory, with the same answer.
  t.is((await refusal({ token: `${shortToken('viewer', 60).slice(0, -4)}AAAA` })).message, 'Invalid token');
  // ?token= is checked before the engine opens a session (its HTTP answer: the next test).
  t.truthy(await refusal({ queryToken: 'x.y.z' }));
  const nothing = await refusal({ token: await login(app, 'nothing') });
  t.is(nothing.data.kind, 'PERMISSION_DENIED_ERROR');
  const good = new PushClient(app.url, { queryToken: await login(app, 'viewer') });
  clients.push(good);
  await good.connected();
  const hello = await good.waitFor('hello');
  t.is(hello.v, 1);
  t.deepEqual(hello.user, { id: ids.viewer, username: 'viewer' });
  t.deepEqual(new Set(hello.topics), new Set(['alarm', 'event']));
  good.close();
});

test.serial(
  'a bad ?token= is refused with the API 401 envelope, over HTTP long-polling and on a WebSocket upgrade',
  async (t) => {
    const handshake = (query: string, transport = 'polling') =>
      `${app.url}/api/v3/socket.io/?EIO=4&transport=${transport}&${query}`;
    const rest = await request(app.api('/monitors'), { headers: { authorization: 'Bearer x.y.z' } });
    t.is(rest.status, 401);
    for (const token of ['x.y.z', 'not-a-jwt', `${shortToken('viewer', 60).slice(0, -4)}AAAA`]) {
      const res = await request(handshake(`token=${encodeURIComponent(token)}`));
      t.is(res.status, 401, token);
      t.regex(res.headers.get('content-type') ?? '', /^application\/json/);
      t.is(res.body.kind, 'UNAUTHORIZED_ERROR');
      t.is(res.body.code, rest.body.code);
      t.deepEqual(Object.keys(res.body).sort(), Object.keys(rest.body).sort());
      const upgrade = await refusedUpgrade(
        handshake(`token=${encodeURIComponent(token)}`, 'websocket').replace('http', 'ws'),
      );
      t.is(upgrade.status, 401, token);
      t.regex(upgrade.contentType ?? '', /^application\/json/);
      t.deepEqual(upgrade.body, res.body);
    }
    // An expired token: the same envelope, with its reason.
    const expired = await request(handshake(`token=${shortToken('viewer', -10)}`));
    t.is(expired.status, 401);
    t.is(expired.body.kind, 'UNAUTHORIZED_ERROR');
    // A good ?token= opens an Engine.IO session as before.
    const ok = await fetch(handshake(`token=${await login(app, 'viewer')}`));
    t.is(ok.status, 200);
    t.regex(await ok.text(), /^0\{"sid":/);
  },
);

test.serial('subscriptions never reveal a hidden monitor: hidden and missing ids answer alike', async (t) => {
  const limited = await connect('limited');
  t.deepEqual((await limited.request('subscribe', { monitors: [2, 99] })).monitors, []);
  t.deepEqual((await limited.request('subscribe', { monitors: [1, 2] })).monitors, [1]);
  t.deepEqual((await limited.request('subscribe', { monitors: 'all' })).monitors, [1, 3]);
  const viewer = await connect('viewer');
  t.deepEqual((await viewer.request('subscribe', { monitors: 'all' })).monitors, [1, 2, 3]);
  t.deepEqual((await viewer.request('unsubscribe', { monitors: [3] })).monitors, [1, 2]);
  limited.close();
  viewer.close();
});

test.serial(
  'a forced alarm reaches a subscriber (start with score and cause, then end); a user who may not see the monitor gets nothing',
  async (t) => {
    const viewer = await connect('viewer');
    const limited = await connect('limited');
    const noevents = await connect('noevents');
    const polling = await connect('viewer', { transports: ['polling'] });
    for (const c of [viewer, limited, noevents, polling])
      t.true((await c.request('subscribe', { monitors: 'all' })).ok);
    // Subscribing sends each monitor's current status: the simulated cameras capture, 3 has no zmc.
    t.like(await viewer.waitFor('monitor_status', (m) => m.monitor_id === 2), {
      capturing: true,
      heartbeat_stale: false,
    });
    t.like(await viewer.waitFor('monitor_status', (m) => m.monitor_id === 3), { capturing: false });

    const call = caller(app, await login(app, 'operator'));
    // The bound: within ALARM_BOUND_MS of the request that writes the alarm into shared memory.
    const forced = Date.now();
    t.is((await call('PATCH', '/monitors/2/alarm', { action: 'on', cause: 'Doorbell', score: 42 })).status, 200);
    const start = await viewer.arrivedWithin(
      'alarm',
      (m) => m.monitor_id === 2 && m.phase === 'start',
      forced,
      ALARM_BOUND_MS,
    );
    t.like(start, { v: 1, type: 'alarm', state: 'Alarm', cause: 'Doorbell', score: 42 });
    t.regex(start.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    await polling.waitFor('alarm', (m) => m.monitor_id === 2 && m.phase === 'start');
    // A client subscribing during the alarm is told about it at once.
    const late = await connect('viewer');
    await late.request('subscribe', { monitors: [2] });
    t.like(await late.waitFor('alarm', (m) => m.monitor_id === 2), {
      phase: 'start',
      cause: 'Doorbell',
      time: start.time,
    });
    late.close();
    await noevents.waitFor('alarm', (m) => m.monitor_id === 2 && m.phase === 'start');
    const cancelled = Date.now();
    t.is((await call('PATCH', '/monitors/2/alarm', { action: 'cancel' })).status, 200);
    t.like(
      await viewer.arrivedWithin('alarm', (m) => m.monitor_id === 2 && m.phase === 'end', cancelled, ALARM_BOUND_MS),
      { score: 0 },
    );
    await noevents.waitFor('alarm', (m) => m.monitor_id === 2 && m.phase === 'end');
    // Everyone else has received the end by now; the limited user got nothing about monitor 2.
    t.false(limited.received.some((r) => r.body?.monitor_id === 2));
    for (const c of [viewer, limited, noevents, polling]) c.close();
  },
);

test.serial(
  'Events rows opened and closed as zmc does reach subscribers with Events View only; replay answers missed events',
  async (t) => {
    const viewer = await connect('viewer');
    const limited = await connect('limited');
    const noevents = await connect('noevents');
    for (const c of [viewer, limited, noevents]) await c.request('subscribe', { monitors: 'all' });
    // zmc: INSERT with Name 'New Event' and no EndDateTime, later UPDATE with the end. The
    // bound: within EVENT_BOUND_MS of the statement.
    const inserted = Date.now();
    const hidden = await insertEvent(db, {
      monitorId: 2,
      name: 'New Event',
      cause: 'Motion',
      start: '2026-05-01 12:00:00',
      end: null,
    });
    const shown = await insertEvent(db, {
      monitorId: 1,
      name: 'New Event',
      cause: 'Motion',
      start: '2026-05-01 12:00:05',
      end: null,
    });
    const started = await viewer.arrivedWithin('event_start', (m) => m.event.id === hidden, inserted, EVENT_BOUND_MS);
    await limited.arrivedWithin('event_start', (m) => m.event.id === shown, inserted, EVENT_BOUND_MS);
    t.like(started.event, {
      monitor_id: 2,
      cause: 'Motion',
      end_date_time: null,
      thumbnail_url: `/api/v3/events/${hidden}/thumbnail`,
    });
    // Times as the REST API emits them.
    const rest = await caller(app, await login(app, 'viewer'))('GET', `/events/${hidden}`);
    t.is(rest.status, 200);
    t.truthy(started.event.start_date_time);
    t.is(started.event.start_date_time, rest.body.start_date_time);
    const updated = Date.now();
    await sql(
      db,
      "UPDATE Events SET EndDateTime = '2026-05-01 12:00:30', Name = CONCAT('Event ', Id), Length = 25 WHERE Id IN (?, ?)",
      [hidden, shown],
    );
    const ended = await viewer.arrivedWithin('event_end', (m) => m.event.id === hidden, updated, EVENT_BOUND_MS);
    t.like(ended.event, { name: `Event ${hidden}`, length: '25.00' });
    t.truthy(ended.event.end_date_time);
    await limited.waitFor('event_end', (m) => m.event.id === shown);
    t.false(limited.received.some((r) => r.body?.event?.monitor_id === 2 || r.body?.monitor_id === 2));
    t.deepEqual(noevents.of('event_start'), []);
    t.is(viewer.of('event_start').filter((m) => m.event.id === hidden).length, 1, 'no duplicates');

    // A newer event on the monitor `limited` may not see, reported by the detector.
    const later = await insertEvent(db, {
      monitorId: 2,
      name: 'New Event',
      cause: 'Motion',
      start: '2026-05-01 12:01:00',
      end: null,
    });
    await viewer.waitFor('event_start', (m) => m.event.id === later);
    const back = await connect('limited');
    // Before subscribing, a replay tells nothing (not the newest event id of all monitors).
    t.like(await back.request('replay', { since_event_id: hidden - 1 }), {
      ok: true,
      count: 0,
      last_event_id: hidden - 1,
    });
    await back.request('subscribe', { monitors: 'all' });
    const ack = await back.request('replay', { since_event_id: hidden - 1 });
    // last_event_id is the newest event it may see, not the hidden one after it.
    t.like(ack, { ok: true, count: 1, truncated: false, last_event_id: shown });
    t.like(await back.waitFor('event_end', (m) => m.replay === true), { event: { id: shown } });
    t.false(back.received.some((r) => r.body?.event?.id === hidden));
    for (const c of [viewer, limited, noevents, back]) c.close();
  },
);

test.serial(
  'a permission change is applied to an open connection: a newly hidden monitor and a removed feature stop its messages',
  async (t) => {
    const changing = await connect('changing');
    const viewer = await connect('viewer');
    t.like(await changing.request('subscribe', { monitors: 'all' }), {
      monitors: [1, 2, 3],
      topics: ['alarm', 'event'],
    });
    await viewer.request('subscribe', { monitors: [1] });
    await sql(db, "UPDATE Users SET Events = 'None' WHERE Id = ?", [ids.changing]);
    await sql(db, 'INSERT INTO Monitors_Permissions (UserId, MonitorId, Permission) VALUES (?, 1, ?)', [
      ids.changing,
      'None',
    ]);
    // Re-checked every second; the user row and the ACL are cached up to 5 s.
    let now: any;
    for (let i = 0; i < 60; i++) {
      now = await changing.request('subscribe', { monitors: [] });
      if (now.monitors.length === 2) break;
      await sleep(250);
    }
    t.like(now, { monitors: [2, 3], topics: ['alarm'] });
    const call = caller(app, await login(app, 'operator'));
    t.is((await call('PATCH', '/monitors/1/alarm', { action: 'on', cause: 'Hidden now' })).status, 200);
    await viewer.waitFor('alarm', (m) => m.monitor_id === 1 && m.phase === 'start');
    t.is((await call('PATCH', '/monitors/1/alarm', { action: 'cancel' })).status, 200);
    await viewer.waitFor('alarm', (m) => m.monitor_id === 1 && m.phase === 'end');
    const event = await insertEvent(db, { monitorId: 2, end: null });
    await viewer.request('subscribe', { monitors: [2] });
    await viewer.waitFor('event_start', (m) => m.event.id === event);
    t.false(changing.received.some((r) => r.body?.monitor_id === 1 && r.name === 'alarm'));
    t.false(changing.received.some((r) => r.body?.event?.id === event));
    changing.close();
    viewer.close();
  },
);

test.serial('zmgate-watch prints the stream of a user as JSON lines and stops on SIGTERM', async (t) => {
  const bin = fileURLToPath(new URL('../../bin/zmgate-watch.js', import.meta.url));
  const usage = spawn(process.execPath, [bin, '--monitors', 'x']);
  t.is((await once(usage, 'exit'))[0], 2);
  const watch = spawn(
    process.execPath,
    [bin, '--url', app.url, '--user', 'viewer', '--monitors', '1,2', '--topics', 'alarm'],
    { env: { ...process.env, ZMGATE_PASSWORD: 'viewer' } },
  );
  const lines: any[] = [];
  let buffer = '';
  watch.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    for (const p of parts) lines.push(JSON.parse(p));
  });
  const exited = once(watch, 'exit');
  t.teardown(() => watch.kill('SIGKILL'));
  const until = async (pred: (l: any) => boolean) => {
    for (let i = 0; i < 500 && !lines.some(pred); i++) await sleep(20);
    return lines.find(pred);
  };
  t.like(await until((l) => l.type === 'subscribe_ack'), { ok: true, monitors: [1, 2], topics: ['alarm'] });
  const call = caller(app, await login(app, 'operator'));
  t.is((await call('PATCH', '/monitors/1/alarm', { action: 'on', cause: 'CLI' })).status, 200);
  t.like(await until((l) => l.type === 'alarm' && l.phase === 'start'), { monitor_id: 1, cause: 'CLI' });
  t.is((await call('PATCH', '/monitors/1/alarm', { action: 'cancel' })).status, 200);
  t.truthy(await until((l) => l.type === 'alarm' && l.phase === 'end'));
  t.truthy(lines.find((l) => l.type === 'hello'));
  watch.kill('SIGTERM');
  t.is((await exited)[0], 0);
});

test.serial('malformed messages get a reason and the connection keeps working', async (t) => {
  const c = await connect('viewer');
  const bad = await c.request('subscribe', { monitors: 'x' });
  t.false(bad.ok);
  t.is(bad.error.kind, 'INVALID_INPUT_ERROR');
  t.deepEqual(bad.error.details[0][0], 'monitors');
  t.false((await c.request('subscribe', 'not an object')).ok);
  t.false((await c.request('replay', { since_event_id: -1 })).ok);
  t.false((await c.request('refresh_token', { token: 'nope' })).ok);
  c.socket.emit('bogus', { a: 1 });
  const err = await c.waitFor('push_error');
  t.is(err.error.kind, 'INVALID_INPUT_ERROR');
  t.true((await c.request('subscribe', { monitors: [1] })).ok);
  t.true(c.socket.connected);
  c.close();
});

test.serial('logout disconnects (revocation)', async (t) => {
  const token = await login(app, 'leaver');
  const c = new PushClient(app.url, { token });
  clients.push(c);
  await c.connected();
  t.is((await request(app.api('/auth/logout'), { headers: { authorization: `Bearer ${token}` } })).status, 200);
  t.is(await c.waitDisconnected(), 'io server disconnect');
  t.like(await c.waitFor('session_ended'), { reason: 'revoked' });
});

test.serial('token expiry disconnects unless a refreshed token was sent first', async (t) => {
  const lapsing = new PushClient(app.url, { token: shortToken('viewer', 3) });
  const renewed = new PushClient(app.url, { token: shortToken('viewer', 3) });
  clients.push(lapsing, renewed);
  await Promise.all([lapsing.connected(), renewed.connected()]);
  await renewed.waitFor('token_expiring');
  const ack = await renewed.request('refresh_token', { token: await login(app, 'viewer') });
  t.true(ack.ok);
  t.truthy(ack.expires_at);
  // Another user's token is not accepted as a refresh.
  t.like(await renewed.request('refresh_token', { token: await login(app, 'limited') }), {
    ok: false,
    error: { kind: 'PERMISSION_DENIED_ERROR' },
  });
  t.like(await lapsing.waitFor('session_ended'), { reason: 'expired' });
  t.is(await lapsing.waitDisconnected(), 'io server disconnect');
  await sleep(1500); // past the first token's expiry and a re-check
  t.true(renewed.socket.connected);
  renewed.close();
});

test.serial(
  'every message received in these tests matches the documented schema (docs/push-messages.schema.json)',
  (t) => {
    const received = clients.flatMap((c) => c.received);
    const names = new Set(received.map((r) => r.name));
    for (const name of [
      'hello',
      'alarm',
      'event_start',
      'event_end',
      'monitor_status',
      'token_expiring',
      'session_ended',
      'push_error',
    ])
      t.true(names.has(name), name);
    for (const r of received) {
      t.is(r.body.type, r.name);
      t.deepEqual(pushSchemaProblems(r.body), [], `${r.name}: ${JSON.stringify(r.body)}`);
    }
    t.not(pushSchemaProblems({ ...received[0]!.body, extra: 1 }).length, 0, 'the check can fail');
  },
);

test.serial('WebSocket upgrades outside the push path still reach the WebRTC route', async (t) => {
  const refused = await refusedUpgrade(`${app.url.replace('http', 'ws')}/api/v3/live/1/webrtc/ws`);
  t.is(refused.status, 401);
  t.is(refused.body.kind, 'UNAUTHORIZED_ERROR');
  const other = await refusedUpgrade(`${app.url.replace('http', 'ws')}/api/v3/nothing/here`);
  t.is(other.status, 404);
});
