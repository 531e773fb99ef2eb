// The import-direction check (run by the tests, test/architecture/imports.test.ts): inside src/,
// imports run one way, from the entry points down to the shared basics:
//   cli, server, devdb, sim → app → http → features → auth, db, media, live, native, openapi
//   → api, errors, config, log, paths, version
// Imports inside one layer are allowed; an import from a lower layer to a higher one is reported.
// Prints one line per violation and exits 1 when there is any. `--json` prints them as JSON.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

const LAYERS = [
  ['cli', 'server.ts', 'devdb', 'sim'],
  ['app'],
  ['http', 'generated/routes.ts'],
  ['features', 'generated/controllers'],
  ['auth', 'db', 'media', 'live', 'native', 'openapi'],
  ['api', 'errors.ts', 'config', 'log.ts', 'metrics.ts', 'paths.ts', 'version.ts', 'generated'],
];

/** The layer index of a path relative to src/ (the most specific entry wins). */
export function layerOf(rel) {
  let best = -1;
  let bestLen = -1;
  LAYERS.forEach((entries, i) => {
    for (const e of entries) {
      if ((rel === e || rel.startsWith(`${e}/`)) && e.length > bestLen) {
        best = i;
        bestLen = e.length;
      }
    }
  });
  return best;
}

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (p !== join(src, 'generated')) yield* walk(p);
    } else if (p.endsWith('.ts')) yield p;
  }
}

const SPEC =
  /(?:^|[\s;])(?:import|export)\s(?:[^'";]*?\sfrom\s*)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

export function violations() {
  const out = [];
  for (const file of walk(src)) {
    const rel = relative(src, file).split('\\').join('/');
    const from = layerOf(rel);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(SPEC)) {
      const spec = m[1] ?? m[2];
      const target = posix.normalize(posix.join(posix.dirname(rel), spec)).replace(/\.js$/, '.ts');
      if (target.startsWith('..')) continue; // outside src/ (package.json and the like)
      const to = layerOf(target);
      if (from >= 0 && to >= 0 && to < from) out.push({ file: `src/${rel}`, imports: `src/${target}` });
    }
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const found = violations();
  if (process.argv.includes('--json')) console.log(JSON.stringify(found, null, 2));
  else for (const v of found) console.log(`${v.file} imports ${v.imports} (a layer above it)`);
  if (found.length) {
    console.error(`${found.length} import(s) run back up; see the layer list in scripts/check-imports.mjs`);
    process.exit(1);
  }
  console.log('imports run one way');
}
