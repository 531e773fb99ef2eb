// The hang detector (zmwatch's job) with stand-in capture daemons whose shared memory the test
// writes: a zmc whose heartbeat stops is restarted with the reason, one that keeps beating is
// left alone. Supervision events arrive at a stand-in systemd journal socket (socat) as native
// protocol entries with structured fields, and not in the service log.
import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { journalEntry } from '../../src/features/daemons/journal.js';
import { RUNS, standInBin, until } from '../helpers/daemon-standins.js';
import { writeShmFixture } from '../helpers/shm-fixture.js';
import { addUser, caller, login, type Call } from '../helpers/rest.js';
import { setZmConfig, startTakeoverApp, takeoverDirs, type TakeoverDirs } from '../helpers/takeover.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import type { TestApp } from '../helpers/app.js';

let app: TestApp;
let db: FreshDatabase;
let dirs: TakeoverDirs;
let admin: Call;
let journal: ChildProcess;
let received = '';
let beating: NodeJS.Timeout | undefined;

const sql = (q: string, params: unknown[] = []) => db.db.query<Record<string, any>>(q, params, db.name);
const shm = (id: number, heartbeat: number) =>
  writeShmFixture(join(dirs.map, `zm.mmap.${id}`), {
    layout: 760,
    width: 8,
    height: 8,
    format: 'rgba',
    imageBufferCount: 3,
    fields: { heartbeat_time: BigInt(heartbeat), last_write_time: BigInt(heartbeat), startup_time: BigInt(heartbeat) },
  });

/** Journal entries received so far, as field maps (every entry starts with MESSAGE=). */
function entries(): Array<Record<string, string>> {
  return received
    .split(/(?=^MESSAGE=)/m)
    .filter((e) => e.startsWith('MESSAGE='))
    .map((e) =>
      Object.fromEntries(
        e
          .trim()
          .split('\n')
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      ),
    );
}

test.before(async () => {
  db = await zmDatabase('dmnhang');
  await addUser(db, 'admin', { System: 'Edit' });
  await sql(
    "INSERT INTO Monitors (Id, Name, Type, Capturing) VALUES (1, 'Beating', 'Ffmpeg', 'Always'), (2, 'Hung', 'Ffmpeg', 'Always')",
  );
  await setZmConfig(db, { ZM_WATCH_MAX_DELAY: '2', ZM_WATCH_CHECK_INTERVAL: '1' });
  dirs = takeoverDirs(standInBin({ zmc: RUNS, 'zmstats.pl': RUNS }));
  journal = spawn('socat', ['-u', `UNIX-RECV:${dirs.journal}`, '-'], { stdio: ['ignore', 'pipe', 'inherit'] });
  journal.stdout!.on('data', (d: Buffer) => (received += d.toString()));
  await until(() => existsSync(dirs.journal), 'the stand-in journal socket');
  // A stale file of a monitor about to start: start-up removes it, as zmpkg.pl does.
  shm(1, Math.floor(Date.now() / 1000) - 500);
  app = await startTakeoverApp(db, dirs);
  admin = caller(app, await login(app, 'admin'));
});
test.after.always(async () => {
  clearInterval(beating);
  await app?.close();
  journal?.kill();
});

test.serial('stale shared memory of monitors about to start is removed at start-up', (t) => {
  t.false(existsSync(join(dirs.map, 'zm.mmap.1')));
});

test.serial('a zmc whose heartbeat stops is restarted with the reason; a beating one is not', async (t) => {
  const now = () => Math.floor(Date.now() / 1000);
  shm(2, now());
  shm(1, now());
  // Monitor 1 keeps beating; monitor 2's heartbeat stops at the value written above.
  beating = setInterval(() => shm(1, now()), 300);
  const pid = async (key: string) =>
    (await admin('GET', `/daemons/${encodeURIComponent(key)}`)).body.pid as number | undefined;
  const first = await pid('zmc -m 2');
  const beatingPid = await pid('zmc -m 1');
  await until(() => entries().some((e) => e.ZMGATE_ACTION === 'hang'), 'a hang restart', 30_000);
  const hang = entries().find((e) => e.ZMGATE_ACTION === 'hang')!;
  t.like(hang, { PRIORITY: '4', SYSLOG_IDENTIFIER: 'zmgate', ZMGATE_DAEMON: 'zmc -m 2', ZMGATE_MONITOR_ID: '2' });
  t.regex(hang.MESSAGE, /^'zmc -m 2' is not capturing: heartbeat \d+ s old \(ZM_WATCH_MAX_DELAY 2 s\); restarting it$/);
  await until(async () => (await pid('zmc -m 2')) !== undefined && (await pid('zmc -m 2')) !== first, 'a new zmc -m 2');
  t.is(await pid('zmc -m 1'), beatingPid, 'the beating monitor keeps its zmc');
  t.false(entries().some((e) => e.ZMGATE_ACTION === 'hang' && e.ZMGATE_DAEMON === 'zmc -m 1'));
});

test.serial('supervision events go to the journal with structured fields, not to the service log', (t) => {
  const start = entries().find((e) => e.ZMGATE_ACTION === 'start' && e.ZMGATE_DAEMON === 'zmc -m 1');
  t.truthy(start);
  t.like(start, { PRIORITY: '6', SYSLOG_IDENTIFIER: 'zmgate', ZMGATE_MONITOR_ID: '1' });
  t.regex(start!.MESSAGE, /^'zmc -m 1' starting, pid = \d+$/);
  t.regex(start!.ZMGATE_PID, /^\d+$/);
  const exit = entries().find((e) => e.ZMGATE_ACTION === 'exit' && e.ZMGATE_DAEMON === 'zmc -m 2');
  t.like(exit, { MESSAGE: "'zmc -m 2' exited, signal 15", ZMGATE_CAUSE: 'exited', PRIORITY: '6' });
  t.true(entries().some((e) => e.ZMGATE_ACTION === 'reconcile'));
  t.false(
    app.logs.some((r) => 'supervision' in r),
    'nothing duplicated into the service log',
  );
});

test('a value with a newline uses the length-prefixed form of the native protocol', (t) => {
  const entry = journalEntry({ priority: 'info', action: 'x', message: 'two\nlines' });
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(9n);
  t.true(
    entry
      .subarray(0, 8 + 8 + 9 + 1)
      .equals(Buffer.concat([Buffer.from('MESSAGE\n'), len, Buffer.from('two\nlines\n')])),
  );
});
