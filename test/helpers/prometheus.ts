// A throwaway Prometheus server (Debian's `prometheus`) on a free loopback port, scraping one
// target every second with a bearer token, its storage in a temporary directory. For the
// metrics test; stopped by the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './pebble.js';

export interface TestPrometheus {
  url: string;
  /** The value of an instant query's series, by the value of `label` (empty when none). */
  query(expr: string, label: string): Promise<Map<string, number>>;
  stop(): Promise<void>;
}

export async function startPrometheus(target: { url: string; token: string }): Promise<TestPrometheus> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'zmgate-prometheus-'));
  const scraped = new URL(target.url);
  writeFileSync(
    join(dir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 900ms',
      'scrape_configs:',
      '  - job_name: zmgate',
      `    metrics_path: ${scraped.pathname}`,
      '    authorization:',
      `      credentials: ${target.token}`,
      '    static_configs:',
      `      - targets: ['${scraped.host}']`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}): ${stderr}`);
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`prometheus not ready within 60 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    async query(expr, label) {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await res.json()) as {
        status: string;
        data?: { result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (body.status !== 'success') throw new Error(`prometheus query ${expr}: ${JSON.stringify(body)}`);
      return new Map(body.data!.result.map((r) => [r.metric[label] ?? '', Number(r.value[1])]));
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
