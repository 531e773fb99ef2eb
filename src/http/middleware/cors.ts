// CORS for the configured origins. Credentials are allowed, which is why a bare `*` is refused
// by the config loader.
import type { RequestHandler } from 'express';
import { originMatcher } from '../../config/origins.js';

const METHODS = 'GET, POST, PUT, DELETE, PATCH, OPTIONS';
const HEADERS = 'authorization, content-type, x-requested-with, accept, origin, range';
const EXPOSED = 'content-length, content-range, accept-ranges, x-request-id, ratelimit, retry-after';

export function cors(allowedOrigins: string[]): RequestHandler {
  const allowed = originMatcher(allowedOrigins);
  return (req, res, next) => {
    const origin = req.headers.origin;
    res.vary('Origin');
    if (!origin || !allowed(origin)) return next();
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Access-Control-Expose-Headers', EXPOSED);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.setHeader('Access-Control-Allow-Methods', METHODS);
      res.setHeader('Access-Control-Allow-Headers', HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
