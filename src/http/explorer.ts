// The interactive API explorer: swagger-ui served from node_modules, configured so that the page
// makes no request to any other host (no validator badge, no fonts, no telemetry).
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express, { type Router } from 'express';

const require = createRequire(import.meta.url);
const assetsDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png']);

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

function page(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>zmgate API</title>
<link rel="stylesheet" href="swagger-ui.css">
<link rel="icon" type="image/png" href="favicon-32x32.png">
</head>
<body>
<div id="explorer"></div>
<script src="swagger-ui-bundle.js"></script>
<script src="explorer-init.js"></script>
</body>
</html>
`;
}

function initScript(specUrl: string): string {
  return `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(specUrl)},
  dom_id: '#explorer',
  validatorUrl: null,
  deepLinking: true,
  // Hundreds of operations: show the tags, expand on demand (rendering all at once is slow).
  docExpansion: 'none',
  persistAuthorization: false,
  tryItOutEnabled: false
});
`;
}

export function explorerRouter(specUrl: string): Router {
  const router = express.Router({ strict: true });
  router.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', CSP);
    next();
  });
  router.get('/', (_req, res) => {
    res.type('html').setHeader('Cache-Control', 'no-cache').send(page());
  });
  router.get('/explorer-init.js', (_req, res) => {
    res.type('application/javascript').setHeader('Cache-Control', 'no-cache').send(initScript(specUrl));
  });
  router.get('/:asset', (req, res, next) => {
    if (!ASSETS.has(req.params.asset)) return next();
    res.sendFile(req.params.asset, { root: assetsDir, maxAge: '1d' });
  });
  return router;
}
