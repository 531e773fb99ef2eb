// Multi-server forwarding overhead: host A (zmgate, in this process) forwards media of a monitor
// and a recording owned by "host B", a plain HTTP server in a child process that serves
//   - /api/v3/events/1/video: 256 MiB from memory with byte ranges (a recorded-video download);
//   - /api/v3/live/1/mjpeg: a paced 4 Mbit/s multipart stream (a live stream).
// curl is the client (its CPU is not A's). Measured: A's CPU per Mbit/s forwarded, throughput
// through A against B directly, and the time to first byte added by A (a 1 KiB range, 50 times).
//
// Run: npx tsx bench/cluster-proxy.ts [live seconds=15]
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import bcrypt from 'bcryptjs';
import { createConnection } from 'mariadb';
import { loadConfig } from '../src/config/index.js';
import { convergeSchema } from '../src/db/converge/index.js';
import { startThrowawayMariaDb } from '../src/devdb/throwaway-mariadb.js';
import { createLogger } from '../src/log.js';
import { startServer } from '../src/server.js';
import { report } from './_results.js';
import { serviceEnv } from './_service.js';

const run = promisify(execFile);
const LIVE_SECONDS = Number(process.argv[2] ?? 15);
const SIZE = 256 * 1024 * 1024;

// The stand-in for host B: byte ranges from memory, and a paced multipart stream.
const PEER = `
const http = require('node:http');
const SIZE = ${SIZE};
const data = Buffer.alloc(SIZE, 7);
const server = http.createServer((req, res) => {
  if (req.url.startsWith('/api/v3/events/1/video')) {
    const m = /bytes=(\\d+)-(\\d*)/.exec(req.headers.range || '');
    const start = m ? Number(m[1]) : 0;
    const end = m && m[2] ? Number(m[2]) : SIZE - 1;
    res.writeHead(m ? 206 : 200, {
      'content-type': 'video/mp4',
      'content-length': end - start + 1,
      'accept-ranges': 'bytes',
      ...(m ? { 'content-range': 'bytes ' + start + '-' + end + '/' + SIZE } : {}),
    });
    let pos = start;
    const pump = () => {
      while (pos <= end) {
        const chunk = data.subarray(pos, Math.min(end + 1, pos + 65536));
        pos += chunk.length;
        if (!res.write(chunk)) return res.once('drain', pump);
      }
      res.end();
    };
    return pump();
  }
  if (req.url.startsWith('/api/v3/live/1/mjpeg')) {
    res.writeHead(200, { 'content-type': 'multipart/x-mixed-replace; boundary=frame' });
    const frame = Buffer.alloc(20000, 9); // 25 frames/s × 20 kB = 4 Mbit/s
    const timer = setInterval(() => {
      res.write('--frame\\r\\ncontent-type: image/jpeg\\r\\ncontent-length: 20000\\r\\n\\r\\n');
      res.write(frame);
      res.write('\\r\\n');
    }, 40);
    res.on('close', () => clearInterval(timer));
    return;
  }
  res.writeHead(404).end();
});
server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));
`;

async function curl(url: string, args: string[] = []): Promise<{ ttfb: number; total: number; bytes: number }> {
  const { stdout } = await run(
    'curl',
    ['-s', '-o', '/dev/null', '-w', '%{time_starttransfer} %{time_total} %{size_download}', ...args, url],
    { maxBuffer: 1024 * 1024 },
  );
  const [ttfb, total, bytes] = stdout.trim().split(' ').map(Number);
  return { ttfb: ttfb * 1000, total, bytes };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;
const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function main(): Promise<void> {
  const db = await startThrowawayMariaDb({ startTimeoutMs: 60_000 });
  const peer = spawn(process.execPath, ['-e', PEER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const host = await (async () => {
    try {
      const database = 'zm_bench_cluster';
      await db.createDatabase(database);
      const conn = await createConnection(db.connectionConfig(database));
      await convergeSchema(conn, { database });
      await conn.end();
      const q = (sql: string, params: unknown[] = []) => db.query(sql, params, database);
      const peerPort = await new Promise<number>((resolve) =>
        peer.stdout!.on('data', (d: Buffer) => {
          const m = /port (\d+)/.exec(d.toString());
          if (m) resolve(Number(m[1]));
        }),
      );
      await q(
        "INSERT INTO Servers (Id, Name, Protocol, Hostname) VALUES (1, 'alpha', 'http', '127.0.0.1'), (2, 'bravo', 'http', '127.0.0.1')",
      );
      await q("INSERT INTO Monitors (Id, Name, ServerId) VALUES (1, 'Cam 1', 2)");
      await q(
        "INSERT INTO Events (Id, MonitorId, Name, StartDateTime, StorageId, StateId) VALUES (1, 1, 'Event 1', NOW(), 0, 1)",
      );
      await q(
        "INSERT INTO zmgate_cluster_keys (kid, kind, server_id, server_name, public_key, api_url) VALUES ('bravo', 'access', 2, 'bravo', '', ?)",
        [`http://127.0.0.1:${peerPort}/api/v3`],
      );
      await q(
        "INSERT INTO Users (Username, Password, Enabled, APIEnabled, Events, Monitors, Stream) VALUES ('viewer', ?, 1, 1, 'View', 'View', 'View')",
        [bcrypt.hashSync('bench', 4)],
      );
      await db.createUser('bench', 'bench-pass', database);
      const { config } = loadConfig({
        env: serviceEnv(db, database, {
          APP_CLUSTER__SERVER_ID: '1',
          APP_LOG__LEVEL: 'warn',
          APP_DB__MIGRATE_ON_START: 'false',
        }),
        defaultOperatorFile: '/nonexistent/prod.toml',
      });
      const server = await startServer(config, createLogger({ level: 'warn' }));
      return { server, peerPort };
    } catch (err) {
      peer.kill();
      await db.stop();
      throw err;
    }
  })();
  const { server, peerPort } = host;
  try {
    const login = await fetch(`${server.url}/api/v3/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'viewer', password: 'bench' }),
    });
    const token = ((await login.json()) as { access_token: string }).access_token;
    const viaA = (p: string) => `${server.url}/api/v3${p}?token=${token}`;
    const direct = (p: string) => `http://127.0.0.1:${peerPort}/api/v3${p}`;

    // Warm-up (owner lookups cached, keep-alive connection to B open).
    await curl(viaA('/events/1/video'), ['-r', '0-1023']);

    // 1. Recorded-video download.
    const d0 = await curl(direct('/events/1/video'));
    const cpu0 = cpuNow();
    const d1 = await curl(viaA('/events/1/video'));
    const downloadCpu = cpuNow() - cpu0;
    if (d1.bytes !== SIZE) throw new Error(`download through A: ${d1.bytes} bytes`);
    const mbit = (SIZE * 8) / 1e6;
    const downloadMsPerMbit = (downloadCpu * 1000) / mbit;

    // 2. Live stream at 4 Mbit/s.
    const cpu1 = cpuNow();
    const live = await curl(viaA('/live/1/mjpeg'), ['--max-time', String(LIVE_SECONDS)]).catch(
      (err: { stdout?: string }) => {
        // curl exits 28 at --max-time; its -w output is still printed.
        const [ttfb, total, bytes] = String(err.stdout ?? '')
          .trim()
          .split(' ')
          .map(Number);
        return { ttfb: ttfb * 1000, total, bytes };
      },
    );
    const liveCpu = cpuNow() - cpu1;
    const liveMbits = (live.bytes * 8) / 1e6;
    const liveRate = liveMbits / live.total;
    const liveCorePct = (liveCpu / live.total) * 100;

    // 3. Added time to first byte (1 KiB range).
    const ttfbDirect: number[] = [];
    const ttfbProxy: number[] = [];
    for (let i = 0; i < 50; i++) {
      ttfbDirect.push((await curl(direct('/events/1/video'), ['-r', '0-1023'])).ttfb);
      ttfbProxy.push((await curl(viaA('/events/1/video'), ['-r', '0-1023'])).ttfb);
    }
    const added = median(ttfbProxy) - median(ttfbDirect);

    console.log('| case | direct from B | through A | A CPU |');
    console.log('|---|---:|---:|---:|');
    console.log(
      `| 256 MiB recording download | ${((SIZE / d0.total) * 8e-6).toFixed(0)} Mbit/s | ${((SIZE / d1.total) * 8e-6).toFixed(0)} Mbit/s | ${downloadCpu.toFixed(2)} s = ${downloadMsPerMbit.toFixed(3)} ms per Mbit |`,
    );
    console.log(
      `| live MJPEG ${LIVE_SECONDS} s | 4 Mbit/s | ${liveRate.toFixed(2)} Mbit/s | ${liveCorePct.toFixed(2)} % of a core = ${(liveCorePct / liveRate).toFixed(3)} % per Mbit/s |`,
    );
    console.log(
      `| TTFB of a 1 KiB range (50×) | median ${median(ttfbDirect).toFixed(2)} ms, p95 ${p95(ttfbDirect).toFixed(2)} | median ${median(ttfbProxy).toFixed(2)} ms, p95 ${p95(ttfbProxy).toFixed(2)} | added ${added.toFixed(2)} ms |`,
    );
    report(
      {
        measure: 'multi-server proxy: recording download through A',
        unit: 'ms CPU of A per Mbit',
        value: downloadMsPerMbit,
        decimals: 3,
      },
      { measure: 'multi-server proxy: 4 Mbit/s live stream through A', unit: '% of one core', value: liveCorePct },
      { measure: 'multi-server proxy: added time to first byte', unit: 'ms (median)', value: added },
    );
  } finally {
    await server.close();
    peer.kill();
    await db.stop();
  }
}

await main();
