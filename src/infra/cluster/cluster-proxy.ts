// Multi-server: media requests for a monitor, an event or a frame owned by another host (and the
// JSON routes acting on such a monitor's daemon or camera) are forwarded to that host as a
// streaming reverse proxy (docs/operations/multi-server.md):
// - the answer is piped, never buffered: back-pressure from the client reaches the peer's socket;
// - the client going away aborts the upstream request (the peer stops its reader or file);
// - the request's Range/conditional headers and its credentials (Authorization or ?token=) go as
//   they came, the peer checks the row ACL itself;
// - the peer has `cluster.proxy_timeout_secs` to connect and send its status line (a blocking
//   LL-HLS reload gets the 5 s it may block on top); otherwise 504, and a refused or broken
//   connection is 502, both with the error envelope naming the peer;
// - a request already forwarded once is always served where it lands (no loops when two hosts
//   disagree about the owner for a moment).
// The WebRTC signalling WebSocket is forwarded the same way at the upgrade: the handshake goes to
// the owner with the caller's credentials, its answer (101, or a refusal with its envelope) comes
// back as it was sent, and after a 101 the two sockets are joined byte for byte both ways.
import http, { type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { pipeline, type Duplex } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import { BadGatewayError, GatewayTimeoutError, type ErrorDetails } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Services } from '../../registry.js';
import { ClusterService, type OwnedKind, type Peer } from './cluster-service.js';

/** Marks a forwarded request (its value: the forwarding host's Servers.Id). */
export const FORWARDED_HEADER = 'x-zmgate-forwarded-by';
const API_PREFIX = '/api/v3';
/** How long a blocking LL-HLS playlist reload may wait on the owner (the live HLS service's limit). */
const BLOCKING_RELOAD_MS = 5000;

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

/** Which table entries belong to a monitor, an event or a frame, and the path parameter naming it. */
export function ownerParam(path: string): { kind: OwnedKind; param: string } | null {
  if (/^\/api\/v3\/events\/\{id\}\//.test(path)) return { kind: 'event', param: 'id' };
  if (/^\/api\/v3\/frames\/\{id\}\//.test(path)) return { kind: 'frame', param: 'id' };
  if (/^\/api\/v3\/(live|monitors)\/\{monitor_id\}\//.test(path)) return { kind: 'monitor', param: 'monitor_id' };
  return null;
}

function peerDetails(peer: Peer): ErrorDetails {
  return [
    ['server_id', String(peer.id)],
    ['server_name', peer.name],
  ];
}

function requestHeaders(req: IncomingMessage, selfId: number, target: URL, proto: string): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const connectionListed = String(req.headers.connection ?? '')
    .toLowerCase()
    .split(',')
    .map((s) => s.trim());
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || connectionListed.includes(name)) continue;
    out[name] = value;
  }
  out.host = target.host;
  const prior = req.headers['x-forwarded-for'];
  out['x-forwarded-for'] = prior
    ? `${String(prior)}, ${req.socket.remoteAddress ?? ''}`
    : (req.socket.remoteAddress ?? '');
  out['x-forwarded-host'] = req.headers.host ?? '';
  out['x-forwarded-proto'] = proto;
  out[FORWARDED_HEADER] = String(selfId);
  return out;
}

function responseHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

/** The peer's URL for a path under the API prefix; 502 when the peer published no address. */
function peerTarget(peer: Peer, apiPath: string): URL {
  if (!peer.url) {
    throw new BadGatewayError(
      `Server "${peer.name}" (id ${peer.id}) owns this and has no address: it published no URL and its Servers row has no Hostname`,
      peerDetails(peer),
    );
  }
  return new URL(peer.url.replace(/\/+$/, '') + apiPath.slice(API_PREFIX.length));
}

/** Forwards the request to the peer and pipes the answer back; rejects (before any byte is sent) with 502/504. */
export function forward(
  peer: Peer,
  req: Request,
  res: Response,
  o: { selfId: number; timeoutMs: number; log: Logger },
) {
  return new Promise<void>((resolve, reject) => {
    let target: URL;
    try {
      target = peerTarget(peer, req.originalUrl);
    } catch (err) {
      reject(err);
      return;
    }
    const blocking = '_HLS_msn' in (req.query as Record<string, unknown>);
    const limitMs = o.timeoutMs + (blocking ? BLOCKING_RELOAD_MS : 0);
    const lib = target.protocol === 'https:' ? https : http;
    let answered = false;
    const upstream = lib.request(target, {
      method: req.method,
      headers: requestHeaders(req, o.selfId, target, req.protocol),
      agent: target.protocol === 'https:' ? agents.https : agents.http,
    });
    const timer = setTimeout(() => {
      upstream.destroy();
      if (answered) return;
      answered = true;
      reject(
        new GatewayTimeoutError(
          `Server "${peer.name}" (id ${peer.id}) owns this and did not answer within ${Math.round(limitMs / 1000)} s`,
          peerDetails(peer),
        ),
      );
    }, limitMs);
    // The client went away: abort the upstream request, so the peer stops too.
    const onClientClose = () => {
      if (res.writableFinished) return;
      clearTimeout(timer);
      upstream.destroy();
      if (!answered) {
        answered = true;
        resolve();
      }
    };
    res.once('close', onClientClose);
    upstream.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (answered) return;
      answered = true;
      o.log.warn(
        { server_id: peer.id, url: target.origin, err: { message: err.message, code: err.code } },
        'multi-server: peer unreachable',
      );
      reject(
        new BadGatewayError(
          `Server "${peer.name}" (id ${peer.id}) owns this and cannot be reached (${err.code ?? 'connection failed'})`,
          peerDetails(peer),
        ),
      );
    });
    upstream.once('response', (ures) => {
      clearTimeout(timer);
      if (answered) {
        ures.destroy();
        return;
      }
      answered = true;
      const headers = responseHeaders(ures.headers);
      // As an HTTP proxy does: the answer says it came through this host.
      headers.via = [ures.headers.via, `1.1 zmgate-${o.selfId}`].filter(Boolean).join(', ');
      res.writeHead(ures.statusCode ?? 502, headers);
      res.flushHeaders();
      pipeline(ures, res, (err) => {
        res.off('close', onClientClose);
        if (err) {
          upstream.destroy();
          o.log.debug(
            { server_id: peer.id, err: { message: err.message } },
            'multi-server: forwarded answer ended early',
          );
        }
        resolve();
      });
    });
    // A control request's body (JSON, not parsed yet) streams on as it came.
    if (req.method === 'GET' || req.method === 'HEAD') upstream.end();
    else req.pipe(upstream);
  });
}

/**
 * Wraps a media route's handling: when the monitor/event/frame it names belongs to another host,
 * the request is forwarded there and true is returned; false means serve it here.
 */
export async function forwardToOwner(
  services: Services,
  routePath: string,
  req: Request,
  res: Response,
): Promise<boolean> {
  const owned = ownerParam(routePath);
  if (!owned) return false;
  return forwardIfOwned(services, owned.kind, req.params[owned.param], req, res);
}

async function forwardIfOwned(
  services: Services,
  kind: OwnedKind,
  raw: unknown,
  req: Request,
  res: Response,
): Promise<boolean> {
  if (req.headers[FORWARDED_HEADER] !== undefined) return false;
  const cluster = services.get(ClusterService);
  if (!cluster.configured) return false;
  const id = typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id <= 0) return false;
  const peer = await cluster.ownerPeer(kind, id);
  if (!peer) return false;
  await forward(peer, req, res, {
    selfId: cluster.self?.Id ?? 0,
    timeoutMs: services.config.cluster.proxy_timeout_secs * 1000,
    log: services.log,
  });
  return true;
}

/**
 * The JSON routes that act on a monitor's capture daemon, shared memory or camera, which exist
 * only on the owning host: live sessions (start, stop, stats), alarm control, run state and PTZ.
 * Forwarded before the body is parsed, so it streams on unchanged; the owner checks the token.
 */
const CONTROL_ROUTES: readonly RegExp[] = [
  /^\/api\/v3\/live\/(\d+)\/(?:start|stop|stats)$/,
  /^\/api\/v3\/monitors\/(\d+)\/(?:alarm|state)$/,
  /^\/api\/v3\/ptz\/monitors\/(\d+)\/.+$/,
];

/** Middleware: forwards the control routes of monitors owned by another host. */
export function forwardOwnedControl(services: Services): RequestHandler {
  return (req, res, next) => {
    if (!services.get(ClusterService).configured) return next();
    const match = CONTROL_ROUTES.map((re) => re.exec(req.path)).find((m) => m !== null);
    if (!match) return next();
    forwardIfOwned(services, 'monitor', match[1], req, res).then(
      (forwarded) => (forwarded ? undefined : next()),
      (err: unknown) => next(err),
    );
  };
}

/** The status line and headers of an answer, as raw HTTP/1.1 text (for a socket taken over at an upgrade). */
function rawHead(status: number, message: string | undefined, headers: OutgoingHttpHeaders): string {
  let head = `HTTP/1.1 ${status} ${message ?? http.STATUS_CODES[status] ?? ''}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) head += `${name}: ${String(v)}\r\n`;
  }
  return head + '\r\n';
}

/**
 * Forwards a WebSocket upgrade to the peer. Resolves once the peer's answer is on its way to the
 * client (a 101 and the joined sockets, or the peer's refusal); rejects with 502/504 before
 * anything was written, so the caller answers with its own envelope.
 */
export function forwardUpgrade(
  peer: Peer,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  o: { selfId: number; timeoutMs: number; log: Logger; secure: boolean },
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let target: URL;
    try {
      target = peerTarget(peer, req.url ?? '/');
    } catch (err) {
      reject(err);
      return;
    }
    const lib = target.protocol === 'https:' ? https : http;
    const headers = requestHeaders(req, o.selfId, target, o.secure ? 'https' : 'http');
    headers.connection = 'Upgrade';
    headers.upgrade = String(req.headers.upgrade ?? 'websocket');
    let settled = false;
    // A socket taken over by an upgrade is not given back to a pool: no agent.
    const upstream = lib.request(target, { method: 'GET', headers, agent: false });
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      upstream.destroy();
      reject(err);
    };
    const timer = setTimeout(
      () =>
        fail(
          new GatewayTimeoutError(
            `Server "${peer.name}" (id ${peer.id}) owns this and did not answer within ${Math.round(o.timeoutMs / 1000)} s`,
            peerDetails(peer),
          ),
        ),
      o.timeoutMs,
    );
    // The client left before the peer answered: drop the upstream handshake.
    const onClientClose = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      upstream.destroy();
      resolve();
    };
    socket.once('close', onClientClose);
    upstream.once('error', (err: NodeJS.ErrnoException) => {
      if (settled) return;
      o.log.warn(
        { server_id: peer.id, url: target.origin, err: { message: err.message, code: err.code } },
        'multi-server: peer unreachable',
      );
      fail(
        new BadGatewayError(
          `Server "${peer.name}" (id ${peer.id}) owns this and cannot be reached (${err.code ?? 'connection failed'})`,
          peerDetails(peer),
        ),
      );
    });
    upstream.once('upgrade', (ures: IncomingMessage, usocket: Duplex, uhead: Buffer) => {
      if (settled) {
        usocket.destroy();
        return;
      }
      settled = true;
      clearTimeout(timer);
      socket.off('close', onClientClose);
      const out: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(ures.headers)) if (value !== undefined) out[name] = value;
      out.via = [ures.headers.via, `1.1 zmgate-${o.selfId}`].filter(Boolean).join(', ');
      socket.write(rawHead(ures.statusCode ?? 101, ures.statusMessage, out));
      if (uhead.length > 0) socket.write(uhead);
      if (head.length > 0) usocket.write(head);
      // Either side closing or failing ends both.
      const end = () => {
        socket.destroy();
        usocket.destroy();
      };
      socket.on('error', end);
      usocket.on('error', end);
      socket.once('close', end);
      usocket.once('close', end);
      socket.pipe(usocket);
      usocket.pipe(socket);
      resolve();
    });
    // The peer refused the upgrade (its envelope) or answered without one: pass it on and close.
    upstream.once('response', (ures: IncomingMessage) => {
      if (settled) {
        ures.destroy();
        return;
      }
      settled = true;
      clearTimeout(timer);
      socket.off('close', onClientClose);
      const out = responseHeaders(ures.headers);
      out.connection = 'close';
      out.via = [ures.headers.via, `1.1 zmgate-${o.selfId}`].filter(Boolean).join(', ');
      socket.write(rawHead(ures.statusCode ?? 502, ures.statusMessage, out));
      pipeline(ures, socket, () => resolve());
    });
    upstream.end();
  });
}

/**
 * The WebRTC signalling upgrade of a monitor owned by another host (after this host checked the
 * caller): forwarded there and true returned; false means serve it here.
 */
export async function forwardOwnedUpgrade(
  services: Services,
  monitorId: number,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<boolean> {
  if (req.headers[FORWARDED_HEADER] !== undefined) return false;
  const cluster = services.get(ClusterService);
  if (!cluster.configured) return false;
  const peer = await cluster.ownerPeer('monitor', monitorId);
  if (!peer) return false;
  await forwardUpgrade(peer, req, socket, head, {
    selfId: cluster.self?.Id ?? 0,
    timeoutMs: services.config.cluster.proxy_timeout_secs * 1000,
    log: services.log,
    secure: 'encrypted' in socket && Boolean((socket as { encrypted?: boolean }).encrypted),
  });
  return true;
}
