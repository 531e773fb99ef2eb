// The README's test command. Builds what the tests need, runs ava with TAP output (passed
// through), and ends with the line `N passed, N failed` that CI reads.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const step = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });

process.stdout.write(`# node ${process.version}\n`);
if (!existsSync(join(root, 'build', 'Release', 'zmgate.node')) && !existsSync(join(root, 'prebuilds'))) {
  step(bin('cmake-js'), ['compile']);
}
step(process.execPath, [join(root, 'scripts', 'build-ts.mjs')]);

const ava = spawn(process.execPath, [join(root, 'node_modules', 'ava', 'entrypoints', 'cli.mjs'), '--tap', ...process.argv.slice(2)], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, FORCE_COLOR: '0' },
});
let tail = '';
ava.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tail = (tail + chunk.toString()).slice(-4096);
});
ava.on('close', (code) => {
  const count = (name) => Number(new RegExp(`^# ${name} (\\d+)`, 'm').exec(tail)?.[1] ?? 0);
  let passed = count('pass');
  let failed = count('fail');
  if (code !== 0 && failed === 0) failed = 1; // ava itself failed (crash, timeout, no tests)
  if (passed === 0 && failed === 0) failed = 1;
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exit(failed > 0 ? 1 : 0);
});
