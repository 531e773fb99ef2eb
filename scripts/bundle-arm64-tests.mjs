// Bundles the native facade tests (TypeScript) into plain ES modules for scripts/test-arm64.sh.
// Under qemu-user there is no tsx: its esbuild binary is x86-64, and ava cannot fork a second
// emulated node (no binfmt in a container), so ava runs the bundles in worker threads.
// Output: build/arm64-tests/*.test.mjs, two directories below the package root like src/native/,
// so the facade's PACKAGE_ROOT (and the prebuilds/ it loads from) is this checkout.
// Usage: node scripts/bundle-arm64-tests.mjs <test file>...
import { rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// esbuild comes with tsx (a dev dependency).
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'build', 'arm64-tests');
rmSync(out, { recursive: true, force: true });
const entries = process.argv.slice(2).map((f) => join(root, f));
await esbuild.build({
  entryPoints: Object.fromEntries(entries.map((f) => [basename(f).replace(/\.ts$/, ''), f])),
  outdir: out,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  packages: 'external', // ava, node-gyp-build: resolved from node_modules at run time
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'inline', // failures point at the .ts lines (node --enable-source-maps)
  logLevel: 'error',
});
