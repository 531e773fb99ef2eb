// Push `daemon` messages from the takeover supervisor, with stand-in daemons: a stop, a start and a
// crash (kill -9, restarted at once as zmdc does the first time) of a monitor's zmc each reach a
// subscriber with System View; a user without System View receives no daemon message; a user who
// may not see the monitor receives those of the global daemons only.
import test from 'ava';
import { alive, RUNS, standInBin, until } from '../helpers/daemon-standins.js';
import { PushClient } from '../helpers/push-client.js';
import { pushSchemaProblems } from '../helpers/push-schema.js';
import { addUser, caller, login } from '../helpers/rest.js';
import { startTakeoverApp, takeoverDirs, type TakeoverDirs } from '../helpers/takeover.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import type { TestApp } from '../helpers/app.js';

let app: TestApp;
let db: FreshDatabase;
let dirs: TakeoverDirs;
const clients: PushClient[] = [];

const sql = (q: string, params: unknown[] = []) => db.db.query<Record<string, any>>(q, params, db.name);
const ZMC = 'zmc -m 1';
const enc = encodeURIComponent;

test.before(async () => {
  db = await zmDatabase('pushdaemons');
  await addUser(db, 'admin', { System: 'Edit', Monitors: 'Edit' });
  await addUser(db, 'sysview', { System: 'View', Monitors: 'View' });
  await addUser(db, 'nosystem', { System: 'None', Monitors: 'View', Stream: 'View', Events: 'View' });
  const hidden = await addUser(db, 'hidden', { System: 'View', Monitors: 'View' });
  await sql(`INSERT INTO Monitors (Id, Name, Type, Device, Capturing, Analysing, Recording, Controllable) VALUES
      (1, 'One', 'Ffmpeg', '', 'Always', 'None', 'None', 0)`);
  await sql("INSERT INTO Monitors_Permissions (UserId, MonitorId, Permission) VALUES (?, 1, 'None')", [hidden]);
  dirs = takeoverDirs(standInBin({ zmc: RUNS, 'zmstats.pl': RUNS }));
  app = await startTakeoverApp(db, dirs, { APP_PUSH__RECHECK_SECS: '1' });
});

test.after.always(async () => {
  for (const c of clients) c.close();
  await app?.close();
});

async function connect(user: string): Promise<PushClient> {
  const client = new PushClient(app.url, { token: await login(app, user) });
  clients.push(client);
  await client.connected();
  await client.waitFor('hello');
  await client.request('subscribe', { monitors: 'all' });
  return client;
}

const daemonMessages = (c: PushClient, daemon?: string) =>
  c.of('daemon').filter((m) => daemon === undefined || m.daemon === daemon);

test.serial(
  'a stop, a start and a crash of zmc reach a System View subscriber as daemon messages, and nobody else',
  async (t) => {
    const admin = caller(app, await login(app, 'admin'));
    await until(async () => (await admin('GET', `/daemons/${enc(ZMC)}`)).body?.state === 'running', 'zmc running');
    const sysview = await connect('sysview');
    const nosystem = await connect('nosystem');
    const hidden = await connect('hidden');
    t.true((await sysview.waitFor('hello')).topics.includes('daemon'));
    t.false((await nosystem.waitFor('hello')).topics.includes('daemon'));

    // Stop by request: zmc exits on TERM.
    t.is((await admin('POST', `/daemons/${enc(ZMC)}/stop`)).status, 200);
    t.like(await sysview.waitFor('daemon', (m) => m.daemon === ZMC && m.state === 'exited'), {
      v: 1,
      monitor_id: 1,
      cause: 'exited, signal 15',
      restart_in_secs: null,
    });
    // Start by request.
    t.is((await admin('POST', `/daemons/${enc(ZMC)}/start`)).status, 200);
    t.like(await sysview.waitFor('daemon', (m) => m.daemon === ZMC && m.state === 'started'), {
      monitor_id: 1,
      cause: null,
      restart_in_secs: null,
    });
    // A crash: zmdc's first restart is immediate.
    const { pid } = (await admin('GET', `/daemons/${enc(ZMC)}`)).body;
    t.true(alive(pid));
    process.kill(pid, 'SIGKILL');
    t.like(await sysview.waitFor('daemon', (m) => m.daemon === ZMC && m.cause === 'crashed, signal 9'), {
      state: 'exited',
    });
    t.like(await sysview.waitFor('daemon', (m) => m.daemon === ZMC && m.state === 'restarting'), {
      restart_in_secs: 0,
    });
    await until(() => daemonMessages(sysview, ZMC).filter((m) => m.state === 'started').length === 2, 'the restart');
    t.deepEqual(
      daemonMessages(sysview, ZMC).map((m) => [m.state, m.cause, m.restart_in_secs]),
      [
        ['exited', 'exited, signal 15', null],
        ['started', null, null],
        ['exited', 'crashed, signal 9', null],
        ['restarting', null, 0],
        ['started', null, null],
      ],
    );

    // A global daemon (no monitor): the hidden user sees it, not the monitor's zmc.
    t.is((await admin('POST', `/daemons/${enc('zmstats.pl')}/restart`)).status, 200);
    await sysview.waitFor('daemon', (m) => m.daemon === 'zmstats.pl' && m.state === 'started');
    t.like(await hidden.waitFor('daemon', (m) => m.daemon === 'zmstats.pl' && m.state === 'started'), {
      monitor_id: null,
    });
    // By now every message above has reached everyone it was sent to.
    t.deepEqual(daemonMessages(hidden, ZMC), []);
    t.false(hidden.received.some((r) => r.body?.monitor_id === 1));
    t.deepEqual(nosystem.of('daemon'), []);
    for (const c of [sysview, nosystem, hidden])
      for (const r of c.received) t.deepEqual(pushSchemaProblems(r.body), [], `${r.name}: ${JSON.stringify(r.body)}`);
  },
);

test.serial('a connection that loses System View stops receiving daemon messages', async (t) => {
  const admin = caller(app, await login(app, 'admin'));
  const loser = await connect('sysview');
  const keeper = await connect('admin');
  await sql("UPDATE Users SET System = 'None' WHERE Username = 'sysview'");
  // The permission re-check (every second; the user row is cached for a few seconds) drops the
  // topic. Asked at a pace well under the connection's message budget.
  let topics: string[] = ['daemon'];
  for (let i = 0; i < 80 && topics.includes('daemon'); i++) {
    await new Promise((r) => setTimeout(r, 250));
    topics = (await loser.request('subscribe', { monitors: [] })).topics;
  }
  t.deepEqual(topics, ['alarm']);
  const before = loser.of('daemon').length;
  t.is((await admin('POST', `/daemons/${enc('zmstats.pl')}/restart`)).status, 200);
  // The keeper connected after the previous test: this is the new restart.
  await keeper.waitFor('daemon', (m) => m.daemon === 'zmstats.pl' && m.state === 'started');
  t.is(loser.of('daemon').length, before);
});
