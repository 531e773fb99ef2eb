// The tls-alpn-01 challenge (RFC 8737) on the main HTTPS listener: the CA connects to the service's
// own port with SNI = the domain and ALPN = exactly `acme-tls/1`, and expects a self-signed
// certificate carrying the key authorization. Node's SNI callback cannot see ALPN, so every new
// connection's ClientHello is read first (one record, usually one TCP segment), the bytes are put
// back (`socket.unshift`), and the socket goes either to a small TLS server that only speaks
// `acme-tls/1` with the challenge certificate, or to the listener's own TLS handling, unchanged.
// Anything that is not a well-formed ClientHello goes the normal way, which fails it as before.
import type net from 'node:net';
import tls from 'node:tls';
import type { Logger } from '../../log.js';
import { type ClientHello, parseClientHello } from './client-hello.js';

export const ACME_TLS_ALPN = 'acme-tls/1';
/** Reads of the first bytes before giving up on finding a ClientHello in them. */
const MAX_CHUNKS = 64;

export interface AlpnRouterOptions {
  /** The challenge certificate for a (lower-case) server name, or null when none is pending. */
  challengeContext(serverName: string): tls.SecureContext | null;
  log: Logger;
  /** How long to wait for the whole ClientHello before handing the socket on as it is. */
  helloTimeoutMs?: number;
}

type Peeked = { kind: 'hello'; hello: ClientHello } | { kind: 'other' } | { kind: 'gone' };

/**
 * Reads the connection's first bytes until the ClientHello is complete (or clearly is not one, or
 * the time is up), then puts every byte read back into the socket for the next reader.
 */
export function peekClientHello(socket: net.Socket, timeoutMs: number): Promise<Peeked> {
  return new Promise((resolve) => {
    let data: Buffer = Buffer.alloc(0);
    const finish = (result: Peeked) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onGone);
      socket.off('close', onGone);
      socket.off('error', onGone);
      if (result.kind === 'gone') {
        socket.destroy();
      } else {
        socket.pause();
        if (data.length > 0) socket.unshift(data);
      }
      resolve(result);
    };
    let chunks = 0;
    const onData = (chunk: Buffer) => {
      data = data.length === 0 ? chunk : Buffer.concat([data, chunk]);
      // Real ClientHellos arrive in a segment or two; a trickle of tiny pieces is not worth
      // re-reading again and again (the normal path applies its own handshake timeout).
      if (++chunks > MAX_CHUNKS) return finish({ kind: 'other' });
      const parsed = parseClientHello(data);
      if (parsed.kind === 'hello') finish(parsed);
      else if (parsed.kind === 'invalid') finish({ kind: 'other' });
    };
    const onGone = () => finish({ kind: 'gone' });
    const timer = setTimeout(() => finish({ kind: 'other' }), timeoutMs);
    timer.unref();
    socket.on('data', onData);
    socket.once('end', onGone);
    socket.once('close', onGone);
    socket.once('error', onGone);
  });
}

/**
 * Puts the ClientHello check in front of `server`'s TLS handling. Returns a function that
 * restores the server's own connection handling.
 */
export function routeAcmeTlsAlpn(server: tls.Server, options: AlpnRouterOptions): () => void {
  const { log } = options;
  const helloTimeoutMs = options.helloTimeoutMs ?? 10_000;
  // The listener's own handling (for an HTTPS server, the TLS wrap that then feeds HTTP).
  const own = server.listeners('connection') as ((socket: net.Socket) => void)[];
  const normal = (socket: net.Socket) => {
    for (const handler of own) handler.call(server, socket);
  };

  const challenge = tls.createServer(
    {
      ALPNProtocols: [ACME_TLS_ALPN],
      handshakeTimeout: helloTimeoutMs,
      SNICallback: (name, cb) => {
        const context = options.challengeContext(name.toLowerCase());
        if (context) return cb(null, context);
        log.warn({ servername: name }, 'ACME: tls-alpn-01 connection for a name without a pending challenge');
        cb(new Error('no pending challenge for this name'));
      },
    },
    // The validation is the handshake itself; nothing is exchanged afterwards.
    (socket) => {
      log.info({ servername: socket.servername, remote: socket.remoteAddress }, 'ACME: tls-alpn-01 challenge answered');
      socket.end();
    },
  );
  challenge.on('tlsClientError', (err) =>
    log.debug({ err: { message: err.message } }, 'ACME: tls-alpn-01 handshake failed'),
  );

  const route = (socket: net.Socket) => {
    void peekClientHello(socket, helloTimeoutMs).then((peeked) => {
      if (peeked.kind === 'gone') return;
      const hello = peeked.kind === 'hello' ? peeked.hello : null;
      if (hello?.serverName && hello.alpn.includes(ACME_TLS_ALPN)) challenge.emit('connection', socket);
      else normal(socket);
    });
  };
  server.removeAllListeners('connection');
  server.on('connection', route);
  return () => {
    server.off('connection', route);
    for (const handler of own) server.on('connection', handler);
  };
}
