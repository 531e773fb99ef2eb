// clang-format over the addon's C++ (native/, except the third-party deps/): `--check` fails on
// any file that is not formatted, `--write` formats in place. Style: .clang-format.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// A walk of native/ rather than `git ls-files`: a checkout without git (an unpacked tarball, a
// machine that has only Node and the build tools) is checked the same way.
const files = readdirSync(join(root, 'native'), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && /\.(cc|h)$/.test(e.name))
  .map((e) => relative(root, join(e.parentPath ?? e.path, e.name)))
  .filter((f) => !f.startsWith('native/deps/'))
  .sort();
const write = process.argv.includes('--write');
const args = write ? ['-i', ...files] : ['--dry-run', '--Werror', ...files];
const r = spawnSync('clang-format', args, { cwd: root, stdio: 'inherit' });
if (r.error) {
  console.error('clang-format is missing: apt-get install -y clang-format (scripts/setup.sh installs it)');
  process.exit(1);
}
process.exit(r.status ?? 1);
