// A multi-server cluster on one machine, in network namespaces this test makes (root only;
// skipped otherwise): three zmgate hosts, each in its own namespace, joined by veth pairs to a
// bridge in host A's namespace, with addresses only inside the namespaces; one MariaDB (reached
// over its unix socket, which namespaces do not separate), Redis inside host A's namespace, a
// simulated camera per host (unix socket + shared memory in that host's own directories). Clients
// run inside A's namespace. Through host A: B's camera as LL-HLS and as MJPEG (ffmpeg reads both)
// and as a snapshot, C's camera as MJPEG, B's recording with a byte range; a token from A used on
// B and C, and logout on A revoking it on B; an alarm on B reaching a socket.io client of A. B
// stopped: A answers B's monitor with 504, then B killed: 502, both with the envelope naming B,
// while A serves its own monitor and C's. WebRTC signalling with B's camera through A, and the
// cluster-wide source list through A (B reported missing while stopped). Namespaces, processes and directories are removed on
// every exit.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { SimCamera } from '../../../src/sim/camera.js';
import { insertServers, until } from '../../helpers/cluster.js';
import { sql } from '../../helpers/events.js';
import type { FreshDatabase } from '../../helpers/mariadb.js';
import { insertMediaEvent, makeStorages, type MediaEvent } from '../../helpers/playback.js';
import { addUser } from '../../helpers/rest.js';
import { zmDatabase } from '../../helpers/zmdb.js';

const run = promisify(execFile);
const ROOT = process.getuid?.() === 0;
const HAVE_IP = (() => {
  try {
    execFileSync('ip', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const maybe = ROOT && HAVE_IP ? test.serial : test.skip;

const tag = `${process.pid % 100000}`;
const NS = { a: `zmgA${tag}`, b: `zmgB${tag}`, c: `zmgC${tag}` };
const NET = `10.231.${process.pid % 250}`;
const ADDR = { a: `${NET}.1`, b: `${NET}.2`, c: `${NET}.3` };
type HostId = 1 | 2 | 3;
const HOSTS: Record<HostId, { ns: string; addr: string }> = {
  1: { ns: NS.a, addr: ADDR.a },
  2: { ns: NS.b, addr: ADDR.b },
  3: { ns: NS.c, addr: ADDR.c },
};
const PORT = 18080;
const REDIS_PORT = 16379;
const REDIS_PASSWORD = 'cluster-test';

let db: FreshDatabase;
const procs: ChildProcess[] = [];
const cams: SimCamera[] = [];
const dirs: string[] = [];
let hostB: ChildProcess | undefined;
let recording: MediaEvent;
let stderrText = '';

function cleanup(): void {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  for (const ns of Object.values(NS)) {
    try {
      execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
    } catch {
      // not there
    }
  }
}

/** Runs a command inside a namespace; resolves with stdout. */
async function inNs(ns: string, cmd: string, args: string[], timeout = 60_000): Promise<string> {
  const { stdout } = await run('ip', ['netns', 'exec', ns, cmd, ...args], { timeout, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

function spawnIn(ns: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn('ip', ['netns', 'exec', ns, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  procs.push(child);
  child.stderr!.on('data', (d: Buffer) => (stderrText = (stderrText + d.toString()).slice(-4000)));
  return child;
}

/** curl inside A's namespace: status, headers and body of one request. */
async function curlA(url: string, args: string[] = []) {
  const out = await inNs(NS.a, 'curl', ['-s', '-i', '--max-time', '20', ...args, url]);
  const split = out.indexOf('\r\n\r\n');
  const head = out.slice(0, split);
  return { status: Number(/^HTTP\/\S+ (\d+)/.exec(head)?.[1]), head: head.toLowerCase(), body: out.slice(split + 4) };
}

function startHost(id: HostId, dir: string): ChildProcess {
  const { ns, addr } = HOSTS[id];
  return spawnIn(ns, [process.execPath, '--import', 'tsx', '-e', "import('./src/server.ts').then((m) => m.main())"], {
    APP_PROFILE: 'test',
    APP_SERVER__ADDR: addr,
    APP_SERVER__PORT: String(PORT),
    APP_ZONEMINDER__CONFIG_PATH: '/nonexistent/zm.conf',
    APP_AUTH__STATE_DIR: mkdtempSync(join(tmpdir(), `zmgate-ns-state-${id}-`)),
    APP_AUTH__RATE_LIMIT__ENABLED: 'false',
    APP_DB__SOCKET: db.db.socket,
    APP_DB__USERNAME: db.user,
    APP_DB__PASSWORD: db.password,
    APP_DB__DATABASE_NAME: db.name,
    APP_DB__MIGRATE_ON_START: 'false',
    APP_ZONEMINDER__PATH_SOCKS: dir,
    APP_ZONEMINDER__PATH_MAP: dir,
    APP_CLUSTER__SERVER_ID: String(id),
    APP_CLUSTER__REFRESH_SECS: '1',
    APP_CLUSTER__REDIS_URL: `redis://:${REDIS_PASSWORD}@${ADDR.a}:${REDIS_PORT}`,
    APP_LOG__LEVEL: 'warn',
  });
}

test.before(async () => {
  if (!ROOT || !HAVE_IP) return;
  process.once('exit', cleanup);
  cleanup();
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
  for (const ns of Object.values(NS)) {
    ip('netns', 'add', ns);
    ip('-n', ns, 'link', 'set', 'lo', 'up');
  }
  // A's namespace holds the bridge (and A's address); B and C hang on it by a veth pair each.
  ip('-n', NS.a, 'link', 'add', 'br0', 'type', 'bridge');
  ip('-n', NS.a, 'addr', 'add', `${ADDR.a}/24`, 'dev', 'br0');
  ip('-n', NS.a, 'link', 'set', 'br0', 'up');
  for (const [x, ns, addr] of [
    ['b', NS.b, ADDR.b],
    ['c', NS.c, ADDR.c],
  ]) {
    ip('link', 'add', `v${x}${tag}`, 'type', 'veth', 'peer', 'name', `p${x}${tag}`);
    ip('link', 'set', `p${x}${tag}`, 'netns', NS.a);
    ip('-n', NS.a, 'link', 'set', `p${x}${tag}`, 'master', 'br0');
    ip('-n', NS.a, 'link', 'set', `p${x}${tag}`, 'up');
    ip('link', 'set', `v${x}${tag}`, 'netns', ns);
    ip('-n', ns, 'addr', 'add', `${addr}/24`, 'dev', `v${x}${tag}`);
    ip('-n', ns, 'link', 'set', `v${x}${tag}`, 'up');
  }

  db = await zmDatabase('cluster_netns');
  await sql(db, 'DELETE FROM Servers');
  await insertServers(db, [
    { id: 1, name: 'alpha' },
    { id: 2, name: 'bravo' },
    { id: 3, name: 'charlie' },
  ]);
  for (const id of [1, 2, 3] as const) {
    await sql(db, 'UPDATE Servers SET Hostname = ? WHERE Id = ?', [HOSTS[id].addr, id]);
    await sql(
      db,
      'INSERT INTO Monitors (Id, Name, ServerId, Width, Height, ImageBufferCount) VALUES (?, ?, ?, 640, 360, 3)',
      [id, `Cam ${id}`, id],
    );
  }
  await addUser(db, 'watcher', { Stream: 'View', Events: 'View', Monitors: 'Edit' });
  const roots = await makeStorages(db, 'netns');
  await sql(db, 'UPDATE Storage SET ServerId = 2 WHERE Id = 2');
  recording = await insertMediaEvent(db, roots, {
    monitorId: 2,
    defaultVideo: '{id}-video.mp4',
    files: { '{id}-video.mp4': { fixture: 'h264.mp4' } },
  });
  dirs.push(roots.base);

  const dirA = mkdtempSync(join(tmpdir(), 'zmgate-ns-a-'));
  const dirB = mkdtempSync(join(tmpdir(), 'zmgate-ns-b-'));
  const dirC = mkdtempSync(join(tmpdir(), 'zmgate-ns-c-'));
  dirs.push(dirA, dirB, dirC);
  cams.push(await SimCamera.start({ monitorId: 1, socketDir: dirA, mapDir: dirA }));
  cams.push(await SimCamera.start({ monitorId: 2, socketDir: dirB, mapDir: dirB }));
  cams.push(await SimCamera.start({ monitorId: 3, socketDir: dirC, mapDir: dirC }));
  spawnIn(
    NS.a,
    // Reached from another namespace: Redis's protected mode wants a password (as a real install should).
    [
      'redis-server',
      '--bind',
      ADDR.a,
      '--port',
      String(REDIS_PORT),
      '--requirepass',
      REDIS_PASSWORD,
      '--save',
      '',
      '--appendonly',
      'no',
    ],
    {},
  );
  await until(
    async () =>
      (
        await inNs(NS.a, 'redis-cli', [
          '-h',
          ADDR.a,
          '-p',
          String(REDIS_PORT),
          '-a',
          REDIS_PASSWORD,
          '--no-auth-warning',
          'ping',
        ]).catch(() => '')
      ).trim() === 'PONG',
    'redis-server in A’s namespace',
  );
  startHost(1, dirA);
  hostB = startHost(2, dirB);
  startHost(3, dirC);
  for (const addr of Object.values(ADDR)) {
    await until(
      async () =>
        (await curlA(`http://${addr}:${PORT}/api/v3/host/getVersion`).catch(() => ({ status: 0 }))).status === 401 ||
        (await curlA(`http://${addr}:${PORT}/api/v3/host/getVersion`).catch(() => ({ status: 0 }))).status === 200,
      `zmgate at ${addr}`,
      90_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; stderr: ${stderrText}`);
    });
  }
});

test.after.always(async () => {
  cleanup();
  for (const c of cams) await c.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function loginA(): Promise<string> {
  const res = await curlA(`http://${ADDR.a}:${PORT}/api/v3/auth/login`, [
    '-H',
    'content-type: application/json',
    '--data',
    JSON.stringify({ username: 'watcher', password: 'watcher' }),
  ]);
  if (res.status !== 200) throw new Error(`login on A: ${res.status} ${res.body}`);
  return (JSON.parse(res.body) as { access_token: string }).access_token;
}

/** ffmpeg inside A's namespace reads a few seconds or frames of `url`; resolves with its error output. */
async function ffmpegA(input: string[], limit: string[]): Promise<string> {
  const { stderr } = await run(
    'ip',
    ['netns', 'exec', NS.a, 'ffmpeg', '-nostdin', '-v', 'error', ...input, ...limit, '-f', 'null', '-'],
    { timeout: 90_000 },
  );
  return stderr.trim();
}

maybe(
  'through host A: B’s snapshot, recording with a byte range, live HLS and MJPEG (ffmpeg); A’s token on B',
  async (t) => {
    const token = await loginA();
    const a = (p: string) => `http://${ADDR.a}:${PORT}/api/v3${p}${p.includes('?') ? '&' : '?'}token=${token}`;
    const snap = await until(
      async () => (await curlA(a('/monitors/2/snapshot'))).status === 200,
      'snapshot of B’s camera via A',
    ).then(() => curlA(a('/monitors/2/snapshot')));
    t.regex(snap.head, /content-type: image\/jpeg/);
    t.regex(snap.head, /via: 1.1 zmgate-1/);

    const file = readFileSync(join(recording.dir, `${recording.id}-video.mp4`));
    const part = await curlA(a(`/events/${recording.id}/video`), ['-r', '100-1099']);
    t.is(part.status, 206);
    t.regex(part.head, new RegExp(`content-range: bytes 100-1099/${file.length}`));

    const hls = a('/live/2/hls/live.m3u8');
    await until(
      async () => ((await curlA(hls)).body.match(/#EXTINF/g) ?? []).length >= 3,
      'B’s live playlist via A',
      60_000,
    );
    t.is(await ffmpegA(['-i', hls], ['-t', '3']), '');

    // MJPEG: the multipart stream of B's camera, decoded frame by frame.
    const mjpeg = a('/live/2/mjpeg');
    const head = await curlA(mjpeg, ['--max-time', '3']).catch((err: { stdout?: string }) => ({
      status: Number(/^HTTP\/\S+ (\d+)/.exec(err.stdout ?? '')?.[1]),
      head: (err.stdout ?? '').toLowerCase(),
    }));
    t.is(head.status, 200);
    t.regex(head.head, /content-type: multipart\/x-mixed-replace/);
    t.regex(head.head, /via: 1.1 zmgate-1/);
    t.is(await ffmpegA(['-f', 'mpjpeg', '-i', mjpeg], ['-frames:v', '5']), '');

    // The token A issued works on B (B is reached from A's namespace over the bridge).
    const me = await curlA(`http://${ADDR.b}:${PORT}/api/v3/me`, ['-H', `authorization: Bearer ${token}`]);
    t.is(me.status, 200);
  },
);

maybe('through host A: the third host’s camera (MJPEG, snapshot) and A’s token on it', async (t) => {
  const token = await loginA();
  const a = (p: string) => `http://${ADDR.a}:${PORT}/api/v3${p}?token=${token}`;
  await until(async () => (await curlA(a('/monitors/3/snapshot'))).status === 200, 'snapshot of C’s camera via A');
  t.is(await ffmpegA(['-f', 'mpjpeg', '-i', a('/live/3/mjpeg')], ['-frames:v', '3']), '');
  const me = await curlA(`http://${ADDR.c}:${PORT}/api/v3/me`, ['-H', `authorization: Bearer ${token}`]);
  t.is(me.status, 200);
});

// A WebRTC signalling client inside A's namespace: prints the upgrade's Via, then each message
// type; answers the offer with a ping and closes at the pong.
const SIGNAL_CLIENT = `
const { WebSocket } = require('ws');
const ws = new WebSocket(process.argv[1]);
ws.on('upgrade', (res) => console.log('VIA ' + res.headers.via));
ws.on('unexpected-response', (req, res) => { console.log('REFUSED ' + res.statusCode); process.exit(1); });
ws.on('message', (data) => {
  const m = JSON.parse(data.toString());
  console.log('MSG ' + m.type);
  if (m.type === 'offer') ws.send(JSON.stringify({ type: 'ping' }));
  if (m.type === 'pong') ws.close();
});
ws.on('close', () => process.exit(0));
ws.on('error', (e) => { console.log('ERROR ' + e.message); process.exit(1); });
`;

maybe('through host A: WebRTC signalling with B’s camera, and the cluster-wide source list', async (t) => {
  const token = await loginA();
  const out = await inNs(NS.a, process.execPath, [
    '-e',
    SIGNAL_CLIENT,
    `ws://${ADDR.a}:${PORT}/api/v3/live/2/webrtc/ws?token=${token}`,
  ]);
  t.regex(out, /^VIA .*zmgate-1/m);
  t.regex(out, /^MSG offer$/m);
  t.regex(out, /^MSG pong$/m);

  const list = await curlA(`http://${ADDR.a}:${PORT}/api/v3/live/sources?scope=cluster`, [
    '-H',
    `authorization: Bearer ${token}`,
  ]);
  t.is(list.status, 200, list.body);
  const body = JSON.parse(list.body) as {
    sources: Array<{ monitor_id: number; server_name: string }>;
    servers: Array<{ server_name: string; status: string }>;
  };
  t.deepEqual(
    body.sources.map((s) => [s.monitor_id, s.server_name]),
    [
      [1, 'alpha'],
      [2, 'bravo'],
      [3, 'charlie'],
    ],
  );
  t.deepEqual(
    body.servers.map((s) => [s.server_name, s.status]),
    [
      ['alpha', 'ok'],
      ['bravo', 'ok'],
      ['charlie', 'ok'],
    ],
  );
});

maybe('logout on host A revokes the token on host B', async (t) => {
  const token = await loginA();
  const onB = () => curlA(`http://${ADDR.b}:${PORT}/api/v3/me`, ['-H', `authorization: Bearer ${token}`]);
  t.is((await onB()).status, 200);
  const out = await curlA(`http://${ADDR.a}:${PORT}/api/v3/auth/logout`, ['-H', `authorization: Bearer ${token}`]);
  t.is(out.status, 200, out.body);
  // B re-reads the user's revocation floor within its user cache period.
  await until(async () => (await onB()).status === 401, 'the token refused on B', 60_000);
  const refused = await onB();
  t.regex(refused.body, /"kind"/);
});

// A socket.io client inside A's namespace: prints READY once subscribed, then each alarm as JSON.
const PUSH_CLIENT = `
const { io } = require('socket.io-client');
const socket = io(process.env.URL, { path: '/api/v3/socket.io', auth: { token: process.env.TOKEN }, transports: ['websocket'] });
socket.on('alarm', (m) => console.log(JSON.stringify(m)));
socket.on('hello', async () => {
  const ack = await socket.timeout(10000).emitWithAck('subscribe', { monitors: 'all' });
  console.log(ack.ok ? 'READY' : 'REFUSED ' + JSON.stringify(ack));
});
socket.on('connect_error', (e) => console.log('ERROR ' + e.message));
`;

maybe('an alarm on host B reaches a socket.io client of host A (through Redis in A’s namespace)', async (t) => {
  const token = await loginA();
  const client = spawn('ip', ['netns', 'exec', NS.a, process.execPath, '-e', PUSH_CLIENT], {
    env: { ...process.env, URL: `http://${ADDR.a}:${PORT}`, TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(client);
  let out = '';
  client.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  try {
    await until(async () => out.includes('READY'), `the push client subscribed (${out})`);
    const sent = Date.now();
    const on = await curlA(`http://${ADDR.b}:${PORT}/api/v3/monitors/2/alarm`, [
      '-X',
      'PATCH',
      '-H',
      `authorization: Bearer ${token}`,
      '-H',
      'content-type: application/json',
      '--data',
      JSON.stringify({ action: 'on', cause: 'Across', score: 7 }),
    ]);
    t.is(on.status, 200, on.body);
    await until(
      async () => /"monitor_id":2.*"phase":"start"|"phase":"start".*"monitor_id":2/.test(out),
      'the alarm on A',
    );
    t.log(`alarm on B reached the client of A ${Date.now() - sent} ms after the request was sent`);
    await curlA(`http://${ADDR.b}:${PORT}/api/v3/monitors/2/alarm`, [
      '-X',
      'PATCH',
      '-H',
      `authorization: Bearer ${token}`,
      '-H',
      'content-type: application/json',
      '--data',
      JSON.stringify({ action: 'cancel' }),
    ]);
  } finally {
    client.kill('SIGKILL');
  }
});

maybe(
  'host B stopped, then killed: A answers B’s monitor with 504, then 502, and serves its own and C’s',
  async (t) => {
    const token = await loginA();
    const a = (p: string) => `http://${ADDR.a}:${PORT}/api/v3${p}?token=${token}`;
    // Stopped: B's kernel still accepts connections, nothing answers them.
    hostB!.kill('SIGSTOP');
    try {
      const sent = Date.now();
      const silent = await curlA(a('/monitors/2/snapshot'));
      t.log(`A answered for a silent B after ${Date.now() - sent} ms (proxy timeout 5 s)`);
      t.is(silent.status, 504, silent.body);
      t.regex(silent.body, /GATEWAY_TIMEOUT_ERROR/);
      t.regex(silent.body, /bravo/);
      t.is((await curlA(a('/monitors/1/snapshot'))).status, 200);
      t.is((await curlA(a('/monitors/3/snapshot'))).status, 200);
      // The cluster-wide list still answers, with B reported missing.
      const list = await curlA(`http://${ADDR.a}:${PORT}/api/v3/live/sources?scope=cluster`, [
        '-H',
        `authorization: Bearer ${token}`,
      ]);
      t.is(list.status, 200);
      t.regex(list.head, /x-zmgate-cluster-incomplete: 2 bravo timeout/);
      t.deepEqual(
        (JSON.parse(list.body) as { sources: Array<{ monitor_id: number }> }).sources.map((s) => s.monitor_id),
        [1, 3],
      );
    } finally {
      hostB!.kill('SIGKILL');
    }
    await until(async () => (await curlA(a('/monitors/2/snapshot'))).status === 502, 'A answering 502 for B');
    const down = await curlA(a('/monitors/2/snapshot'));
    t.regex(down.body, /BAD_GATEWAY_ERROR/);
    t.regex(down.body, /bravo/);
    const own = await curlA(a('/monitors/1/snapshot'));
    t.is(own.status, 200);
    t.notRegex(own.head, /via:/);
    const third = await curlA(a('/monitors/3/snapshot'));
    t.is(third.status, 200);
    t.regex(third.head, /via: 1.1 zmgate-1/);
  },
);
