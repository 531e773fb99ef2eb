// The code base's own rules, run with the tests: imports run one way (scripts/check-imports.mjs),
// ESLint and Prettier over the TypeScript and scripts, clang-format over the addon's C++.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ALLOWED, cycles, judge, violations } from '../../scripts/check-imports.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { cwd: root, encoding: 'utf8' });
const bin = (name: string) => fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));

test('imports run one way: no module imports from a layer above it', (t) => {
  t.deepEqual(violations(), []);
});

test('no files import each other in a ring, not even for types', (t) => {
  t.deepEqual(cycles(), []);
});

test('the import check judges features, entries inside a layer, and the kernel', (t) => {
  // A feature importing another feature, outside ALLOWED: refused; the shared files of features/ are not.
  t.is(judge('features/playback/x.ts', 'features/monitors/monitors-service.ts'), 'another feature (not in ALLOWED)');
  t.is(judge('features/push/push-service.ts', 'features/live/webrtc/upgrade.ts'), 'another feature (not in ALLOWED)');
  t.is(judge('features/playback/x.ts', 'features/feature-controller.ts'), null);
  t.is(
    judge('features/feature-controller.ts', 'features/events/events-service.ts'),
    'another feature (not in ALLOWED)',
  );
  t.is(judge('features/filters/filters-service.ts', 'features/events/events-service.ts'), null); // ALLOWED
  // Down the layers: fine; up: refused. The kernel and the infrastructure sit below the features.
  t.is(judge('features/retention/retention-pass.ts', 'zm/event-deletion.ts'), null);
  t.is(judge('zm/event-deletion.ts', 'features/retention/retention-pass.ts'), 'a layer above it');
  t.is(judge('zm/event-paths.ts', 'infra/cluster/cluster-service.ts'), 'a layer above it');
  t.is(judge('infra/cluster/cluster-service.ts', 'zm/event-time.ts'), null);
  // Inside one layer, an entry imports only the entries after it.
  t.is(judge('media/media-route.ts', 'registry.ts'), null);
  t.is(judge('registry.ts', 'auth/auth-service.ts'), null);
  t.is(judge('db/prisma.ts', 'auth/auth-service.ts'), 'an entry before it in its layer');
  t.is(judge('paths.ts', 'version.ts'), 'an entry before it in its layer');
  t.is(judge('auth/authentication.ts', 'registry.ts'), null); // ALLOWED
  t.is(judge('auth/auth-service.ts', 'auth/permissions.ts'), null);
  // Every exception says why.
  for (const [from, to, why] of ALLOWED) t.true(why.length > 20, `${from} → ${to}`);
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
