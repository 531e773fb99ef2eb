// Checks a filter condition tree in a request body before tsoa's validator sees it. The tree is
// recursive: tsoa would report an unknown field as a long union mismatch and would recurse into
// any nesting depth (a deep enough body overflows the stack, a 500). checkFilterShape refuses
// both with a 400 naming the node, in bounded depth; tsoa then validates a tree of sane shape.
import type { RequestHandler } from 'express';
import { checkFilterShape } from './filter-query.js';

/** `at`: the body is the FilterQuery (`body`), or holds it in `filter` (optional there). */
export function filterShape(at: 'body' | 'body.filter'): RequestHandler {
  return (req, _res, next) => {
    try {
      const body = req.body as Record<string, unknown> | undefined;
      if (at === 'body') checkFilterShape(body);
      else if (body && typeof body === 'object' && body.filter != null) checkFilterShape(body.filter, 'filter.');
      next();
    } catch (err) {
      next(err);
    }
  };
}
