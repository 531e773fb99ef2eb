// What reading the ClientHello first (tls-alpn-01 on the main listener) costs a normal HTTPS
// connection: new connections (TLS handshake + one GET, no keep-alive) against one HTTPS listener
// with and without the routing, in alternating rounds so that load from other work hits both.
// Per mode: connections/s over all rounds and the per-connection p50/p99 at the given concurrency.
//
//   npx tsx bench/tls-alpn-peek.ts [--rounds R] [--per-round N] [--concurrency C]
import { selfSignedCert } from '../test/helpers/tls.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import { routeAcmeTlsAlpn } from '../src/infra/acme/alpn-router.js';
import { createLogger } from '../src/log.js';
import { report } from './_results.js';
import { numberFlag } from './_args.js';

const ROUNDS = numberFlag('rounds', 6);
const PER_ROUND = numberFlag('per-round', 300);
const CONCURRENCY = numberFlag('concurrency', 4);
const NAME = 'bench.zmgate.test';

function certificate(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'zmgate-bench-tls-'));
  const files = selfSignedCert(dir, 'server', NAME, `DNS:${NAME}`);
  return { key: readFileSync(files.key), cert: readFileSync(files.cert) };
}

async function listen(creds: { key: Buffer; cert: Buffer }, routed: boolean): Promise<[https.Server, number]> {
  const server = https.createServer(creds, (_req, res) => res.end('ok'));
  if (routed) {
    routeAcmeTlsAlpn(server, {
      challengeContext: () => null,
      log: createLogger({ level: 'fatal' }),
    });
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return [server, (server.address() as AddressInfo).port];
}

function once(port: number, ca: Buffer): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, servername: NAME, ca, agent: false, path: '/' }, (res) => {
        res.resume();
        res.on('end', () => resolve(performance.now() - t0));
      })
      .on('error', reject);
  });
}

async function round(port: number, ca: Buffer, times: number[]): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < PER_ROUND) times.push(await once(port, ca));
    }),
  );
  return performance.now() - t0;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const creds = certificate();
  const modes = [
    { name: 'listener TLS only', routed: false, times: [] as number[], ms: 0 },
    { name: 'ClientHello read first', routed: true, times: [] as number[], ms: 0 },
  ];
  const servers = await Promise.all(modes.map((m) => listen(creds, m.routed)));
  // Warm-up of both, then alternating rounds.
  for (const [, port] of servers) await round(port, creds.cert, []);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [i, m] of modes.entries()) m.ms += await round(servers[i]![1], creds.cert, m.times);
  }
  for (const [server] of servers) server.close();

  console.log(
    `\n${ROUNDS} rounds × ${PER_ROUND} new HTTPS connections (handshake + GET), concurrency ${CONCURRENCY}, TLS ${tls.DEFAULT_MAX_VERSION}\n`,
  );
  console.log('| mode | connections/s | p50 ms | p99 ms |');
  console.log('|---|---|---|---|');
  for (const m of modes) {
    const sorted = [...m.times].sort((a, b) => a - b);
    const rate = (m.times.length / m.ms) * 1000;
    console.log(`| ${m.name} | ${rate.toFixed(0)} | ${pct(sorted, 50).toFixed(2)} | ${pct(sorted, 99).toFixed(2)} |`);
  }
  const [plain, routed] = modes.map((m) => [...m.times].sort((a, b) => a - b));
  const extra = pct(routed!, 50) - pct(plain!, 50);
  console.log(`\np50 difference: ${extra >= 0 ? '+' : ''}${extra.toFixed(3)} ms per connection`);
  report({
    measure: 'tls-alpn-01 ClientHello peek, p50 extra per new HTTPS connection',
    unit: 'ms',
    value: extra,
    decimals: 3,
  });
}

await main();
