// Debian's `pebble` ACME test CA and `pebble-challtestsrv` (its mock DNS answering 127.0.0.1 for
// every name), started on loopback for one test. The CA validates challenges on the ports it is
// given, so the test picks zmgate's ports first. The CA's own HTTPS certificate is made here and
// trusted by acme-client through its axios instance.
import { selfSignedCert } from './tls.js';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as acme from 'acme-client';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface Pebble {
  directoryUrl: string;
  /** PEM of the root that signs issued certificates (fetched from the management port). */
  issuingRoot(): Promise<string>;
  /** Stops the CA (a CA outage); start() brings it back on the same ports. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

function waitExit(child: ChildProcess): Promise<void> {
  return child.exitCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startPebble(ports: { tlsPort: number; httpPort: number }): Promise<Pebble> {
  const dir = mkdtempSync(join(tmpdir(), 'zmgate-pebble-'));
  const cert = join(dir, 'ca.crt');
  const key = join(dir, 'ca.key');
  selfSignedCert(dir, 'ca', 'pebble', 'IP:127.0.0.1,DNS:localhost');
  const [acmePort, mgmtPort, dnsPort, dnsMgmtPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const config = join(dir, 'pebble.json');
  writeFileSync(
    config,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${mgmtPort}`,
        certificate: cert,
        privateKey: key,
        httpPort: ports.httpPort,
        tlsPort: ports.tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  );
  const agent = new https.Agent({ ca: readFileSync(cert) });
  acme.axios.defaults.httpsAgent = agent;
  // acme-client retries a failed HTTP call itself for over a minute; off here so that a CA
  // outage reaches zmgate's own back-off within the test's time.
  (acme.axios.defaults as any).acmeSettings.retryMaxAttempts = 0;

  const dns = spawn(
    'pebble-challtestsrv',
    [
      '-dns01',
      `127.0.0.1:${dnsPort}`,
      '-management',
      `127.0.0.1:${dnsMgmtPort}`,
      '-http01',
      '',
      '-https01',
      '',
      '-tlsalpn01',
      '',
      '-defaultIPv4',
      '127.0.0.1',
      '-defaultIPv6',
      '',
    ],
    { stdio: 'ignore' },
  );
  let ca: ChildProcess | null = null;
  const directoryUrl = `https://127.0.0.1:${acmePort}/dir`;

  const ready = async () => {
    for (let i = 0; i < 200; i++) {
      const ok = await new Promise<boolean>((resolve) => {
        https
          .get(directoryUrl, { agent }, (res) => {
            res.resume();
            resolve(res.statusCode === 200);
          })
          .on('error', () => resolve(false));
      });
      if (ok) return;
      await sleep(50);
    }
    throw new Error('pebble did not start');
  };
  const start = async () => {
    ca = spawn('pebble', ['-config', config, '-dnsserver', `127.0.0.1:${dnsPort}`], {
      // No artificial validation delay, no random nonce rejections; fresh authorizations each time.
      env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' },
      stdio: 'ignore',
    });
    await ready();
  };
  const stop = async () => {
    if (!ca) return;
    ca.kill('SIGTERM');
    await waitExit(ca);
    ca = null;
  };
  await start();
  return {
    directoryUrl,
    start,
    stop,
    issuingRoot: () =>
      new Promise((resolve, reject) => {
        https
          .get(`https://127.0.0.1:${mgmtPort}/roots/0`, { agent }, (res) => {
            let body = '';
            res.on('data', (c) => (body += c));
            res.on('end', () => resolve(body));
          })
          .on('error', reject);
      }),
    close: async () => {
      await stop();
      dns.kill('SIGTERM');
      await waitExit(dns);
    },
  };
}
