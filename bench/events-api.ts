// Measures the event list on a big install: a throwaway MariaDB with 1,000,000 events on 50
// monitors (bench/_generate-events.ts), the app started in-process as the tests start it, and a
// load generator in a worker thread (its own event loop) running GET requests at concurrency
// 1, 8 and 64 for a few seconds each. Prints requests/s, p50 and p99 per case, and the query
// plans of the list queries.
//
//   npx tsx bench/events-api.ts [--events N] [--seconds S] [--buffer-pool-mb M]
//
// GET /api/v3/monitors is measured too when the branch serves it; otherwise it is skipped.
import bcrypt from 'bcryptjs';
import { cpus, loadavg } from 'node:os';
import { loadConfig } from '../src/config/index.js';
import { startThrowawayMariaDb } from '../src/devdb/throwaway-mariadb.js';
import { createLogger } from '../src/log.js';
import { startServer } from '../src/server.js';
import { generateEvents } from './_generate-events.js';
import { httpLoad, percentile } from './_http-load.js';
import { serviceEnv } from './_service.js';
import { numberFlag } from './_args.js';

const EVENTS = numberFlag('events', 1_000_000);
const SECONDS = numberFlag('seconds', 4);
const BUFFER_POOL_MB = numberFlag('buffer-pool-mb', 512);
const CONCURRENCY = [1, 8, 64];

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

async function main(): Promise<void> {
  const t0 = performance.now();
  const db = await startThrowawayMariaDb({ startTimeoutMs: 60_000 });
  let app: Awaited<ReturnType<typeof startServer>> | null = null;
  try {
    const gen = await generateEvents(db, 'zm_bench', {
      events: EVENTS,
      bufferPoolBytes: BUFFER_POOL_MB * 1024 * 1024,
      log: (l) => console.log(`# ${l}`),
    });
    await db.createUser('bench', 'bench-pass', gen.database);
    await db.query(
      'INSERT INTO Users (Username, Password, Enabled, APIEnabled, Events, Monitors) VALUES (?, ?, 1, 1, ?, ?)',
      ['bench', bcrypt.hashSync('bench', 4), 'View', 'View'],
      gen.database,
    );

    const { config } = loadConfig({
      env: serviceEnv(db, gen.database),
      defaultOperatorFile: '/nonexistent/prod.toml',
    });
    app = await startServer(config, createLogger({ level: 'error' }));
    const api = (p: string) => `${app!.url}/api/v3${p}`;
    const login = await fetch(api('/auth/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bench', password: 'bench' }),
    });
    const token = ((await login.json()) as { access_token: string }).access_token;
    const get = async (p: string) =>
      (await fetch(api(p), { headers: { authorization: `Bearer ${token}` } })).json() as Promise<any>;

    // Wall clock of the data = this process's zone; the API takes instants with Z.
    const nowMs = gen.newestStart.getTime() + new Date().getTimezoneOffset() * 60_000;
    const range = `start_time=${iso(nowMs - 86_400_000)}&end_time=${iso(nowMs)}`;
    const cases: Array<{ name: string; urls: string[] }> = [
      { name: 'events: newest 25 + total', urls: [api('/events?page=1&page_size=25')] },
      {
        name: 'events: per monitor',
        urls: Array.from({ length: gen.monitors }, (_, i) => api(`/events?monitor_id=${i + 1}&page=1&page_size=25`)),
      },
      { name: 'events: last 24 h range', urls: [api(`/events?${range}&page=1&page_size=25`)] },
    ];
    const monitorsProbe = await fetch(api('/monitors?page=1&page_size=100'), {
      headers: { authorization: `Bearer ${token}` },
    });
    const skipped: string[] = [];
    if (monitorsProbe.status === 200)
      cases.push({ name: 'monitors: page of 100', urls: [api('/monitors?page=1&page_size=100')] });
    else skipped.push(`GET /api/v3/monitors answered ${monitorsProbe.status}: not served on this branch, skipped`);

    // Correctness first: the totals the API reports against COUNT(*).
    const [all] = await db.query<{ n: bigint }>('SELECT COUNT(*) AS n FROM Events', [], gen.database);
    const [m7] = await db.query<{ n: bigint }>(
      'SELECT COUNT(*) AS n FROM Events WHERE MonitorId = 7',
      [],
      gen.database,
    );
    console.log(
      `# totals: all ${(await get('/events?page_size=1')).total} (COUNT ${all.n}), monitor 7 ${(await get('/events?monitor_id=7&page_size=1')).total} (COUNT ${m7.n}), last 24 h ${(await get(`/events?${range}&page_size=1`)).total}`,
    );
    for (const [label, sql] of [
      ['newest page', 'SELECT Id FROM Events ORDER BY StartDateTime DESC, Id DESC LIMIT 25'],
      ['total', 'SELECT COUNT(*) FROM Events'],
      ['per monitor page', 'SELECT Id FROM Events WHERE MonitorId = 7 ORDER BY StartDateTime DESC, Id DESC LIMIT 25'],
      ['per monitor total', 'SELECT COUNT(*) FROM Events WHERE MonitorId = 7'],
    ]) {
      const plan = await db.query<{ key: string | null; rows: bigint; Extra: string }>(
        `EXPLAIN ${sql}`,
        [],
        gen.database,
      );
      console.log(`# plan ${label}: key=${plan[0].key} rows=${plan[0].rows} ${plan[0].Extra ?? ''}`);
    }

    const table: string[] = [];
    const loadBefore = loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
    for (const c of cases) {
      await httpLoad(c.urls, token, 8, 1000); // warm-up
      for (const concurrency of CONCURRENCY) {
        const r = await httpLoad(c.urls, token, concurrency, SECONDS * 1000);
        const sorted = r.latencies.sort((a, b) => a - b);
        table.push(
          `| ${c.name.padEnd(28)} | ${String(concurrency).padStart(4)} | ${(r.requests / r.seconds).toFixed(1).padStart(8)} | ${percentile(sorted, 50).toFixed(1).padStart(7)} | ${percentile(sorted, 99).toFixed(1).padStart(7)} | ${String(r.errors).padStart(6)} |`,
        );
        if (r.firstError) table.push(`|   first error: ${r.firstError}`);
        console.log(table[table.length - 1]);
      }
    }
    console.log(
      `\n${EVENTS} events, ${gen.monitors} monitors; ${SECONDS} s per case; InnoDB buffer pool ${BUFFER_POOL_MB} MB; db.pool_max ${config.db.pool_max}; ${cpus().length} CPUs (app, MariaDB and load generator share them); load average before ${loadBefore}, after ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log('| case                         | conc |    req/s | p50 ms  | p99 ms  | errors |');
    console.log('|------------------------------|------|----------|---------|---------|--------|');
    for (const line of table) console.log(line);
    for (const s of skipped) console.log(`note: ${s}`);
    console.log(`# total run ${Math.round((performance.now() - t0) / 1000)} s`);
  } finally {
    await app?.close();
    await db.stop();
  }
}

await main();
