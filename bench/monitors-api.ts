// Measures the monitor list a UI polls, on a small NVR install: a throwaway MariaDB with 20
// monitors (2 zones each), 1,000 events, an admin and a restricted viewer with per-monitor
// Monitors_Permissions rows. The service runs in a process of its own (bench/_live-server.ts) so
// it can be profiled alone; a worker thread generates the load at concurrency 1, 8 and 64.
// Prints requests/s, p50 and p95 per case and the service's CPU seconds per 1,000 requests.
//
//   npx tsx bench/monitors-api.ts [--seconds S] [--only TEXT] [--cpu-prof DIR]
//
// --cpu-prof writes a V8 CPU profile of the service process into DIR (open in Chrome DevTools).
import bcrypt from 'bcryptjs';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startThrowawayMariaDb } from '../src/devdb/throwaway-mariadb.js';
import { report } from './_results.js';
import { generateEvents } from './_generate-events.js';
import { httpLoad, percentile } from './_http-load.js';
import { cpuSeconds, serviceEnv } from './_service.js';
import { flag } from './_args.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(flag('seconds') ?? 4);
const CPU_PROF = flag('cpu-prof');
/** Only the cases whose name contains this text (e.g. `--only list`). */
const ONLY = flag('only');
const MONITORS = 20;
const CONCURRENCY = [1, 8, 64];

function startService(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const execArgv = ['--import=tsx', ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : [])];
  const child = spawn(process.execPath, [...execArgv, path.join(here, '_live-server.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /url (\S+)/.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
  });
}

async function seed(db: Awaited<ReturnType<typeof startThrowawayMariaDb>>): Promise<string> {
  const gen = await generateEvents(db, 'zm_bench', { events: 1000, monitors: MONITORS, days: 7 });
  const q = (sql: string, params: unknown[] = []) => db.query(sql, params, gen.database);
  for (let m = 1; m <= MONITORS; m++) {
    for (const name of ['All', 'Door']) {
      await q(
        `INSERT INTO Zones (MonitorId, Name, Type, Units, NumCoords, Coords, Area) VALUES (?, ?, 'Active', 'Percent', 4, '0,0 639,0 639,479 0,479', 307200)`,
        [m, name],
      );
    }
  }
  const hash = bcrypt.hashSync('bench', 4);
  await q(
    `INSERT INTO Users (Username, Password, Enabled, APIEnabled, Events, Monitors, Stream, System) VALUES ('admin', ?, 1, 1, 'Edit', 'Edit', 'View', 'Edit')`,
    [hash],
  );
  await q(
    `INSERT INTO Users (Username, Password, Enabled, APIEnabled, Events, Monitors, Stream) VALUES ('viewer', ?, 1, 1, 'View', 'View', 'View')`,
    [hash],
  );
  const [viewer] = await q(`SELECT Id FROM Users WHERE Username = 'viewer'`);
  // The viewer sees 15 of the 20 monitors, 5 of them editable, and 5 are hidden.
  for (let m = 1; m <= MONITORS; m++) {
    const permission = m <= 5 ? 'None' : m <= 10 ? 'Edit' : 'View';
    await q('INSERT INTO Monitors_Permissions (MonitorId, UserId, Permission) VALUES (?, ?, ?)', [
      m,
      viewer.Id,
      permission,
    ]);
  }
  await db.createUser('bench', 'bench-pass', gen.database);
  return gen.database;
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const db = await startThrowawayMariaDb({ startTimeoutMs: 60_000 });
  let service: ChildProcess | null = null;
  try {
    const database = await seed(db);
    const started = await startService(serviceEnv(db, database));
    service = started.child;
    const api = (p: string) => `${started.url}/api/v3${p}`;
    const login = async (username: string) => {
      const res = await fetch(api('/auth/login'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password: 'bench' }),
      });
      return ((await res.json()) as { access_token: string }).access_token;
    };
    const tokens = { admin: await login('admin'), viewer: await login('viewer') };

    // Sanity: the ACL applies (the viewer sees 15 monitors) and the bodies have the expected size.
    for (const [who, token] of Object.entries(tokens)) {
      const res = await fetch(api('/monitors?page_size=100'), { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { total: number };
      console.log(
        `# ${who}: GET /monitors → ${res.status}, total ${body.total}, ${JSON.stringify(body).length} bytes of JSON`,
      );
    }

    const cases: Array<{ name: string; who: keyof typeof tokens; urls: string[] }> = [
      { name: 'monitors list (admin)', who: 'admin', urls: [api('/monitors')] },
      { name: 'monitors list (viewer)', who: 'viewer', urls: [api('/monitors')] },
      {
        name: 'monitor by id (viewer)',
        who: 'viewer',
        urls: Array.from({ length: 15 }, (_, i) => api(`/monitors/${i + 6}`)),
      },
      { name: 'events page of 25 (viewer)', who: 'viewer', urls: [api('/events?page_size=25')] },
    ];
    const table: string[] = [];
    if (ONLY) cases.splice(0, cases.length, ...cases.filter((c) => c.name.includes(ONLY)));
    const loadBefore = loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
    for (const c of cases) {
      await httpLoad(c.urls, tokens[c.who], 8, 1000, { gzip: true }); // warm-up
      for (const concurrency of CONCURRENCY) {
        const cpu0 = cpuSeconds(service.pid!);
        const r = await httpLoad(c.urls, tokens[c.who], concurrency, SECONDS * 1000, { gzip: true });
        const cpuPerK = ((cpuSeconds(service.pid!) - cpu0) / r.requests) * 1000;
        const sorted = r.latencies.sort((a, b) => a - b);
        const rps = r.requests / r.seconds;
        table.push(
          `| ${c.name.padEnd(26)} | ${String(concurrency).padStart(4)} | ${rps.toFixed(1).padStart(8)} | ${percentile(sorted, 50).toFixed(1).padStart(7)} | ${percentile(sorted, 95).toFixed(1).padStart(7)} | ${cpuPerK.toFixed(2).padStart(11)} | ${String(r.errors).padStart(6)} |`,
        );
        if (r.firstError) table.push(`|   first error: ${r.firstError}`);
        console.log(table[table.length - 1]);
        if (c.name === 'monitors list (viewer)') {
          report({
            measure: `GET /monitors, 20 monitors, restricted viewer, concurrency ${concurrency}`,
            unit: 'requests/s',
            value: rps,
            decimals: 1,
          });
        }
      }
    }
    console.log(
      `\n${MONITORS} monitors (2 zones each), page_size 25; ${SECONDS} s per case; ${cpus().length} CPUs shared by the service, MariaDB and the load generator; load average before ${loadBefore}, after ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log('| case                       | conc |    req/s | p50 ms  | p95 ms  | svc CPU s/1k | errors |');
    console.log('|----------------------------|------|----------|---------|---------|--------------|--------|');
    for (const line of table) console.log(line);
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
