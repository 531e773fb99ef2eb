// The recorded-playback media routes, served by plain express handlers (tsoa answers JSON only).
// Each is GET (HEAD answered alike), gated by the Events feature through requirePolicy (token
// from the header or `?token=`: media-routes.ts lists these paths), then the event's row ACL in
// the services. They are declared in the OpenAPI document by the OpenAPI pass
// (scripts/openapi-playback.mjs); test/playback/access.test.ts checks that the two lists agree.
// `/events/{id}/info` is JSON and lives in EventPlaybackController.
import type { Express, Request, RequestHandler, Response } from 'express';
import type { AuthUser } from '../../auth/auth-service.js';
import { requirePolicy } from '../../auth/authentication.js';
import { InvalidInputError } from '../../errors.js';
import { parseEventId } from './event-media.js';
import type { ServedBody } from './event-playback-service.js';
import { playbackFor, type Playback } from './playback.js';
import type { Services } from '../../registry.js';
import { serveBytes } from '../../media/byte-ranges.js';
import { writePacedMjpeg } from '../../media/mjpeg.js';

type Handler = (p: Playback, req: Request, res: Response, user: AuthUser) => Promise<void>;

export interface PlaybackRoute {
  operationId: string;
  /** OpenAPI form, `{id}` parameters. */
  path: string;
  handler: Handler;
}

function idParam(req: Request, name = 'id'): bigint {
  const id = parseEventId(String(req.params[name] ?? ''));
  if (id === null) throw new InvalidInputError('Invalid input', [[name, 'must be an integer >= 0']]);
  return id;
}

/** A single-valued query parameter (a repeated one is refused, not guessed at). */
function query(req: Request, name: string): string | undefined {
  const v = req.query[name];
  if (v === undefined || typeof v === 'string') return v;
  throw new InvalidInputError('Invalid input', [[name, 'must be given once']]);
}

const serve = (req: Request, res: Response, body: ServedBody) =>
  serveBytes(req, res, body.source, {
    cacheControl: body.cacheControl,
    // The name is built from the numeric id and a checked extension: nothing to escape.
    headers: body.filename ? { 'Content-Disposition': `inline; filename="${body.filename}"` } : {},
  });

export const PLAYBACK_ROUTES: PlaybackRoute[] = [
  {
    operationId: 'getEventVideo',
    path: '/api/v3/events/{id}/video',
    handler: async (p, req, res, user) => serve(req, res, await p.videos.original(user, idParam(req))),
  },
  {
    operationId: 'getEventThumbnail',
    path: '/api/v3/events/{id}/thumbnail',
    handler: async (p, req, res, user) => serve(req, res, await p.stills.thumbnail(user, idParam(req))),
  },
  {
    operationId: 'getEventStreamVideo',
    path: '/api/v3/events/{id}/stream/video.mp4',
    handler: async (p, req, res, user) => serve(req, res, await p.videos.fragmented(user, idParam(req))),
  },
  {
    operationId: 'getEventStreamMedia',
    path: '/api/v3/events/{id}/stream/media.mp4',
    handler: async (p, req, res, user) => serve(req, res, await p.videos.fragmented(user, idParam(req))),
  },
  {
    operationId: 'getEventPlaylist',
    path: '/api/v3/events/{id}/stream/playlist.m3u8',
    handler: async (p, req, res, user) => {
      const text = await p.videos.playlist(user, idParam(req), query(req, 'token'));
      res.type('application/vnd.apple.mpegurl').setHeader('Cache-Control', 'no-cache');
      res.send(text);
    },
  },
  {
    operationId: 'get_event_init',
    path: '/api/v3/events/{id}/stream/init.mp4',
    handler: async (p, req, res, user) => serve(req, res, await p.videos.init(user, idParam(req))),
  },
  {
    operationId: 'get_event_segment',
    path: '/api/v3/events/{id}/stream/segment/{seq}',
    handler: async (p, req, res, user) => serve(req, res, await p.videos.segment(user, idParam(req), String(req.params.seq))),
  },
  {
    operationId: 'getEventMjpegStream',
    path: '/api/v3/events/{id}/stream/mjpeg',
    handler: async (p, req, res, user) => {
      const { frames, options } = await p.mjpeg.plan(user, idParam(req), query(req, 'speed'));
      await writePacedMjpeg(res, frames, options);
    },
  },
  {
    operationId: 'getEventFrameImage',
    path: '/api/v3/events/{id}/frames/{fid}/image',
    handler: async (p, req, res, user) => serve(req, res, await p.stills.frameImage(user, idParam(req), String(req.params.fid), query(req, 'type'))),
  },
  {
    operationId: 'getFrameImage',
    path: '/api/v3/frames/{id}/image',
    handler: async (p, req, res, user) => serve(req, res, await p.stills.frameRowImage(user, idParam(req), query(req, 'type'))),
  },
];

/** Registers the routes on the app itself (so an unmatched method on them is a 405, not a 404). */
export function registerPlaybackRoutes(app: Express, services: Services): void {
  const gate = requirePolicy('events');
  for (const route of PLAYBACK_ROUTES) {
    const handler: RequestHandler = (req, res) => route.handler(playbackFor(services), req, res, req.user as AuthUser);
    app.get(route.path.replace(/\{(\w+)\}/g, ':$1'), gate, handler);
  }
}
