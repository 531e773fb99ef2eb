// helmet's response headers, worked out once. They depend on the configuration only, never on
// the request, so they are taken from one helmet pass at start-up and set from that list on
// every answer: by this middleware, and by the hot-read lane (src/http/fast-path/hot-reads.ts), which
// skips the middleware chain. helmet as a chain was 11 nested calls per request.
import type { RequestHandler } from 'express';
import helmet from 'helmet';
import type { AppConfig } from '../../config/types.js';

export type HeaderList = ReadonlyArray<readonly [string, string]>;

export function securityHeaderList(server: Pick<AppConfig['server'], 'tls' | 'acme'>): HeaderList {
  const pass = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity:
      server.tls.enabled || server.acme.enabled ? { maxAge: 31536000, includeSubDomains: true } : false,
    // Media is fetched cross-origin by <img>/<video> in UIs served elsewhere; CORS still guards reads.
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  });
  const headers = new Map<string, string>();
  const res = {
    setHeader: (name: string, value: unknown) => headers.set(name, String(value)),
    // Only X-Powered-By is removed, and the app never sets it (app.disable('x-powered-by')).
    removeHeader: (name: string) => headers.delete(name),
  };
  let done = false;
  pass({} as never, res as never, () => (done = true));
  if (!done) throw new Error('helmet did not finish synchronously');
  return [...headers];
}

export function securityHeaders(list: HeaderList): RequestHandler {
  return (_req, res, next) => {
    for (const [name, value] of list) res.setHeader(name, value);
    next();
  };
}
