// tls-alpn-01 routing on an HTTPS listener: connections offering acme-tls/1 get the challenge
// certificate, everything else (HTTP/1.1 and h2 clients, no SNI, plain HTTP, half a ClientHello,
// a hello in pieces) goes to the listener's own TLS as before.
import { selfSignedCert } from '../../helpers/tls.js';
import crypto from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';

import test from 'ava';
import * as acme from 'acme-client';

import { peekClientHello, routeAcmeTlsAlpn } from '../../../src/infra/acme/alpn-router.js';
import { createLogger } from '../../../src/log.js';

const NAME = 'nvr.zmgate.test';
const KEY_AUTH = 'token-abc.thumbprint-xyz';

interface Fixture {
  port: number;
  /** The listener's own certificate (PEM). */
  cert: Buffer;
  server: https.Server;
  unroute: () => void;
}

async function fixture(): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'zmgate-alpn-'));
  const files = selfSignedCert(dir, 'server', NAME, `DNS:${NAME}`);
  const cert = readFileSync(files.cert);
  const [alpnKey, alpnCert] = await acme.crypto.createAlpnCertificate(
    { identifier: { type: 'dns', value: NAME } } as acme.Authorization,
    KEY_AUTH,
    await acme.crypto.createPrivateEcdsaKey(),
  );
  const challenge = tls.createSecureContext({ key: alpnKey, cert: alpnCert });
  const server = https.createServer({ key: readFileSync(files.key), cert, ALPNProtocols: ['http/1.1'] }, (req, res) =>
    res.end(`normal ${req.url}`),
  );
  const unroute = routeAcmeTlsAlpn(server, {
    challengeContext: (name) => (name === NAME ? challenge : null),
    log: createLogger({ level: 'fatal' }),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { port: (server.address() as net.AddressInfo).port, cert, server, unroute };
}

function get(f: Fixture, path: string, servername = NAME): Promise<string> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port: f.port, servername, path, ca: f.cert, agent: false }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

interface Handshake {
  alpn: string | false;
  cert: string;
}

function handshake(port: number, options: tls.ConnectionOptions): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...options }, () => {
      const result = { alpn: s.alpnProtocol ?? false, cert: s.getPeerX509Certificate()!.toString() };
      s.destroy();
      resolve(result);
    });
    s.once('error', reject);
  });
}

/** The raw ClientHello a TLS client sends (read on a plain TCP server). */
async function helloBytes(options: tls.ConnectionOptions): Promise<Buffer> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const got = new Promise<Buffer>((resolve) => {
    server.once('connection', (socket) => {
      let data = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        data = Buffer.concat([data, chunk]);
        if (data.length >= 5 && data.length >= 5 + data.readUInt16BE(3)) {
          socket.destroy();
          resolve(data);
        }
      });
    });
  });
  const client = tls.connect({ host: '127.0.0.1', port: (server.address() as net.AddressInfo).port, ...options });
  client.on('error', () => undefined);
  const bytes = await got;
  client.destroy();
  server.close();
  return bytes;
}

test('acme-tls/1 gets the challenge certificate; HTTPS clients get the listener certificate', async (t) => {
  const f = await fixture();
  t.teardown(() => f.server.close());
  const challenge = await handshake(f.port, { servername: NAME, ALPNProtocols: ['acme-tls/1'] });
  t.is(challenge.alpn, 'acme-tls/1');
  t.true(acme.crypto.isAlpnCertificateAuthorizationValid(challenge.cert, KEY_AUTH));

  const normal = await handshake(f.port, { servername: NAME, ALPNProtocols: ['h2', 'http/1.1'] });
  t.is(normal.alpn, 'http/1.1');
  t.is(normal.cert, new crypto.X509Certificate(f.cert).toString());
  t.is(await get(f, '/a'), 'normal /a');
  // No SNI at all (an address): the normal path.
  t.is((await handshake(f.port, {})).cert, normal.cert);
});

test('acme-tls/1 for a name without a pending challenge fails the handshake', async (t) => {
  const f = await fixture();
  t.teardown(() => f.server.close());
  await t.throwsAsync(handshake(f.port, { servername: 'other.zmgate.test', ALPNProtocols: ['acme-tls/1'] }));
  t.is(await get(f, '/after'), 'normal /after');
});

test('plain HTTP, half a ClientHello and a hello in two pieces are handled like before', async (t) => {
  const f = await fixture();
  t.teardown(() => f.server.close());
  const raw = (write: (s: net.Socket) => void) =>
    new Promise<Buffer>((resolve) => {
      const s = net.connect(f.port, '127.0.0.1', () => write(s));
      const got: Buffer[] = [];
      s.on('data', (c: Buffer) => got.push(c));
      s.on('close', () => resolve(Buffer.concat(got)));
      s.on('error', () => undefined);
    });

  // Plain HTTP to the HTTPS port: the TLS layer refuses it (a closed connection, no HTTP answer).
  const http = await raw((s) => s.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
  t.false(http.toString('latin1').startsWith('HTTP/'));

  // Half a ClientHello, then the client goes away: nothing breaks.
  const hello = await helloBytes({ servername: NAME, ALPNProtocols: ['acme-tls/1'] });
  await raw((s) => s.end(hello.subarray(0, hello.length >> 1)));

  // The whole hello in two writes: still recognised (the server answers with its ServerHello).
  const answered = await raw((s) => {
    s.write(hello.subarray(0, 40));
    setImmediate(() => s.write(hello.subarray(40)));
    s.once('data', () => s.destroy());
  });
  t.is(answered[0], 22);
  t.is(await get(f, '/still'), 'normal /still');
});

test('the listener is unchanged once the routing is removed', async (t) => {
  const f = await fixture();
  t.teardown(() => f.server.close());
  f.unroute();
  // Without the routing the listener's own TLS answers acme-tls/1 with no common protocol.
  await t.throwsAsync(handshake(f.port, { servername: NAME, ALPNProtocols: ['acme-tls/1'] }));
  t.is(await get(f, '/plain'), 'normal /plain');
});

/** A connected socket pair on loopback: [client, server side]. */
async function socketPair(): Promise<[net.Socket, net.Socket]> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  client.setNoDelay(true);
  const side = await accepted;
  server.close();
  return [client, side];
}

/** Writes `piece` and resolves once the server side has read `total` bytes so far. */
function deliver(client: net.Socket, side: net.Socket, piece: Buffer, total: number, seen: { n: number }) {
  return new Promise<void>((resolve) => {
    const spy = (c: Buffer) => {
      seen.n += c.length;
      if (seen.n >= total) {
        side.off('data', spy);
        resolve();
      }
    };
    side.on('data', spy);
    client.write(piece);
  });
}

test('the peek waits for the rest of the hello and puts every byte back', async (t) => {
  const hello = await helloBytes({ servername: NAME, ALPNProtocols: ['acme-tls/1'] });
  const [client, side] = await socketPair();
  t.teardown(() => client.destroy());
  const peeked = peekClientHello(side, 60_000);
  const seen = { n: 0 };
  await deliver(client, side, hello.subarray(0, 40), 40, seen);
  client.write(hello.subarray(40));
  t.deepEqual(await peeked, { kind: 'hello', hello: { serverName: NAME, alpn: ['acme-tls/1'] } });
  t.deepEqual(side.read(hello.length), hello);
});

test('a trickle of tiny pieces is handed on unread, bytes intact', async (t) => {
  const hello = await helloBytes({ servername: NAME, ALPNProtocols: ['acme-tls/1'] });
  const [client, side] = await socketPair();
  t.teardown(() => client.destroy());
  const peeked = peekClientHello(side, 60_000);
  const seen = { n: 0 };
  let result: unknown = null;
  void peeked.then((r) => (result = r));
  let sent = 0;
  while (result === null && sent < hello.length) {
    await deliver(client, side, hello.subarray(sent, sent + 1), sent + 1, seen);
    sent += 1;
  }
  t.deepEqual(await peeked, { kind: 'other' });
  t.true(sent < hello.length);
  t.deepEqual(side.read(sent), hello.subarray(0, sent));
});

test('a connection closed during the peek is dropped', async (t) => {
  const [client, side] = await socketPair();
  const peeked = peekClientHello(side, 60_000);
  client.end(Buffer.from([22, 3, 1]));
  t.deepEqual(await peeked, { kind: 'gone' });
  t.true(side.destroyed);
});
