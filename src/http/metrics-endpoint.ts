// GET /metrics: the Prometheus exposition (docs/operations/metrics.md). A plain node handler, so
// the same code answers on the main listener (mounted by app.ts) and on the separate one
// (`metrics.port`, started by server.ts). With `metrics.bearer_token` set, a scrape must send it.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InternalError, MethodNotAllowedError, NotFoundError, UnauthorizedError, type ApiError } from '../errors.js';
import type { Metrics } from '../metrics.js';

function sendError(res: ServerResponse, error: ApiError, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(error.toEnvelope());
  res.writeHead(error.status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** Constant-time comparison of the Authorization header with `Bearer <token>`. */
function authorized(header: string | undefined, token: string): boolean {
  const want = Buffer.from(`Bearer ${token}`);
  const got = Buffer.from(header ?? '');
  return got.length === want.length && timingSafeEqual(got, want);
}

/** `path`: answer only there, 404 elsewhere (the separate listener; the app routes by itself). */
export function metricsEndpoint(metrics: Metrics, token: string, path?: string) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (path !== undefined && (req.url ?? '').split('?')[0] !== path) {
      sendError(res, new NotFoundError('Not found'));
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendError(res, new MethodNotAllowedError(['GET', 'HEAD']), { Allow: 'GET, HEAD' });
      return;
    }
    if (token && !authorized(req.headers.authorization, token)) {
      sendError(res, new UnauthorizedError('A valid metrics token is required'), { 'WWW-Authenticate': 'Bearer' });
      return;
    }
    metrics.render().then(
      ({ contentType, body }) => {
        res.writeHead(200, {
          'Content-Type': contentType,
          'Content-Length': Buffer.byteLength(body),
          'Cache-Control': 'no-store',
        });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => sendError(res, new InternalError()),
    );
  };
}
