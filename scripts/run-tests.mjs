// The README's test command. Builds what the tests need, runs the C++ unit tests (ctest) and the
// ava suite (TAP output passed through), and ends with the line `N passed, N failed` that CI
// reads, summed over both. `--no-native` skips the C++ tests; other arguments go to ava.
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const step = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });

process.stdout.write(`# node ${process.version}\n`);
// Incremental: quick when nothing changed, and never tests a stale addon after a pull.
step(bin('cmake-js'), ['compile', '--log-level', 'warn']);
step(process.execPath, [join(root, 'scripts', 'build-ts.mjs')]);

const args = process.argv.slice(2).filter((a) => a !== '--no-native');
let nativePassed = 0;
let nativeFailed = 0;
if (!process.argv.includes('--no-native') && args.length === 0) {
  process.stdout.write('# C++ unit tests (ctest)\n');
  const r = spawnSync(join(root, 'native', 'test', 'run.sh'), [], { cwd: root, encoding: 'utf8' });
  process.stdout.write(r.stdout ?? '');
  process.stderr.write(r.stderr ?? '');
  const m = /(\d+)% tests passed, (\d+) tests failed out of (\d+)/.exec(r.stdout ?? '');
  if (m) {
    nativeFailed = Number(m[2]);
    nativePassed = Number(m[3]) - nativeFailed;
  }
  if (r.status !== 0 && nativeFailed === 0) nativeFailed = 1;
}

const ava = spawn(process.execPath, [join(root, 'node_modules', 'ava', 'entrypoints', 'cli.mjs'), '--tap', ...args], {
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
  passed += nativePassed;
  failed += nativeFailed;
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exit(failed > 0 ? 1 : 0);
});
