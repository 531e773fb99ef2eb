// The live HLS routes, served by plain express handlers (tsoa answers JSON only), like the
// playback routes: entries of the route table (src/http/media-table.ts), each GET, gated on Stream
// View (token from the header or `?token=`; never compressed nor counted by the global limiter),
// then the monitor's row ACL in the service. Their OpenAPI operations are in live-openapi.ts.
import type { Request, Response } from 'express';
import type { AuthUser } from '../../auth/auth-service.js';
import { LiveHlsService, type HlsFile } from './live-hls-service.js';
import { mediaRoute, type MediaRoute } from '../../media/media-route.js';
import { monitorIdParam } from '../../media/path-ids.js';
import { livePaths } from './live-openapi.js';

type Handler = (hls: LiveHlsService, req: Request, res: Response, user: AuthUser) => Promise<number>;

/** A live HLS entry: the handler gets the app's LiveHlsService and returns the body's bytes (the live bytes metric). */
const route = (path: string, handler: Handler): MediaRoute =>
  mediaRoute(path, 'stream:View', livePaths[path]?.get, async (s, req, res, user) => {
    const bytes = await handler(s.get(LiveHlsService), req, res, user);
    if (s.metrics.enabled) s.metrics.liveBytes(monitorId(req), 'hls')(bytes);
  });

const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl';
const NO_STORE = 'no-cache, no-store, must-revalidate';
// Names are unique within a session and URIs carry the session (`?s=`): safe to keep.
const IMMUTABLE = 'max-age=31536000';

const monitorId = (req: Request) => monitorIdParam(req.params.monitor_id);

/** The query token, when the request carried one (it is then put into the playlist's URIs). */
function queryToken(req: Request): string | undefined {
  const t = req.query.token;
  return typeof t === 'string' && t !== '' ? t : undefined;
}

function searchParams(req: Request): URLSearchParams {
  const i = req.originalUrl.indexOf('?');
  return new URLSearchParams(i < 0 ? '' : req.originalUrl.slice(i + 1));
}

function sendPlaylist(res: Response, text: string): number {
  res.status(200).type(PLAYLIST_TYPE).setHeader('Cache-Control', NO_STORE);
  res.send(text);
  return Buffer.byteLength(text);
}

function sendFile(res: Response, file: HlsFile): number {
  res.status(200).setHeader('Content-Type', file.contentType);
  // `init.mp4` follows the current generation (a zmc restart makes a new init): never kept.
  res.setHeader('Cache-Control', file.current ? 'no-cache' : IMMUTABLE);
  res.setHeader('Content-Length', String(file.body.length));
  res.end(file.body);
  return file.body.length;
}

const serveFile: Handler = async (hls, req, res, user) =>
  sendFile(res, await hls.file(user, monitorId(req), String(req.params.segment ?? 'init.mp4')));

/** In this order: the `{segment}` catch-all last. */
export const LIVE_ROUTES: MediaRoute[] = [
  route('/api/v3/live/{monitor_id}/hls/master.m3u8', async (hls, req, res, user) =>
    sendPlaylist(res, await hls.master(user, monitorId(req), queryToken(req))),
  ),
  route('/api/v3/live/{monitor_id}/hls/live.m3u8', async (hls, req, res, user) =>
    sendPlaylist(res, await hls.media(user, monitorId(req), searchParams(req), queryToken(req))),
  ),
  route('/api/v3/live/{monitor_id}/hls/init.mp4', serveFile),
  route('/api/v3/live/{monitor_id}/hls/{segment}', serveFile),
];
