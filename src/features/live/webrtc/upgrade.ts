// Upgrade-time checks of /api/v3/live/{monitor_id}/webrtc/ws, in the order the REST routes apply
// them: token (401), Stream View (403), path id (400), row ACL (404 MONITOR_NOT_FOUND), then the
// live source (503 when streaming is off, 404 with reason "stream socket not available"). Browsers
// cannot set headers on a WebSocket, so the token may come as `?token=` (docs/contract/clients.md).
// A refusal is a complete HTTP response with the error envelope, then the socket is closed.
// A plain GET (no Upgrade header) never reaches the upgrade event: express serves it through the
// same table entry, so it meets the same gates (401, 403, 400, 404) and is then refused with a 400,
// as the reference's WebSocketUpgrade extractor refuses it behind its Stream gate and monitor guard.
import type { IncomingMessage } from 'node:http';
import type { AuthService, AuthUser } from '../../../auth/auth-service.js';
import { canSee, monitorNotFound, type MonitorAcl } from '../../../auth/monitor-acl.js';
import { allows } from '../../../auth/permissions.js';
import type { MediaRoute } from '../../../media/media-route.js';
import { monitorIdParam } from '../../../media/path-ids.js';
import { webrtcPaths } from './webrtc-openapi.js';
import { BadRequestError, NotFoundError, PermissionDeniedError, UnauthorizedError } from '../../../errors.js';

export const WEBRTC_WS_PATH = /^\/api\/v3\/live\/([^/]+)\/webrtc\/ws\/?$/;

/** Its entry in the route table: upgrades are served on the listener's upgrade event; express answers plain GETs. */
export const WEBRTC_ROUTE: MediaRoute = {
  path: '/api/v3/live/{monitor_id}/webrtc/ws',
  operationId: 'webrtcSignalingStream',
  policy: 'stream:View',
  serve: 'express',
  handler: async (services, req, _res, user) => {
    const id = monitorIdParam(req.params.monitor_id);
    if (!canSee(await services.acl.scope(user), id)) throw monitorNotFound(id);
    throw notAnUpgrade(req.headers.upgrade);
  },
  queryToken: true,
  compress: false,
  limited: false,
  openapi: webrtcPaths['/api/v3/live/{monitor_id}/webrtc/ws'].get,
};

export interface UpgradeAuth {
  auth: Pick<AuthService, 'authenticate'>;
  acl: Pick<MonitorAcl, 'scope'>;
}

export interface UpgradeTarget {
  path: string;
  /** The raw path segment where the monitor id goes. */
  monitorSegment: string | null;
  authorization: string | undefined;
  queryToken: string | null;
}

/** Splits the request URL; `monitorSegment` null when the path is not the WebRTC route. */
export function upgradeTarget(req: IncomingMessage): UpgradeTarget {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const match = WEBRTC_WS_PATH.exec(url.pathname);
  let segment: string | null;
  try {
    segment = match ? decodeURIComponent(match[1]) : null;
  } catch {
    segment = match ? match[1] : null; // bad %-escape: left as is, refused as an invalid id
  }
  return {
    path: url.pathname,
    monitorSegment: segment,
    authorization: req.headers.authorization,
    queryToken: url.searchParams.get('token'),
  };
}

/** The header wins over the query, as on the REST routes. */
function tokenOf(target: UpgradeTarget): string {
  if (target.authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(target.authorization);
    if (!match) throw new UnauthorizedError('Malformed Authorization header');
    return match[1];
  }
  if (target.queryToken) return target.queryToken;
  throw new UnauthorizedError('Missing Authorization header');
}

/** Authenticates and authorises the caller for this monitor's live video; returns the monitor id. */
export async function authoriseUpgrade(
  target: UpgradeTarget,
  deps: UpgradeAuth,
): Promise<{ user: AuthUser; monitorId: number }> {
  const user = await deps.auth.authenticate(tokenOf(target));
  if (!allows(user.perms, 'stream', 'View')) {
    throw new PermissionDeniedError('View permission on stream required', [
      ['feature', 'stream'],
      ['required', 'View'],
    ]);
  }
  const id = monitorIdParam(target.monitorSegment ?? undefined);
  if (!canSee(await deps.acl.scope(user), id)) throw monitorNotFound(id);
  return { user, monitorId: id };
}

const notAnUpgrade = (upgrade: string | undefined) =>
  new BadRequestError('Only WebSocket upgrades are served', [['upgrade', String(upgrade ?? '')]]);

/**
 * What `ws` would refuse with a plain-text 400, checked first so the answer is an envelope:
 * the method, the Upgrade header, the key and the protocol version (RFC 6455 §4.2.1).
 */
export function handshakeProblem(req: IncomingMessage): BadRequestError | null {
  if (req.method !== 'GET')
    return new BadRequestError('A WebSocket upgrade must use GET', [['method', String(req.method)]]);
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return notAnUpgrade(req.headers.upgrade);
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || !/^[+/0-9A-Za-z]{22}==$/.test(key.trim()))
    return new BadRequestError('Missing or invalid Sec-WebSocket-Key', [['header', 'sec-websocket-key']]);
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8')
    return new BadRequestError('Unsupported WebSocket version; use 13', [['header', 'sec-websocket-version']]);
  return null;
}

export function routeNotFound(path: string): NotFoundError {
  return new NotFoundError(`No route for GET ${path.slice(0, 200)}`, [['path', path.slice(0, 200)]]);
}
