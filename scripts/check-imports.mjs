// The import-direction check (run by the tests, test/architecture/lint.test.ts): inside src/,
// imports run one way, from the entry points down to the shared basics. The layers, top down, and
// inside each layer its entries in order:
//   cli, server, devdb, sim → app → http, tsoa's routes → the generated controllers, features
//   → infra (read caches, cluster, ACME) → zm (the ZoneMinder kernel: event paths, clock, deletion,
//   timeline, visibility, shared-memory stills and alarm control)
//   → media, registry, auth, live-hub, db, native, openapi → api, errors, config, log, metrics, version,
//   paths, generated (the Prisma client, the DTOs)
// An entry may import itself, the entries after it in its layer and every lower layer; anything
// else is reported. Each folder of features/ is an entry of its own: a feature imports no other
// feature, but for the few edges of ALLOWED below (each with its reason). The files directly in
// features/ (the controller base, the table formats) are shared by every feature.
// It also reports files that import each other in a ring (type-only imports too), and a hand edit
// of a committed generated source (src/generated/controllers/ and dto/:
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
  ['generated/controllers', 'features'],
  ['infra'],
  ['zm'],
  ['media', 'registry.ts', 'auth', 'live-hub', 'db', 'native', 'openapi'],
  ['api', 'errors.ts', 'config', 'log.ts', 'metrics.ts', 'version.ts', 'paths.ts', 'generated'],
];

/** Imports the order above would refuse, each kept on purpose: [from, to (an entry or a feature), why]. */
export const ALLOWED = [
  ['features/filters', 'features/events', 'a saved filter is an event query: it runs the event list and its JSON'],
  ['features/lookups', 'features/monitors', 'presets are partial monitors and zones: they use those field tables'],
  ['features/monitors', 'features/daemons', "a monitor's mode change starts or stops its daemons"],
  ['features/recordings', 'features/playback', 'a recording found by time is played and stilled as its event is'],
  ['features/dto-tables.ts', 'features', 'the list of the wide field tables, for the DTO generator'],
  ['auth', 'registry.ts', "tsoa's authentication hook takes the request's services (a type)"],
];

/** The unit a path belongs to: `features/<folder>` for a feature, else the most specific entry. */
function unitOf(rel) {
  const parts = rel.split('/');
  if (parts[0] === 'features' && parts.length > 2) return `features/${parts[1]}`;
  return entryOf(rel)?.entry ?? null;
}

/** The most specific entry of LAYERS that holds a path relative to src/, with its place. */
function entryOf(rel) {
  let best = null;
  LAYERS.forEach((entries, layer) => {
    entries.forEach((entry, index) => {
      if ((rel === entry || rel.startsWith(`${entry}/`)) && (!best || entry.length > best.entry.length))
        best = { entry, layer, index };
    });
  });
  return best;
}

/** The layer index of a path relative to src/ (the most specific entry wins), or -1. */
export function layerOf(rel) {
  return entryOf(rel)?.layer ?? -1;
}

const allowed = (fromRel, toRel) =>
  ALLOWED.some(
    ([from, to]) =>
      (fromRel === from || fromRel.startsWith(`${from}/`)) && (toRel === to || toRel.startsWith(`${to}/`)),
  );

/** Whether an import from `fromRel` to `toRel` (paths relative to src/) is refused, and why. */
export function judge(fromRel, toRel) {
  const a = entryOf(fromRel);
  const b = entryOf(toRel);
  if (!a || !b) return null; // outside the layers (none today)
  const ua = unitOf(fromRel);
  const ub = unitOf(toRel);
  if (ua === ub) return null;
  if (allowed(fromRel, toRel)) return null;
  if (b.layer > a.layer) return null;
  if (b.layer < a.layer) return 'a layer above it';
  if (a.entry === 'features' && b.entry === 'features') {
    // A feature may use the shared files directly in features/; those use no feature.
    if (ub === 'features') return null;
    return 'another feature (not in ALLOWED)';
  }
  return b.index > a.index ? null : 'an entry before it in its layer';
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

/** Each file's relative imports inside src/, as paths relative to src/. */
function importGraph() {
  const graph = new Map();
  for (const file of walk(src)) {
    const rel = relative(src, file).split('\\').join('/');
    const targets = [];
    for (const m of readFileSync(file, 'utf8').matchAll(SPEC)) {
      const target = posix.normalize(posix.join(posix.dirname(rel), m[1] ?? m[2])).replace(/\.js$/, '.ts');
      if (!target.startsWith('..')) targets.push(target);
    }
    graph.set(rel, targets);
  }
  return graph;
}

/** Groups of files that import each other in a ring (type-only imports count too), each sorted. */
export function cycles() {
  const graph = importGraph();
  // Tarjan's strongly connected components; a component of two or more files is a ring.
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const out = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const ring = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        ring.push(`src/${w}`);
      } while (w !== v);
      if (ring.length > 1) out.push(ring.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

export function violations() {
  const out = [];
  for (const file of walk(src)) {
    const rel = relative(src, file).split('\\').join('/');
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(SPEC)) {
      const spec = m[1] ?? m[2];
      const target = posix.normalize(posix.join(posix.dirname(rel), spec)).replace(/\.js$/, '.ts');
      if (target.startsWith('..')) continue; // outside src/ (package.json and the like)
      const why = judge(rel, target);
      if (why) out.push({ file: `src/${rel}`, imports: `src/${target}`, why });
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
  const rings = cycles();
  if (process.argv.includes('--json'))
    console.log(JSON.stringify({ imports: found, handEdits: edited, cycles: rings }, null, 2));
  else {
    for (const v of found) console.log(`${v.file} imports ${v.imports} (${v.why})`);
    for (const f of edited) console.log(`${f} was edited by hand (its checksum line no longer matches)`);
    for (const r of rings) console.log(`import ring: ${r.join(' → ')}`);
  }
  if (found.length)
    console.error(`${found.length} import(s) run the wrong way; see the layers in scripts/check-imports.mjs`);
  if (edited.length)
    console.error(`${edited.length} generated file(s) edited: change their tables instead, then npm run build:ts`);
  if (rings.length) console.error(`${rings.length} import ring(s): move the shared types below both files`);
  if (found.length || edited.length || rings.length) process.exit(1);
  console.log('imports run one way, in no ring; the generated sources are as generated');
}
