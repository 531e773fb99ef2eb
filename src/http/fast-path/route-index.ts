// The API's routes grouped by their first segment after /api/v3/, one express router per group.
// Express tries an app's routes one after another, so a request for /api/v3/events used to be
// matched against the ~250 routes registered before it (~20% of a bare express app's throughput
// at 300 routes, bench/README.md); here it is matched against the dozen of its own group only.
// Groups never overlap (a path has one first segment), and within a group the routes keep the
// order they were registered in, so which route answers a request does not change.
import express, { type Express, type RequestHandler, type Router } from 'express';

const PREFIX = '/api/v3/';
const VERBS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * The group of a path: its first segment after /api/v3/, lower-cased (route matching is
 * case-insensitive, express's default), or null outside /api/v3/.
 */
export function groupOf(path: string): string | null {
  if (path.length <= PREFIX.length || path.slice(0, PREFIX.length).toLowerCase() !== PREFIX) return null;
  const end = path.indexOf('/', PREFIX.length);
  return path.slice(PREFIX.length, end < 0 ? undefined : end).toLowerCase();
}

interface RouteLayer {
  route?: { methods?: Record<string, boolean> };
  match?: (path: string) => boolean;
}

/** Methods (upper-case) the routes on an express router's `stack` answer for `path`. */
export function routeMethods(router: unknown, path: string): string[] {
  const methods: string[] = [];
  for (const layer of (router as { stack?: RouteLayer[] } | undefined)?.stack ?? []) {
    if (!layer.route || typeof layer.match !== 'function' || !layer.match(path)) continue;
    for (const [m, on] of Object.entries(layer.route.methods ?? {}))
      if (on && m !== '_all') methods.push(m.toUpperCase());
  }
  return methods;
}

export class RouteIndex {
  private readonly groups = new Map<string, Router>();

  /** What RegisterRoutes (tsoa) and the media table register their routes on. */
  readonly registrar: Router;

  constructor() {
    const registrar: Record<string, unknown> = {};
    for (const verb of VERBS) {
      registrar[verb] = (path: string, ...handlers: RequestHandler[]) => {
        const group = groupOf(path);
        if (group === null || group.startsWith(':') || group === '') {
          throw new Error(`route ${path} is not under ${PREFIX}<literal segment>`);
        }
        let router = this.groups.get(group);
        if (!router) this.groups.set(group, (router = express.Router()));
        router[verb](path, ...handlers);
        return registrar;
      };
    }
    this.registrar = registrar as unknown as Router;
  }

  /** Hands a request to its group's router; anything else goes on down the app. */
  readonly dispatch: RequestHandler = (req, res, next) => {
    const group = groupOf(req.path);
    const router = group === null ? undefined : this.groups.get(group);
    if (router) router(req, res, next);
    else next();
  };

  /** Methods some route of the index answers for `path` (for 405's Allow). */
  methodsFor(path: string): string[] {
    const group = groupOf(path);
    return routeMethods(group === null ? undefined : this.groups.get(group), path);
  }
}

/** Methods registered for `path` on the app's own router (express 5's app.router) and the index (for 405's Allow). */
export function allowedMethods(app: Express, index: RouteIndex, path: string): string[] {
  const methods = new Set([
    ...routeMethods((app as unknown as { router?: unknown }).router, path),
    ...index.methodsFor(path),
  ]);
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
