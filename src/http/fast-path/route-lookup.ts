// The per-request route lookup: the query-token marker, the limiter and compression's filter each
// ask the media table about the same request's path in turn (media-table.ts's routeFor), so the
// last answer is kept. The answer depends on the path alone; the cache is one path deep.

/** `match` with its last answer kept for a repeated path. */
export function lastPathLookup<R>(match: (path: string) => R | undefined): (path: string) => R | undefined {
  let lastPath: string | undefined;
  let lastAnswer: R | undefined;
  return (path) => {
    if (path !== lastPath) {
      lastAnswer = match(path);
      lastPath = path;
    }
    return lastAnswer;
  };
}
