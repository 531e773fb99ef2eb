// The live HLS routes, served by plain express handlers (tsoa answers JSON only), like the
// playback routes. Each is GET (HEAD alike), gated on Stream View through requirePolicy (token
// from the header or `?token=`: media-routes.ts lists these paths, so they are never compressed
// nor counted by the global limiter), then the monitor's row ACL in the service. Declared in
// the OpenAPI document by scripts/openapi-live.mjs (test/live/routes.test.ts checks that the lists agree).
import type { Express, Request, RequestHandler, Response } from 'express';
import type { AuthUser } from '../../auth/auth-service.js';
import { requirePolicy } from '../../auth/authentication.js';
import { InvalidInputError } from '../../errors.js';
import { LiveHlsService, type HlsFile } from './live-hls-service.js';
import type { Services } from '../../registry.js';

type Handler = (hls: LiveHlsService, req: Request, res: Response, user: AuthUser) => Promise<void>;

export interface LiveRoute {
  operationId: string;
  /** OpenAPI form, `{name}` parameters. */
  path: string;
  handler: Handler;
}

const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl';
const NO_STORE = 'no-cache, no-store, must-revalidate';
// Names are unique within a session and URIs carry the session (`?s=`): safe to keep.
const IMMUTABLE = 'max-age=31536000';

function monitorId(req: Request): number {
  const raw = String(req.params.monitor_id ?? '');
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > 2147483647) {
    throw new InvalidInputError('Invalid input', [['monitor_id', 'must be an integer >= 0']]);
  }
  return Number(raw);
}

/** The query token, when the request carried one (it is then put into the playlist's URIs). */
function queryToken(req: Request): string | undefined {
  const t = req.query.token;
  return typeof t === 'string' && t !== '' ? t : undefined;
}

function searchParams(req: Request): URLSearchParams {
  const i = req.originalUrl.indexOf('?');
  return new URLSearchParams(i < 0 ? '' : req.originalUrl.slice(i + 1));
}

function sendPlaylist(res: Response, text: string): void {
  res.status(200).type(PLAYLIST_TYPE).setHeader('Cache-Control', NO_STORE);
  res.send(text);
}

function sendFile(res: Response, file: HlsFile): void {
  res.status(200).setHeader('Content-Type', file.contentType);
  // `init.mp4` follows the current generation (a zmc restart makes a new init): never kept.
  res.setHeader('Cache-Control', file.current ? 'no-cache' : IMMUTABLE);
  res.setHeader('Content-Length', String(file.body.length));
  res.end(file.body);
}

const serveFile: Handler = async (hls, req, res, user) => sendFile(res, await hls.file(user, monitorId(req), String(req.params.segment ?? 'init.mp4')));

export const LIVE_ROUTES: LiveRoute[] = [
  {
    operationId: 'getLiveMasterPlaylist',
    path: '/api/v3/live/{monitor_id}/hls/master.m3u8',
    handler: async (hls, req, res, user) => sendPlaylist(res, await hls.master(user, monitorId(req), queryToken(req))),
  },
  {
    operationId: 'getLiveMediaPlaylist',
    path: '/api/v3/live/{monitor_id}/hls/live.m3u8',
    handler: async (hls, req, res, user) => sendPlaylist(res, await hls.media(user, monitorId(req), searchParams(req), queryToken(req))),
  },
  {
    operationId: 'getLiveInitSegment',
    path: '/api/v3/live/{monitor_id}/hls/init.mp4',
    handler: serveFile,
  },
  {
    operationId: 'getLiveSegment',
    path: '/api/v3/live/{monitor_id}/hls/{segment}',
    handler: serveFile,
  },
];

/** Registers the routes on the app itself, in this order (the `{segment}` catch-all last). */
export function registerLiveRoutes(app: Express, services: Services): void {
  const gate = requirePolicy('stream:View');
  for (const route of LIVE_ROUTES) {
    const handler: RequestHandler = (req, res) => route.handler(services.get(LiveHlsService), req, res, req.user as AuthUser);
    app.get(route.path.replace(/\{(\w+)\}/g, ':$1'), gate, handler);
  }
}
