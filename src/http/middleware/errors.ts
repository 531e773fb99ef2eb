// Turns every failure into the AppResponseError envelope. Anything that is not a known client
// error becomes a generic 500: no stack, SQL, path or secret ever reaches a body.
import type { ErrorRequestHandler, Express, RequestHandler } from 'express';
import {
  BadGatewayError,
  DatabaseUnavailableError,
  GatewayTimeoutError,
  MethodNotAllowedError,
  NotFoundError,
  ServiceUnavailableError,
} from '../../errors.js';
import type { Logger } from '../../log.js';
import { allowedMethods, type RouteIndex } from '../fast-path/route-index.js';
import { toApiError } from '../../db/to-api-error.js';

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) return next(err);
    const apiError = toApiError(err);
    if (apiError instanceof DatabaseUnavailableError) {
      // One short line per request during an outage; the cause is the same for all of them.
      log.warn(
        { req_id: res.locals.reqId, method: req.method, path: req.path, reason: (err as Error).message?.slice(0, 120) },
        'database unavailable',
      );
    } else if (
      apiError instanceof ServiceUnavailableError ||
      apiError instanceof BadGatewayError ||
      apiError instanceof GatewayTimeoutError
    ) {
      // An expected condition the answer names (no daemon manager, a camera not capturing, a peer
      // down): one line without a stack, so a polling client does not fill the log with errors.
      log.warn(
        {
          req_id: res.locals.reqId,
          method: req.method,
          path: req.path,
          status: apiError.status,
          reason: apiError.message,
        },
        'request not served',
      );
    } else if (apiError.status >= 500) {
      log.error({ err, req_id: res.locals.reqId, method: req.method, path: req.path }, 'request failed');
    }
    if (apiError instanceof MethodNotAllowedError) res.setHeader('Allow', apiError.allowed.join(', '));
    if (apiError instanceof ServiceUnavailableError && apiError.retryAfterSecs !== null) {
      res.setHeader('Retry-After', String(apiError.retryAfterSecs));
    }
    res.status(apiError.status).json(apiError.toEnvelope());
  };
}

/** Unmatched requests: 405 when the path exists under another method, else a JSON 404. */
export function notFoundOrWrongMethod(app: Express, index: RouteIndex): RequestHandler {
  return (req, _res, next) => {
    const allowed = allowedMethods(app, index, req.path);
    if (allowed.length > 0 && !allowed.includes(req.method)) return next(new MethodNotAllowedError(allowed));
    next(new NotFoundError(`No route for ${req.method} ${req.path.slice(0, 200)}`, [['path', req.path.slice(0, 200)]]));
  };
}
