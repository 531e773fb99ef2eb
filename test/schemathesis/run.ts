// Schema fuzzing of every operation with schemathesis (PyPI), on a latin1 and on a utf8mb4
// ZoneMinder database. Not an ava test: `.ci/run` runs it (`node --import=tsx
// test/schemathesis/run.ts`), after installing schemathesis into .ci/tools/schemathesis-venv.
// Each database gets a fresh service, an admin with every permission and a time budget; the
// last line is `N passed, N failed`, counting operations (an operation with any failing check
// counts as failed).
//
// Two batches per database, each within the access token's lifetime: first every operation but
// those that can revoke the caller's token (logout, changing or deleting a user: the fuzzer
// reuses ids it has seen, the admin's included), then those alone with a fresh token.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp } from '../helpers/app.js';
import { addUser, login } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';

const root = join(import.meta.dirname, '..', '..');
const st = process.env.SCHEMATHESIS_BIN ?? join(root, '.ci', 'tools', 'schemathesis-venv', 'bin', 'st');
const budgetSecs = Number(process.env.SCHEMATHESIS_MAX_TIME ?? 150);
const maxExamples = Number(process.env.SCHEMATHESIS_MAX_EXAMPLES ?? 5);
const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
];

interface Outcome {
  passed: number;
  failed: number;
}

const REVOKING = ['logout', 'update_user', 'delete_user'];

function runSchemathesis(
  label: string,
  baseUrl: string,
  token: string,
  selection: string[],
  budget: number,
): Promise<Outcome> {
  const args = [
    '--config-file',
    join(import.meta.dirname, 'schemathesis.toml'),
    'run',
    `${baseUrl}/api-docs/openapi.json`,
    '--url',
    baseUrl,
    '--checks',
    CHECKS.join(','),
    '--header',
    `Authorization: Bearer ${token}`,
    ...selection,
    '--phases',
    'examples,coverage,fuzzing',
    '--max-examples',
    String(maxExamples),
    '--max-time',
    String(budget),
    '--request-timeout',
    '15',
    '--workers',
    '2',
    '--no-color',
    '--suppress-health-check',
    'all',
    '--generation-allow-x00',
    'false',
    '--generation-with-security-parameters',
    'false',
    '--seed',
    process.env.SCHEMATHESIS_SEED ?? '23',
  ];
  return new Promise((resolve) => {
    const child = spawn(st, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      out += chunk.toString();
    });
    child.on('close', (code) => {
      // Per phase: "✅ 299 passed  ❌   3 failed" (operations); the run's outcome counts the
      // operations of its last phase, and any non-zero exit is at least one failure.
      const phases = [
        ...out.matchAll(/^\s+(?:✅\s+(\d+) passed)?\s*(?:❌\s+(\d+) failed)?\s*(?:⏭\s+\d+ skipped)?\s*$/gmu),
      ].filter((m) => m[1] || m[2]);
      const last = phases.at(-1);
      const passed = Number(last?.[1] ?? 0);
      let failed = Math.max(...phases.map((m) => Number(m[2] ?? 0)), 0);
      if (code !== 0 && failed === 0) failed = 1;
      console.log(`# schemathesis ${label}: ${passed} passed, ${failed} failed (exit ${code})`);
      resolve({ passed, failed });
    });
  });
}

async function main(): Promise<void> {
  if (!existsSync(st)) {
    console.log(`# schemathesis not installed at ${st}`);
    console.log('0 passed, 1 failed');
    process.exitCode = 1;
    return;
  }
  const total: Outcome = { passed: 0, failed: 0 };
  for (const charset of ['latin1', 'utf8mb4'] as const) {
    const db = await zmDatabase(`st_${charset}`, { charset });
    // A password no example or generated value can guess: PUT /me/password with the right current
    // password would revoke the token the whole run uses.
    const password = randomBytes(18).toString('base64url');
    await addUser(
      db,
      'admin',
      {
        Stream: 'View',
        Events: 'Edit',
        Control: 'Edit',
        Monitors: 'Edit',
        Groups: 'Edit',
        Devices: 'Edit',
        Snapshots: 'Edit',
        System: 'Edit',
      },
      { password, stored: bcrypt.hashSync(password, 4) },
    );
    await db.db.query('UPDATE Users SET Id = 1234567 WHERE Username = ?', ['admin'], db.name);
    const app = await startTestApp({
      db,
      env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_SERVER__MIDDLEWARE__RATE_LIMIT__ENABLED: 'false' },
    });
    try {
      const main = REVOKING.flatMap((id) => ['--exclude-operation-id', id]);
      const revoking = REVOKING.flatMap((id) => ['--include-operation-id', id]);
      for (const [label, selection, budget] of [
        [charset, main, budgetSecs],
        [`${charset}, token-revoking operations`, revoking, 30],
      ] as const) {
        const outcome = await runSchemathesis(
          label,
          app.url,
          await login(app, 'admin', password),
          [...selection],
          budget,
        );
        total.passed += outcome.passed;
        total.failed += outcome.failed;
      }
      // What the service itself noticed (beyond the per-request lines): server errors in full.
      const notes = new Map<string, number>();
      for (const r of app.logs) if (r.msg !== 'request' && r.level >= 30) notes.set(r.msg, (notes.get(r.msg) ?? 0) + 1);
      for (const [msg, n] of notes) console.log(`# service log (${charset}): ${n}x ${msg}`);
      for (const r of app.logs)
        if (r.level >= 50)
          console.log(
            `# service error (${charset}): ${r.method} ${r.path} ${String(r.err?.message ?? '').slice(0, 200)}`,
          );
    } finally {
      await app.close();
    }
  }
  console.log(`${total.passed} passed, ${total.failed} failed`);
  process.exitCode = total.failed ? 1 : 0;
}

await main();
