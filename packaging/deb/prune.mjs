// Removes from DIR/node_modules every package that DIR's package.json does not reach through
// `dependencies`, `optionalDependencies` and required `peerDependencies` (Node's resolution, nested
// node_modules first). npm installs optional peers that the lockfile records for development, e.g.
// the Prisma CLI and its studio (a peer of @prisma/client): hundreds of MB of no use at run time.
//
// Usage: node packaging/deb/prune.mjs DIR
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

const dir = process.argv[2];
const nm = join(dir, 'node_modules');
const manifest = (pkgDir) => JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const wanted = (m) => [
  ...Object.keys(m.dependencies ?? {}),
  ...Object.keys(m.optionalDependencies ?? {}),
  ...Object.keys(m.peerDependencies ?? {}).filter((name) => !m.peerDependenciesMeta?.[name]?.optional),
];
/** Where `name` resolves from package directory `from`: the nearest node_modules up to DIR. */
function resolve(from, name) {
  for (let d = from; d.startsWith(dir); d = dirname(d)) {
    const candidate = join(d, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (d === dir) break;
  }
  return null;
}
const reached = new Set();
const queue = [dir];
while (queue.length) {
  const pkgDir = queue.pop();
  for (const name of wanted(manifest(pkgDir))) {
    const found = resolve(pkgDir, name);
    if (found && !reached.has(found)) {
      reached.add(found);
      queue.push(found);
    }
  }
}
// Every installed package directory (scoped and nested ones too).
function* packages(nodeModules) {
  if (!existsSync(nodeModules)) return;
  for (const entry of readdirSync(nodeModules)) {
    if (entry.startsWith('.')) continue;
    const path = join(nodeModules, entry);
    if (entry.startsWith('@')) {
      for (const scoped of readdirSync(path)) yield join(path, scoped);
    } else yield path;
  }
}
let removed = 0;
const walk = (nodeModules) => {
  for (const pkgDir of packages(nodeModules)) {
    if (!reached.has(pkgDir)) {
      rmSync(pkgDir, { recursive: true, force: true });
      removed++;
    } else walk(join(pkgDir, 'node_modules'));
  }
};
walk(nm);
for (const scope of readdirSync(nm).filter((e) => e.startsWith('@'))) {
  if (!readdirSync(join(nm, scope)).length) rmSync(join(nm, scope), { recursive: true });
}
console.log(`prune: kept ${reached.size} packages, removed ${removed}`);
