// A request path that does not percent-decode (`%zz`, a lone `%`, `%ff`, `%c0`, a truncated
// UTF-8 sequence such as `%e2%82`) names nothing: express's router threw URIError decoding such
// a path parameter, which was a 500 with a stack before authentication, on every parameterised
// route. It is decided once, at the door: app.ts checks each request as it enters, before the
// hot-read lane and express's chain, and a malformed one skips the lane; the first layer of the
// chain answers it 400 BAD_REQUEST_ERROR naming the path, with the usual headers (request id,
// security, CORS) and the request's one log line, before the limiter, authentication and routing.
//
// Query strings are left to the query parser: it decodes leniently (node's querystring, as
// express does: an undecodable `%zz` stays as it is), so it never fails a request.
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { BadRequestError } from '../../errors.js';

const MALFORMED = Symbol('malformed request path');

type Marked = IncomingMessage & { [MALFORMED]?: string };

/** The path of `url` (no query string) when it does not percent-decode as UTF-8, else undefined. */
export function malformedPath(url: string): string | undefined {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  // Only a path with an escape needs decoding: the common case is one scan.
  if (!path.includes('%')) return undefined;
  try {
    decodeURIComponent(path);
    return undefined;
  } catch {
    return path;
  }
}

/**
 * The door's check: true (and the request marked for refuseMalformed) when its path is under
 * /api/ and malformed. Elsewhere (the browser UI's files) such a path names no file: its 404 stays.
 */
export function markMalformed(req: IncomingMessage): boolean {
  const url = req.url ?? '';
  if (url.slice(0, 5).toLowerCase() !== '/api/') return false;
  const path = malformedPath(url);
  if (path === undefined) return false;
  (req as Marked)[MALFORMED] = path;
  return true;
}

/** The 400 for a request the door marked. */
export const refuseMalformed: RequestHandler = (req, _res, next) => {
  const path = (req as Marked)[MALFORMED];
  if (path === undefined) return next();
  next(
    new BadRequestError('Malformed percent-encoding in the request path', [
      ['path', path.slice(0, 200)],
      ['reason', 'an escape that is not %XX in hex, or bytes that are not UTF-8'],
    ]),
  );
};
