// `npm run bench`: runs every bench/*.ts (or the ones named) with tsx, one after another. Each
// prints its own tables; then one summary table of the headline numbers (bench/_results.ts) with
// the acceptance targets and ✓/✗ against them. Benchmarks measure: the exit status
// reflects only whether the benchmarks ran, never a missed target.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
// Names first; from the first `--flag` on, the arguments go to every bench run
// (`npm run bench soak -- --minutes 3`).
const firstFlag = process.argv.findIndex((a, i) => i >= 2 && a.startsWith('--'));
const wanted = process.argv.slice(2, firstFlag < 0 ? undefined : firstFlag);
const flags = firstFlag < 0 ? [] : process.argv.slice(firstFlag);
const scripts = readdirSync(here)
  // Files starting with _ are helpers (data generators), not benchmarks.
  .filter((f) => f.endsWith('.ts') && !f.startsWith('_'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();
if (scripts.length === 0) {
  console.log('no benchmarks matched');
  process.exit(0);
}
const scratch = mkdtempSync(join(tmpdir(), 'zmbench-results-'));
const results = join(scratch, 'results.jsonl');
let failed = 0;
for (const script of scripts) {
  console.log(`\n## ${script}`);
  const r = spawnSync(process.execPath, ['--import=tsx', join(here, script), ...flags], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ZM_BENCH_RESULTS: results },
  });
  if (r.status !== 0) failed++;
}

let rows = [];
try {
  rows = readFileSync(results, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
} catch {
  // no bench reported anything
}
rmSync(scratch, { recursive: true, force: true });
if (rows.length > 0) {
  const mark = (row) => {
    if (!row.target) return '—';
    const ok =
      (row.target.max === undefined || row.target.max >= row.value) &&
      (row.target.min === undefined || row.target.min <= row.value);
    return ok ? '✓ pass' : '✗ FAIL';
  };
  const table = rows.map((row) => [
    row.measure,
    row.unit,
    row.value.toFixed(row.decimals ?? 2),
    row.target?.label ?? '—',
    mark(row),
  ]);
  const head = ['measure', 'unit', 'measured', 'target', 'result'];
  const width = head.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
  const line = (cells) =>
    `| ${cells.map((c, i) => (i === 2 ? c.padStart(width[i]) : c.padEnd(width[i]))).join(' | ')} |`;
  console.log(
    `\n## Summary (${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})\n`,
  );
  console.log(line(head));
  console.log(`|${width.map((w, i) => (i === 2 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`);
  for (const r of table) console.log(line(r));
}
process.exit(failed ? 1 : 0);
