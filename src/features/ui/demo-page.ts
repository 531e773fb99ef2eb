// The tiny live demo page (`web.demo_page`, on in `npm run demo`): GET /demo/ shows every monitor
// live (LL-HLS through hls.js when the live routes offer it, else the shared-memory MJPEG stream)
// with a snapshot refreshed every 4 s, and alarms and events as the push socket sends them. Static
// files from assets/demo plus hls.js and the socket.io client from their packages.
// The page logs in as admin/admin, which only the throwaway demo database has: never enable it
// on a real installation.
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';

import type { Express, Response } from 'express';

import { packageRoot } from '../../paths.js';

// The API's own CSP ('none' everywhere) would block the page; this one allows exactly what it uses.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "media-src 'self' blob:; connect-src 'self'; worker-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A browser bundle of a package; null when it is not installed (the page does without it). */
function packageScript(path: string): string | null {
  try {
    return createRequire(import.meta.url).resolve(path);
  } catch {
    return null;
  }
}

export function registerDemoPage(app: Express): void {
  const dir = join(packageRoot, 'assets', 'demo');
  const hls = packageScript('hls.js/dist/hls.min.js'); // absent: the page uses the MJPEG stream
  // socket.io-client does not export its browser bundle: find it beside the package's entry.
  const ioEntry = packageScript('socket.io-client');
  const ioRoot = ioEntry?.slice(0, ioEntry.lastIndexOf(`${sep}socket.io-client${sep}`) + '/socket.io-client/'.length);
  const socketIo = ioRoot ? join(ioRoot, 'dist', 'socket.io.min.js') : null;
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
  app.get('/demo', (req, res, next) =>
    req.originalUrl.split('?')[0]!.endsWith('/') ? next() : res.redirect(301, '/demo/'),
  );
  app.get('/demo/', (_req, res) => send(res, join(dir, 'index.html'), 'html'));
  app.get('/demo/demo.js', (_req, res) => send(res, join(dir, 'demo.js'), 'js'));
  app.get('/demo/hls.min.js', (_req, res) => send(res, hls, 'js'));
  app.get('/demo/socket.io.min.js', (_req, res) => send(res, socketIo, 'js'));
}
