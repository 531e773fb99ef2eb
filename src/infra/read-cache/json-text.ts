// Response bodies serialized once and sent many times. A cached answer (an object handed to
// many requests) carries its JSON body here, already UTF-8 encoded; the app's res.json() sends
// those bytes instead of serializing and encoding the object again (src/http/app.ts). They are
// exactly the UTF-8 of JSON.stringify(value), what res.json() would send.
//
// The compressed forms are made on first use and kept with the answer: a browser polling the
// 141 KB monitor list otherwise pays a brotli pass per request (docs/api-caches.md).
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export type CachedEncoding = 'br' | 'gzip';

const bodies = new WeakMap<object, Buffer>();
const encoded = new WeakMap<Buffer, Partial<Record<CachedEncoding, Buffer>>>();

/** Serializes `value` now and remembers the bytes for every later send. Returns `value`. */
export function withJsonText<T extends object>(value: T): T {
  bodies.set(value, Buffer.from(JSON.stringify(value), 'utf8'));
  return value;
}

/** The remembered JSON body of `value`, if it has one. */
export function jsonBodyOf(value: unknown): Buffer | undefined {
  return typeof value === 'object' && value !== null ? bodies.get(value) : undefined;
}

/** `body` (a remembered JSON body) compressed with `encoding`, made once per body. */
export function encodedBody(body: Buffer, encoding: CachedEncoding): Buffer {
  let forms = encoded.get(body);
  if (!forms) encoded.set(body, (forms = {}));
  // The settings the compression middleware uses for answers it compresses itself.
  forms[encoding] ??=
    encoding === 'br' ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }) : gzipSync(body);
  return forms[encoding];
}
