// The one route table for what tsoa does not serve: every media route (recorded playback, live
// HLS, live images), the WebRTC WebSocket and the socket.io push endpoint. The app registers the express handlers from it and decides from it
// which requests take `?token=`, skip compression and skip the global limiter; the OpenAPI build
// (scripts/openapi-post.mjs) merges its operations into the tsoa document. Adding a media route =
// one entry in its feature's list (with its OpenAPI operation), nothing here.
import type { RequestHandler, Router } from 'express';
import type { AuthUser } from '../auth/auth-service.js';
import { requirePolicy } from '../auth/authentication.js';
import { PLAYBACK_ROUTES } from '../features/playback/playback-routes.js';
import { RECORDING_ROUTES } from '../features/recordings/recording-routes.js';
import { LIVE_IMAGE_ROUTES } from '../features/live/live-image-routes.js';
import { LIVE_ROUTES } from '../features/live/live-routes.js';
import { WEBRTC_ROUTE } from '../features/live/webrtc/upgrade.js';
import { PUSH_ROUTE } from '../features/push/push-openapi.js';
import { forwardToOwner, ownerParam } from '../infra/cluster/cluster-proxy.js';
import { error } from '../media/openapi-parts.js';
import type { MediaRoute, OpenApiOperation } from '../media/media-route.js';
import type { Services } from '../registry.js';
import { lastPathLookup } from './fast-path/route-lookup.js';

/** In registration order (a feature's catch-all, such as a live `{segment}`, after its fixed names). */
export const MEDIA_ROUTES: readonly MediaRoute[] = [
  ...PLAYBACK_ROUTES,
  ...RECORDING_ROUTES,
  ...LIVE_IMAGE_ROUTES,
  ...LIVE_ROUTES,
  WEBRTC_ROUTE,
  PUSH_ROUTE,
];

const matchers = MEDIA_ROUTES.map((route) => ({
  route,
  re: new RegExp(`^${route.path.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`),
}));

/** The table's entry for a request path (no query string), if any (the last answer is kept). */
export const routeFor = lastPathLookup((path) => matchers.find((m) => m.re.test(path))?.route);

/** Media answers: never compressed, never counted by the global limiter. */
export function isMediaPath(path: string): boolean {
  const route = routeFor(path);
  return route !== undefined && !route.compress && !route.limited;
}

/** `?token=` is honoured only on GET (and HEAD) of a route whose entry says so. */
export function acceptsQueryToken(method: string, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && routeFor(path)?.queryToken === true;
}

/** Marks each request that may carry its token as `?token=` (read by src/auth/authentication.ts). */
export const markQueryToken: RequestHandler = (req, _res, next) => {
  req.queryTokenAllowed = acceptsQueryToken(req.method, req.path);
  next();
};

/** Registers the express-served entries on the app itself (an unmatched method is then a 405). */
export function registerMediaRoutes(app: Router, services: Services): void {
  for (const route of MEDIA_ROUTES) {
    if (route.serve !== 'express' || !route.handler) continue;
    const serve = route.handler;
    // Multi-server: a monitor/event/frame owned by another host is forwarded there (streaming proxy).
    const handler: RequestHandler = async (req, res) => {
      if (await forwardToOwner(services, route.path, req, res)) return;
      await serve(services, req, res, req.user as AuthUser);
    };
    app.get(route.path.replace(/\{(\w+)\}/g, ':$1'), requirePolicy(route.policy), handler);
  }
}

/** The table's OpenAPI path items, for the build to merge into the tsoa document. */
export function mediaOpenapiPaths(): Record<string, { get: OpenApiOperation }> {
  const paths: Record<string, { get: OpenApiOperation }> = {};
  for (const route of MEDIA_ROUTES) {
    if (!route.openapi) continue;
    // Multi-server: what is owned by another host is forwarded there, which may fail as a gateway does.
    const forwarded = ownerParam(route.path) !== null;
    paths[route.path] = {
      get: forwarded
        ? {
            ...route.openapi,
            responses: {
              ...(route.openapi.responses as Record<string, unknown>),
              502: error('Multi-server: the server owning this cannot be reached (the envelope names it)'),
              504: error('Multi-server: the server owning this did not answer in time (the envelope names it)'),
            },
          }
        : route.openapi,
    };
  }
  return paths;
}
