// The code base's own rules, run with the tests: imports run one way (scripts/check-imports.mjs),
// ESLint and Prettier over the TypeScript and scripts, clang-format over the addon's C++.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { violations } from '../../scripts/check-imports.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { cwd: root, encoding: 'utf8' });
const bin = (name: string) => fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));

test('imports run one way: no module imports from a layer above it', (t) => {
  t.deepEqual(violations(), []);
});

test('ESLint finds nothing', (t) => {
  t.timeout(600_000);
  const r = run(bin('eslint'), ['.']);
  t.is(r.status, 0, r.stdout + r.stderr);
});

test('Prettier: every file is formatted', (t) => {
  t.timeout(600_000);
  const r = run(bin('prettier'), ['--check', '--log-level', 'warn', '.']);
  t.is(r.status, 0, r.stdout + r.stderr);
});

test('clang-format: the C++ is formatted', (t) => {
  t.timeout(600_000);
  const r = run(process.execPath, ['scripts/clang-format.mjs', '--check']);
  t.is(r.status, 0, r.stdout + r.stderr);
});
