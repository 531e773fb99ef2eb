// Loading the addon (zmgate.node): lazy, cached per root, with an actionable message when the
// build is missing or was made for another ABI. Only src/native/* imports this module.

import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NativeBinding } from './binding.js';
import { ZmNativeError } from './errors.js';

/** Where the addon came from and what it reports, for diagnostics (e.g. a `--version` line). */
export interface NativeInfo {
  path: string;
  version: string;
  napiVersion: number;
}

interface NodeGypBuild {
  resolve(dir: string): string;
}

interface Loaded {
  binding: NativeBinding;
  path: string;
}

// node-gyp-build and .node files are CommonJS-only.
const require = createRequire(import.meta.url);

/** The package root: src/native/index.ts (tsx) and dist/native/index.js (tsc) both sit two levels below it. */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

// Keyed by root so tests can load a copy from elsewhere without disturbing the default one.
const loaded = new Map<string, Loaded>();

function load(root: string): Loaded {
  const cached = loaded.get(root);
  if (cached) return cached;

  let path: string | undefined;
  let binding: NativeBinding;
  try {
    // node-gyp-build's search: build/Release, build/Debug, then prebuilds/<platform>-<arch>/.
    path = (require('node-gyp-build') as NodeGypBuild).resolve(root);
    binding = require(path) as NativeBinding;
  } catch (cause) {
    throw new Error(loadFailureMessage(root, path, cause), { cause });
  }
  binding.initialize(ZmNativeError);
  const entry = { binding, path };
  loaded.set(root, entry); // failures are not cached: a later build can still be picked up
  return entry;
}

function loadFailureMessage(root: string, found: string | undefined, cause: unknown): string {
  // node-gyp-build lets ZMGATE_PREBUILD (named after the package) redirect the search.
  const dir = process.env.ZMGATE_PREBUILD || root;
  const tuple = `${process.platform}-${process.arch}`;
  const runtime = `Node.js ${process.version} (ABI ${process.versions.modules}, N-API ${process.versions.napi}, ${tuple})`;
  const what = found
    ? `The native addon zmgate.node was found at ${found} but could not be loaded into ${runtime}.`
    : `The native addon zmgate.node was not found: it is not built for ${runtime}.`;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return [
    what,
    `Searched: ${join(dir, 'build', 'Release')}, ${join(dir, 'build', 'Debug')}, ${join(dir, 'prebuilds', tuple)}.`,
    'Fix: run `npm run build:native` (cmake-js; needs cmake and a C++17 compiler),',
    `  or \`npm run prebuild\` to create prebuilds/${tuple}/zmgate.node.`,
    `Cause: ${reason.trim()}`,
  ].join('\n');
}

// A native throw has no JS frames of its own; re-capture at the facade boundary so the stack
// starts at our caller. Done on the failure path only: for a synchronous call the stack at
// catch time is the stack at call time, and the success path pays nothing.
export function callNative<T>(
  api: ((...args: never[]) => unknown) | (abstract new (...args: never[]) => unknown),
  call: () => T,
): T {
  try {
    return call();
  } catch (err) {
    if (err instanceof Error) Error.captureStackTrace(err, api);
    throw err;
  }
}

/**
 * The raw, unvalidated addon (loaded on first call, then cached). For tests and diagnostics:
 * application code uses the typed functions. `root` (default: this package) selects another
 * directory to load from; tests use it to load a prebuild from a copy without build/.
 */
export function loadBinding(root: string = PACKAGE_ROOT): NativeBinding {
  return load(root).binding;
}

/** Where the addon was loaded from, and what it reports. Loads it if needed. */
export function nativeInfo(root: string = PACKAGE_ROOT): NativeInfo {
  const { binding, path } = load(root);
  return { path, version: binding.version(), napiVersion: binding.napiVersion() };
}
