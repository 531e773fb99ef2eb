// The recorded-playback media routes, served by plain express handlers (tsoa answers JSON only):
// entries of the route table (src/http/media-table.ts), each GET, gated by the Events feature
// (token from the header or `?token=`), then the event's row ACL in the services; their OpenAPI
// operations are in playback-openapi.ts. `/events/{id}/info` is JSON and lives in
// EventPlaybackController.
import type { Request, Response } from 'express';
import type { AuthUser } from '../../auth/auth-service.js';
import type { ServedBody } from './event-playback-service.js';
import { playbackFor, type Playback } from './playback.js';
import { playbackPaths } from './playback-openapi.js';
import { mediaRoute, type MediaRoute } from '../../media/media-route.js';
import { serveBytes } from '../../media/byte-ranges.js';
import { eventIdParam, singleQuery } from '../../media/path-ids.js';
import { SYNOPSIS_ROUTES } from './synopsis-routes.js';

type Handler = (p: Playback, req: Request, res: Response, user: AuthUser) => Promise<void>;

/** A playback entry: the handler gets the app's playback parts. */
const route = (path: string, handler: Handler): MediaRoute =>
  mediaRoute(path, 'events', playbackPaths[path]?.get, (s, req, res, user) => handler(playbackFor(s), req, res, user));

const idParam = (req: Request, name = 'id') => eventIdParam(req.params[name], name);

const query = (req: Request, name: string) => singleQuery(req.query, name);

const serve = (req: Request, res: Response, body: ServedBody) =>
  serveBytes(req, res, body.source, {
    cacheControl: body.cacheControl,
    // The name is built from the numeric id and a checked extension: nothing to escape.
    headers: body.filename ? { 'Content-Disposition': `inline; filename="${body.filename}"` } : {},
  });

export const PLAYBACK_ROUTES: MediaRoute[] = [
  route('/api/v3/events/{id}/video', async (p, req, res, user) =>
    serve(req, res, await p.videos.original(user, idParam(req))),
  ),
  route('/api/v3/events/{id}/thumbnail', async (p, req, res, user) =>
    serve(req, res, await p.stills.thumbnail(user, idParam(req))),
  ),
  route('/api/v3/events/{id}/stream/video.mp4', async (p, req, res, user) =>
    serve(req, res, await p.videos.fragmented(user, idParam(req))),
  ),
  route('/api/v3/events/{id}/stream/media.mp4', async (p, req, res, user) =>
    serve(req, res, await p.videos.fragmented(user, idParam(req))),
  ),
  route('/api/v3/events/{id}/stream/playlist.m3u8', async (p, req, res, user) => {
    const text = await p.videos.playlist(user, idParam(req), query(req, 'token'));
    res.type('application/vnd.apple.mpegurl').setHeader('Cache-Control', 'no-cache');
    res.send(text);
  }),
  route('/api/v3/events/{id}/stream/init.mp4', async (p, req, res, user) =>
    serve(req, res, await p.videos.init(user, idParam(req))),
  ),
  route('/api/v3/events/{id}/stream/segment/{seq}', async (p, req, res, user) =>
    serve(req, res, await p.videos.segment(user, idParam(req), String(req.params.seq))),
  ),
  route('/api/v3/events/{id}/stream/mjpeg', async (p, req, res, user) => {
    const { frames, options } = await p.mjpeg.plan(user, idParam(req), query(req, 'speed'));
    await p.paced.write(res, frames, options);
  }),
  route('/api/v3/events/{id}/frames/{fid}/image', async (p, req, res, user) =>
    serve(req, res, await p.stills.frameImage(user, idParam(req), String(req.params.fid), query(req, 'type'))),
  ),
  route('/api/v3/frames/{id}/image', async (p, req, res, user) =>
    serve(req, res, await p.stills.frameRowImage(user, idParam(req), query(req, 'type'))),
  ),
  ...SYNOPSIS_ROUTES,
];
