// The hot-read lane: the list reads that clients poll every few seconds, answered before the
// app's middleware chain, the router and tsoa's plumbing, which were ~3/4 of a polled monitor
// list's CPU (bench/README.md, "The hot-read lane").
//
// It runs before express (app.ts). A request takes the lane only when the lane's answer is the one
// the full chain would give: a GET of an operation in the table, with a Bearer token, no Origin
// (CORS), no body, no conditional headers, no wish for deflate (only brotli and
// gzip forms are kept), and no query parameters but the operation's integers and unconstrained
// strings, each at most once and not empty, integers as plain decimals within the document's
// bounds. The work is done by the same code as on the full
// chain: the request log, the security headers, the global limiter, the token and policy check
// (authorizeToken) and the feature's service method. When the lane does not answer (a bad or missing
// token, an empty bucket, an error from the service), the request goes down the full chain, which
// gives its usual answer. An error after the limiter took a token costs the caller a second token
// there; that is the only difference, on errors only.
// test/http/hot-reads.test.ts compares the lane's answers with the full chain's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Services } from '../registry.js';
import type { AuthUser } from '../auth/auth-service.js';
import { authorizeToken, bearerToken } from '../auth/authentication.js';
import { encodedBody, jsonBodyOf } from '../infra/read-cache/json-text.js';
import { keptEncoding, negotiatedEncoding } from './kept-encoding.js';
import { logRequest } from './middleware/request-log.js';
import type { HeaderList } from './middleware/security-headers.js';
import type { Limiter } from './middleware/rate-limit.js';

/** The values of the query parameters the lane handles (integers and plain strings). */
export type HotQuery = Readonly<Record<string, number | string | undefined>>;

export interface HotRead {
  /** The operation answered (its path, policy and parameters come from the OpenAPI document). */
  operationId: string;
  /**
   * The answer: the service call the operation's controller makes, given the parameters the lane
   * handles (the others are absent whenever the lane answers). Must not write.
   */
  answer(user: AuthUser, query: HotQuery): Promise<unknown>;
}

/** A parameter the lane takes: an integer within bounds, or a string with no constraint at all. */
type Param = { kind: 'integer'; min: number; max: number } | { kind: 'string' };

interface Lane {
  read: HotRead;
  scope: string;
  params: Map<string, Param>;
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

export interface HotReadOptions {
  services: Services;
  document: { paths: Record<string, Record<string, OpenApiOperation>> };
  reads: HotRead[];
  limiter: Limiter;
  securityHeaders: HeaderList;
  /** Whether the compression middleware is on (it adds `Vary: Accept-Encoding`). */
  compression: boolean;
  /** The client's address as express's req.ip gives it (the limiter's key, the log's `remote`). */
  clientIp(req: IncomingMessage): string | undefined;
}

/** Runs on node's request and response, before express's own set-up (app.ts). */
export interface HotReadLane {
  (req: IncomingMessage, res: ServerResponse, next: () => void): void;
  /** Answers given by the lane so far (tests check which way a request went). */
  readonly answered: number;
}

const PLAIN_INTEGER = /^(0|[1-9]\d{0,14})$/;

export function hotReads(o: HotReadOptions): HotReadLane {
  const lanes = new Map<string, Lane>();
  for (const read of o.reads) {
    const found = Object.entries(o.document.paths).find(([, ops]) => ops.get?.operationId === read.operationId);
    if (!found) throw new Error(`hot read ${read.operationId}: no such GET operation`);
    const [path, ops] = found;
    const scope = ops.get.security?.[0]?.jwt;
    if (!scope || scope.length !== 1) throw new Error(`hot read ${read.operationId}: no jwt policy`);
    const params = new Map<string, Param>();
    for (const p of ops.get.parameters ?? []) {
      if (p.in !== 'query') throw new Error(`hot read ${read.operationId}: only fixed paths are handled`);
      const schema = p.schema ?? {};
      if (schema.type === 'integer') {
        params.set(p.name, {
          kind: 'integer',
          min: schema.minimum ?? 0,
          max: schema.maximum ?? Number.MAX_SAFE_INTEGER,
        });
      } else if (schema.type === 'string' && Object.keys(schema).length === 1) {
        // tsoa passes such a string through as it is; the service judges it.
        params.set(p.name, { kind: 'string' });
      }
      // Anything else (booleans, enums, formats, patterns) is left to the full chain's validation.
    }
    const metrics = o.services.metrics;
    const observe = metrics.enabled
      ? (status: number, seconds: number) => metrics.request(path, 'GET', status, seconds, true)
      : undefined;
    lanes.set(path.toLowerCase(), { read, scope: scope[0], params, observe });
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

  const answer = async (lane: Lane, query: HotQuery, req: IncomingMessage, res: ServerResponse, started: bigint) => {
    const user = await authorizeToken(o.services, bearerToken(req.headers.authorization ?? ''), lane.scope, 'GET');
    const ip = o.clientIp(req);
    if (o.limiter.enabled && o.limiter.take(ip ?? 'unknown') !== 0) return false;
    const value = await lane.read.answer(user, query);
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
