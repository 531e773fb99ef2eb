// Coverage by time on a big install (docs/recordings.md): a throwaway MariaDB with 1,000,000
// events on 50 monitors over 90 days (bench/_generate-events.ts), the app in-process, and the
// load generator in a worker thread. Cases: the last 24 h of one monitor, and of all 50 monitors
// in one request, each with and without the per-event spans. Prints ms per request (p50, p99)
// at concurrency 1 and 8, the answer's size, and the query plans.
//
//   npx tsx bench/recordings.ts [--events N] [--seconds S] [--zm 1.39|1.36]
//
// With `--zm 1.36` the database is ZoneMinder 1.36.33's own schema, whose Events table indexes
// MonitorId and StartDateTime apart.
import bcrypt from 'bcryptjs';
import { cpus, loadavg } from 'node:os';
import { loadConfig } from '../src/config/index.js';
import { startThrowawayMariaDb } from '../src/devdb/throwaway-mariadb.js';
import { createLogger } from '../src/log.js';
import { startServer } from '../src/server.js';
import { generateEvents } from './_generate-events.js';
import { httpLoad, percentile } from './_http-load.js';
import { serviceEnv } from './_service.js';
import { flag, numberFlag } from './_args.js';

const EVENTS = numberFlag('events', 1_000_000);
const SECONDS = numberFlag('seconds', 4);
const ZM = flag('zm') === '1.36' ? '1.36' : '1.39';
const CONCURRENCY = [1, 8];

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
const wall = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

async function main(): Promise<void> {
  const t0 = performance.now();
  const db = await startThrowawayMariaDb({ startTimeoutMs: 60_000 });
  let app: Awaited<ReturnType<typeof startServer>> | null = null;
  try {
    const gen = await generateEvents(db, 'zm_bench', {
      events: EVENTS,
      bufferPoolBytes: 512 * 1024 * 1024,
      zm: ZM,
      log: (l) => console.log(`# ${l}`),
    });
    await db.createUser('bench', 'bench-pass', gen.database);
    await db.query(
      'INSERT INTO Users (Username, Password, Enabled, APIEnabled, Events, Monitors) VALUES (?, ?, 1, 1, ?, ?)',
      ['bench', bcrypt.hashSync('bench', 4), 'View', 'View'],
      gen.database,
    );
    const { config } = loadConfig({
      env: { ...serviceEnv(db, gen.database), APP_DB__MIGRATE_ON_START: ZM === '1.36' ? 'true' : 'false' },
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
    const get = async (p: string) => {
      const res = await fetch(api(p), { headers: { authorization: `Bearer ${token}` } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${p}: ${res.status} ${text.slice(0, 200)}`);
      return { bytes: Buffer.byteLength(text), body: JSON.parse(text) };
    };

    // The data's wall clock is this process's zone; the API takes instants with Z.
    const toMs = gen.newestStart.getTime();
    const fromMs = toMs - 86_400_000;
    const nowMs = toMs + new Date().getTimezoneOffset() * 60_000;
    const range = `from=${iso(nowMs - 86_400_000)}&to=${iso(nowMs)}`;
    const all = Array.from({ length: gen.monitors }, (_, i) => i + 1).join(',');
    const cases = [
      { name: 'one monitor, 24 h', path: `/monitors/7/recordings?${range}` },
      { name: 'one monitor, 24 h, merged only', path: `/monitors/7/recordings?${range}&merged_only=true` },
      { name: `${gen.monitors} monitors, 24 h`, path: `/recordings?monitor_ids=${all}&${range}` },
      {
        name: `${gen.monitors} monitors, 24 h, merged only`,
        path: `/recordings?monitor_ids=${all}&${range}&merged_only=true`,
      },
    ];

    // Correctness first: the spans against COUNT(*) of the events starting in the range.
    const one = await get(cases[0].path);
    const [inRange] = await db.query<{ n: bigint }>(
      'SELECT COUNT(*) AS n FROM Events WHERE MonitorId = 7 AND StartDateTime >= ? AND StartDateTime < ?',
      [wall(fromMs), wall(toMs)],
      gen.database,
    );
    console.log(
      `# monitor 7, 24 h: ${one.body.spans.length} spans (${inRange.n} start inside the range), ${one.body.merged.length} stretches, ${one.body.gaps.length} gaps`,
    );
    const plans: [string, string, unknown[]][] = [
      [
        'inside, one monitor',
        'SELECT Id FROM Events WHERE MonitorId IN (7) AND StartDateTime >= ? AND StartDateTime < ?',
        [wall(fromMs), wall(toMs)],
      ],
      [
        `inside, ${gen.monitors} monitors`,
        `SELECT Id FROM Events WHERE MonitorId IN (${all}) AND StartDateTime >= ? AND StartDateTime < ?`,
        [wall(fromMs), wall(toMs)],
      ],
      [
        'the event before from',
        'SELECT Id FROM Events WHERE MonitorId = 7 AND StartDateTime < ? ORDER BY StartDateTime DESC, Id DESC LIMIT 1',
        [wall(fromMs)],
      ],
    ];
    for (const [label, sql, params] of plans) {
      const plan = await db.query<{ type: string; key: string | null; rows: bigint; Extra: string }>(
        `EXPLAIN ${sql}`,
        params,
        gen.database,
      );
      console.log(
        `# plan ${label}: type=${plan[0].type} key=${plan[0].key} rows=${plan[0].rows} ${plan[0].Extra ?? ''}`,
      );
    }

    const table: string[] = [];
    for (const c of cases) {
      const { bytes } = await get(c.path);
      await httpLoad([api(c.path)], token, 4, 1000); // warm-up
      for (const concurrency of CONCURRENCY) {
        const r = await httpLoad([api(c.path)], token, concurrency, SECONDS * 1000);
        const sorted = r.latencies.sort((a, b) => a - b);
        table.push(
          `| ${c.name.padEnd(32)} | ${String(concurrency).padStart(4)} | ${(r.requests / r.seconds).toFixed(1).padStart(7)} | ${percentile(sorted, 50).toFixed(1).padStart(6)} | ${percentile(sorted, 99).toFixed(1).padStart(6)} | ${String(Math.round(bytes / 1024)).padStart(10)} | ${String(r.errors).padStart(6)} |`,
        );
        if (r.firstError) table.push(`|   first error: ${r.firstError}`);
        console.log(table[table.length - 1]);
      }
    }
    console.log(
      `\n${EVENTS} events, ${gen.monitors} monitors, ZoneMinder ${ZM} schema; ${SECONDS} s per case; ${cpus().length} CPUs (app, MariaDB and load generator share them); load average after ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log('| case                             | conc |   req/s | p50 ms | p99 ms | answer KiB | errors |');
    console.log('|----------------------------------|------|---------|--------|--------|------------|--------|');
    for (const line of table) console.log(line);
    console.log(`# total run ${Math.round((performance.now() - t0) / 1000)} s`);
  } finally {
    await app?.close();
    await db.stop();
  }
}

await main();
