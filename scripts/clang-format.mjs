// clang-format over the addon's C++ (native/, except the third-party deps/): `--check` fails on
// any file that is not formatted, `--write` formats in place. Style: .clang-format.
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const files = execFileSync('git', ['ls-files', 'native/*.cc', 'native/*.h'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && !f.startsWith('native/deps/'));
const write = process.argv.includes('--write');
const args = write ? ['-i', ...files] : ['--dry-run', '--Werror', ...files];
const r = spawnSync('clang-format', args, { cwd: root, stdio: 'inherit' });
if (r.error) {
  console.error('clang-format is missing: apt-get install -y clang-format (scripts/setup.sh installs it)');
  process.exit(1);
}
process.exit(r.status ?? 1);
