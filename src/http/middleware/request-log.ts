// One JSON log record per request, with a request id. `token` query values are redacted.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { redactUrl, type Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';

/** Told each finished request's status and duration (the metrics). */
export type RequestObserver = (status: number, seconds: number) => void;

/**
 * Gives the answer its X-Request-Id (the caller's, when it is a plain token) and logs the request
 * when the answer is finished. Used by the middleware below and by the hot-read lane
 * (src/http/fast-path/hot-reads.ts). Returns the request id.
 */
export function logRequest(
  log: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  url: string,
  remote: string | undefined,
  /** When the request arrived (process.hrtime.bigint()); now by default. */
  started = process.hrtime.bigint(),
  observe?: RequestObserver,
): string {
  const incoming = req.headers['x-request-id'];
  const reqId = typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', reqId);
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    observe?.(res.statusCode, ms / 1000);
    log.info(
      {
        req_id: reqId,
        method: req.method,
        url: redactUrl(url),
        status: res.statusCode,
        duration_ms: Math.round(ms * 10) / 10,
        remote,
      },
      'request',
    );
  });
  return reqId;
}

/**
 * The metrics' name of a finished request: the pattern of the route that answered it (express
 * keeps it in req.route), so the number of series stays bounded whatever the URLs.
 */
function routeLabel(req: Request, status: number): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return path;
  return status === 404 ? 'unmatched' : 'other';
}

export function requestLog(log: Logger, metrics?: Metrics): RequestHandler {
  return (req, res, next) => {
    const observe: RequestObserver | undefined = metrics?.enabled
      ? (status, seconds) => metrics.request(routeLabel(req, status), req.method, status, seconds)
      : undefined;
    res.locals.reqId = logRequest(log, req, res, req.originalUrl, req.ip, process.hrtime.bigint(), observe);
    next();
  };
}
