// Several app-wide middleware run as one express layer. The router does per-layer bookkeeping on
// every request (matching the layer's path, trimming and restoring the URL); for the handlers that
// every request passes through, that was ~7 % of a polled route's CPU (bench/README.md).
import type { RequestHandler } from 'express';

/** Runs `handlers` one after another, as app.use() of each would: a throw or a rejected promise is next(err). */
export function inOrder(...handlers: RequestHandler[]): RequestHandler {
  return (req, res, done) => {
    let i = 0;
    const next = (err?: unknown): void => {
      if (err) return done(err);
      const handler = handlers[i++];
      if (!handler) return done();
      try {
        const ret: unknown = handler(req, res, next);
        if (ret instanceof Promise) ret.catch((e: unknown) => done(e ?? new Error('Rejected promise')));
      } catch (e) {
        done(e);
      }
    };
    next();
  };
}

/** `handler` for paths at or below `prefix` only, as app.use(prefix, handler) (case-insensitive). */
export function under(prefix: string, handler: RequestHandler): RequestHandler {
  const lower = prefix.toLowerCase();
  return (req, res, next) => {
    const path = req.path.toLowerCase();
    if (path === lower || path.startsWith(`${lower}/`)) return handler(req, res, next);
    next();
  };
}
