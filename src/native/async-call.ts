// Promise-returning native calls: the rejection comes from a libuv callback with no JS frames, so
// the caller's stack is captured before the call (as sharp does) and put on the error.

import { callNative } from './load.js';

export function callNativeAsync<T>(api: (...args: never[]) => unknown, start: () => Promise<T>): Promise<T> {
  const site: { stack?: string } = {};
  Error.captureStackTrace(site, api);
  // A synchronous native throw (a backstop argument check) already has the caller's stack.
  const promise = callNative(api, start);
  return promise.catch((err: unknown) => {
    if (err instanceof Error && site.stack) {
      const frames = site.stack.slice(site.stack.indexOf('\n'));
      err.stack = `${err.name}: ${err.message}${frames}`;
    }
    throw err;
  });
}
