// Takeover mode with Debian's real ZoneMinder 1.36.33: the supervisor starts the real zmc of a
// monitor capturing an ffmpeg-made mp4 (Type Ffmpeg, Path = the file); its shared memory and an
// event appear; kill -9 is followed by zmdc's back-off (5 s, 10 s …); Debian's own zmdc.pl
// client gets zmdc's replies from the shim; deleting the monitor stops its zmc, adding one starts one.
//
// zmc and zmdc.pl read /etc/zm/conf.d, so each runs in a private mount namespace where conf.d is
// this test's copy (database, events, shared memory and sockets under its own directory): the
// supervisor's `zmc` is a small wrapper doing that before exec'ing /usr/bin/zmc. Monitor ids
// 9101–9102 keep clear of other tests.
import test from 'ava';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SharedMemory } from '../../src/native/index.js';
import { alive, until } from '../helpers/daemon-standins.js';
import { startTakeoverApp, takeoverDirs, type TakeoverDirs } from '../helpers/takeover.js';
import { database136 } from '../helpers/zm136.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import type { TestApp } from '../helpers/app.js';

const unavailable =
  !existsSync('/usr/bin/zmc') || !existsSync('/usr/bin/zmdc.pl')
    ? 'Debian zoneminder is not installed'
    : process.getuid?.() !== 0
      ? 'needs root'
      : !existsSync('/usr/bin/unshare')
        ? 'needs unshare'
        : null;
const realTest = unavailable ? test.skip : test.serial;

let app: TestApp | undefined;
let db: FreshDatabase;
let dirs: TakeoverDirs;
let confD: string;
let journal: ChildProcess | undefined;
let received = '';

const sql = (q: string, params: unknown[] = []) => db.db.query<Record<string, any>>(q, params, db.name);
const IN_NS = 'mount --bind "$0" /etc/zm/conf.d && exec "$@"';

/** Runs a ZoneMinder command seeing this test's conf.d. */
function zm(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      'unshare',
      ['--mount', '--propagation', 'private', 'sh', '-c', IN_NS, confD, command, ...args],
      { timeout: 60_000 },
      (err, out, errOut) =>
        err ? reject(new Error(`${command} ${args.join(' ')}: ${err.message} ${errOut}`)) : resolve(out),
    ),
  );
}

function journalEvents(): Array<Record<string, string>> {
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

const zmcPid = async (id: number): Promise<number | undefined> => {
  const line = (await zm('/usr/bin/zmdc.pl', ['status']))
    .split('\n')
    .find((l) => l.startsWith(`'zmc -m ${id}' running since`));
  const m = line && /pid = (\d+)/.exec(line);
  return m ? Number(m[1]) : undefined;
};

function shmValid(map: string, id: number): boolean {
  try {
    const shm = SharedMemory.open({ mapDir: map, monitorId: id });
    try {
      return shm.read().valid;
    } finally {
      shm.close();
    }
  } catch {
    return false;
  }
}

test.before(async () => {
  if (unavailable) return;
  db = await database136('dmnrealzm');
  // The wrapper: zmc in a mount namespace that sees this test's conf.d.
  const root = mkdtempSync('/dev/shm/zmgate-takeover-real-');
  const bin = join(root, 'bin');
  mkdirSync(bin);
  confD = join(root, 'conf.d');
  mkdirSync(confD);
  for (const n of readdirSync('/etc/zm/conf.d'))
    if (n.endsWith('.conf')) cpSync(join('/etc/zm/conf.d', n), join(confD, n));
  writeFileSync(
    join(bin, 'zmc'),
    `#!/bin/sh\nexec unshare --mount --propagation private sh -c '${IN_NS}' '${confD}' /usr/bin/zmc "$@"\n`,
  );
  chmodSync(join(bin, 'zmc'), 0o755);
  dirs = takeoverDirs(bin);
  const events = join(dirs.root, 'events');
  mkdirSync(events);
  writeFileSync(
    join(confD, '99-zmgate-takeover-test.conf'),
    [
      `ZM_DB_HOST=localhost:${db.db.socket}`,
      `ZM_DB_NAME=${db.name}`,
      'ZM_DB_USER=root',
      'ZM_DB_PASS=',
      `ZM_DIR_EVENTS=${events}`,
      `ZM_PATH_MAP=${dirs.map}`,
      `ZM_PATH_SOCKS=${dirs.socks}`,
      `ZM_PATH_LOGS=${dirs.root}`,
      `ZM_PATH_SWAP=${dirs.root}`,
      '',
    ].join('\n'),
  );
  await zm('/usr/bin/zmupdate.pl', ['--freshen', '--nointeractive']);
  await sql('UPDATE Storage SET Path = ? WHERE Id = 1', [events]).catch(() => undefined);
  const clip = join(dirs.root, 'clip.mp4');
  execFileSync('ffmpeg', [
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=320x240:rate=10',
    '-t',
    '600',
    '-pix_fmt',
    'yuv420p',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-g',
    '10',
    clip,
  ]);
  await sql(
    `INSERT INTO Monitors (Id, Name, Type, \`Function\`, Enabled, Path, Width, Height, Colours, ImageBufferCount, MaxFPS)
     VALUES (9101, 'RealOne', 'Ffmpeg', 'Record', 1, ?, 320, 240, 4, 5, 10)`,
    [clip],
  );
  journal = spawn('socat', ['-u', `UNIX-RECV:${dirs.journal}`, '-'], { stdio: ['ignore', 'pipe', 'inherit'] });
  journal.stdout!.on('data', (d: Buffer) => (received += d.toString()));
  await until(() => existsSync(dirs.journal), 'the stand-in journal socket');
  app = await startTakeoverApp(db, dirs, { APP_DAEMON__RECONCILE_INTERVAL_SECS: '2' });
});
test.after.always(async () => {
  await app?.close();
  journal?.kill();
  if (dirs) rmSync(dirs.root, { recursive: true, force: true });
});

realTest('the real zmc starts under the supervisor; its shared memory and an event appear', async (t) => {
  await until(() => shmValid(dirs.map, 9101), 'zm.mmap.9101 valid', 60_000);
  await until(
    async () => (await sql('SELECT COUNT(*) AS n FROM Events WHERE MonitorId = 9101'))[0].n > 0,
    'an event of monitor 9101',
    60_000,
  );
  t.pass();
});

realTest("Debian's zmdc.pl status / check / restart talk to the shim", async (t) => {
  const status = await zm('/usr/bin/zmdc.pl', ['status']);
  t.regex(status, /^'zmc -m 9101' running since \d\d\/\d\d\/\d\d \d\d:\d\d:\d\d, pid = \d+, valid$/m);
  t.is(await zm('/usr/bin/zmdc.pl', ['check', 'zmc', '-m', '9101']), 'running\n');
  t.is(await zm('/usr/bin/zmdc.pl', ['check']), 'running\n');
  const pid = (await zmcPid(9101))!;
  const restart = await zm('/usr/bin/zmdc.pl', ['restart', 'zmc', '-m', '9101']);
  t.regex(
    restart,
    new RegExp(
      `^Restarting zmc -m 9101\n'zmc -m 9101' sending stop to pid ${pid} at \\d\\d/\\d\\d/\\d\\d \\d\\d:\\d\\d:\\d\\d\n$`,
    ),
  );
  await until(async () => ((await zmcPid(9101)) ?? pid) !== pid, 'a new zmc after zmdc.pl restart', 60_000);
  t.false(alive(pid));
});

realTest(
  "kill -9 of zmc: restarted after zmdc's back-off (5 s, then 10 s, after the immediate restart already used)",
  async (t) => {
    await until(() => shmValid(dirs.map, 9101), 'zm.mmap.9101 valid', 60_000);
    const before = journalEvents().filter(
      (e) => e.ZMGATE_ACTION === 'restart' && e.ZMGATE_DAEMON === 'zmc -m 9101',
    ).length;
    const first = (await zmcPid(9101))!;
    process.kill(first, 'SIGKILL');
    await until(async () => ((await zmcPid(9101)) ?? first) !== first, 'the restart after kill -9', 60_000);
    const second = (await zmcPid(9101))!;
    process.kill(second, 'SIGKILL');
    await until(
      async () => ((await zmcPid(9101)) ?? second) !== second,
      'the restart after the second kill -9',
      60_000,
    );
    const restarts = journalEvents()
      .filter((e) => e.ZMGATE_ACTION === 'restart' && e.ZMGATE_DAEMON === 'zmc -m 9101')
      .slice(before);
    const exits = journalEvents().filter(
      (e) => e.ZMGATE_ACTION === 'exit' && e.MESSAGE === "'zmc -m 9101' crashed, signal 9",
    );
    t.true(exits.length >= 2);
    // The zmdc.pl restart of the test before already used the first, immediate restart: 5 s, then 10 s.
    t.deepEqual(
      restarts.map((e) => e.ZMGATE_DELAY_SECONDS),
      ['5', '10'],
    );
  },
);

realTest('deleting the monitor stops its zmc; adding one starts one', async (t) => {
  const pid = (await zmcPid(9101))!;
  await sql(
    "INSERT INTO Monitors (Id, Name, Type, `Function`, Enabled, Path, Width, Height, Colours, ImageBufferCount, MaxFPS) SELECT 9102, 'RealTwo', Type, 'Monitor', 1, Path, Width, Height, Colours, ImageBufferCount, MaxFPS FROM Monitors WHERE Id = 9101",
  );
  await sql('DELETE FROM Monitors WHERE Id = 9101');
  await until(() => !alive(pid), 'zmc -m 9101 stopped', 60_000);
  await until(() => shmValid(dirs.map, 9102), 'zm.mmap.9102 valid', 60_000);
  t.true((await zm('/usr/bin/zmdc.pl', ['status'])).includes("'zmc -m 9102' running since"));
});
