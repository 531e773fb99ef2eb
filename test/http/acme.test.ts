// Built-in ACME (server.acme.*) end to end against Debian's pebble test CA on loopback: a
// certificate issued at start-up by http-01 on a second port and by tls-alpn-01 on the main
// listener, served by the HTTPS listener (checked by a TLS client that trusts pebble's root), a
// forced renewal swapped in while an open connection and a live MJPEG stream keep working, and a
// CA outage retried with back-off instead of a crash.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';

import test from 'ava';
import bcrypt from 'bcryptjs';

import { MJPEG_BOUNDARY } from '../../src/media/mjpeg.js';
import { sharedMemoryPath } from '../../src/native/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { freePort, startPebble } from '../helpers/pebble.js';
import { commitImage, writeShmFixture } from '../helpers/shm-fixture.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';

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

/** A request over a fresh verified TLS connection; resolves with the response (body unread). */
function httpsRequest(
  port: number,
  ca: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<import('node:http').IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        servername: DOMAIN,
        ca,
        agent: false,
        method,
        path,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
      },
      resolve,
    );
    req.once('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
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

test.serial(
  'tls-alpn-01: issued through the main listener, served there, renewed under a running MJPEG stream',
  async (t) => {
    t.timeout(180_000);
    // A live MJPEG source: one monitor whose shared memory the test writes new images into.
    const db = await zmDatabase('acmealpn');
    await insertUser(db, {
      username: 'viewer',
      password: 'viewer',
      stored: bcrypt.hashSync('viewer', 4),
      perms: { Stream: 'View' },
    });
    await db.db.query(
      "INSERT INTO Monitors (Id, Name, Width, Height, ImageBufferCount) VALUES (1, 'cam', 320, 240, 3)",
      [],
      db.name,
    );
    const mapDir = mkdtempSync(join(tmpdir(), 'zmgate-acme-map-'));
    t.teardown(() => rmSync(mapDir, { recursive: true, force: true }));
    const shm = writeShmFixture(sharedMemoryPath(mapDir, 1), {
      layout: 888,
      format: 'rgb24',
      width: 320,
      height: 240,
      imageBufferCount: 3,
      // Every slot holds a picture; slot 0 is the newest.
      images: [
        { slot: 1, timestampUs: 1_699_999_999_800_000 },
        { slot: 2, timestampUs: 1_699_999_999_900_000 },
        { slot: 0, timestampUs: 1_700_000_000_000_000 },
      ],
      fields: { heartbeat_time: Math.floor(Date.now() / 1000) },
    });
    /** zmc committing a new image. */
    const commit = (slot: number, timestampUs: number) =>
      commitImage(sharedMemoryPath(mapDir, 1), shm, slot, timestampUs);

    // No http-01 port at all: the CA validates on the HTTPS listener's own port.
    const port = await freePort();
    const pebble = await startPebble({ tlsPort: port, httpPort: await freePort() });
    t.teardown(() => pebble.close());
    const cacheDir = join(mkdtempSync(join(tmpdir(), 'zmgate-acme-')), 'cache');
    const app: TestApp = await startTestApp({
      db,
      env: {
        APP_SERVER__PORT: String(port),
        APP_SERVER__ACME__ENABLED: 'true',
        APP_SERVER__ACME__DOMAINS: DOMAIN,
        APP_SERVER__ACME__CONTACT_EMAILS: 'ops@zmgate.test',
        APP_SERVER__ACME__CACHE_DIR: cacheDir,
        APP_SERVER__ACME__DIRECTORY_URL: pebble.directoryUrl,
        APP_AUTH__RATE_LIMIT__ENABLED: 'false',
        APP_ZONEMINDER__PATH_MAP: mapDir,
        APP_ZONEMINDER__PATH_SOCKS: mapDir,
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

    // An MJPEG stream on the first certificate.
    const loginRes = await httpsRequest(port, root, 'POST', '/api/v3/auth/login', {
      username: 'viewer',
      password: 'viewer',
    });
    let loginBody = '';
    for await (const c of loginRes) loginBody += c;
    t.is(loginRes.statusCode, 200, loginBody);
    const token = (JSON.parse(loginBody) as { access_token: string }).access_token;
    const stream = await httpsRequest(port, root, 'GET', `/api/v3/live/1/mjpeg?token=${token}&maxfps=10`);
    t.teardown(() => stream.destroy());
    t.is(stream.statusCode, 200);
    const streamSerial = (stream.socket as tls.TLSSocket).getPeerCertificate().serialNumber;
    t.is(streamSerial, peer.serial);
    let received = '';
    stream.on('data', (c: Buffer) => (received += c.toString('latin1')));
    const parts = () => received.split(`--${MJPEG_BOUNDARY}\r\n`).length - 1;
    await until('the first MJPEG part', () => parts() >= 1);

    // A renewal is validated the same way; new connections get the new certificate while the
    // stream and the first connection carry on with the old one.
    await acme.check(true);
    t.true(app.logs.filter((l) => /tls-alpn-01 challenge answered/.test(l.msg)).length >= 2);
    const second = await connect(port, root);
    t.teardown(() => second.socket.destroy());
    t.not(second.serial, peer.serial);
    commit(1, 1_700_000_000_100_000);
    await until('an MJPEG part after the renewal', () => parts() >= 2);
    t.false(stream.destroyed);
    t.regex(await requestOn(peer.socket, '/api-docs/openapi.json'), /^HTTP\/1\.1 200/);
  },
);

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
