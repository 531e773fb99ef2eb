// The import-direction check (run by the tests, test/architecture/imports.test.ts): inside src/,
// imports run one way, from the entry points down to the shared basics:
//   cli, server, devdb, sim → app → http → features → auth, db, media, live, native, openapi
//   → api, errors, config, log, paths, version
// Imports inside one layer are allowed; an import from a lower layer to a higher one is reported.
// It also reports a hand edit of a committed generated source (src/generated/controllers/ and dto/:
// the checksum on its first line no longer matches, scripts/generated-stamp.mjs).
// Prints one line per violation and exits 1 when there is any. `--json` prints them as JSON.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stampHolds } from './generated-stamp.mjs';

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

/** The committed generated sources whose checksum line no longer matches their text (edited by hand). */
export function handEdits() {
  const out = [];
  for (const dir of ['generated/controllers', 'generated/dto']) {
    for (const file of walk(join(src, dir)))
      if (!stampHolds(readFileSync(file, 'utf8'))) out.push(`src/${relative(src, file).split('\\').join('/')}`);
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const found = violations();
  const edited = handEdits();
  if (process.argv.includes('--json')) console.log(JSON.stringify({ imports: found, handEdits: edited }, null, 2));
  else {
    for (const v of found) console.log(`${v.file} imports ${v.imports} (a layer above it)`);
    for (const f of edited) console.log(`${f} was edited by hand (its checksum line no longer matches)`);
  }
  if (found.length)
    console.error(`${found.length} import(s) run back up; see the layer list in scripts/check-imports.mjs`);
  if (edited.length)
    console.error(`${edited.length} generated file(s) edited: change their tables instead, then npm run build:ts`);
  if (found.length || edited.length) process.exit(1);
  console.log('imports run one way; the generated sources are as generated');
}
