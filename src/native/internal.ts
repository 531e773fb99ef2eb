// Cross-module access inside the facade (not re-exported from index.ts): what a native consumer
// attaching to a StreamClient (LlHlsPackager) needs from it.

import type { RawStreamClient } from './binding.js';

export interface StreamClientInternals {
  raw: RawStreamClient;
  /** A native tap is attached: media stops crossing into JS unless a JS listener wants it. Returns the release. */
  retainTap(): () => void;
}

export const streamClientInternals = new WeakMap<object, StreamClientInternals>();
