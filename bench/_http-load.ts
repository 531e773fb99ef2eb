// The HTTP load generator of the API benches: `concurrency` loops in a worker thread, each issuing
// the next URL as soon as the previous answer is read, until the deadline.
import { Worker } from 'node:worker_threads';

export interface RunResult {
  requests: number;
  errors: number;
  firstError: string | null;
  latencies: number[];
  seconds: number;
}

// Plain JS, evaluated in the worker (no TypeScript loader there).
const LOAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { urls, headers, concurrency, ms } = workerData;
let next = 0, requests = 0, errors = 0, firstError = null;
const latencies = [];
const deadline = performance.now() + ms;
async function loop() {
  while (performance.now() < deadline) {
    const url = urls[next++ % urls.length];
    const t = performance.now();
    try {
      const res = await fetch(url, { headers });
      const body = await res.arrayBuffer();
      if (res.status !== 200) { errors++; firstError ??= res.status + ' ' + Buffer.from(body).toString().slice(0, 200); }
    } catch (err) { errors++; firstError ??= String(err); }
    latencies.push(performance.now() - t);
    requests++;
  }
}
const started = performance.now();
Promise.all(Array.from({ length: concurrency }, loop)).then(() =>
  parentPort.postMessage({ requests, errors, firstError, latencies, seconds: (performance.now() - started) / 1000 }));
`;

/** GETs `urls` round-robin with the bearer `token`; `gzip` asks for compressed bodies as browsers do. */
export function httpLoad(
  urls: string[],
  token: string,
  concurrency: number,
  ms: number,
  options: { gzip?: boolean } = {},
): Promise<RunResult> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    ...(options.gzip ? { 'accept-encoding': 'gzip' } : {}),
  };
  return new Promise((resolve, reject) => {
    const worker = new Worker(LOAD, { eval: true, workerData: { urls, headers, concurrency, ms } });
    worker.once('message', (m) => {
      resolve(m as RunResult);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
