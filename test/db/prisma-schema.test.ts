// The committed prisma/schema.prisma: valid, already in `prisma format` form, and exactly what
// `npm run db:introspect` produces from a freshly converged database (the drift check: a change
// to the target schema or to the generator must come with the regenerated file).
import test from 'ava';
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const committed = path.join(repo, 'prisma', 'schema.prisma');
const run = promisify(execFile);

const offlineEnv = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: path.join(repo, 'prisma', 'offline-schema-engine.sh'),
  CHECKPOINT_DISABLE: '1',
};

async function inTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'zmgate-prisma-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('`prisma validate` passes offline on the committed schema (stub schema engine)', async (t) => {
  const { stdout, stderr } = await run(
    path.join(repo, 'node_modules', '.bin', 'prisma'),
    ['validate', '--schema', committed],
    {
      cwd: repo,
      env: offlineEnv,
    },
  );
  t.regex(stdout + stderr, /The schema at .* is valid/);
});

test('the committed schema is already formatted as `prisma format` would', async (t) => {
  await inTempDir(async (dir) => {
    const copy = path.join(dir, 'schema.prisma');
    await copyFile(committed, copy);
    await run(path.join(repo, 'node_modules', '.bin', 'prisma'), ['format', '--schema', copy], {
      cwd: repo,
      env: offlineEnv,
    });
    t.is(await readFile(copy, 'utf8'), await readFile(committed, 'utf8'));
  });
});

test('`npm run db:introspect` regenerates the committed schema with no difference', async (t) => {
  await inTempDir(async (dir) => {
    const out = path.join(dir, 'schema.prisma');
    const { stderr } = await run('npm', ['run', '--silent', 'db:introspect', '--', '--out', out], { cwd: repo });
    t.regex(stderr, /wrote .*: 58 models, \d+ enums, 29 relations/);
    const regenerated = await readFile(out, 'utf8');
    const current = await readFile(committed, 'utf8');
    // On failure, show where: the first differing line is far more useful than a 1500-line diff.
    const a = current.split('\n');
    const b = regenerated.split('\n');
    const line = a.findIndex((text, i) => text !== b[i]);
    t.is(
      regenerated,
      current,
      `first difference at line ${line + 1}:\n- ${a[line]}\n+ ${b[line]}\nrun: npm run db:introspect`,
    );
  });
});

test('the stub schema engine fails loudly when something really needs the engine', async (t) => {
  const error = await t.throwsAsync(run(path.join(repo, 'prisma', 'offline-schema-engine.sh'), ['--version']));
  t.regex(String((error as { stderr?: string }).stderr), /npm run db:introspect/);
});
