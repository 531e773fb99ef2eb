// `npm run bench`: runs every bench/*.ts (or the ones named) with tsx, one after another. Each
// prints its own table. Benchmarks measure; they never pass or fail on speed.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const wanted = process.argv.slice(2);
const scripts = readdirSync(here)
  // Files starting with _ are helpers (data generators), not benchmarks.
  .filter((f) => f.endsWith('.ts') && !f.startsWith('_'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();
if (scripts.length === 0) {
  console.log('no benchmarks matched');
  process.exit(0);
}
let failed = 0;
for (const script of scripts) {
  console.log(`\n## ${script}`);
  const r = spawnSync(process.execPath, ['--import=tsx', join(here, script)], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
