// The ClientHello reader behind tls-alpn-01 on the main listener, on ClientHellos captured from
// real clients (Node's TLS, the openssl command) and on truncated, refragmented and garbage input.
import { spawn } from 'node:child_process';
import net from 'node:net';
import tls from 'node:tls';

import test from 'ava';
import fc from 'fast-check';

import { MAX_CLIENT_HELLO, parseClientHello } from '../../../src/infra/acme/client-hello.js';

/** The bytes of the first TLS record a client sends (its ClientHello), read on a raw TCP server. */
async function capture(start: (port: number) => () => void): Promise<Buffer> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  const got = new Promise<Buffer>((resolve, reject) => {
    server.once('connection', (socket) => {
      let data = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        data = Buffer.concat([data, chunk]);
        if (data.length >= 5 && data.length >= 5 + data.readUInt16BE(3)) {
          socket.destroy();
          resolve(data.subarray(0, 5 + data.readUInt16BE(3)));
        }
      });
      socket.on('error', reject);
    });
  });
  const stop = start(port);
  try {
    return await got;
  } finally {
    stop();
    server.close();
  }
}

function nodeHello(options: tls.ConnectionOptions): Promise<Buffer> {
  return capture((port) => {
    const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...options });
    s.on('error', () => undefined);
    return () => s.destroy();
  });
}

function opensslHello(args: string[]): Promise<Buffer> {
  return capture((port) => {
    const child = spawn('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, ...args], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    return () => child.kill();
  });
}

/** The same handshake message re-cut into records of at most `size` bytes. */
function refragment(record: Buffer, size: number): Buffer {
  const message = record.subarray(5);
  const out: Buffer[] = [];
  for (let i = 0; i < message.length; i += size) {
    const part = message.subarray(i, i + size);
    const header = Buffer.from([22, 3, 1, 0, 0]);
    header.writeUInt16BE(part.length, 3);
    out.push(header, part);
  }
  return Buffer.concat(out);
}

function hello(data: Buffer) {
  const r = parseClientHello(data);
  if (r.kind !== 'hello') throw new Error(`expected a ClientHello, got ${JSON.stringify(r)}`);
  return r.hello;
}

test('Node TLS 1.3 ClientHello: SNI lower-cased, ALPN list in order', async (t) => {
  const bytes = await nodeHello({ servername: 'Cam.Example.ORG', ALPNProtocols: ['h2', 'http/1.1'] });
  t.deepEqual(hello(bytes), { serverName: 'cam.example.org', alpn: ['h2', 'http/1.1'] });
});

test('the tls-alpn-01 validation hello: acme-tls/1 only', async (t) => {
  const bytes = await nodeHello({ servername: 'nvr.example.org', ALPNProtocols: ['acme-tls/1'] });
  t.deepEqual(hello(bytes), { serverName: 'nvr.example.org', alpn: ['acme-tls/1'] });
});

test('no SNI (an IP address) and no ALPN', async (t) => {
  const bytes = await nodeHello({});
  t.deepEqual(hello(bytes), { serverName: null, alpn: [] });
});

test('a TLS 1.2-only client', async (t) => {
  const bytes = await nodeHello({ servername: 'a.example', ALPNProtocols: ['http/1.1'], maxVersion: 'TLSv1.2' });
  t.deepEqual(hello(bytes), { serverName: 'a.example', alpn: ['http/1.1'] });
});

test('the openssl command line client', async (t) => {
  const bytes = await opensslHello(['-servername', 'b.example', '-alpn', 'acme-tls/1,http/1.1']);
  t.deepEqual(hello(bytes), { serverName: 'b.example', alpn: ['acme-tls/1', 'http/1.1'] });
});

test('every truncation is incomplete, never a wrong answer', async (t) => {
  const bytes = await nodeHello({ servername: 'nvr.example.org', ALPNProtocols: ['acme-tls/1'] });
  for (let n = 0; n < bytes.length; n++) t.is(parseClientHello(bytes.subarray(0, n)).kind, 'incomplete', `${n} bytes`);
  // Bytes after the hello (the client's next flight) do not matter.
  t.deepEqual(hello(Buffer.concat([bytes, Buffer.from([23, 3, 3, 0, 1, 0])])).alpn, ['acme-tls/1']);
});

test('a ClientHello split over many handshake records', async (t) => {
  const bytes = await nodeHello({ servername: 'nvr.example.org', ALPNProtocols: ['acme-tls/1'] });
  for (const size of [1, 3, 7, 100]) {
    const split = refragment(bytes, size);
    t.deepEqual(hello(split), { serverName: 'nvr.example.org', alpn: ['acme-tls/1'] }, `records of ${size}`);
    t.is(parseClientHello(split.subarray(0, split.length - 1)).kind, 'incomplete');
  }
});

test('garbage and malformed input is invalid', async (t) => {
  const bytes = await nodeHello({ servername: 'nvr.example.org', ALPNProtocols: ['acme-tls/1'] });
  const invalid = (data: Buffer, what: string) => t.is(parseClientHello(data).kind, 'invalid', what);
  invalid(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'), 'plain HTTP');
  invalid(Buffer.from('PRI * HTTP/2.0\r\n'), 'cleartext HTTP/2');
  invalid(Buffer.from([0x80, 0x2e, 0x01, 0x00, 0x02]), 'an SSLv2-style hello');
  invalid(Buffer.from([23, 3, 3, 0, 10]), 'an application data record first');
  invalid(Buffer.from([22, 2, 0, 0, 10]), 'record version 2');
  invalid(Buffer.from([22, 3, 1, 0, 0]), 'an empty record');
  invalid(Buffer.from([22, 3, 1, 0x50, 0x00]), 'a record over 2^14 bytes');
  invalid(Buffer.from([22, 3, 1, 0, 4, 2, 0, 0, 0]), 'a ServerHello');
  invalid(Buffer.from([22, 3, 1, 0, 4, 1, 0x01, 0x00, 0x00]), 'a ClientHello over the size limit');

  // The handshake length says the message ends before its fields do.
  const short = Buffer.from(bytes);
  short.writeUIntBE(40, 6, 3);
  short.writeUInt16BE(44, 3);
  invalid(short.subarray(0, 5 + 44), 'a message shorter than its fields');

  // An extension length running past the extensions block.
  const cut = Buffer.from(bytes);
  const extsAt = 5 + 4 + 2 + 32 + 1 + cut[5 + 4 + 2 + 32]!;
  const suitesLen = cut.readUInt16BE(extsAt);
  const compAt = extsAt + 2 + suitesLen;
  const extListAt = compAt + 1 + cut[compAt]!;
  cut.writeUInt16BE(0xffff, extListAt + 2 + 2);
  invalid(cut, 'an extension longer than the block');

  // Many 1-byte records: refused once they pass the size limit, whatever the message says
  // (here a declared length of 61,440 bytes, within the limit, that would take 61,444 records).
  const bodyBytes = [1, 0x00, 0xf0, 0x00];
  const count = Math.ceil(MAX_CLIENT_HELLO / 6) + 10;
  const tiny = Buffer.alloc(6 * count);
  for (let i = 0; i < count; i++) tiny.set([22, 3, 1, 0, 1, bodyBytes[i] ?? 0], 6 * i);
  t.is(parseClientHello(tiny.subarray(0, 6 * 1000)).kind, 'incomplete');
  invalid(tiny, 'a hello spread over too many records');
});

test('random and mutated input never throws', async (t) => {
  const bytes = await nodeHello({ servername: 'nvr.example.org', ALPNProtocols: ['acme-tls/1', 'h2'] });
  const kinds = new Set(['hello', 'incomplete', 'invalid']);
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 600 }), (random) => {
      const data = Buffer.concat([Buffer.from([22, 3, 1]), random]);
      return kinds.has(parseClientHello(data).kind);
    }),
    { seed: 19, numRuns: 2000 },
  );
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(bytes.length - 1), fc.nat(255)), { minLength: 1, maxLength: 8 }), (edits) => {
      const data = Buffer.from(bytes);
      for (const [at, value] of edits) data[at] = value;
      return kinds.has(parseClientHello(data).kind);
    }),
    { seed: 19, numRuns: 2000 },
  );
  t.pass();
});
