// One entry of the route table for what tsoa does not serve (src/http/media-table.ts lists them
// all): media answers (video, stills, MJPEG, HLS) and the WebRTC WebSocket. Each feature declares its own entries,
// with the OpenAPI operation beside the handler; the app registers the handlers, the OpenAPI
// build merges the operations, and the flags decide `?token=`, compression and the limiter.
import type { Request, Response } from 'express';
import type { AuthUser } from '../auth/auth-service.js';
import type { Services } from '../registry.js';

export type MediaHandler = (services: Services, req: Request, res: Response, user: AuthUser) => Promise<void>;

/** An OpenAPI 3.0 operation object (the build upgrades the whole document to 3.1). */
export type OpenApiOperation = Record<string, unknown>;

export interface MediaRoute {
  /** OpenAPI form, `{name}` parameters; always GET (HEAD answered alike). */
  path: string;
  operationId: string;
  /** The feature policy, as in @Security('jwt', [policy]). */
  policy: string;
  /** Who serves it: a plain express `handler` here, or the listener's upgrade event (a WebSocket). */
  serve: 'express' | 'websocket';
  handler?: MediaHandler;
  /** The access token is also accepted as `?token=` (URLs of <img>, <video>, native HLS, WebSockets). */
  queryToken: boolean;
  /** JSON answers are compressed; media never is (ranges and streaming pass through). */
  compress: boolean;
  /** Counted by the global per-IP limiter (a live player makes several media requests a second). */
  limited: boolean;
  /** Its OpenAPI operation, merged into the document at build time. */
  openapi?: OpenApiOperation;
}

/**
 * A media answer served by a plain express handler: GET, the token also as `?token=`, never
 * compressed, not counted by the global limiter. The operationId is the OpenAPI operation's.
 */
export function mediaRoute(
  path: string,
  policy: string,
  openapi: OpenApiOperation | undefined,
  handler: MediaHandler,
): MediaRoute {
  if (!openapi) throw new Error(`media route ${path} has no OpenAPI operation`);
  return {
    path,
    operationId: String(openapi.operationId),
    policy,
    serve: 'express',
    handler,
    queryToken: true,
    compress: false,
    limited: false,
    openapi,
  };
}
