// The tiny live demo page (`web.demo_page`, on in `npm run demo`): GET /demo/ shows every monitor
// live (LL-HLS through hls.js when the live routes offer it, else the shared-memory MJPEG stream)
// with a snapshot refreshed every 4 s. Static files from assets/demo plus hls.js from its package.
// The page logs in as admin/admin, which only the throwaway demo database has: never enable it
// on a real installation.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Express, Response } from 'express';

import { packageRoot } from '../../paths.js';

// The API's own CSP ('none' everywhere) would block the page; this one allows exactly what it uses.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "media-src 'self' blob:; connect-src 'self'; worker-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function hlsScript(): string | null {
  try {
    return createRequire(import.meta.url).resolve('hls.js/dist/hls.min.js');
  } catch {
    return null; // not installed: the page uses the MJPEG stream
  }
}

export function registerDemoPage(app: Express): void {
  const dir = join(packageRoot, 'assets', 'demo');
  const hls = hlsScript();
  const send = (res: Response, file: string | null, type: string) => {
    if (!file) {
      res.status(404).type('text/plain').send('not available');
      return;
    }
    res.setHeader('Content-Security-Policy', CSP);
    res.setHeader('Cache-Control', 'no-cache');
    res.type(type).sendFile(file);
  };
  // Non-strict routing: '/demo' also matches '/demo/', which must fall through to the page.
  app.get('/demo', (req, res, next) => (req.originalUrl.split('?')[0]!.endsWith('/') ? next() : res.redirect(301, '/demo/')));
  app.get('/demo/', (_req, res) => send(res, join(dir, 'index.html'), 'html'));
  app.get('/demo/demo.js', (_req, res) => send(res, join(dir, 'demo.js'), 'js'));
  app.get('/demo/hls.min.js', (_req, res) => send(res, hls, 'js'));
}
