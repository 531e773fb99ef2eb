// One JSON log record per request, with a request id. `token` query values are redacted.
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { redactUrl, type Logger } from '../../log.js';

export function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    const reqId = typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : randomUUID();
    res.locals.reqId = reqId;
    res.setHeader('X-Request-Id', reqId);
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info(
        {
          req_id: reqId,
          method: req.method,
          url: redactUrl(req.originalUrl),
          status: res.statusCode,
          duration_ms: Math.round(ms * 10) / 10,
          remote: req.ip,
        },
        'request',
      );
    });
    next();
  };
}
