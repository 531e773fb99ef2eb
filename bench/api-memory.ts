// Where the service's memory goes: zmgate started as its own process (`node bin/zmgate.js`) on a
// throwaway MariaDB with a small generated install, once per variant (environment / node flags),
// RSS read from /proc at start, after one request of each polled route, and after a short load;
// /proc/<pid>/smaps_rollup splits it into file-backed (the node binary, shared) and anonymous.
//
//   npx tsx bench/api-memory.ts [--events N] [--rounds N] [--no-build] [--variants a,b]
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcryptjs';
import { startThrowawayMariaDb } from '../src/devdb/throwaway-mariadb.js';
import { generateEvents } from './_generate-events.js';
import { cpuSeconds, rssMb, serviceEnv, serviceLaunch } from './_service.js';
import { flag } from './_args.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const EVENTS = Number(flag('events') ?? 20_000);
const BUILD = !process.argv.includes('--no-build');
/** Each variant runs this many times, interleaved (the machine is shared: compare within a run). */
const ROUNDS = Number(flag('rounds') ?? 2);

interface Variant {
  name: string;
  env: Record<string, string>;
  execArgv: string[];
}
const launch = serviceLaunch(root);
const VARIANTS: Variant[] = [
  { name: 'node defaults', env: {}, execArgv: [] },
  { name: 'semi-space 1 MB', env: {}, execArgv: ['--max-semi-space-size=1'] },
  { name: 'MALLOC_ARENA_MAX=2', env: { MALLOC_ARENA_MAX: '2' }, execArgv: [] },
  { name: 'liftoff only', env: {}, execArgv: ['--liftoff-only'] },
  // As shipped: package.json's zmgateRuntime (npm start, /usr/bin/zmgate, the systemd unit).
  { name: 'as shipped', env: launch.env, execArgv: launch.nodeFlags },
  { name: 'as shipped + optimize-for-size', env: launch.env, execArgv: [...launch.nodeFlags, '--optimize-for-size'] },
  // V8 lets the heap grow up to 4x what survived the last full GC when the old space may reach
  // 2 GB or more, ~1.3-2x below that: the shipped 1 GB cap against V8's default (4 GB here).
  {
    name: 'as shipped without the old-space cap',
    env: launch.env,
    execArgv: launch.nodeFlags.filter((f) => !f.startsWith('--max-old-space-size=')),
  },
  {
    name: 'as shipped + old space 512 MB',
    env: launch.env,
    execArgv: [...launch.nodeFlags, '--max-old-space-size=512'],
  },
  {
    name: 'as shipped + old space 128 MB',
    env: launch.env,
    execArgv: [...launch.nodeFlags, '--max-old-space-size=128'],
  },
];
const pick = flag('variants')?.split(',');

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

function rollup(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').split('\n')) {
    const m = /^(\w+):\s+(\d+) kB/.exec(line);
    if (m) out[m[1]!] = Number(m[2]) / 1024;
  }
  return out;
}

async function main(): Promise<void> {
  if (BUILD)
    execFileSync('npm', ['run', '--silent', 'build:ts'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const db = await startThrowawayMariaDb({ startTimeoutMs: 60_000 });
  try {
    const gen = await generateEvents(db, 'zm_mem', { events: EVENTS, log: () => {} });
    const q = (sql: string, params: unknown[] = []) => db.query<any>(sql, params, gen.database);
    await q(
      `INSERT INTO Users (Username, Password, Enabled, APIEnabled, Events, Monitors, Stream, System) VALUES ('admin', ?, 1, 1, 'Edit', 'Edit', 'View', 'Edit')`,
      [bcrypt.hashSync('bench', 4)],
    );
    await db.createUser('bench', 'bench-pass', gen.database);
    console.log(
      `# ${EVENTS} events, ${gen.monitors} monitors; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      '| variant | RSS start | RSS after first requests | RSS max under load (idle after) | anon after load | file after load | svc CPU ms/req |',
    );
    console.log('|---|---|---|---|---|---|---|');
    const order = Array.from({ length: ROUNDS }, () => VARIANTS.filter((x) => !pick || pick.includes(x.name))).flat();
    for (const v of order) {
      const port = await freePort();
      const service: ChildProcess = spawn(process.execPath, [...v.execArgv, path.join(root, 'bin', 'zmgate.js')], {
        cwd: root,
        env: { ...process.env, ...serviceEnv(db, gen.database, { APP_SERVER__PORT: String(port) }), ...v.env },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      try {
        const api = (p: string) => `http://127.0.0.1:${port}/api/v3${p}`;
        for (let i = 0; ; i++) {
          try {
            await fetch(api('/host/getVersion'));
            break;
          } catch {
            if (i > 300 || service.exitCode !== null) throw new Error('zmgate did not start');
            await new Promise((r) => setTimeout(r, 100));
          }
        }
        const pid = service.pid!;
        await new Promise((r) => setTimeout(r, 1000));
        const start = rssMb(pid);
        const res = await fetch(api('/auth/login'), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'admin', password: 'bench' }),
        });
        const token = ((await res.json()) as { access_token: string }).access_token;
        // The polled set (cached) plus Prisma model queries (configs, servers: its query compiler).
        const paths = [
          '/configs?page=1&page_size=50',
          '/servers',
          '/me',
          '/monitors?page=1&page_size=100',
          '/events?page=1&page_size=25',
          '/monitor-status',
          '/events?monitor_id=3&page=1&page_size=25',
        ];
        const get = (p: string) =>
          fetch(api(p), { headers: { authorization: `Bearer ${token}` } }).then((r) => r.arrayBuffer());
        for (const p of paths) await get(p);
        await new Promise((r) => setTimeout(r, 1000));
        const first = rssMb(pid);
        let max = first;
        let requests = 0;
        const cpu0 = cpuSeconds(pid);
        const until = Date.now() + 6000;
        let i = 0;
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            while (Date.now() < until) {
              await get(paths[i++ % paths.length]!);
              requests++;
              max = Math.max(max, rssMb(pid));
            }
          }),
        );
        const cpuMs = ((cpuSeconds(pid) - cpu0) * 1000) / Math.max(1, requests);
        await new Promise((r) => setTimeout(r, 2000));
        const r = rollup(pid);
        console.log(
          `| ${v.name} | ${start.toFixed(0)} | ${first.toFixed(0)} | ${max.toFixed(0)} (idle after ${rssMb(pid).toFixed(0)}) | ${(r.Anonymous ?? 0).toFixed(0)} | ${((r.Rss ?? 0) - (r.Anonymous ?? 0)).toFixed(0)} | ${cpuMs.toFixed(2)} |`,
        );
      } finally {
        if (service.exitCode === null) {
          const exited = new Promise((resolve) => service.once('exit', resolve));
          service.kill('SIGTERM');
          await exited;
        }
      }
    }
  } finally {
    await db.stop();
  }
}

await main();
