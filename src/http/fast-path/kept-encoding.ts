// Which kept compressed form of a cached JSON answer a request gets (infra/read-cache/json-text.ts).
// It is the compression middleware's own choice for that request (same negotiation and
// preference, same threshold, GET only), so an answer is the same on the wire whether the
// middleware compressed it or a kept form was sent; anything else is left to the middleware.
import type { IncomingMessage } from 'node:http';
import Negotiator from 'negotiator';
import type { CachedEncoding } from '../../infra/read-cache/json-text.js';

/** Bodies below this are sent as they are (the compression middleware is given the same). */
export const COMPRESS_THRESHOLD_BYTES = 1024;

const OFFERED = ['br', 'gzip', 'deflate', 'identity'];
const PREFERRED = ['br', 'gzip'];

/** The encoding the compression middleware picks for `req` above the threshold ('identity': none). */
export function negotiatedEncoding(req: IncomingMessage): string {
  if (!req.headers['accept-encoding']) return 'identity';
  // Nothing acceptable: the middleware sends the body as it is.
  return new Negotiator(req).encoding(OFFERED, PREFERRED) ?? 'identity';
}

/** The kept form a GET answer of `length` bytes is sent in, if any. */
export function keptEncoding(req: IncomingMessage, length: number): CachedEncoding | undefined {
  if (req.method !== 'GET' || length < COMPRESS_THRESHOLD_BYTES) return undefined;
  const method = negotiatedEncoding(req);
  return method === 'br' || method === 'gzip' ? method : undefined;
}
