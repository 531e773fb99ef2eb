// Static TLS (server.tls.*) re-reads its certificate files on SIGHUP: new handshakes get the new
// certificate, a connection opened before keeps working, and a broken file keeps the old one.
import { selfSignedCert } from '../helpers/tls.js';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';

import test from 'ava';

import { startTestApp } from '../helpers/app.js';

function selfSigned(dir: string, cn: string): { cert: string; key: string } {
  return selfSignedCert(dir, cn, cn);
}

interface Answer {
  status: number;
  cn: string;
  reused: boolean;
}

function get(url: string, agent: https.Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { agent, rejectUnauthorized: false }, (res) => {
      const cn = String((res.socket as TLSSocket).getPeerCertificate().subject?.CN);
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, cn, reused: req.reusedSocket }));
    });
    req.on('error', reject);
  });
}

async function waitForLog(logs: Array<Record<string, any>>, msg: RegExp): Promise<Record<string, any>> {
  for (let i = 0; i < 200; i++) {
    const hit = logs.find((l) => msg.test(l.msg));
    if (hit) return hit;
    await sleep(25);
  }
  throw new Error(`no log line ${msg}`);
}

test('SIGHUP swaps the certificate for new connections without dropping open ones', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'zmgate-tls-'));
  const first = selfSigned(dir, 'first.test');
  const second = selfSigned(dir, 'second.test');
  const live = { cert: join(dir, 'live.crt'), key: join(dir, 'live.key') };
  copyFileSync(first.cert, live.cert);
  copyFileSync(first.key, live.key);
  const app = await startTestApp({
    env: {
      APP_SERVER__TLS__ENABLED: 'true',
      APP_SERVER__TLS__CERT_PATH: live.cert,
      APP_SERVER__TLS__KEY_PATH: live.key,
    },
  });
  t.teardown(() => app.close());
  t.true(app.url.startsWith('https://'));
  const url = `${app.url}/api-docs/openapi.json`;

  const kept = new https.Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => kept.destroy());
  t.like(await get(url, kept), { status: 200, cn: 'first.test' });

  copyFileSync(second.cert, live.cert);
  copyFileSync(second.key, live.key);
  process.kill(process.pid, 'SIGHUP');
  await waitForLog(app.logs, /TLS certificate reloaded/);

  // The connection opened before the reload carries on; a new one gets the new certificate.
  t.like(await get(url, kept), { status: 200, cn: 'first.test', reused: true });
  const fresh = new https.Agent({ keepAlive: false });
  t.like(await get(url, fresh), { status: 200, cn: 'second.test' });

  // A broken certificate file is logged and the current certificate stays.
  writeFileSync(live.cert, 'not a certificate');
  process.kill(process.pid, 'SIGHUP');
  const failure = await waitForLog(app.logs, /TLS certificate reload failed/);
  t.is(failure.level, 50);
  t.like(await get(url, new https.Agent({ keepAlive: false })), { status: 200, cn: 'second.test' });
});
