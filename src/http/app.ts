// Builds the express application: middleware order, the tsoa routes, the explorer and the
// error envelope. It starts nothing; src/server.ts owns the listener and the pool.
import express, { type Express, type Request, type Response } from 'express';
import compression from 'compression';
import helmet from 'helmet';
import type { Services } from '../services/services.js';
import { RegisterRoutes } from '../generated/routes.js';
import { cors } from './middleware/cors.js';
import { requestLog } from './middleware/request-log.js';
import { tokenBucket } from './middleware/rate-limit.js';
import { errorHandler, notFoundOrWrongMethod } from './middleware/errors.js';
import { integerRanges, jsonDepthLimit } from './middleware/request-shape.js';
import { isMediaPath } from './media-routes.js';
import { explorerRouter } from './explorer.js';
import { registerPlaybackRoutes } from './playback-routes.js';
import { registerLiveImageRoutes } from './live-image-routes.js';
import { registerDemoPage } from './demo-page.js';
import { registerLiveRoutes } from './live-routes.js';
import { openapiDocument } from '../openapi/document.js';

export const OPENAPI_PATH = '/api-docs/openapi.json';

/** JSON answers are compressed; media routes never are (Range and streaming pass through). */
export function compressible(req: Request, res: Response): boolean {
  return !isMediaPath(req.originalUrl.split('?')[0]) && compression.filter(req, res);
}

export function createApp(services: Services): Express {
  const { config, log } = services;
  const app = express();
  app.locals.services = services;
  app.disable('x-powered-by');
  // One proxy hop is trusted only when configured; otherwise X-Forwarded-For is ignored.
  app.set('trust proxy', config.server.middleware.trust_proxy_headers ? 1 : false);
  app.set('etag', false);

  app.use(requestLog(log));
  app.use(
    helmet({
      contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] } },
      frameguard: { action: 'deny' },
      referrerPolicy: { policy: 'no-referrer' },
      strictTransportSecurity: config.server.tls.enabled || config.server.acme.enabled
        ? { maxAge: 31536000, includeSubDomains: true }
        : false,
      // Media is fetched cross-origin by <img>/<video> in UIs served elsewhere; CORS still guards reads.
      crossOriginResourcePolicy: { policy: 'cross-origin' },
    }),
  );
  app.use(cors(config.server.allowed_origins));
  app.use(tokenBucket(config.server.middleware.rate_limit, isMediaPath));
  if (config.server.middleware.compression) {
    app.use(['/api', '/api-docs'], compression({ filter: compressible }));
  }
  // Credential guessing is throttled far more tightly than everything else: the login, and the
  // password change (it checks the current password), each with a bucket of its own. /me,
  // refresh and logout need a valid token and are what clients poll: the global limiter only.
  const loginLimiter = tokenBucket(config.auth.rate_limit);
  app.post('/api/v3/auth/login', loginLimiter);
  const passwordLimiter = tokenBucket(config.auth.rate_limit);
  app.put('/api/v3/me/password', passwordLimiter);
  app.use('/api', express.json({ limit: config.server.middleware.body_limit_bytes, type: ['application/json', 'application/*+json'] }));
  app.use('/api', jsonDepthLimit());

  const spec = openapiDocument();
  app.use(integerRanges(JSON.parse(spec.toString('utf8'))));
  app.get(OPENAPI_PATH, (_req, res) => {
    res.type('application/json').setHeader('Cache-Control', 'no-cache').send(spec);
  });
  const explorer = config.server.explorer_path.replace(/\/+$/, '');
  // Relative asset URLs in the explorer page need the trailing slash.
  app.get(explorer, (req, res, next) => (req.path.endsWith('/') ? next() : res.redirect(301, `${explorer}/`)));
  app.use(explorer, explorerRouter(OPENAPI_PATH));

  // Media answers (video, stills, MJPEG) are not JSON: plain handlers beside the tsoa routes.
  registerPlaybackRoutes(app, services);
  registerLiveImageRoutes(app, services);
  registerLiveRoutes(app, services);
  RegisterRoutes(app);
  if (config.web.demo_page) registerDemoPage(app);

  app.use(notFoundOrWrongMethod(app));
  app.use(errorHandler(log));
  return app;
}
