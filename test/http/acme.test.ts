// Built-in ACME (server.acme.*) end to end against Debian's pebble test CA on loopback: a
// certificate issued at start-up by http-01 on a second port and by tls-alpn-01 on the main
// listener, served by the HTTPS listener (checked by a TLS client that trusts pebble's root), a
// forced renewal swapped in while an open connection keeps working, and a CA outage retried with
// back-off instead of a crash.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';

import test from 'ava';

import { startTestApp, type TestApp } from '../helpers/app.js';
import { freePort, startPebble } from '../helpers/pebble.js';

const DOMAIN = 'nvr.zmgate.test';

interface Peer {
  serial: string;
  socket: tls.TLSSocket;
}

/** A verified TLS connection (pebble's root trusted, the ACME domain as SNI and identity). */
function connect(port: number, ca: string): Promise<Peer> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: DOMAIN, ca, ALPNProtocols: ['http/1.1'] }, () => {
      resolve({ serial: socket.getPeerCertificate().serialNumber, socket });
    });
    socket.once('error', reject);
  });
}

/** One HTTP/1.1 request on an open TLS socket; resolves with the status line. */
function requestOn(socket: tls.TLSSocket, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    const onData = (c: Buffer) => {
      data += c.toString('latin1');
      if (data.includes('\r\n')) {
        socket.off('data', onData);
        resolve(data.split('\r\n')[0]!);
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${DOMAIN}\r\n\r\n`);
  });
}

async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  for (let t = 0; t < ms; t += 50) {
    if (ok()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

// Serial: acme-client's HTTP agent is process-wide, and each pebble trusts only its own CA certificate.
test.serial(
  'http-01: issued at start-up, served, renewed without dropping connections, CA outage retried',
  async (t) => {
    t.timeout(180_000);
    const [port, httpPort] = [await freePort(), await freePort()];
    const pebble = await startPebble({ tlsPort: port, httpPort });
    t.teardown(() => pebble.close());
    const cacheDir = join(mkdtempSync(join(tmpdir(), 'zmgate-acme-')), 'cache');
    const app: TestApp = await startTestApp({
      env: {
        APP_SERVER__PORT: String(port),
        APP_SERVER__ACME__ENABLED: 'true',
        APP_SERVER__ACME__DOMAINS: DOMAIN,
        APP_SERVER__ACME__CONTACT_EMAILS: 'ops@zmgate.test',
        APP_SERVER__ACME__CACHE_DIR: cacheDir,
        APP_SERVER__ACME__CHALLENGE: 'http-01',
        APP_SERVER__ACME__HTTP_PORT: String(httpPort),
        APP_SERVER__ACME__DIRECTORY_URL: pebble.directoryUrl,
      },
    });
    t.teardown(() => app.close());
    t.true(app.url.startsWith('https://'));
    const acme = app.acme!;
    await until('the first certificate', () => acme.expires !== null);
    t.is(statSync(cacheDir).mode & 0o777, 0o700);
    t.is(statSync(join(cacheDir, 'key.pem')).mode & 0o777, 0o600);
    t.is(statSync(join(cacheDir, 'account.key')).mode & 0o777, 0o600);

    const root = await pebble.issuingRoot();
    const first = await connect(port, root);
    t.teardown(() => first.socket.destroy());
    t.regex(await requestOn(first.socket, '/api-docs/openapi.json'), /^HTTP\/1\.1 200/);

    // The challenge listener answers nothing but challenges.
    const other = await fetch(`http://127.0.0.1:${httpPort}/api-docs/openapi.json`);
    t.is(other.status, 404);

    // Forced renewal: new handshakes get the new certificate, the open connection carries on.
    await acme.check(true);
    const second = await connect(port, root);
    t.teardown(() => second.socket.destroy());
    t.not(second.serial, first.serial);
    t.regex(await requestOn(first.socket, '/api-docs/openapi.json'), /^HTTP\/1\.1 200/);

    // CA outage: the renewal fails, is logged with the problem and retried; the service keeps serving.
    acme.retry.minMs = 200;
    acme.retry.maxMs = 400;
    await pebble.stop();
    await acme.check(true);
    const failure = app.logs.find((l) => /obtaining a certificate failed/.test(l.msg));
    t.truthy(failure);
    t.is(failure!.level, 50);
    t.truthy(failure!.problem);
    t.regex(await requestOn(second.socket, '/api-docs/openapi.json'), /^HTTP\/1\.1 200/);
    await until(
      'a second failed attempt',
      () => app.logs.filter((l) => /obtaining a certificate failed/.test(l.msg)).length >= 2,
    );
    await pebble.start();
    const before = second.serial;
    await until('renewal after the outage', () => app.logs.filter((l) => /certificate in use/.test(l.msg)).length >= 3);
    // A restarted pebble has a new root.
    const third = await connect(port, await pebble.issuingRoot());
    t.teardown(() => third.socket.destroy());
    t.not(third.serial, before);
  },
);

test.serial('tls-alpn-01: issued through the main listener, then served there', async (t) => {
  t.timeout(180_000);
  // No http-01 port at all: the CA validates on the HTTPS listener's own port.
  const port = await freePort();
  const pebble = await startPebble({ tlsPort: port, httpPort: await freePort() });
  t.teardown(() => pebble.close());
  const cacheDir = join(mkdtempSync(join(tmpdir(), 'zmgate-acme-')), 'cache');
  const app: TestApp = await startTestApp({
    env: {
      APP_SERVER__PORT: String(port),
      APP_SERVER__ACME__ENABLED: 'true',
      APP_SERVER__ACME__DOMAINS: DOMAIN,
      APP_SERVER__ACME__CONTACT_EMAILS: 'ops@zmgate.test',
      APP_SERVER__ACME__CACHE_DIR: cacheDir,
      APP_SERVER__ACME__DIRECTORY_URL: pebble.directoryUrl,
    },
  });
  t.teardown(() => app.close());
  t.is(app.config.server.acme.challenge, 'tls-alpn-01');
  const acme = app.acme!;
  t.is(acme.httpPort, null);
  await until('the first certificate', () => acme.expires !== null);
  t.truthy(app.logs.find((l) => /tls-alpn-01 challenge answered/.test(l.msg) && l.servername === DOMAIN));

  const root = await pebble.issuingRoot();
  const peer = await connect(port, root);
  t.teardown(() => peer.socket.destroy());
  t.is(peer.socket.alpnProtocol, 'http/1.1');
  t.regex(await requestOn(peer.socket, '/api-docs/openapi.json'), /^HTTP\/1\.1 200/);

  // The challenge certificate is gone once the order is done: acme-tls/1 now fails the handshake.
  const late = await new Promise<Error | null>((resolve) => {
    const s = tls.connect(
      { host: '127.0.0.1', port, servername: DOMAIN, ALPNProtocols: ['acme-tls/1'], rejectUnauthorized: false },
      () => {
        s.destroy();
        resolve(null);
      },
    );
    s.once('error', resolve);
  });
  t.truthy(late);

  // A renewal is validated the same way while the first connection stays open.
  await acme.check(true);
  const second = await connect(port, root);
  t.teardown(() => second.socket.destroy());
  t.not(second.serial, peer.serial);
  t.regex(await requestOn(peer.socket, '/api-docs/openapi.json'), /^HTTP\/1\.1 200/);
});

test('static TLS and ACME both enabled stop start-up naming both keys', async (t) => {
  const err = await t.throwsAsync(
    startTestApp({
      env: {
        APP_SERVER__TLS__ENABLED: 'true',
        APP_SERVER__TLS__CERT_PATH: '/nonexistent/cert.pem',
        APP_SERVER__TLS__KEY_PATH: '/nonexistent/key.pem',
        APP_SERVER__ACME__ENABLED: 'true',
        APP_SERVER__ACME__DOMAINS: DOMAIN,
        APP_SERVER__ACME__CACHE_DIR: join(mkdtempSync(join(tmpdir(), 'zmgate-acme-')), 'cache'),
      },
    }),
  );
  t.regex(err!.message, /server\.tls\.enabled/);
  t.regex(err!.message, /server\.acme\.enabled/);
});
