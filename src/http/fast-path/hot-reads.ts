// The hot-read lane: the list reads that clients poll every few seconds, answered before the
// app's middleware chain, the router and tsoa's plumbing, which were ~3/4 of a polled monitor
// list's CPU (bench/README.md, "The hot-read lane"). What it may answer, and the express internals
// it relies on, are in this folder's README.md.
//
// It runs before express (door.ts). A request takes the lane only when the lane's answer is the one
// the full chain would give: a GET of a polled read (a route-table line marked `[polled]`), with a
// Bearer token, no Origin (CORS), no body, no conditional headers, no wish for deflate (only brotli
// and gzip forms are kept), and no query parameters but the operation's integers and unconstrained
// strings, each at most once and not empty, integers as plain decimals within the document's
// bounds. Which parameters those are comes from the read's generated entry
// (src/generated/controllers/polled-reads.ts): only those its service call passes on. The work is
// done by the same code as on the full chain: the request log, the security headers, the global
// limiter, the token and policy check (authorizeToken) and the generated service call. When the
// lane does not answer (a bad or missing token, an empty bucket, an error from the service), the
// request goes down the full chain, which gives its usual answer. An error after the limiter took a
// token costs the caller a second token there; that is the only difference, on errors only.
// test/http/hot-reads.test.ts compares the lane's answers with the full chain's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Services } from '../../registry.js';
import type { PolledRead } from '../../features/controller-spec.js';
import { authorizeToken, bearerToken } from '../../auth/authentication.js';
import { encodedBody, jsonBodyOf } from '../../infra/read-cache/json-text.js';
import { keptEncoding, negotiatedEncoding } from './kept-encoding.js';
import { logRequest } from '../middleware/request-log.js';
import type { HeaderList } from '../middleware/security-headers.js';
import type { Limiter } from '../middleware/rate-limit.js';

/** A parameter the lane takes: an integer within bounds, or a string with no constraint at all. */
export type LaneParam = { kind: 'integer'; min: number; max: number } | { kind: 'string' };

interface Lane {
  read: PolledRead;
  scope: string;
  params: Map<string, LaneParam>;
  /** Counts the answer in the metrics, under the route's pattern (the lane's paths are fixed). */
  observe?: (status: number, seconds: number) => void;
}

interface OpenApiOperation {
  operationId?: string;
  parameters?: Array<{
    in: string;
    name: string;
    schema?: { type?: string; minimum?: number; maximum?: number; [constraint: string]: unknown };
  }>;
  security?: Array<Record<string, string[]>>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

export interface HotReadOptions {
  services: Services;
  document: OpenApiDocument;
  reads: readonly PolledRead[];
  limiter: Limiter;
  securityHeaders: HeaderList;
  /** Whether the compression middleware is on (it adds `Vary: Accept-Encoding`). */
  compression: boolean;
  /** The client's address as express's req.ip gives it (the limiter's key, the log's `remote`). */
  clientIp(req: IncomingMessage): string | undefined;
}

/** Runs on node's request and response, before express's own set-up (door.ts). */
export interface HotReadLane {
  (req: IncomingMessage, res: ServerResponse, next: () => void): void;
  /** Answers given by the lane so far (tests check which way a request went). */
  readonly answered: number;
}

/**
 * A polled read's path, policy scope and the query parameters the lane takes (the rest are left to
 * the full chain's validation). It refuses a read whose document parameters and generated call
 * differ: the lane takes only parameters the call passes on.
 */
export function laneOf(
  read: PolledRead,
  document: OpenApiDocument,
): { path: string; scope: string; params: Map<string, LaneParam> } {
  const found = Object.entries(document.paths).find(([, ops]) => ops.get?.operationId === read.operationId);
  if (!found) throw new Error(`hot read ${read.operationId}: no such GET operation`);
  const [path, ops] = found;
  const scope = ops.get.security?.[0]?.jwt;
  if (!scope || scope.length !== 1) throw new Error(`hot read ${read.operationId}: no jwt policy`);
  const documented = ops.get.parameters ?? [];
  const params = new Map<string, LaneParam>();
  for (const p of documented) {
    if (p.in !== 'query') throw new Error(`hot read ${read.operationId}: only fixed paths are handled`);
    if (!read.query.includes(p.name)) {
      throw new Error(`hot read ${read.operationId}: its call does not pass the query parameter ${p.name}`);
    }
    const schema = p.schema ?? {};
    if (schema.type === 'integer') {
      params.set(p.name, { kind: 'integer', min: schema.minimum ?? 0, max: schema.maximum ?? Number.MAX_SAFE_INTEGER });
    } else if (schema.type === 'string' && Object.keys(schema).length === 1) {
      // tsoa passes such a string through as it is; the service judges it.
      params.set(p.name, { kind: 'string' });
    }
    // Anything else (booleans, enums, formats, patterns) is left to the full chain's validation.
  }
  for (const name of read.query) {
    if (!documented.some((p) => p.name === name)) {
      throw new Error(`hot read ${read.operationId}: the document has no query parameter ${name}`);
    }
  }
  return { path, scope: scope[0], params };
}

const PLAIN_INTEGER = /^(0|[1-9]\d{0,14})$/;

export function hotReads(o: HotReadOptions): HotReadLane {
  const lanes = new Map<string, Lane>();
  for (const read of o.reads) {
    const { path, scope, params } = laneOf(read, o.document);
    const metrics = o.services.metrics;
    const observe = metrics.enabled
      ? (status: number, seconds: number) => metrics.request(path, 'GET', status, seconds, true)
      : undefined;
    lanes.set(path.toLowerCase(), { read, scope, params, observe });
  }
  const log = o.services.log;
  const counts = { answered: 0 };
  const vary = o.compression ? 'Origin, Accept-Encoding' : 'Origin';

  /**
   * The operation's query values, or undefined when the full chain must judge them. The query is
   * decoded as express decodes it (its default 'simple' parser is node's querystring.parse).
   */
  const queryOf = (lane: Lane, search: string): Record<string, number | string> | undefined => {
    const query: Record<string, number | string> = {};
    if (search === '') return query;
    for (const [name, raw] of Object.entries(parseQuery(search))) {
      const param = lane.params.get(name);
      // Repeated (an array) or empty values are left to the full chain too.
      if (!param || typeof raw !== 'string' || raw === '') return undefined;
      if (param.kind === 'string') {
        query[name] = raw;
        continue;
      }
      if (!PLAIN_INTEGER.test(raw)) return undefined;
      const value = Number(raw);
      if (value < param.min || value > param.max) return undefined;
      query[name] = value;
    }
    return query;
  };

  const answer = async (
    lane: Lane,
    query: Readonly<Record<string, number | string>>,
    req: IncomingMessage,
    res: ServerResponse,
    started: bigint,
  ) => {
    const user = await authorizeToken(o.services, bearerToken(req.headers.authorization ?? ''), lane.scope, 'GET');
    const ip = o.clientIp(req);
    if (o.limiter.enabled && o.limiter.take(ip ?? 'unknown') !== 0) return false;
    const value = await lane.read.answer(o.services, user, query);
    let body = jsonBodyOf(value);
    body ??= Buffer.from(JSON.stringify(value) ?? '', 'utf8');
    const encoding = o.compression ? keptEncoding(req, body.length) : undefined;
    if (encoding) body = encodedBody(body, encoding);
    // The logged duration counts from the request's arrival, as the full chain's does.
    logRequest(log, req, res, req.url ?? '', ip, started, lane.observe);
    for (const [name, v] of o.securityHeaders) res.setHeader(name, v);
    res.setHeader('Vary', vary);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    if (encoding) res.setHeader('Content-Encoding', encoding);
    res.setHeader('Content-Length', body.length);
    res.statusCode = 200;
    res.end(body);
    counts.answered++;
    return true;
  };

  const handler = (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    if (req.method !== 'GET') return next();
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const lane = lanes.get((q < 0 ? url : url.slice(0, q)).toLowerCase());
    if (!lane) return next();
    const h = req.headers;
    if (
      h.origin !== undefined ||
      h.authorization === undefined ||
      h['content-length'] !== undefined ||
      h['transfer-encoding'] !== undefined ||
      h['if-none-match'] !== undefined ||
      h['if-modified-since'] !== undefined
    ) {
      return next();
    }
    const query = queryOf(lane, q < 0 ? '' : url.slice(q + 1));
    if (!query) return next();
    // Only the kept forms are sent from here; a deflate-only client gets the middleware's.
    if (o.compression && negotiatedEncoding(req) === 'deflate') return next();
    answer(lane, query, req, res, process.hrtime.bigint()).then(
      (done) => done || next(),
      () => next(),
    );
  };
  return Object.defineProperty(handler, 'answered', { get: () => counts.answered }) as HotReadLane;
}
