// The live push under load: many socket.io clients subscribed to many monitors whose shared
// memory raises an alarm once a second each (bench/_push-alarms.ts, its own process). The
// service runs in its own process (bench/_live-server.ts) so its CPU and RSS can be read from
// /proc; the clients run here. Delivery latency = arrival at the client − the shared-memory
// write (the alarm cause carries the write time), so it includes the detector's poll period
// (push.alarm_poll_ms, 100 ms).
//
//   npx tsx bench/push-clients.ts [--seconds S (15)] [--cases "clients:monitors:per_client,…"]
//
// Default cases: 100 clients × 64 monitors (all), 1,000 clients × 64 monitors (8 each).
import bcrypt from 'bcryptjs';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { io, type Socket } from 'socket.io-client';
import { startThrowawayMariaDb } from '../src/devdb/throwaway-mariadb.js';
import { percentile } from './_http-load.js';
import { report } from './_results.js';
import { cpuSeconds, rssMb, serviceEnv } from './_service.js';
import { generateEvents } from './_generate-events.js';
import { flag } from './_args.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(flag('seconds') ?? 15);
const CASES = (flag('cases') ?? '100:64:64,1000:64:8').split(',').map((c) => {
  const [clients, monitors, perClient] = c.split(':').map(Number);
  return { clients: clients!, monitors: monitors!, perClient: perClient! };
});
const MAX_MONITORS = Math.max(...CASES.map((c) => c.monitors));

function child(
  script: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ proc: ChildProcess; match: RegExpExecArray }> {
  const proc = spawn(process.execPath, ['--import=tsx', path.join(here, script), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) resolve({ proc, match: m });
    });
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

async function stop(proc: ChildProcess | null): Promise<void> {
  if (!proc || proc.exitCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  await exited;
}

async function main(): Promise<void> {
  const db = await startThrowawayMariaDb({ startTimeoutMs: 60_000 });
  const mapDir = mkdtempSync(path.join(tmpdir(), 'zmbench-push-'));
  const procs: ChildProcess[] = [];
  const rows: string[] = [];
  try {
    const gen = await generateEvents(db, 'zm_push_bench', { events: 1000, monitors: MAX_MONITORS, days: 7 });
    await db.query(
      `INSERT INTO Users (Username, Password, Enabled, APIEnabled, Events, Monitors, Stream) VALUES ('viewer', ?, 1, 1, 'View', 'View', 'View')`,
      [bcrypt.hashSync('bench', 4)],
      gen.database,
    );
    await db.createUser('bench', 'bench-pass', gen.database);
    const alarms = await child('_push-alarms.ts', [mapDir, String(MAX_MONITORS)], {}, /ready/);
    procs.push(alarms.proc);
    const service = await child(
      '_live-server.ts',
      [],
      serviceEnv(db, gen.database, { APP_ZONEMINDER__PATH_MAP: mapDir, APP_PUSH__MAX_CLIENTS: '20000' }),
      /url (\S+)/,
    );
    procs.push(service.proc);
    const url = service.match[1]!;
    const res = await fetch(`${url}/api/v3/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'viewer', password: 'bench' }),
    });
    const token = ((await res.json()) as { access_token: string }).access_token;
    const pid = service.proc.pid!;

    for (const c of CASES) {
      const sockets: Socket[] = [];
      const latencies: number[] = [];
      let measuring = false;
      let received = 0;
      for (let i = 0; i < c.clients; i++) {
        const socket = io(url, {
          path: '/api/v3/socket.io',
          auth: { token },
          transports: ['websocket'],
          reconnection: false,
          forceNew: true,
        });
        socket.on('alarm', (m: { phase: string; cause: string }) => {
          if (!measuring || m.phase !== 'start') return;
          received++;
          latencies.push(Date.now() - Number(m.cause.slice(2)));
        });
        sockets.push(socket);
        // Monitors 1..c.monitors, perClient of them per client, spread round-robin.
        const first = (i * c.perClient) % c.monitors;
        const monitors = Array.from({ length: c.perClient }, (_, k) => ((first + k) % c.monitors) + 1);
        socket.on('connect', () => socket.emit('subscribe', { monitors, topics: ['alarm'] }));
        if (i % 50 === 49) await sleep(20); // do not stampede the handshake
      }
      const deadline = Date.now() + 60_000;
      while (sockets.some((s) => !s.connected) && Date.now() < deadline) await sleep(100);
      const connected = sockets.filter((s) => s.connected).length;
      await sleep(2000);
      const cpu0 = cpuSeconds(pid);
      const t0 = performance.now();
      measuring = true;
      await sleep(SECONDS * 1000);
      measuring = false;
      const wall = (performance.now() - t0) / 1000;
      const cpu = ((cpuSeconds(pid) - cpu0) / wall) * 100;
      const rss = rssMb(pid);
      const expected = c.clients * c.perClient * SECONDS;
      latencies.sort((a, b) => a - b);
      const p50 = percentile(latencies, 50);
      const p99 = percentile(latencies, 99);
      rows.push(
        `| ${String(c.clients).padStart(7)} | ${String(connected).padStart(9)} | ${String(c.monitors).padStart(8)} | ${String(c.perClient).padStart(10)} | ${String(received).padStart(8)} | ${(received / wall).toFixed(0).padStart(7)} | ${((received / expected) * 100).toFixed(1).padStart(6)} | ${cpu.toFixed(1).padStart(7)} | ${rss.toFixed(0).padStart(7)} | ${p50.toFixed(0).padStart(6)} | ${p99.toFixed(0).padStart(6)} |`,
      );
      console.log(rows[rows.length - 1]);
      report(
        {
          measure: `push: ${c.clients} clients × ${c.perClient} of ${c.monitors} monitors, 1 alarm/s each: alarm delivery p99`,
          unit: 'ms',
          value: p99,
          decimals: 0,
          target: { max: 500, label: '≤ 500 ms' },
        },
        {
          measure: `push: ${c.clients} clients × ${c.perClient} of ${c.monitors} monitors: service CPU`,
          unit: '% of one core',
          value: cpu,
          decimals: 1,
        },
      );
      for (const s of sockets) s.close();
      await sleep(1000);
    }
    console.log(
      `\n${SECONDS} s per case; alarm starts counted (each monitor: one start and one end a second); ${cpus().length} CPUs shared by the service, MariaDB, the alarm writer and the clients; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      '| clients | connected | monitors | per client | received |  msg/s | % of expected | svc CPU % | RSS MiB | p50 ms | p99 ms |',
    );
    console.log(
      '|---------|-----------|----------|------------|----------|--------|--------|-----------|---------|--------|--------|',
    );
    for (const r of rows) console.log(r);
  } finally {
    for (const p of procs.reverse()) await stop(p);
    await db.stop();
    rmSync(mapDir, { recursive: true, force: true });
  }
}

await main();
