// A reader for the first flight of a TLS connection: the ClientHello's server name (SNI, RFC 6066
// §3) and ALPN protocol list (RFC 7301 §3.1), read before any TLS library sees the bytes. Node's
// SNI callback cannot see the ALPN list, and the tls-alpn-01 challenge (RFC 8737) is recognised by
// the client offering `acme-tls/1`, so the listener peeks at this first.
//
// Layout (RFC 8446 §5.1, §4.1.2): records of `type(1) version(2) length(2) fragment`; the
// handshake message `msg_type(1) length(3) body` may span several records of type handshake (22).
// The ClientHello body is `legacy_version(2) random(32) session_id<0..32>
// cipher_suites<2..2^16-2> compression_methods<1..2^8-1> extensions<0..2^16-1>`; each extension
// is `type(2) length(2) data`.

const RECORD_HANDSHAKE = 22;
const HANDSHAKE_CLIENT_HELLO = 1;
const EXT_SERVER_NAME = 0;
const EXT_ALPN = 16;
const NAME_TYPE_HOST = 0;
/** A plaintext record's fragment is at most 2^14 bytes. */
const MAX_FRAGMENT = 16_384;
/** Larger ClientHellos are not read (real ones are a few KiB, post-quantum key shares included). */
export const MAX_CLIENT_HELLO = 65_536;

export interface ClientHello {
  /** The host_name from the server_name extension, lower-cased; null when absent. */
  serverName: string | null;
  /** The offered ALPN protocols in the client's order; empty when the extension is absent. */
  alpn: string[];
}

export type HelloResult =
  | { kind: 'hello'; hello: ClientHello }
  /** Not enough bytes yet: read more and call again with everything read so far. */
  | { kind: 'incomplete' }
  /** Not a TLS ClientHello, or malformed; `reason` for the debug log. */
  | { kind: 'invalid'; reason: string };

class Malformed extends Error {}

/** Bounds-checked reads over one buffer; every overrun is `Malformed`. */
class Reader {
  constructor(
    private readonly buf: Buffer,
    private pos = 0,
    private readonly end = buf.length,
  ) {}

  get left(): number {
    return this.end - this.pos;
  }

  private need(n: number, what: string): void {
    if (n > this.left) throw new Malformed(`${what} runs past its container`);
  }

  u8(what: string): number {
    this.need(1, what);
    return this.buf[this.pos++]!;
  }

  u16(what: string): number {
    this.need(2, what);
    const v = this.buf.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  skip(n: number, what: string): void {
    this.need(n, what);
    this.pos += n;
  }

  bytes(n: number, what: string): Buffer {
    this.need(n, what);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** A sub-reader over the next `n` bytes (a length-prefixed vector), consumed here. */
  sub(n: number, what: string): Reader {
    this.need(n, what);
    const r = new Reader(this.buf, this.pos, this.pos + n);
    this.pos += n;
    return r;
  }
}

/**
 * Joins the handshake records at the start of `data` until the first handshake message is
 * complete. Returns the message (header included), null when more bytes are needed, or throws
 * `Malformed`.
 */
function firstHandshakeMessage(data: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  let have = 0;
  let pos = 0;
  /** The message's total size (header included), once its 4-byte header is in. */
  let total = -1;
  for (;;) {
    if (total < 0 && have >= 4) {
      // The header may itself be split over records; only these few bytes are joined here.
      const head = Buffer.concat(parts, 4);
      if (head[0] !== HANDSHAKE_CLIENT_HELLO) throw new Malformed(`handshake type ${head[0]}, not ClientHello`);
      total = 4 + head.readUIntBE(1, 3);
      if (total > MAX_CLIENT_HELLO) throw new Malformed(`ClientHello of ${total} bytes is over the limit`);
    }
    if (total >= 0 && have >= total) return Buffer.concat(parts, total);
    // Many tiny records would let the buffer grow well past the message's own limit.
    if (pos > MAX_CLIENT_HELLO) throw new Malformed('ClientHello spread over too many records');
    if (data.length < pos + 5) return null;
    const type = data[pos]!;
    const major = data[pos + 1]!;
    const length = data.readUInt16BE(pos + 3);
    if (type !== RECORD_HANDSHAKE) throw new Malformed(`record type ${type}, not handshake`);
    if (major !== 3) throw new Malformed(`record version ${major}.x`);
    if (length === 0 || length > MAX_FRAGMENT) throw new Malformed(`record length ${length}`);
    // The message type is known from the first byte of the first fragment, before it is complete.
    if (pos === 0 && data.length > 5 && data[5] !== HANDSHAKE_CLIENT_HELLO) {
      throw new Malformed(`handshake type ${data[5]}, not ClientHello`);
    }
    if (data.length < pos + 5 + length) return null;
    parts.push(data.subarray(pos + 5, pos + 5 + length));
    have += length;
    pos += 5 + length;
  }
}

function readServerName(ext: Reader): string | null {
  const list = ext.sub(ext.u16('server_name_list length'), 'server_name_list');
  let name: string | null = null;
  while (list.left > 0) {
    const type = list.u8('name_type');
    const value = list.bytes(list.u16('HostName length'), 'HostName');
    // Only one host_name is allowed; the first one counts.
    if (type === NAME_TYPE_HOST && name === null) {
      if (value.length === 0) throw new Malformed('empty HostName');
      name = value.toString('latin1').toLowerCase();
    }
  }
  return name;
}

function readAlpn(ext: Reader): string[] {
  const list = ext.sub(ext.u16('protocol_name_list length'), 'protocol_name_list');
  const out: string[] = [];
  while (list.left > 0) {
    const n = list.u8('ProtocolName length');
    if (n === 0) throw new Malformed('empty ProtocolName');
    out.push(list.bytes(n, 'ProtocolName').toString('latin1'));
  }
  return out;
}

/** Reads the ClientHello at the start of `data` (all bytes received so far on the connection). */
export function parseClientHello(data: Buffer): HelloResult {
  try {
    if (data.length > 0 && data[0] !== RECORD_HANDSHAKE) throw new Malformed(`first byte ${data[0]}, not TLS`);
    const message = firstHandshakeMessage(data);
    if (!message) return { kind: 'incomplete' };
    const body = new Reader(message, 4);
    body.skip(2, 'legacy_version');
    body.skip(32, 'random');
    body.skip(body.u8('session_id length'), 'session_id');
    body.skip(body.u16('cipher_suites length'), 'cipher_suites');
    body.skip(body.u8('compression_methods length'), 'compression_methods');
    const hello: ClientHello = { serverName: null, alpn: [] };
    // Very old clients send no extensions at all.
    if (body.left === 0) return { kind: 'hello', hello };
    const exts = body.sub(body.u16('extensions length'), 'extensions');
    if (body.left !== 0) throw new Malformed('bytes after the extensions');
    const seen = new Set<number>();
    while (exts.left > 0) {
      const type = exts.u16('extension type');
      const ext = exts.sub(exts.u16('extension length'), 'extension data');
      if (seen.has(type)) throw new Malformed(`extension ${type} repeated`);
      seen.add(type);
      if (type === EXT_SERVER_NAME) hello.serverName = readServerName(ext);
      else if (type === EXT_ALPN) hello.alpn = readAlpn(ext);
    }
    return { kind: 'hello', hello };
  } catch (err) {
    if (err instanceof Malformed) return { kind: 'invalid', reason: err.message };
    throw err;
  }
}
