// The soak: an operator's day in a chosen number of minutes. zmgate runs as its own process (built,
// started as `npm start` starts it) against a throwaway MariaDB and 4 simulated cameras
// (bin/zmgate-sim.js: stream sockets and shared memory in a temp dir), with retention, the audit
// and the stats job each passing once a minute, while this process drives the mixed load:
//   - 10 polling users: every 2 s what a browser console polls (/monitors, /monitor-status, the
//     newest 25 /events, /me), refreshing the access token a minute before it expires;
//   - 4 LL-HLS readers (one per camera, bench/_ll-hls.ts) and 2 MJPEG readers (read without pause);
//   - 5 push clients subscribed to all monitors (renewing their token on `token_expiring`);
//   - an event writer acting as zmc: every 3 s an Events row is opened (its folder with a snapshot
//     under the Storage path), and closed 5 s later with its video file, EndDateTime, Length,
//     Frames and DiskSpace. Retention's max_age (2 min) deletes them again during the run.
// One row per minute: the service's RSS and open fds, the polled requests and their p50/p99, the
// 5xx and other non-2xx answers of every request made, and `event_start` pushes delivered against
// events written × push clients. At the end, with retention idle, the end state: every Events row
// has its folder and every folder its row, no retention trash and no notes left.
//
//   npm run bench soak [-- --minutes N]
//   npx tsx bench/soak.ts [--minutes N (60)] [--no-build] [--keep-log FILE]
//
// --no-build runs the existing dist/; --keep-log copies the service's log (JSON lines) to FILE.
//
// Ctrl-C ends the load early; the minutes so far, the end-state check and the clean-up still run
// (a second Ctrl-C quits at once; child processes and temp dirs go with the exit hook).
import bcrypt from 'bcryptjs';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  createReadStream,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { setMaxListeners } from 'node:events';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createPool, type Pool } from 'mariadb';
import { io, type Socket } from 'socket.io-client';
import { insertSeedRows, ZONEMINDER_CONFIG } from '../src/db/seed/index.js';
import { startThrowawayMariaDb } from '../src/devdb/throwaway-mariadb.js';
import { TRASH_PREFIX } from '../src/zm/event-deletion.js';
import { eventPaths } from '../src/zm/event-paths.js';
import { JOURNAL_DIR } from '../src/features/retention/journal.js';
import { flag, numberFlag } from './_args.js';
import { generateEvents } from './_generate-events.js';
import { percentile } from './_http-load.js';
import { followLiveHls, type HlsAnswer } from './_ll-hls.js';
import { meets, printTable, report, type SummaryRow } from './_results.js';
import {
  apiLogin,
  type LoginAnswer,
  openFds,
  rssMb,
  serviceEnv,
  socketsTo,
  startService,
  stopChild,
} from './_service.js';

const MINUTES = numberFlag('minutes', 60);
if (!(Number.isInteger(MINUTES) && MINUTES >= 1)) throw new Error('--minutes must be a whole number ≥ 1');
const BUILD = !process.argv.includes('--no-build');
const KEEP_LOG = flag('keep-log');
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The mixed load (issue 36's measured soak). */
const LOAD = {
  cameras: 4,
  pollers: 10,
  hlsReaders: 4,
  mjpegReaders: 2,
  pushClients: 5,
  pollEveryMs: 2000,
  writeEveryMs: 3000,
  eventLengthMs: 5000,
  /** retention.max_age: the events written are deleted again during the run. */
  maxAge: '2m',
} as const;
/** Closed events already on disk at the start (over the last 30 min): retention's first pass has work. */
const SEEDED_EVENTS = 100;
/** What a browser console polls (docs/contract/clients.md, "What a logged-in page polls"). */
const POLLED = [
  '/monitors?page=1&page_size=100',
  '/monitor-status?page=1&page_size=1000',
  '/events?page=1&page_size=25&sort=start_time&direction=desc',
  '/me',
];
const USER = 'soak';

// ---- the run's clock: the load runs until `load` is aborted (the last minute, or Ctrl-C)

const load = new AbortController();
setMaxListeners(64, load.signal); // every client's pause() listens to it
const running = () => !load.signal.aborted;
let interrupted = false;

/** Waits `ms`, or less when the load ends. */
const pause = (ms: number) => sleep(Math.max(0, ms), undefined, { signal: load.signal }).catch(() => undefined);

// ---- what each minute saw

interface Minute {
  rss: number;
  /** Open fds at the minute's end. */
  fds: number;
  /** The fewest and the most open fds of the samples taken every 5 s in the minute. */
  fdFloor: number;
  fdPeak: number;
  /** The same without the connections to the database (the two pools, at most 2 × db.pool_max). */
  ownFloor: number;
  ownPeak: number;
  /** Connections to the database at the minute's end. */
  dbConns: number;
  polled: number;
  latencies: number[];
  s5xx: number;
  other: number;
  connErrors: number;
  hlsParts: number;
  mjpegBytes: number;
  written: number;
  delivered: number;
}
const minutes: Minute[] = Array.from({ length: MINUTES }, () => ({
  rss: NaN,
  fds: NaN,
  fdFloor: Infinity,
  fdPeak: 0,
  ownFloor: Infinity,
  ownPeak: 0,
  dbConns: NaN,
  polled: 0,
  latencies: [],
  s5xx: 0,
  other: 0,
  connErrors: 0,
  hlsParts: 0,
  mjpegBytes: 0,
  written: 0,
  delivered: 0,
}));
let t0 = Infinity;
/** The minute `at` falls in (set-up counts to the first, the drain after the end to the last). */
const minuteIndex = (at = Date.now()) => Math.min(MINUTES - 1, Math.max(0, Math.floor((at - t0) / 60_000)));
const now = () => minutes[minuteIndex()]!;
const failures: string[] = [];
const counters = { mjpegReconnects: 0, pushReconnects: 0, pushSessionEnded: 0, writerErrors: 0, relogins: 0 };

/** Counts an answer (or a failed connection) of any request the load makes. */
function tally(what: string, status: number | Error): void {
  const m = now();
  if (status instanceof Error) m.connErrors++;
  else if (status >= 500) m.s5xx++;
  else if (status < 200 || status >= 300) m.other++;
  else return;
  if (failures.length < 8) failures.push(`${what}: ${status instanceof Error ? status.message : status}`);
}

/** A request whose answer is read whole; status 0 when the connection failed. `expected` statuses are not counted. */
async function call(url: string, init: RequestInit = {}, expected: number[] = []): Promise<HlsAnswer> {
  const what = `${init.method ?? 'GET'} ${new URL(url).pathname}`;
  try {
    const res = await fetch(url, init);
    const body = Buffer.from(await res.arrayBuffer());
    if (!expected.includes(res.status)) tally(what, res.status);
    return { status: res.status, body };
  } catch (err) {
    tally(what, err as Error);
    return { status: 0, body: Buffer.alloc(0) };
  }
}

// ---- one logged-in client

let api: (p: string) => string = () => '';

/** One client's tokens: refreshed (or, failing that, logged in again) a minute (at most half their life) before expiry. */
class Session {
  #answer!: LoginAnswer;
  #expires = 0;
  #margin = 0;
  #renewing: Promise<void> | null = null;

  static async open(): Promise<Session> {
    const s = new Session();
    s.#take(await apiLogin(api, USER, USER));
    return s;
  }

  #take(answer: LoginAnswer): void {
    this.#answer = answer;
    this.#expires = Date.now() + answer.expire_in * 1000;
    this.#margin = Math.min(60_000, (answer.expire_in * 1000) / 2);
  }

  async token(): Promise<string> {
    if (Date.now() > this.#expires - this.#margin) await this.renew();
    return this.#answer.access_token;
  }

  renew(): Promise<void> {
    this.#renewing ??= (async () => {
      const res = await call(api('/auth/refresh'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: this.#answer.refresh_token }),
      });
      if (res.status === 200) return this.#take(JSON.parse(res.body.toString()) as LoginAnswer);
      counters.relogins++;
      try {
        this.#take(await apiLogin(api, USER, USER));
      } catch (err) {
        tally('POST /api/v3/auth/login', err as Error); // the old token goes on, and its 401s are counted
      }
    })().finally(() => (this.#renewing = null));
    return this.#renewing;
  }

  async headers(): Promise<Record<string, string>> {
    return { authorization: `Bearer ${await this.token()}` };
  }
}

// ---- the clients

async function pollingUser(i: number): Promise<void> {
  const session = await Session.open();
  await pause((i * LOAD.pollEveryMs) / LOAD.pollers); // spread over the period, as independent browsers are
  while (running()) {
    const next = Date.now() + LOAD.pollEveryMs;
    const headers = await session.headers();
    await Promise.all(
      POLLED.map(async (p) => {
        const started = performance.now();
        await call(api(p), { headers });
        const m = now();
        m.polled++;
        m.latencies.push(performance.now() - started);
      }),
    );
    await pause(next - Date.now());
  }
}

async function hlsReader(monitorId: number): Promise<void> {
  const session = await Session.open();
  const start = async () =>
    call(
      api(`/live/${monitorId}/start`),
      {
        method: 'POST',
        headers: { ...(await session.headers()), 'content-type': 'application/json' },
        body: JSON.stringify({ enable_hls: true, enable_webrtc: false }),
      },
      [409], // a session exists already: the client takes it as success
    );
  await start();
  const get = async (p: string) => {
    const res = await call(api(`/live/${monitorId}/hls/${p}`), { headers: await session.headers() });
    if (res.status === 404 && p.startsWith('live.m3u8')) await start(); // reaped: start again, as the client does
    return res;
  };
  await followLiveHls(get, running, (part) => {
    if (part.status === 200) now().hlsParts++;
  });
}

async function mjpegReader(monitorId: number): Promise<void> {
  const session = await Session.open();
  const what = `GET /api/v3/live/${monitorId}/mjpeg`;
  while (running()) {
    try {
      const token = encodeURIComponent(await session.token());
      const res = await fetch(api(`/live/${monitorId}/mjpeg?token=${token}`), { signal: load.signal });
      tally(what, res.status);
      if (res.status !== 200) {
        await res.arrayBuffer();
        await pause(1000);
        continue;
      }
      const reader = res.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        now().mjpegBytes += value.length;
      }
      if (running()) counters.mjpegReconnects++; // the server ended the stream: open it again
    } catch (err) {
      if (!running()) break;
      tally(what, err as Error);
      await pause(1000);
    }
  }
}

/** Event ids the writer opened → the minute it opened them in. */
const written = new Map<number, number>();

function pushClient(base: string, session: Session): Socket {
  const seen = new Set<number>();
  let last = 0;
  let connects = 0;
  const socket = io(base, {
    path: '/api/v3/socket.io',
    transports: ['websocket'],
    forceNew: true,
    reconnectionDelay: 1000,
    auth: (cb) =>
      void session.token().then(
        (token) => cb({ token }),
        () => cb({}),
      ),
  });
  socket.on('connect', () => {
    socket.emit('subscribe', { monitors: 'all', topics: ['alarm', 'event'] });
    // After a reconnection, what was missed meanwhile (docs/push.md, Replay).
    if (connects++ > 0) {
      counters.pushReconnects++;
      if (last) socket.emit('replay', { since_event_id: last });
    }
  });
  socket.on('event_start', (m: { event: { id: number } }) => {
    const id = Number(m.event.id);
    last = Math.max(last, id);
    if (seen.has(id)) return;
    seen.add(id);
    const at = written.get(id);
    if (at !== undefined) minutes[at]!.delivered++;
  });
  socket.on('token_expiring', () => {
    void session
      .renew()
      .then(() => session.token())
      .then((token) => socket.emit('refresh_token', { token }))
      .catch(() => undefined); // it ends with session_ended, and the reconnection logs in again
  });
  socket.on('session_ended', () => counters.pushSessionEnded++);
  socket.on('disconnect', (reason) => {
    // socket.io does not reconnect by itself after the server closed the connection.
    if (running() && reason === 'io server disconnect') setTimeout(() => socket.connect(), 1000);
  });
  return socket;
}

// ---- zmc: events opened and closed, with their folders

/** ZoneMinder's wall clock at `ms` (the process zone): a Date whose UTC fields are the local digits. */
const wallClock = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
const sqlDateTime = (wall: Date) => wall.toISOString().slice(0, 19).replace('T', ' ');
const SNAPSHOT = Buffer.alloc(4096, 0xff);
const VIDEO = Buffer.alloc(64 * 1024, 0x42);

function eventDir(storage: string, e: { id: number; monitorId: number; start: Date }): string {
  return eventPaths({ id: e.id, monitorId: e.monitorId, startDateTime: e.start, scheme: 'Medium' }, storage).eventDir;
}

async function eventWriter(pool: Pool, storage: string): Promise<void> {
  const open = new Set<Promise<void>>();
  for (let k = 0; running(); k++) {
    const next = Date.now() + LOAD.writeEveryMs;
    const monitorId = (k % LOAD.cameras) + 1;
    try {
      const opened = Date.now();
      const start = wallClock(opened);
      const [{ Id }] = (await pool.query(
        `INSERT INTO Events (MonitorId, StorageId, Name, Cause, StartDateTime, Width, Height, Scheme, SaveJPEGs, Videoed, StateId)
         VALUES (?, 1, 'New Event', 'Motion', ?, 640, 360, 'Medium', 3, 1, 1) RETURNING Id`,
        [monitorId, sqlDateTime(start)],
      )) as Array<{ Id: number | bigint }>;
      const id = Number(Id);
      written.set(id, minuteIndex());
      now().written++;
      const dir = eventDir(storage, { id, monitorId, start });
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'snapshot.jpg'), SNAPSHOT);
      const closing: Promise<void> = sleep(LOAD.eventLengthMs)
        .then(async () => {
          writeFileSync(path.join(dir, `${id}-video.mp4`), VIDEO);
          const seconds = (Date.now() - opened) / 1000;
          await pool.query(
            `UPDATE Events SET Name = ?, EndDateTime = ?, Length = ?, Frames = ?, AlarmFrames = 5, TotScore = 250,
               AvgScore = 50, MaxScore = 80, DefaultVideo = ?, DiskSpace = ? WHERE Id = ?`,
            [
              `Event-${id}`,
              sqlDateTime(wallClock(Date.now())),
              seconds.toFixed(2),
              Math.round(seconds * 25),
              `${id}-video.mp4`,
              SNAPSHOT.length + VIDEO.length,
              id,
            ],
          );
          await pool.query('UPDATE Storage SET DiskSpace = COALESCE(DiskSpace, 0) + ? WHERE Id = 1', [
            SNAPSHOT.length + VIDEO.length,
          ]);
        })
        .catch(() => void counters.writerErrors++)
        .finally(() => open.delete(closing));
      open.add(closing);
    } catch {
      counters.writerErrors++;
    }
    await pause(next - Date.now());
  }
  await Promise.all(open); // every event is closed before the end state is looked at
}

// ---- the end state

interface EndState {
  rows: number;
  folders: number;
  rowsWithoutFolder: number[];
  foldersWithoutRow: string[];
  trash: string[];
  notes: string[];
}

/** Rows against folders (Medium: <storage>/<monitor>/<YYYY-MM-DD>/<Id>), and retention's leftovers. */
async function endState(pool: Pool, storage: string): Promise<EndState> {
  const rows = (await pool.query(
    "SELECT Id, MonitorId, DATE_FORMAT(StartDateTime, '%Y-%m-%dT%H:%i:%sZ') AS start FROM Events",
  )) as Array<{ Id: number | bigint; MonitorId: number; start: string }>;
  const expected = new Map<string, number>();
  for (const r of rows)
    expected.set(
      eventDir(storage, { id: Number(r.Id), monitorId: r.MonitorId, start: new Date(r.start) }),
      Number(r.Id),
    );
  const folders = new Set<string>();
  const trash: string[] = [];
  const notes = listOrEmpty(path.join(storage, JOURNAL_DIR));
  const walk = (dir: string, depth: number) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.name.startsWith(TRASH_PREFIX)) trash.push(full);
      else if (e.isDirectory() && e.name !== JOURNAL_DIR) {
        if (depth === 2) folders.add(full);
        else walk(full, depth + 1);
      }
    }
  };
  walk(storage, 0);
  return {
    rows: rows.length,
    folders: folders.size,
    rowsWithoutFolder: [...expected].filter(([dir]) => !folders.has(dir)).map(([, id]) => id),
    foldersWithoutRow: [...folders].filter((dir) => !expected.has(dir)),
    trash,
    notes,
  };
}

function listOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Waits until no retention pass runs and the next is at least 10 s away, so nothing is half done. */
async function retentionIdle(session: Session): Promise<void> {
  for (let i = 0; i < 120; i++) {
    const res = await call(api('/retention/status'), { headers: await session.headers() });
    const status = JSON.parse(res.body.toString() || '{}') as { running?: boolean; next_run?: string | null };
    const nextIn = status.next_run ? Date.parse(status.next_run) - Date.now() : Infinity;
    if (res.status === 200 && !status.running && nextIn > 10_000) return;
    await sleep(1000);
  }
  throw new Error('retention did not come to rest within 2 minutes');
}

// ---- the service's log

interface LogSummary {
  warnings: Map<string, number>;
  errors: Map<string, number>;
  retentionPasses: number;
  retentionDeleted: number;
  maintenancePasses: Map<string, number>;
}

/** Warnings and errors by message, and the passes of the jobs, from the service's JSON log lines. */
async function readLog(file: string): Promise<LogSummary> {
  const out: LogSummary = {
    warnings: new Map(),
    errors: new Map(),
    retentionPasses: 0,
    retentionDeleted: 0,
    maintenancePasses: new Map(),
  };
  const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  for await (const line of createInterface({ input: createReadStream(file) })) {
    // Most lines are request lines at level 30: parse only what is counted.
    if (!/"level":[4-6]0|pass finished|maintenance pass done/.test(line)) continue;
    let rec: { level?: number; msg?: string; job?: string; deleted?: number };
    try {
      rec = JSON.parse(line);
    } catch {
      add(out.errors, `(not JSON) ${line.slice(0, 80)}`);
      continue;
    }
    const msg = rec.msg ?? '';
    if ((rec.level ?? 0) >= 50) add(out.errors, msg);
    else if (rec.level === 40) add(out.warnings, msg);
    if (msg === 'retention: pass finished') {
      out.retentionPasses++;
      out.retentionDeleted += rec.deleted ?? 0;
    }
    if (msg === 'maintenance pass done' && rec.job) add(out.maintenancePasses, rec.job);
  }
  return out;
}

// ---- the run

async function main(): Promise<void> {
  const started = performance.now();
  if (BUILD)
    execFileSync('npm', ['run', '--silent', 'build:ts'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const scratch = mkdtempSync(path.join(tmpdir(), 'zmgate-soak-'));
  const storage = path.join(scratch, 'events');
  const sim = path.join(scratch, 'sim');
  const logFile = path.join(scratch, 'zmgate.log');
  mkdirSync(storage);
  const children: ChildProcess[] = [];
  // A crash or a second Ctrl-C: the children and the temp dir go with this process.
  let stateDir = '';
  const onExit = () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  };
  process.on('exit', onExit);
  process.on('SIGINT', () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error('# Ctrl-C: ending the load (again to quit at once)');
    load.abort();
  });

  const db = await startThrowawayMariaDb({ startTimeoutMs: 60_000 });
  let pool: Pool | null = null;
  try {
    // The database: 4 monitors on Storage 1 (the temp dir), closed events of the last 30 min with
    // their folders, a user, ZoneMinder's Config with the audit's interval (ZM_AUDIT_CHECK_INTERVAL).
    const gen = await generateEvents(db, 'zm_soak', { events: SEEDED_EVENTS, monitors: LOAD.cameras, days: 1 / 48 });
    await db.createUser('bench', 'bench-pass', gen.database);
    pool = createPool({ ...db.connectionConfig(gen.database), connectionLimit: 3 });
    await pool.query('UPDATE Storage SET Path = ? WHERE Id = 1', [storage]);
    await pool.query('UPDATE Monitors SET Width = 640, Height = 360, Colours = 3, ImageBufferCount = 3');
    await pool.query(
      `INSERT INTO Users (Username, Password, Enabled, APIEnabled, Events, Monitors, Stream, System) VALUES (?, ?, 1, 1, 'View', 'View', 'View', 'View')`,
      [USER, bcrypt.hashSync(USER, 4)],
    );
    await insertSeedRows(pool, ZONEMINDER_CONFIG); // as installed: its version recorded, every option set
    await pool.query("UPDATE Config SET Value = '60' WHERE Name = 'ZM_AUDIT_CHECK_INTERVAL'");
    const seeded = (await pool.query(
      "SELECT Id, MonitorId, DATE_FORMAT(StartDateTime, '%Y-%m-%dT%H:%i:%sZ') AS start FROM Events",
    )) as Array<{ Id: number | bigint; MonitorId: number; start: string }>;
    for (const r of seeded) {
      const dir = eventDir(storage, { id: Number(r.Id), monitorId: r.MonitorId, start: new Date(r.start) });
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `${r.Id}-video.mp4`), VIDEO);
    }

    const cameras = spawn(
      process.execPath,
      [path.join(root, 'bin', 'zmgate-sim.js'), '--socks', sim, '--map', sim, '--count', String(LOAD.cameras)],
      { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], detached: true }, // detached: Ctrl-C is ours to handle
    );
    children.push(cameras);
    for await (const line of createInterface({ input: cameras.stderr! })) if (/camera\(s\)/.test(line)) break;

    const log = openSync(logFile, 'a');
    const env = serviceEnv(db, gen.database, {
      APP_ZONEMINDER__PATH_SOCKS: sim,
      APP_ZONEMINDER__PATH_MAP: sim,
      APP_ZONEMINDER__DIR_EVENTS: storage,
      APP_RETENTION__ENABLED: 'true',
      APP_RETENTION__INTERVAL_SECONDS: '60',
      APP_RETENTION__MAX_AGE: LOAD.maxAge,
      APP_RETENTION__FREE_SPACE_FLOOR: '', // whatever this machine's disk holds
      APP_MAINTENANCE__AUDIT__ENABLED: 'true',
      APP_MAINTENANCE__STATS__ENABLED: 'true',
      APP_MAINTENANCE__STATS__INTERVAL_SECONDS: '60',
    });
    stateDir = env.APP_AUTH__STATE_DIR!;
    const service = await startService(root, env, { stdio: ['ignore', log, log], detached: true });
    children.push(service.proc);
    api = service.api;
    const pid = service.proc.pid!;
    const control = await Session.open();

    console.log(
      `# soak: ${MINUTES} min; ${LOAD.cameras} cameras, ${LOAD.pollers} polling users, ${LOAD.hlsReaders} LL-HLS + ${LOAD.mjpegReaders} MJPEG readers, ${LOAD.pushClients} push clients, an event every ${LOAD.writeEveryMs / 1000} s; retention (max_age ${LOAD.maxAge}), audit and stats every 60 s; service log ${logFile}`,
    );
    t0 = Date.now();
    const sockets = await Promise.all(
      Array.from({ length: LOAD.pushClients }, async () => pushClient(service.base, await Session.open())),
    );
    const clients = [
      ...Array.from({ length: LOAD.pollers }, (_, i) => pollingUser(i)),
      ...Array.from({ length: LOAD.hlsReaders }, (_, i) => hlsReader((i % LOAD.cameras) + 1)),
      ...Array.from({ length: LOAD.mjpegReaders }, (_, i) => mjpegReader((i % LOAD.cameras) + 1)),
      eventWriter(pool, storage),
    ];

    // Open fds every 5 s: a leak raises the floor of each minute; sockets in flight under load
    // (a slower machine keeps more of them open at once) raise only the peak.
    const fdSampler = setInterval(() => {
      const m = minutes[Math.floor((Date.now() - t0) / 60_000)];
      if (!m) return;
      try {
        const n = openFds(pid);
        const own = n - socketsTo(pid, db.port);
        m.fdFloor = Math.min(m.fdFloor, n);
        m.fdPeak = Math.max(m.fdPeak, n);
        m.ownFloor = Math.min(m.ownFloor, own);
        m.ownPeak = Math.max(m.ownPeak, own);
      } catch {
        // the service is gone: the run ends anyway
      }
    }, 5000);
    // Each minute's end: the service's RSS and fds.
    for (let k = 0; k < MINUTES && running(); k++) {
      await pause(t0 + (k + 1) * 60_000 - Date.now());
      if (!running()) break;
      const m = minutes[k]!;
      m.rss = rssMb(pid);
      m.fds = openFds(pid);
      m.dbConns = socketsTo(pid, db.port);
      m.fdFloor = Math.min(m.fdFloor, m.fds);
      m.fdPeak = Math.max(m.fdPeak, m.fds);
      m.ownFloor = Math.min(m.ownFloor, m.fds - m.dbConns);
      m.ownPeak = Math.max(m.ownPeak, m.fds - m.dbConns);
      console.error(
        `# minute ${k + 1}: RSS ${m.rss.toFixed(1)} MiB, ${m.fds} fds (floor ${m.fdFloor}, peak ${m.fdPeak}; ${m.dbConns} to the database), ${m.polled} polled, ${m.s5xx} × 5xx, ${m.written} events written`,
      );
    }
    clearInterval(fdSampler);
    load.abort();
    await Promise.all(clients);
    await sleep(3000); // the last events' pushes (the detector polls every 500 ms)
    for (const s of sockets) s.close();

    await retentionIdle(control);
    const end = await endState(pool, storage);
    const stop = await stopChild(service.proc);
    await stopChild(cameras);
    const logged = await readLog(logFile);
    if (KEEP_LOG) copyFileSync(logFile, KEEP_LOG);

    // ---- the table and the verdicts
    const done = minutes.filter((m) => !Number.isNaN(m.rss));
    console.log(
      `\n### Soak, ${done.length} minute(s)${interrupted ? ' (ended early by Ctrl-C)' : ''}: ${cpus().length} CPUs (${cpus()[0]?.model}), load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}\n`,
    );
    printTable([
      [
        'min',
        'RSS MiB',
        'fds',
        'fds floor–peak',
        'DB conns',
        'fds w/o DB floor–peak',
        'polled',
        'p50 ms',
        'p99 ms',
        '5xx',
        'other non-2xx',
        'conn errors',
        'HLS parts',
        'MJPEG MiB',
        'events written',
        'event_start delivered',
      ],
      ...done.map((m, i) => {
        const lat = m.latencies.sort((a, b) => a - b);
        return [
          String(i + 1),
          m.rss.toFixed(1),
          String(m.fds),
          `${m.fdFloor}–${m.fdPeak}`,
          String(m.dbConns),
          `${m.ownFloor}–${m.ownPeak}`,
          String(m.polled),
          percentile(lat, 50).toFixed(1),
          percentile(lat, 99).toFixed(1),
          String(m.s5xx),
          String(m.other),
          String(m.connErrors),
          String(m.hlsParts),
          (m.mjpegBytes / 1048576).toFixed(1),
          String(m.written),
          `${m.delivered} / ${m.written * LOAD.pushClients}`,
        ];
      }),
    ]);

    const sum = (f: (m: Minute) => number) => minutes.reduce((a, m) => a + f(m), 0);
    const total5xx = sum((m) => m.s5xx);
    const driftFrom = done.length >= 11 ? 10 : Math.min(2, done.length);
    const rssBase = done[driftFrom - 1]?.rss ?? NaN;
    const rssEnd = done[done.length - 1]?.rss ?? NaN;
    const drift = ((rssEnd - rssBase) / rssBase) * 100;
    const fdRows = done.length > 2 ? done.slice(2) : done.slice(-1);
    const fdMin = Math.min(...fdRows.map((m) => m.fds));
    const fdMax = Math.max(...fdRows.map((m) => m.fds));
    const floorMin = Math.min(...fdRows.map((m) => m.fdFloor));
    const floorMax = Math.max(...fdRows.map((m) => m.fdFloor));
    const ownMin = Math.min(...fdRows.map((m) => m.ownFloor));
    const ownMax = Math.max(...fdRows.map((m) => m.ownFloor));
    const dbMax = Math.max(...fdRows.map((m) => m.dbConns));
    const expected = sum((m) => m.written) * LOAD.pushClients;
    const delivered = sum((m) => m.delivered);
    const faults = end.rowsWithoutFolder.length + end.foldersWithoutRow.length + end.trash.length + end.notes.length;
    const few = (list: Array<string | number>) => (list.length ? ` (${list.slice(0, 5).join(', ')})` : '');
    const passes = [...logged.maintenancePasses].map(([job, n]) => `${job} ${n}`).join(', ') || 'none';

    console.log(`
- 5xx: ${total5xx}; other non-2xx: ${sum((m) => m.other)}; failed connections: ${sum((m) => m.connErrors)}${failures.length ? `; first: ${failures.join('; ')}` : ''}
- RSS drift from minute ${driftFrom} to minute ${done.length}: ${rssBase.toFixed(1)} → ${rssEnd.toFixed(1)} MiB, ${drift >= 0 ? '+' : ''}${drift.toFixed(1)} %
- open fds after minute 2: at minute ends min ${fdMin}, max ${fdMax}; each minute's floor from ${floorMin} to ${floorMax}; without the database connections (at most ${dbMax} at a minute's end) from ${ownMin} to ${ownMax}
- event_start delivered: ${delivered} of ${expected} (${sum((m) => m.written)} events × ${LOAD.pushClients} clients); push reconnects ${counters.pushReconnects}, session_ended ${counters.pushSessionEnded}; MJPEG streams reopened ${counters.mjpegReconnects}; re-logins ${counters.relogins}; event writer errors ${counters.writerErrors}
- jobs: retention ${logged.retentionPasses} passes deleting ${logged.retentionDeleted} events; maintenance passes: ${passes}
- service log: ${[...logged.warnings.values()].reduce((a, n) => a + n, 0)} warnings, ${[...logged.errors.values()].reduce((a, n) => a + n, 0)} errors${[...logged.warnings, ...logged.errors].map(([msg, n]) => `\n  - ${n} × ${msg}`).join('')}
- service stop: ${(stop.ms / 1000).toFixed(1)} s${stop.killed ? ' (did not exit on SIGTERM: killed)' : ''}
- end state: ${end.rows} rows, ${end.folders} folders; rows without a folder ${end.rowsWithoutFolder.length}${few(end.rowsWithoutFolder)}, folders without a row ${end.foldersWithoutRow.length}${few(end.foldersWithoutRow)}, retention trash ${end.trash.length}${few(end.trash)}, notes ${end.notes.length}${few(end.notes)}: ${faults === 0 ? 'consistent' : 'NOT consistent'}
- whole run ${((performance.now() - started) / 1000).toFixed(0)} s`);

    const goal = (measure: string, unit: string, value: number, decimals: number, target: SummaryRow['target']) =>
      ({ measure: `soak: ${measure}`, unit, value, decimals, target }) satisfies SummaryRow;
    const goals = [
      goal('5xx answers', 'count', total5xx, 0, { max: 0, label: '0' }),
      goal(`RSS drift, minute ${driftFrom} to ${done.length}`, '%', drift, 1, { max: 4.99, label: '< 5 %' }),
      goal("open fds after minute 2 but the database's: the minutes' floors, max − min", 'fds', ownMax - ownMin, 0, {
        max: 5,
        label: '≤ 5',
      }),
      goal('event_start delivered', '% of events × clients', (delivered / expected) * 100, 1, {
        min: 100,
        label: '100 %',
      }),
      goal('end state (rows ≠ folders, trash, notes)', 'count', faults, 0, { max: 0, label: '0: consistent' }),
    ];
    console.log('');
    for (const g of goals)
      console.log(
        `${meets(g) ? '✓' : '✗'} ${g.measure}: ${g.value.toFixed(g.decimals)} ${g.unit} (target ${g.target?.label})`,
      );
    report(...goals);
  } finally {
    load.abort();
    for (const c of children) await stopChild(c, 5000);
    await pool?.end().catch(() => undefined);
    await db.stop();
    onExit();
    process.removeListener('exit', onExit);
  }
}

await main();
