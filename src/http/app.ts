// Builds the express application: middleware order, the tsoa routes, the explorer and the
// error envelope. It starts nothing; src/server.ts owns the listener and the pool.
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import compression from 'compression';
import type { Services } from '../registry.js';
import { RegisterRoutes } from '../generated/routes.js';
import { cors } from './middleware/cors.js';
import { requestLog } from './middleware/request-log.js';
import { metricsEndpoint } from './metrics-endpoint.js';
import { bucketLimiter, tokenBucket } from './middleware/rate-limit.js';
import { securityHeaderList, securityHeaders } from './middleware/security-headers.js';
import { COMPRESS_THRESHOLD_BYTES } from './fast-path/kept-encoding.js';
import { openDoor } from './fast-path/door.js';
import { sendJsonOnce } from './fast-path/json-once.js';
import { errorHandler, notFoundOrWrongMethod } from './middleware/errors.js';
import { forwardOwnedControl } from '../infra/cluster/cluster-proxy.js';
import { markQueryToken, registerMediaRoutes, routeFor } from './media-table.js';
import { integerRanges, jsonDepthLimit } from './middleware/request-shape.js';
import { inOrder, under } from './fast-path/in-order.js';
import { refuseMalformed } from './middleware/request-target.js';
import { explorerRouter } from './explorer.js';
import { RouteIndex } from './fast-path/route-index.js';
import { registerDemoPage } from '../features/ui/demo-page.js';
import { registerWebUi } from '../features/ui/web-ui.js';
import { openapiDocument, readOpenapiDocument } from '../openapi/document.js';
import { ReadCaches } from '../infra/read-cache/read-caches.js';

export const OPENAPI_PATH = '/api-docs/openapi.json';

/** JSON answers are compressed; media routes never are (Range and streaming pass through): the route table says which. */
export function compressible(req: Request, res: Response): boolean {
  return routeFor(req.originalUrl.split('?')[0])?.compress !== false && compression.filter(req, res);
}

export interface AppOptions {
  /** The hot-read lane (fast-path/hot-reads.ts); off only to compare its answers with the full chain's. */
  hotReads?: boolean;
}

export function createApp(services: Services, options: AppOptions = {}): Express {
  const { config, log } = services;
  const compress = config.server.middleware.compression;
  const app = express();
  app.locals.services = services;
  app.disable('x-powered-by');
  // One proxy hop is trusted only when configured; otherwise X-Forwarded-For is ignored.
  app.set('trust proxy', config.server.middleware.trust_proxy_headers ? 1 : false);
  app.set('etag', false);
  // Cached answers are sent as the JSON body they carry, in a kept compressed form where the
  // compression middleware would compress (fast-path/json-once.ts).
  sendJsonOnce(app, compress ? compressible : undefined);

  // A write through the API empties the read caches before its answer leaves, so the client's
  // next read sees it (infra/read-cache/read-caches.ts).
  const caches = services.get(ReadCaches);
  const invalidateOnWrite: RequestHandler = (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS') {
      const writeHead = res.writeHead;
      res.writeHead = function (this: Response, ...args: unknown[]) {
        caches.invalidate();
        return (writeHead as (...a: unknown[]) => Response).apply(this, args);
      } as typeof res.writeHead;
    }
    next();
  };
  const headers = securityHeaderList(config.server);
  const document = JSON.parse(readOpenapiDocument().toString('utf8'));
  const limiter = bucketLimiter(config.server.middleware.rate_limit);
  // The door, express's entry point: the polled reads are answered there, before express's own
  // per-request set-up and everything below, when that gives the same answer (fast-path/).
  openDoor(app, {
    hotReads: options.hotReads !== false,
    services,
    document,
    limiter,
    securityHeaders: headers,
    compression: compress,
  });
  // Every request passes these, in this order (one layer: fast-path/in-order.ts).
  app.use(
    inOrder(
      requestLog(log, services.metrics),
      under('/api', invalidateOnWrite),
      securityHeaders(headers),
      cors(config.server.allowed_origins),
      // Before the limiter, authentication and routing: marked at the door above.
      refuseMalformed,
      markQueryToken,
      tokenBucket(limiter, (path) => routeFor(path)?.limited === false),
      // Multi-server: control routes of another host's monitor go there, before their body is parsed.
      forwardOwnedControl(services),
    ),
  );
  // Prometheus metrics on this listener, unless they have one of their own (server.ts).
  if (config.metrics.enabled && config.metrics.port === 0) {
    const endpoint = metricsEndpoint(services.metrics, config.metrics.bearer_token);
    app.all(config.metrics.path, (req, res) => endpoint(req, res));
  }
  if (compress) {
    app.use(['/api', '/api-docs'], compression({ filter: compressible, threshold: COMPRESS_THRESHOLD_BYTES }));
  }
  // Credential guessing is throttled far more tightly than everything else: the login, and the
  // password change (it checks the current password), each with a bucket of its own. /me,
  // refresh and logout need a valid token and are what clients poll: the global limiter only.
  const loginLimiter = tokenBucket(config.auth.rate_limit);
  app.post('/api/v3/auth/login', loginLimiter);
  const passwordLimiter = tokenBucket(config.auth.rate_limit);
  app.put('/api/v3/me/password', passwordLimiter);
  app.use(
    '/api',
    express.json({
      limit: config.server.middleware.body_limit_bytes,
      type: ['application/json', 'application/*+json'],
    }),
  );
  app.use('/api', jsonDepthLimit());

  app.use(integerRanges(document));
  // The 1.7 MB document is kept in memory from its first request on, not from start-up.
  app.get(OPENAPI_PATH, (_req, res) => {
    res.type('application/json').setHeader('Cache-Control', 'no-cache').send(openapiDocument());
  });
  const explorer = config.server.explorer_path.replace(/\/+$/, '');
  // Relative asset URLs in the explorer page need the trailing slash.
  app.get(explorer, (req, res, next) => (req.path.endsWith('/') ? next() : res.redirect(301, `${explorer}/`)));
  app.use(explorer, explorerRouter(OPENAPI_PATH));

  // Media answers (video, stills, MJPEG) are not JSON: plain handlers beside the tsoa routes.
  // Both are grouped by their first path segment (fast-path/route-index.ts), media first as before.
  const routes = new RouteIndex();
  registerMediaRoutes(routes.registrar, services);
  RegisterRoutes(routes.registrar);
  app.use(routes.dispatch);
  if (config.web.demo_page) registerDemoPage(app);
  // Last before the JSON 404: the UI never shadows an API path.
  if (config.web.enabled) registerWebUi(app, config, log);

  app.use(notFoundOrWrongMethod(app, routes));
  app.use(errorHandler(log));
  return app;
}
