// Live push against Debian's real ZoneMinder 1.36.33: zmc captures an ffmpeg-made local file on
// two monitors of a throwaway database created with the real 1.36 schema and bridged by zmgate-db
// (as the other real-zmc tests do), and a socket.io client subscribed to them receives
// - event_start and event_end for the events zmc itself opens and closes (a Record monitor with
//   10 s sections), matching the Events rows and the REST API's times;
// - alarm start and end read from zmc's real shared memory when an alarm is forced through
//   PATCH /monitors/{id}/alarm (a Nodect monitor), and the event_start and event_end of the
//   event zmc opens for it, with the forced cause;
// while a user whose monitor permissions hide both monitors receives nothing about them.
//
// Each zmc runs in a private mount namespace with this test's conf.d (test/helpers/real-zmc.ts):
// /etc/zm is never touched. Skipped with a message when zmc is missing or not running as root.
import test from 'ava';
import bcrypt from 'bcryptjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { PushClient } from '../helpers/push-client.js';
import { pushSchemaProblems } from '../helpers/push-schema.js';
import { RealZm, realZmcUnavailable, waitFor } from '../helpers/real-zmc.js';
import { caller, login } from '../helpers/rest.js';
import { database136, zmgateDb } from '../helpers/zm136.js';
import { insertUser } from '../helpers/zmdb.js';

const unavailable = realZmcUnavailable();
if (unavailable) console.log(`# real-zmc push tests skipped: ${unavailable}`);
const serial = unavailable ? test.serial.skip : test.serial;

/** Ids clear of the other real-zmc tests (961–965, 9101–9102). */
const RECORD = 971;
const NODECT = 972;

let db: FreshDatabase;
let zm: RealZm;
let app: TestApp;
const clients: PushClient[] = [];

function addUser(username: string, perms: Record<string, string>): Promise<number> {
  return insertUser(db, { username, password: username, stored: bcrypt.hashSync(username, 4), perms });
}

async function connect(user: string): Promise<PushClient> {
  const client = new PushClient(app.url, { token: await login(app, user) });
  clients.push(client);
  await client.connected();
  await client.waitFor('hello');
  return client;
}

test.before(async () => {
  if (unavailable) return;
  db = await database136('pushrealzmc');
  zm = new RealZm(db);
  await zm.freshen();
  const clip = await zm.clip('clip.mp4', ['testsrc=size=320x240:rate=10:d=120']);
  for (const [id, fn] of [
    [RECORD, 'Record'],
    [NODECT, 'Nodect'],
  ] as const) {
    await sql(
      db,
      'INSERT INTO Monitors (Id, Name, Type, `Function`, Enabled, Method, Path, Width, Height, Colours, VideoWriter, SaveJPEGs, SectionLength, MaxFPS, ImageBufferCount, PostEventCount) ' +
        "VALUES (?, ?, 'Ffmpeg', ?, 1, 'rtpRtsp', ?, 320, 240, 4, 2, 0, 10, 10, 10, 5)",
      [id, `push-${id}`, fn, clip],
    );
  }
  // A deliberate conversion under ZoneMinder 1.36's daemons (what the bridge now refuses by
  // default): these tests need 1.39's tables for zmgate's routes, not ZoneMinder's own zones.
  const bridged = await zmgateDb(['bridge', '--allow-older-zoneminder', '-u', db.url, '--yes']);
  if (bridged.code !== 0) throw new Error(`zmgate-db bridge failed: ${bridged.stderr}`);
  // The bridge adds 1.39's Config options; zmc 1.36 refuses a Config table of another size
  // ("Config mismatch"), and --freshen puts back exactly its own set.
  await zm.freshen();
  await addUser('watcher', { Stream: 'View', Events: 'View', Monitors: 'Edit' });
  const outsider = await addUser('outsider', { Stream: 'View', Events: 'View', Monitors: 'View' });
  for (const id of [RECORD, NODECT])
    await sql(db, "INSERT INTO Monitors_Permissions (UserId, MonitorId, Permission) VALUES (?, ?, 'None')", [
      outsider,
      id,
    ]);
  app = await startTestApp({
    db,
    env: {
      APP_AUTH__RATE_LIMIT__ENABLED: 'false',
      APP_ZONEMINDER__DIR_EVENTS: zm.paths.events,
      APP_ZONEMINDER__PATH_MAP: zm.paths.map,
      APP_ZONEMINDER__PATH_SOCKS: zm.paths.socks,
    },
  });
});

test.after.always(async () => {
  for (const c of clients) c.close();
  await app?.close();
  await zm?.stop();
});

serial(
  "zmc's own events reach a subscriber as event_start and event_end, as the Events rows and the REST API say",
  async (t) => {
    const watcher = await connect('watcher');
    const outsider = await connect('outsider');
    t.like(await watcher.request('subscribe', { monitors: [RECORD, NODECT] }), {
      ok: true,
      monitors: [RECORD, NODECT],
    });
    t.like(await outsider.request('subscribe', { monitors: [RECORD, NODECT] }), { ok: true, monitors: [] });
    zm.start(RECORD);
    // Record: zmc opens an event at once and closes it at the end of its 10 s section.
    const end = await watcher
      .waitFor('event_end', (m) => m.event.monitor_id === RECORD, 120_000)
      .catch((err: Error) => {
        throw new Error(`${err.message} (zmc said: ${zm.log(RECORD).slice(-500)})`);
      });
    const id = end.event.id;
    const start = await watcher.waitFor('event_start', (m) => m.event.id === id);
    t.like(start.event, { monitor_id: RECORD, end_date_time: null });
    t.true(
      watcher.received.findIndex((r) => r.name === 'event_start' && r.body.event.id === id) <
        watcher.received.findIndex((r) => r.name === 'event_end' && r.body.event.id === id),
    );
    const [row] = await sql(db, 'SELECT MonitorId, Cause, EndDateTime FROM Events WHERE Id = ?', [id]);
    t.is(Number(row.MonitorId), RECORD);
    t.truthy(row.EndDateTime);
    t.is(end.event.cause, row.Cause);
    const rest = await caller(app, await login(app, 'watcher'))('GET', `/events/${id}`);
    t.is(rest.status, 200);
    t.is(end.event.start_date_time, rest.body.start_date_time);
    t.is(end.event.end_date_time, rest.body.end_date_time);
    t.is(end.event.thumbnail_url, `/api/v3/events/${id}/thumbnail`);
    t.is(watcher.of('event_end').filter((m) => m.event.id === id).length, 1, 'no duplicates');
    t.false(outsider.received.some((r) => r.body?.event?.monitor_id === RECORD || r.body?.monitor_id === RECORD));
  },
);

serial(
  "a forced alarm on a real zmc: alarm start and end from zmc's shared memory, and the event it opens",
  async (t) => {
    const watcher = await connect('watcher');
    const outsider = await connect('outsider');
    await watcher.request('subscribe', { monitors: [NODECT] });
    await outsider.request('subscribe', { monitors: 'all' });
    zm.start(NODECT);
    await watcher.waitFor('monitor_status', (m) => m.monitor_id === NODECT && m.capturing, 60_000);
    const call = caller(app, await login(app, 'watcher'));
    // zmc may still be (re)opening its input: the route answers 200 once the shared memory is
    // valid, and a zmc that reopens its input starts with clear trigger data, so the alarm is
    // forced again until its start has been seen.
    let alarm: any;
    await waitFor('the forced alarm seen', 90_000, async () => {
      const res = await call('PATCH', `/monitors/${NODECT}/alarm`, { action: 'on', cause: 'push-real', score: 60 });
      if (res.status !== 200) return false;
      alarm = await watcher
        .waitFor('alarm', (m) => m.monitor_id === NODECT && m.phase === 'start', 10_000)
        .catch(() => undefined);
      return alarm !== undefined;
    });
    t.regex(alarm.cause, /push-real/);
    const opened = await watcher.waitFor('event_start', (m) => m.event.monitor_id === NODECT, 60_000);
    t.regex(String(opened.event.cause), /push-real/);
    await waitFor('the cancel answered 200', 30_000, async () => {
      return (await call('PATCH', `/monitors/${NODECT}/alarm`, { action: 'cancel' })).status === 200;
    });
    t.like(await watcher.waitFor('alarm', (m) => m.monitor_id === NODECT && m.phase === 'end', 60_000), {
      score: 0,
    });
    // After the alarm, zmc closes the event once its post-event frames are written.
    const closed = await watcher.waitFor('event_end', (m) => m.event.id === opened.event.id, 60_000);
    t.truthy(closed.event.end_date_time);
    t.false(outsider.received.some((r) => r.body?.event?.monitor_id === NODECT || r.body?.monitor_id === NODECT));
  },
);

serial('every message of the real run matches the documented schema', (t) => {
  const received = clients.flatMap((c) => c.received);
  t.true(received.length > 0);
  for (const r of received) t.deepEqual(pushSchemaProblems(r.body), [], `${r.name}: ${JSON.stringify(r.body)}`);
});
