// The API's hot paths as an operator meets them: zmgate built and started as its own process
// (as `npm start` runs it: package.json's zmgateRuntime flags, default settings and logging) on a throwaway MariaDB holding a big
// install (50 monitors, 1,000,000 events; bench/_generate-events.ts), loaded with wrk over
// loopback. For each case: requests/s, p50, p99, the service's and MariaDB's CPU per request
// (from /proc), and the service's RSS, with ✓/✗ against the goals. The query plans of every
// list query are printed first (EXPLAIN): each must use an index, none a full scan.
//
//   npm run bench api-peers
//   npx tsx bench/api-peers.ts [--events N] [--seconds S] [--only TEXT] [--zm 1.36] [--cpu-prof DIR] [--heap-snapshots DIR] [--no-build]
//
// --zm 1.36 runs it on ZoneMinder 1.36.33's own schema (Debian's zm_create.sql, as zmgate meets
// an unconverted install) instead of 1.39.22's; the restricted viewer is then limited by
// Users.MonitorIds, as 1.36 has it.
// --cpu-prof writes a V8 CPU profile of the service into DIR, --heap-snapshots DIR two heap
// snapshots (idle, and idle after the load); --no-build runs the existing dist/.
// Needs Debian's `wrk`. ZoneMinder's own API (apache2 + zoneminder) is not measured here.
import bcrypt from 'bcryptjs';
import { execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startThrowawayMariaDb } from '../src/devdb/throwaway-mariadb.js';
import { generateEvents } from './_generate-events.js';
import { report } from './_results.js';
import { apiLogin, cpuSeconds, rssMb, serviceEnv, startService } from './_service.js';
import { flag } from './_args.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const EVENTS = Number(flag('events') ?? 1_000_000);
const SECONDS = Number(flag('seconds') ?? 3);
const ONLY = flag('only');
const CPU_PROF = flag('cpu-prof');
const HEAP_DIR = flag('heap-snapshots');
const BUILD = !process.argv.includes('--no-build');
const ZM = flag('zm') ?? '1.39';
if (ZM !== '1.39' && ZM !== '1.36') throw new Error(`--zm: 1.39 or 1.36, not ${ZM}`);
const ZM_SCHEMA: '1.39' | '1.36' = ZM;

interface Goal {
  label: string;
  ok: (r: Row) => boolean;
}
interface Case {
  name: string;
  who: 'admin' | 'viewer' | 'none';
  paths: string[];
  /** Extra request headers, e.g. a browser's Accept-Encoding. */
  headers?: string[];
  concurrency: number[];
  goals?: Record<number, Goal[]>;
}
interface Row {
  name: string;
  c: number;
  rps: number;
  p50: number;
  p99: number;
  svcMs: number;
  dbMs: number;
  rss: number;
  errors: number;
}

/** One wrk run (one thread, `c` connections) over `urls` in turn; async, so RSS is sampled meanwhile. */
async function wrk(
  base: string,
  urls: string[],
  token: string | null,
  c: number,
  seconds: number,
  scratch: string,
  headers: string[] = [],
) {
  const script = path.join(scratch, 'paths.lua');
  writeFileSync(
    script,
    `local paths = {${urls.map((u) => JSON.stringify(u)).join(',')}}\nlocal i = 0\n` +
      `request = function() i = i + 1; return wrk.format("GET", paths[(i % #paths) + 1]) end\n` +
      `done = function(summary, latency, requests) io.write(string.format("p50 %d\\np99 %d\\n", latency:percentile(50), latency:percentile(99))) end\n`,
  );
  const args = [
    '-t1',
    `-c${c}`,
    `-d${seconds}s`,
    '--timeout',
    '10s',
    '-s',
    script,
    ...(token ? ['-H', `Authorization: Bearer ${token}`] : []),
    ...headers.flatMap((h) => ['-H', h]),
    base,
  ];
  const { stdout: out } = await promisify(execFile)('wrk', args, { encoding: 'utf8' });
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? 0);
  return {
    requests: num(/(\d+) requests in/),
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    // The Lua done() hook prints the percentiles in microseconds.
    p50: num(/^p50 (\d+)$/m) / 1000,
    p99: num(/^p99 (\d+)$/m) / 1000,
    errors: num(/Non-2xx or 3xx responses: (\d+)/) + num(/Socket errors: connect (\d+)/),
    raw: out,
  };
}

async function main(): Promise<void> {
  const t0 = performance.now();
  if (BUILD)
    execFileSync('npm', ['run', '--silent', 'build:ts'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const db = await startThrowawayMariaDb({ startTimeoutMs: 60_000 });
  const scratch = mkdtempSync(path.join(tmpdir(), 'zmgate-api-peers-'));
  let service: ChildProcess | null = null;
  try {
    const gen = await generateEvents(db, 'zm_bench', {
      events: EVENTS,
      bufferPoolBytes: 512 * 1024 * 1024,
      zm: ZM_SCHEMA,
      log: (l) => console.log(`# ${l}`),
    });
    const q = (sql: string, params: unknown[] = []) => db.query<any>(sql, params, gen.database);
    const hash = bcrypt.hashSync('bench', 4);
    await q(`DELETE FROM Users WHERE Username = 'admin'`); // 1.36's zm_create.sql seeds admin/admin
    await q(
      `INSERT INTO Users (Username, Password, Enabled, APIEnabled, Events, Monitors, Stream, System) VALUES ('admin', ?, 1, 1, 'Edit', 'Edit', 'View', 'Edit')`,
      [hash],
    );
    await q(
      `INSERT INTO Users (Username, Password, Enabled, APIEnabled, Events, Monitors, Stream) VALUES ('viewer', ?, 1, 1, 'View', 'View', 'View')`,
      [hash],
    );
    const [viewer] = await q(`SELECT Id FROM Users WHERE Username = 'viewer'`);
    // The restricted viewer sees 40 of the 50 monitors: 1..10 are hidden by per-monitor rows
    // (1.36: by its monitor list).
    if (ZM === '1.36') {
      const shown = Array.from({ length: gen.monitors - 10 }, (_, i) => i + 11).join(',');
      await q('UPDATE Users SET MonitorIds = ? WHERE Id = ?', [shown, viewer.Id]);
    }
    for (let m = 1; ZM === '1.39' && m <= gen.monitors; m++) {
      await q('INSERT INTO Monitors_Permissions (MonitorId, UserId, Permission) VALUES (?, ?, ?)', [
        m,
        viewer.Id,
        m <= 10 ? 'None' : 'View',
      ]);
    }
    // One zone a monitor, for the uncached single-row read (in pixels, as both versions store them here).
    for (let m = 1; m <= gen.monitors; m++)
      await q(
        `INSERT INTO Zones (MonitorId, Name, Type, Units, NumCoords, Coords, Area) VALUES (?, 'All', 'Active', 'Pixels', 4, '0,0 639,0 639,479 0,479', 307200)`,
        [m],
      );
    const [zone] = await q('SELECT MIN(Id) AS id FROM Zones');
    await db.createUser('bench', 'bench-pass', gen.database);
    const dbPid = Number(readFileSync(path.join(db.baseDir, 'mariadbd.pid'), 'utf8'));

    const execArgv = [
      ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : []),
      ...(HEAP_DIR ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${HEAP_DIR}`] : []),
    ];
    const heapSnapshot = async () => {
      if (!HEAP_DIR) return;
      service!.kill('SIGUSR2');
      await new Promise((r) => setTimeout(r, 8000)); // written synchronously by the service
    };
    // Started as `npm start` and the Debian unit start it (package.json's zmgateRuntime).
    const started = await startService(root, serviceEnv(db, gen.database), { nodeArgs: execArgv });
    service = started.proc;
    const { base, api } = started;
    const login = async (username: string) => (await apiLogin(api, username, 'bench')).access_token;
    const tokens = { admin: await login('admin'), viewer: await login('viewer'), none: null };
    const get = async (p: string, who: 'admin' | 'viewer' = 'admin') =>
      (await fetch(api(p), { headers: { authorization: `Bearer ${tokens[who]}` } })).json() as Promise<any>;

    // Wall clock of the data = this process's zone; the API takes instants with Z.
    const iso = (t: number) => `${new Date(t).toISOString().slice(0, 19)}Z`;
    const nowMs = gen.newestStart.getTime() + new Date().getTimezoneOffset() * 60_000;
    const range = `start_time=${iso(nowMs - 86_400_000)}&end_time=${iso(nowMs)}`;

    // Correctness: totals against COUNT(*), and the size of the monitor list.
    const [all] = await q('SELECT COUNT(*) AS n FROM Events');
    const [m7] = await q('SELECT COUNT(*) AS n FROM Events WHERE MonitorId = 7');
    const monitors = await fetch(api('/monitors?page=1&page_size=100'), {
      headers: { authorization: `Bearer ${tokens.admin}` },
    });
    const monitorsBody = await monitors.text();
    console.log(
      `# GET /monitors: ${monitors.status}, ${JSON.parse(monitorsBody).total} monitors, ${monitorsBody.length} bytes`,
    );
    console.log(
      `# totals: all ${(await get('/events?page_size=1')).total} (COUNT ${all.n}), monitor 7 ${(await get('/events?monitor_id=7&page_size=1')).total} (COUNT ${m7.n}), last 24 h ${(await get(`/events?${range}&page_size=1`)).total}, viewer ${(await get('/events?page_size=1', 'viewer')).total}`,
    );

    // The plans of the list queries as the services issue them (event-list-query.ts, monitor-rows.ts).
    const visible = Array.from({ length: gen.monitors - 10 }, (_, i) => i + 11).join(',');
    const start = new Date(nowMs - 86_400_000 - new Date().getTimezoneOffset() * 60_000)
      .toISOString()
      .slice(0, 19)
      .replace('T', ' ');
    const plans: Array<[string, string]> = [
      ['monitors page', 'SELECT Id FROM Monitors ORDER BY Id LIMIT 100'],
      ['events newest page', 'SELECT Id FROM Events ORDER BY StartDateTime DESC, Id DESC LIMIT 25'],
      ['events total', 'SELECT COUNT(*) FROM Events'],
      ['per monitor page', 'SELECT Id FROM Events WHERE MonitorId = 7 ORDER BY StartDateTime DESC, Id DESC LIMIT 25'],
      ['per monitor total', 'SELECT COUNT(*) FROM Events WHERE MonitorId = 7'],
      [
        'range page',
        `SELECT Id FROM Events WHERE StartDateTime >= '${start}' ORDER BY StartDateTime DESC, Id DESC LIMIT 25`,
      ],
      ['range total', `SELECT COUNT(*) FROM Events WHERE StartDateTime >= '${start}'`],
      [
        'ACL page',
        `SELECT Id FROM Events WHERE MonitorId IN (${visible}) ORDER BY StartDateTime DESC, Id DESC LIMIT 25`,
      ],
      ['ACL total', `SELECT COUNT(*) FROM Events WHERE MonitorId IN (${visible})`],
      [
        'page rows',
        'SELECT e.* FROM (SELECT Id FROM Events ORDER BY StartDateTime DESC, Id DESC LIMIT 25) p JOIN Events e ON e.Id = p.Id',
      ],
    ];
    let fullScans = 0;
    for (const [label, sql] of plans) {
      for (const step of await q(`EXPLAIN ${sql}`)) {
        const scan = step.type === 'ALL' && ['Events', 'Frames', 'Logs'].includes(step.table);
        if (scan) fullScans++;
        console.log(
          `# plan ${label.padEnd(18)} table=${step.table} type=${step.type} key=${step.key} rows=${step.rows} ${step.Extra ?? ''}${scan ? '  ✗ FULL SCAN' : ''}`,
        );
      }
    }

    const rssIdle = rssMb(service.pid!);
    await heapSnapshot();
    const p99Under = (max: number): Goal => ({ label: `p99 ≤ ${max} ms`, ok: (r) => r.p99 <= max });
    const rpsOver = (min: number): Goal => ({ label: `≥ ${min} req/s`, ok: (r) => r.rps >= min });
    const svcCpu = (max: number): Goal => ({ label: `svc CPU ≤ ${max} ms/req`, ok: (r) => r.svcMs <= max });
    const dbCpu = (max: number): Goal => ({ label: `DB CPU ≤ ${max} ms/req`, ok: (r) => r.dbMs <= max });
    const eventGoals = { 8: [rpsOver(1000), p99Under(20), dbCpu(2)], 64: [p99Under(100), dbCpu(2)] };
    const cases: Case[] = [
      {
        name: 'GET /host/getVersion',
        who: 'none',
        paths: ['/api/v3/host/getVersion'],
        concurrency: [8, 64],
        goals: { 8: [svcCpu(0.25)] },
      },
      { name: 'GET /me', who: 'admin', paths: ['/api/v3/me'], concurrency: [8] },
      {
        // A single-row read on the full chain (no cache, no fast path): routing, token, ACL, one query.
        name: 'GET /zones/{id} (one row)',
        who: 'admin',
        paths: [`/api/v3/zones/${zone.id}`],
        concurrency: [8, 64],
        goals: { 8: [svcCpu(0.25)] },
      },
      {
        name: 'GET /monitors (50, full rows)',
        who: 'admin',
        paths: ['/api/v3/monitors?page=1&page_size=100'],
        concurrency: [1, 8, 64],
        goals: { 8: [rpsOver(1600), svcCpu(1)], 64: [p99Under(20), svcCpu(1)] },
      },
      {
        // What a browser sends: the answer's kept brotli form (~10 % of the bytes).
        name: 'GET /monitors (browser, br)',
        who: 'admin',
        paths: ['/api/v3/monitors?page=1&page_size=100'],
        headers: ['Accept-Encoding: gzip, deflate, br, zstd'],
        concurrency: [8],
      },
      {
        name: 'GET /monitors (viewer, ACL)',
        who: 'viewer',
        paths: ['/api/v3/monitors?page=1&page_size=100'],
        concurrency: [8],
      },
      {
        name: 'GET /events newest 25 + total',
        who: 'admin',
        paths: ['/api/v3/events?page=1&page_size=25'],
        concurrency: [1, 8, 64],
        goals: eventGoals,
      },
      {
        name: 'GET /events?monitor_id=…',
        who: 'admin',
        paths: Array.from({ length: gen.monitors }, (_, i) => `/api/v3/events?monitor_id=${i + 1}&page=1&page_size=25`),
        concurrency: [8, 64],
        goals: eventGoals,
      },
      {
        name: 'GET /events last 24 h',
        who: 'admin',
        paths: [`/api/v3/events?${range}&page=1&page_size=25`],
        concurrency: [8, 64],
        goals: eventGoals,
      },
      {
        name: 'GET /events (viewer, ACL)',
        who: 'viewer',
        paths: ['/api/v3/events?page=1&page_size=25'],
        concurrency: [8, 64],
        goals: eventGoals,
      },
      {
        name: 'GET /monitor-status (poll)',
        who: 'admin',
        paths: ['/api/v3/monitor-status?page=1&page_size=1000'],
        concurrency: [8],
      },
    ];
    const selected = ONLY ? cases.filter((c) => c.name.includes(ONLY)) : cases;
    const rows: Row[] = [];
    let rssMax = rssIdle;
    const sampler = setInterval(() => {
      rssMax = Math.max(rssMax, rssMb(service!.pid!));
    }, 100);
    const loadBefore = loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
    for (const c of selected) {
      const token = tokens[c.who];
      await wrk(base, c.paths, token, 8, 1, scratch, c.headers); // warm-up
      for (const conc of c.concurrency) {
        const svc0 = cpuSeconds(service.pid!);
        const db0 = cpuSeconds(dbPid);
        const r = await wrk(base, c.paths, token, conc, SECONDS, scratch, c.headers);
        const n = Math.max(1, r.requests);
        const row: Row = {
          name: c.name,
          c: conc,
          rps: r.rps,
          p50: r.p50,
          p99: r.p99,
          svcMs: ((cpuSeconds(service.pid!) - svc0) * 1000) / n,
          dbMs: ((cpuSeconds(dbPid) - db0) * 1000) / n,
          rss: rssMb(service.pid!),
          errors: r.errors,
        };
        rows.push(row);
        const goals = c.goals?.[conc] ?? [];
        const verdict = goals.map((g) => `${g.ok(row) ? '✓' : '✗'} ${g.label}`).join(', ');
        console.log(
          `| ${c.name.padEnd(30)} | ${String(conc).padStart(3)} | ${row.rps.toFixed(0).padStart(6)} | ${row.p50.toFixed(2).padStart(7)} | ${row.p99.toFixed(2).padStart(7)} | ${row.svcMs.toFixed(3).padStart(7)} | ${row.dbMs.toFixed(3).padStart(7)} | ${row.rss.toFixed(0).padStart(4)} | ${String(row.errors).padStart(4)} | ${verdict} |`,
        );
        if (c.goals?.[conc]) {
          report({ measure: `${c.name}, c=${conc}`, unit: 'requests/s', value: row.rps, decimals: 0 });
        }
      }
    }
    clearInterval(sampler);
    // Idle again after the load: what the process keeps.
    await new Promise((r) => setTimeout(r, 2000));
    const rssAfter = rssMb(service.pid!);
    await heapSnapshot();

    console.log(
      `\nZoneMinder ${ZM} schema; ${EVENTS} events, ${gen.monitors} monitors; wrk (1 thread), ${SECONDS} s per case after a 1 s warm-up; ${cpus().length} CPUs shared by zmgate, MariaDB and wrk; load average before ${loadBefore}, after ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      '| request                        |   c |  req/s | p50 ms  | p99 ms  | svc ms/req | DB ms/req | RSS MB | errors | goals |',
    );
    console.log(
      '|--------------------------------|-----|--------|---------|---------|------------|-----------|--------|--------|-------|',
    );
    for (const row of rows) {
      const c = selected.find((x) => x.name === row.name)!;
      const verdict = (c.goals?.[row.c] ?? []).map((g) => `${g.ok(row) ? '✓' : '✗'} ${g.label}`).join(', ');
      console.log(
        `| ${row.name.padEnd(30)} | ${String(row.c).padStart(3)} | ${row.rps.toFixed(0).padStart(6)} | ${row.p50.toFixed(2).padStart(7)} | ${row.p99.toFixed(2).padStart(7)} | ${row.svcMs.toFixed(3).padStart(10)} | ${row.dbMs.toFixed(3).padStart(9)} | ${row.rss.toFixed(0).padStart(6)} | ${String(row.errors).padStart(6)} | ${verdict || '—'} |`,
      );
    }
    const mark = (ok: boolean) => (ok ? '✓' : '✗');
    console.log(
      `\nRSS: idle ${rssIdle.toFixed(0)} MB ${mark(rssIdle <= 100)} ≤ 100 MB; under load max ${rssMax.toFixed(0)} MB ${mark(rssMax <= 150)} ≤ 150 MB; idle after load ${rssAfter.toFixed(0)} MB`,
    );
    console.log(
      `Plans: ${fullScans === 0 ? '✓ every list query uses an index' : `✗ ${fullScans} full scan(s) of Events/Frames/Logs`}`,
    );
    report(
      {
        measure: 'zmgate RSS idle (1M events)',
        unit: 'MB',
        value: rssIdle,
        target: { max: 100, label: '≤ 100' },
        decimals: 0,
      },
      {
        measure: 'zmgate RSS under API load',
        unit: 'MB',
        value: rssMax,
        target: { max: 150, label: '≤ 150' },
        decimals: 0,
      },
    );
    console.log(`# total run ${Math.round((performance.now() - t0) / 1000)} s`);
  } finally {
    if (service && service.exitCode === null) {
      const exited = new Promise((resolve) => service!.once('exit', resolve));
      service.kill('SIGTERM');
      await exited;
    }
    await db.stop();
  }
}

await main();
