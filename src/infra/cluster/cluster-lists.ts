// Multi-server lists (docs/operations/multi-server.md): `?scope=cluster` on /live/sessions,
// /live/sources and /daemons answers with every host's list. This host asks each peer for its own
// list (same path, no scope, the caller's Authorization, marked as forwarded), all at once, each
// bounded by `cluster.proxy_timeout_secs`; a peer that fails is reported in the answer, never
// fails the list. Each peer applies the caller's permissions and ACL itself.
import type { Request } from 'express';
import { ApiError } from '../../errors.js';
import type { Services } from '../../registry.js';
import { FORWARDED_HEADER } from './cluster-proxy.js';
import { ClusterService, type Peer } from './cluster-service.js';

/** `local` (default): this host only; `cluster`: every host of a multi-server install. */
export type ListScope = 'local' | 'cluster';

/** One host's part in a cluster-wide list. */
export interface ClusterServerStatus {
  /**
   * Servers.Id of the host.
   * @isInt
   * @minimum 0
   */
  server_id: number;
  server_name: string;
  /**
   * `ok`: its items are in the list; `unreachable`: no connection (as a 502); `timeout`: no answer
   * within the proxy timeout (as a 504); `error`: it answered with an error (`http_status`, `message`).
   */
  status: 'ok' | 'unreachable' | 'timeout' | 'error';
  /**
   * The status of the host's error answer.
   * @isInt
   */
  http_status?: number;
  message?: string;
}

/** The answer header listing the hosts missing from a cluster-wide list: `<id> <name> <status>`, comma-separated. */
export const INCOMPLETE_HEADER = 'X-Zmgate-Cluster-Incomplete';

export interface ClusterPart<T> {
  server: ClusterServerStatus;
  /** The host's list; null when it failed. */
  body: T | null;
}

function failed(server: Omit<ClusterServerStatus, 'status'>, err: unknown): ClusterServerStatus {
  if (err instanceof ApiError) return { ...server, status: 'error', http_status: err.status, message: err.message };
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError')
    return { ...server, status: 'timeout', message: 'no answer within the proxy timeout' };
  return {
    ...server,
    status: 'unreachable',
    message: e.cause?.code ?? e.cause?.message ?? e.message ?? 'connection failed',
  };
}

async function fromPeer<T>(peer: Peer, path: string, req: Request, selfId: number, timeoutMs: number): Promise<T> {
  if (!peer.url) throw new Error('no address published');
  const headers: Record<string, string> = { accept: 'application/json', [FORWARDED_HEADER]: String(selfId) };
  if (req.headers.authorization) headers.authorization = req.headers.authorization;
  const url = peer.url.replace(/\/+$/, '') + path;
  const signal = AbortSignal.timeout(timeoutMs);
  let res: globalThis.Response;
  try {
    res = await fetch(url, { headers, signal });
  } catch (err) {
    // A pooled connection the peer closed just then fails at once: one more try on a new one.
    if (signal.aborted) throw err;
    res = await fetch(url, { headers, signal });
  }
  const text = await res.text();
  if (!res.ok) {
    let message = text.slice(0, 200);
    try {
      message = String((JSON.parse(text) as { error_message?: string }).error_message ?? message);
    } catch {
      // not an envelope
    }
    throw new ApiError(res.status, 'PEER_ERROR', message);
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ApiError(res.status, 'PEER_ERROR', 'the answer is not JSON');
  }
}

/**
 * Every host's list: this host's (`local()`) and each peer's (GET `path` under its API base).
 * Null on a single server (the caller answers its local list as is). This host's own 503 (a
 * feature switched off here) is reported like a peer's error; other local errors propagate.
 */
export async function clusterParts<T>(
  services: Services,
  req: Request,
  path: string,
  local: () => Promise<T> | T,
): Promise<Array<ClusterPart<T>> | null> {
  const cluster = services.get(ClusterService);
  if (!cluster.configured) return null;
  const peers = await cluster.currentPeers();
  const self = cluster.self;
  if (!self) return null;
  const timeoutMs = services.config.cluster.proxy_timeout_secs * 1000;
  const own = { server_id: self.Id, server_name: self.Name };
  const mine = (async (): Promise<ClusterPart<T>> => {
    try {
      return { server: { ...own, status: 'ok' }, body: await local() };
    } catch (err) {
      if (err instanceof ApiError && err.status === 503) return { server: failed(own, err), body: null };
      throw err;
    }
  })();
  const theirs = peers.map(async (peer): Promise<ClusterPart<T>> => {
    const server = { server_id: peer.id, server_name: peer.name };
    try {
      return { server: { ...server, status: 'ok' }, body: await fromPeer<T>(peer, path, req, self.Id, timeoutMs) };
    } catch (err) {
      const status = failed(server, err);
      services.log.warn({ server_id: peer.id, status: status.status }, 'multi-server: a peer’s list is missing');
      return { server: status, body: null };
    }
  });
  const parts = await Promise.all([mine, ...theirs]);
  return parts.sort((x, y) => x.server.server_id - y.server.server_id);
}

/** The value of INCOMPLETE_HEADER for these parts; undefined when every host answered. */
export function incompleteHeader(parts: Array<ClusterPart<unknown>>): string | undefined {
  const missing = parts
    .filter((p) => p.server.status !== 'ok')
    .map((p) => `${p.server.server_id} ${encodeURIComponent(p.server.server_name)} ${p.server.status}`);
  return missing.length > 0 ? missing.join(', ') : undefined;
}

/**
 * A list route under `scope`: the local list as is, or, for `cluster` on a multi-server install,
 * every host's parts joined by `merge`; the hosts missing from it go into INCOMPLETE_HEADER.
 */
export async function clusterList<T, M>(
  services: Services,
  req: Request,
  scope: ListScope | undefined,
  route: { path: string; local: () => Promise<T> | T; merge: (parts: Array<ClusterPart<T>>) => M },
  setHeader: (name: string, value: string) => void,
): Promise<T | M> {
  const parts = wantsCluster(req, scope) ? await clusterParts(services, req, route.path, route.local) : null;
  if (!parts) return route.local();
  const missing = incompleteHeader(parts);
  if (missing) setHeader(INCOMPLETE_HEADER, missing);
  return route.merge(parts);
}

/** Every host's items (`items` picks them from its list), each marked with its host. */
export function itemsByServer<T, I extends object>(
  parts: Array<ClusterPart<T>>,
  items: (body: T) => I[],
): Array<I & { server_id: number; server_name: string }> {
  return parts.flatMap(({ server, body }) =>
    (body ? items(body) : []).map((i) => ({ ...i, server_id: server.server_id, server_name: server.server_name })),
  );
}

/** Whether a request asked for the whole cluster and is not itself another host's fan-out. */
export function wantsCluster(req: Request, scope: ListScope | undefined): boolean {
  return scope === 'cluster' && req.headers[FORWARDED_HEADER] === undefined;
}
