// A control for api-peers' latency tails: wrk, run the way api-peers runs it (one thread, 64
// connections, 3 s), against a bare node:http server that spends a fixed CPU time per request
// (bench/_control-server.mjs) instead of zmgate. No database, no express, no zmgate code.
// Per run: wrk's req/s and percentiles, and the largest time the server itself saw between two
// requests of one connection. When wrk reports latencies far above that largest gap, the time
// was spent outside the server (load generator, kernel), whatever the server is.
//
//   npx tsx bench/wrk-control.ts [--runs N] [--spin-us US] [--bytes B]
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { numberFlag } from './_args.js';

const RUNS = numberFlag('runs', 4);
// api-peers' cached event pages cost the service ~0.22 ms of CPU each.
const SPIN_US = numberFlag('spin-us', 200);
const BYTES = numberFlag('bytes', 30_000);

const here = path.dirname(fileURLToPath(import.meta.url));

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

async function main(): Promise<void> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'zmgate-wrk-control-'));
  const script = path.join(scratch, 'percentiles.lua');
  writeFileSync(
    script,
    'done = function(summary, latency, requests)\n' +
      '  for _, q in ipairs({50, 90, 98, 99}) do io.write(string.format("q%d %d\\n", q, latency:percentile(q))) end\n' +
      '  io.write(string.format("max %d\\n", latency.max))\nend\n',
  );
  const port = await freePort();
  const server = spawn(
    process.execPath,
    [path.join(here, '_control-server.mjs'), String(port), String(SPIN_US), String(BYTES)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise((resolve) => server.stdout!.once('data', resolve));
  const base = `http://127.0.0.1:${port}`;
  try {
    console.log(
      `\nbare node:http server, ${SPIN_US} µs of CPU and ${BYTES} bytes per request; wrk -t1 -c64 -d3s, ${RUNS} runs back to back; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      "| run | req/s | wrk p50 ms | wrk p90 ms | wrk p98 ms | wrk p99 ms | wrk max ms | server: largest gap between one connection's requests, ms |",
    );
    console.log('|-----|-------|------------|------------|------------|------------|------------|-----|');
    for (let run = 1; run <= RUNS; run++) {
      const { stdout } = await promisify(execFile)('wrk', ['-t1', '-c64', '-d3s', '-s', script, base], {
        encoding: 'utf8',
      });
      const ms = (key: string) => (Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(stdout)?.[1] ?? 0) / 1000).toFixed(1);
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0);
      const gaps = (await (await fetch(`${base}/__gaps`)).json()) as { max: number };
      console.log(
        `| ${run} | ${rps.toFixed(0)} | ${ms('q50')} | ${ms('q90')} | ${ms('q98')} | ${ms('q99')} | ${ms('max')} | ${gaps.max.toFixed(1)} |`,
      );
    }
  } finally {
    server.kill();
  }
}

await main();
