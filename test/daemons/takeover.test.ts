// Takeover mode end to end with stand-in daemons: what starts (as zmpkg.pl start would), the
// REST routes and their bad input, the reconciliation loop following Monitors, the zmdc.sock shim,
// the /system routes, and the service's own stop taking its children with it.
import test from 'ava';
import { alive, RUNS, standInBin, until } from '../helpers/daemon-standins.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { startTakeoverApp, takeoverDirs, zmdcSend, type TakeoverDirs } from '../helpers/takeover.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import type { TestApp } from '../helpers/app.js';
import { join } from 'node:path';

let app: TestApp;
let db: FreshDatabase;
let dirs: TakeoverDirs;
let admin: Call;
let viewer: Call;

const sql = (q: string, params: unknown[] = []) => db.db.query<Record<string, any>>(q, params, db.name);
const enc = encodeURIComponent;
const daemon = async (key: string) => (await admin('GET', `/daemons/${enc(key)}`)).body;
const running = async (key: string) => (await admin('GET', `/daemons/${enc(key)}`)).body?.state === 'running';

test.before(async () => {
  db = await zmDatabase('dmntakeover');
  await addUser(db, 'admin', { System: 'Edit', Monitors: 'Edit' });
  await addUser(db, 'viewer', { System: 'View' });
  await sql(`INSERT INTO Monitors (Id, Name, Type, Device, Capturing, Analysing, Recording, Controllable) VALUES
      (1, 'One', 'Ffmpeg', '', 'Always', 'Always', 'Always', 0),
      (2, 'Off', 'Ffmpeg', '', 'None', 'None', 'None', 0),
      (3, 'Usb', 'Local', '/dev/video0', 'Always', 'None', 'None', 0),
      (4, 'Ptz', 'Ffmpeg', '', 'Ondemand', 'None', 'None', 1),
      (5, 'Gone', 'Ffmpeg', '', 'Always', 'None', 'None', 0),
      (6, 'Site', 'WebSite', '', 'Always', 'None', 'None', 0)`);
  await sql('UPDATE Monitors SET Deleted = 1 WHERE Id = 5');
  // zmcontrol.pl is missing on purpose: that daemon fails, the others run.
  dirs = takeoverDirs(standInBin({ zmc: RUNS, 'zmstats.pl': RUNS, 'zmfilter.pl': RUNS }));
  app = await startTakeoverApp(db, dirs);
  admin = caller(app, await login(app, 'admin'));
  viewer = caller(app, await login(app, 'viewer'));
  await until(async () => (await admin('GET', '/daemons')).body.daemons?.length === 5, 'the start-up set');
});
test.after.always(async () => app?.close());

test.serial(
  'start-up runs what zmpkg.pl would: zmc per capturing monitor (-d for Local), zmcontrol, zmstats',
  async (t) => {
    const list = (await admin('GET', '/daemons')).body.daemons as Array<Record<string, any>>;
    t.deepEqual(
      list.map((d) => [d.id, d.state]),
      [
        ['zmc -d /dev/video0', 'running'],
        ['zmc -m 1', 'running'],
        ['zmc -m 4', 'running'],
        ['zmcontrol.pl --id 4', 'failed'],
        ['zmstats.pl', 'running'],
      ],
    );
    const one = list.find((d) => d.id === 'zmc -m 1')!;
    t.deepEqual(Object.keys(one).sort(), [
      'id',
      'monitor_id',
      'name',
      'pid',
      'restart_count',
      'state',
      'uptime_seconds',
    ]);
    t.like(one, { name: 'zmc -m 1', monitor_id: 1, restart_count: 0 });
    t.true(alive(one.pid));
    const local = list.find((d) => d.id === 'zmc -d /dev/video0')!;
    t.false('monitor_id' in local);
    const failed = list.find((d) => d.state === 'failed')!;
    t.deepEqual(Object.keys(failed).sort(), ['id', 'monitor_id', 'name', 'restart_count', 'state']);
  },
);

test.serial('GET /daemons/{id}: URL-encoded zmdc key; unknown ids are 404 naming the id', async (t) => {
  const one = await admin('GET', '/daemons/zmc%20-m%201');
  t.is(one.status, 200);
  t.is(one.body.id, 'zmc -m 1');
  for (const id of ['bogus', 'zmc -m 99', 'zmc -m 2', 'zmc%3B-m%3B1', 'zmc -m $(id)']) {
    const res = await admin('GET', `/daemons/${enc(id)}`);
    t.is(res.status, 404, id);
    t.is(res.body.kind, 'CONFIG_NOT_FOUND_ERROR');
    t.deepEqual(fields(res.body), ['daemon_id']);
  }
  for (const action of ['stop', 'restart', 'reload']) {
    t.is((await admin('POST', `/daemons/${enc('zmc -m 99')}/${action}`)).status, 404, action);
    t.is((await admin('POST', `/daemons/bogus/${action}`)).status, 404, action);
  }
  t.is((await admin('POST', '/daemons/bogus/start')).status, 404);
});

test.serial("start arguments outside zmdc's whitelist are a 400; nothing starts", async (t) => {
  for (const bad of ['-m;1', '$(reboot)', 'a b', '']) {
    const res = await admin('POST', `/daemons/${enc('zmc -m 1')}/start`, { args: [bad] });
    t.is(res.status, 400, bad);
    t.deepEqual(fields(res.body), ['args']);
  }
  t.is((await admin('GET', '/daemons')).body.daemons.length, 5);
});

test.serial('stop, not-running, start, reload and restart over REST; a stopped daemon stays stopped', async (t) => {
  const key = 'zmc -m 1';
  const before = await daemon(key);
  const stop = await admin('POST', `/daemons/${enc(key)}/stop`);
  t.deepEqual(stop.body, {
    success: true,
    message: `Sent stop signal to ${key} (PID ${before.pid}), waiting for graceful shutdown`,
  });
  await until(async () => (await daemon(key)).state === 'stopped', 'stopped');
  t.false(alive(before.pid));
  const again = await admin('POST', `/daemons/${enc(key)}/stop`);
  t.is(again.status, 200);
  t.deepEqual(again.body, { success: false, message: `Daemon ${key} is not running (state: stopped)` });
  const reload = await admin('POST', `/daemons/${enc(key)}/reload`);
  t.false(reload.body.success);
  // Three reconcile intervals later the operator's stop still holds.
  await new Promise((r) => setTimeout(r, 3000));
  t.is((await daemon(key)).state, 'stopped');

  const start = await admin('POST', `/daemons/${enc(key)}/start`, {});
  t.true(start.body.success, start.text);
  t.regex(start.body.message, /^Started zmc -m 1 \(PID \d+\)$/);
  const pid = (await daemon(key)).pid;
  t.deepEqual(await admin('POST', `/daemons/${enc(key)}/start`).then((r) => r.body), {
    success: true,
    message: `Daemon ${key} is already running (PID ${pid})`,
  });
  t.deepEqual((await admin('POST', `/daemons/${enc(key)}/reload`)).body, {
    success: true,
    message: `Sent reload signal (SIGHUP) to ${key} (PID ${pid})`,
  });
  const restart = await admin('POST', `/daemons/${enc(key)}/restart`);
  t.true(restart.body.success);
  await until(async () => (await daemon(key)).pid !== pid && (await running(key)), 'a new pid');
  t.is((await daemon(key)).restart_count, 1);
});

test.serial('starting with extra arguments runs a daemon keyed by the whole command', async (t) => {
  const res = await admin('POST', `/daemons/${enc('zmfilter.pl')}/start`, { args: ['--filter_id=9', '--daemon'] });
  t.true(res.body.success, res.text);
  t.true(await running('zmfilter.pl --filter_id=9 --daemon'));
  t.true((await admin('POST', `/daemons/${enc('zmfilter.pl --filter_id=9 --daemon')}/stop`)).body.success);
  await until(async () => (await daemon('zmfilter.pl --filter_id=9 --daemon')).state === 'stopped', 'stopped');
});

test.serial('the reconciler follows Monitors: added, changed and removed monitors', async (t) => {
  await sql("INSERT INTO Monitors (Id, Name, Type, Capturing) VALUES (7, 'New', 'Ffmpeg', 'Always')");
  await until(() => running('zmc -m 7'), 'zmc -m 7 after the INSERT');
  const pid = (await daemon('zmc -m 7')).pid;
  await sql("UPDATE Monitors SET Path = 'rtsp://cam/changed' WHERE Id = 7");
  await until(
    async () => (await daemon('zmc -m 7')).pid !== pid && (await running('zmc -m 7')),
    'a restart after the change',
  );
  t.false(alive(pid));
  const second = (await daemon('zmc -m 7')).pid;
  await sql('DELETE FROM Monitors WHERE Id = 7');
  await until(async () => (await admin('GET', `/daemons/${enc('zmc -m 7')}`)).status === 404, 'zmc -m 7 gone');
  t.false(alive(second));
  // Capturing = None stops it too; Always again starts it.
  await sql("UPDATE Monitors SET Capturing = 'None' WHERE Id = 4");
  await until(async () => (await admin('GET', `/daemons/${enc('zmc -m 4')}`)).status === 404, 'zmc -m 4 gone');
  await sql("UPDATE Monitors SET Capturing = 'Always' WHERE Id = 4");
  await until(() => running('zmc -m 4'), 'zmc -m 4 back');
  t.pass();
});

test.serial("PATCH /monitors/{id}/state stops and starts the monitor's zmc", async (t) => {
  const stop = await admin('PATCH', '/monitors/1/state', { state: 'stop' });
  t.is(stop.status, 200, stop.text);
  t.is(stop.body.id, 1);
  await until(async () => (await daemon('zmc -m 1')).state === 'stopped', 'stopped');
  t.is((await admin('PATCH', '/monitors/1/state', { action: 'start' })).status, 200);
  await until(() => running('zmc -m 1'), 'running');
  t.is((await admin('PATCH', '/monitors/3/state', { state: 'restart' })).status, 200, 'Local monitors act on zmc -d');
  t.is((await admin('PATCH', '/monitors/99/state', { state: 'start' })).status, 404);
  t.is((await admin('PATCH', '/monitors/1/state', { state: 'pause' })).status, 400);
});

test.serial("the zmdc.sock shim answers with zmdc.pl's texts", async (t) => {
  const sock = join(dirs.socks, 'zmdc.sock');
  const pid = (await daemon('zmc -m 1')).pid;
  const time = String.raw`\d\d/\d\d/\d\d \d\d:\d\d:\d\d`;
  t.is(await zmdcSend(sock, 'check;zmc;-m;1'), 'running\n');
  t.is(await zmdcSend(sock, 'check;zmc;-m;42'), 'unknown\n');
  t.is(await zmdcSend(sock, 'bogus'), "Invalid command 'bogus'\n");
  t.is(await zmdcSend(sock, 'startup'), "Already running, ignoring command 'startup'\n");
  t.regex(await zmdcSend(sock, 'status;zmc;-m;1'), new RegExp(`^'zmc -m 1' running since ${time}, pid = ${pid}$`));
  t.is(await zmdcSend(sock, 'status;zmc;-m;42'), "'zmc -m 42' not running\n");
  const all = await zmdcSend(sock, 'status');
  t.regex(all, new RegExp(`^'zmc -m 1' running since ${time}, pid = ${pid}, valid$`, 'm'));
  t.is(all.split('\n').filter(Boolean).length, 4, all); // the four running daemons
  t.regex(
    await zmdcSend(sock, 'start;zmc;-m;1'),
    new RegExp(`^'zmc -m 1' already running at ${time}, pid = ${pid}\n$`),
  );
  t.regex(await zmdcSend(sock, 'stop;zmc;-m;1'), new RegExp(`^'zmc -m 1' sending stop to pid ${pid} at ${time}\n$`));
  await until(async () => (await daemon('zmc -m 1')).state === 'stopped', 'stopped through the shim');
  t.is(await zmdcSend(sock, 'check;zmc;-m;1'), 'unknown\n');
  t.is(await zmdcSend(sock, 'stop;zmc;-m;42'), "Can't find process with command of 'zmc -m 42'");
  const started = await zmdcSend(sock, 'start;zmc;-m;1');
  t.regex(started, new RegExp(`^'zmc -m 1' starting at ${time}, pid = (\\d+)\n'zmc -m 1' started at ${time}\n$`));
  const restart = await zmdcSend(sock, 'restart;zmc;-m;1');
  t.regex(restart, new RegExp(`^Restarting zmc -m 1\n'zmc -m 1' sending stop to pid \\d+ at ${time}\n$`));
  await until(() => running('zmc -m 1'), 'running after the shim restart');
  // Give the fresh stand-in time to install its HUP trap (a real zmc handles HUP from the start).
  await new Promise((r) => setTimeout(r, 300));
  t.is(await zmdcSend(sock, 'reload;zmc;-m;1'), '');
  t.is(await zmdcSend(sock, 'logrot'), '');
});

test.serial('/system/status reports the daemons, CPU from a delta, memory and the event storage disk', async (t) => {
  const res = await viewer('GET', '/system/status');
  t.is(res.status, 200, res.text);
  t.true(res.body.running);
  t.is(res.body.daemons.length, 6, 'the five of start-up and the stopped zmfilter.pl');
  const s = res.body.stats;
  t.true(s.cpu_usage_percent >= 0 && s.cpu_usage_percent <= 100);
  t.true(s.total_mem > 0 && s.free_mem > 0 && s.free_mem <= s.total_mem);
  t.true(s.total_disk > 0 && s.used_disk + s.free_disk <= s.total_disk);
  t.is(s.db_max_connections, 10);
});

test.serial('RBAC in takeover mode: System View reads, Edit acts', async (t) => {
  t.is((await viewer('GET', '/daemons')).status, 200);
  t.is((await viewer('POST', `/daemons/${enc('zmc -m 1')}/stop`)).status, 403);
  t.is((await viewer('POST', '/system/logrot')).status, 403);
});

test.serial('/system logrot, shutdown and startup', async (t) => {
  const states = async () =>
    ((await admin('GET', '/daemons')).body.daemons as Array<{ state: string }>).map((d) => d.state);
  await until(async () => (await states()).filter((s) => s === 'running').length === 4, 'four running daemons');
  t.deepEqual((await admin('POST', '/system/logrot')).body, {
    success: true,
    message: 'Log rotation triggered: 4 daemons signaled, 0 failed',
  });
  const pids = ((await admin('GET', '/daemons')).body.daemons as Array<{ pid?: number }>)
    .map((d) => d.pid)
    .filter(Boolean) as number[];
  const down = await admin('POST', '/system/shutdown');
  t.deepEqual(down.body, { success: true, message: 'Shutdown complete: 4 of 6 daemons stopped' });
  t.true(pids.every((p) => !alive(p)));
  await new Promise((r) => setTimeout(r, 2500));
  t.deepEqual((await admin('GET', '/daemons')).body.daemons, [], 'held: the reconciler starts nothing');
  t.false((await admin('GET', '/system/status')).body.running);
  const up = await admin('POST', '/system/startup');
  t.false(up.body.success);
  t.is(
    up.body.message,
    'System startup completed: 4 daemons started, 1 failed. Errors: zmcontrol.pl --id 4: Daemon executable zmcontrol.pl not found',
  );
  t.is((await admin('GET', '/daemons')).body.daemons.length, 5);
});

test.serial('stopping the service stops every child', async (t) => {
  const pids = ((await admin('GET', '/daemons')).body.daemons as Array<{ pid?: number }>)
    .map((d) => d.pid)
    .filter(Boolean) as number[];
  t.is(pids.length, 4);
  await app.close();
  t.true(pids.every((p) => !alive(p)));
});
