// Schema fuzzing of every operation with schemathesis (PyPI), on a latin1 and on a utf8mb4
// ZoneMinder 1.39 database, and on ZoneMinder 1.36.33's own (not bridged). Not an ava test: `.ci/run` runs it (`node --import=tsx
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
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { request } from '../helpers/http.js';
import { addUser, login } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import { database136 } from '../helpers/zm136.js';
import { SEEDED_CONFIG_NAME, SEEDED_IDS, SEEDED_SESSION_ID, seedFuzzDatabase } from './seed.js';

const root = join(import.meta.dirname, '..', '..');
const st = process.env.SCHEMATHESIS_BIN ?? join(root, '.ci', 'tools', 'schemathesis-venv', 'bin', 'st');
const budgetSecs = Number(process.env.SCHEMATHESIS_MAX_TIME ?? 240);
const maxExamples = Number(process.env.SCHEMATHESIS_MAX_EXAMPLES ?? 5);
/** SCHEMATHESIS_SEED_ROWS=0 fuzzes empty databases (as before the seeding), e.g. to compare. */
const seedRows = process.env.SCHEMATHESIS_SEED_ROWS !== '0';
// SCHEMATHESIS_PHASES (e.g. "examples") and SCHEMATHESIS_CHARSETS (e.g. "latin1") narrow a run.
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

/**
 * Every phase runs on one worker: two workers describing strategies at once hit a CPython 3.11
 * fault in its AST parser ("AST constructor recursion depth mismatch"), reported as a runtime
 * error of an arbitrary operation (seen in the examples phase, then in coverage on the filter
 * preview's deep schema). One worker is slower, hence the larger time budget.
 */
const PHASES: Array<[string, number]> = process.env.SCHEMATHESIS_PHASES
  ? [[process.env.SCHEMATHESIS_PHASES, 1]]
  : [
      ['examples', 1],
      ['coverage,fuzzing', 1],
    ];

function runSchemathesis(
  label: string,
  baseUrl: string,
  document: string,
  token: string,
  selection: string[],
  budget: number,
  phases: string,
  workers: number,
): Promise<Outcome> {
  const args = [
    '--config-file',
    join(import.meta.dirname, 'schemathesis.toml'),
    'run',
    document,
    '--url',
    baseUrl,
    '--checks',
    CHECKS.join(','),
    '--header',
    `Authorization: Bearer ${token}`,
    ...selection,
    '--phases',
    phases,
    '--max-examples',
    String(maxExamples),
    '--max-time',
    String(budget),
    '--request-timeout',
    '15',
    '--workers',
    String(workers),
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

type Doc = { paths: Record<string, Record<string, any>>; components?: { parameters?: Record<string, any> } };

/** The example a path parameter gets in the fuzz copy: an id (or name) the seeded rows have. */
function seededExample(name: string, schema: { type?: string; pattern?: string } = {}): unknown {
  if (schema.type === 'integer') return name === 'hours' ? 24 : SEEDED_IDS[0];
  if (name === 'name') return SEEDED_CONFIG_NAME;
  if (name === 'fid') return String(SEEDED_IDS[0]);
  if (name === 'id' && schema.pattern?.includes('A-Za-z')) return SEEDED_SESSION_ID;
  return undefined;
}

/**
 * The service's document with an `example` on every path parameter naming a seeded row, so that
 * the examples phase (and the positive cases of the others) reach existing rows. Only this copy
 * says so; the served document is unchanged. Written to a file schemathesis reads.
 */
async function fuzzDocument(app: TestApp, dir: string): Promise<string> {
  const doc = (await request(`${app.url}/api-docs/openapi.json`)).body as Doc;
  if (seedRows) {
    const params = [
      ...Object.values(doc.components?.parameters ?? {}),
      ...Object.values(doc.paths).flatMap((item) =>
        Object.values(item).flatMap((op) => (Array.isArray(op) ? op : (op?.parameters ?? []))),
      ),
    ];
    for (const p of params) {
      if (p?.in !== 'path' || p.example !== undefined || p.examples !== undefined || p.schema?.examples) continue;
      const example = seededExample(p.name, p.schema);
      if (example !== undefined) p.example = example;
    }
  }
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

/** Operations (METHOD /path) of `doc` that answered at least one 2xx, from the service's request log. */
function operationsWith2xx(doc: Doc, logs: TestApp['logs']): { ok: Set<string>; all: number } {
  const ops: Array<{ key: string; method: string; re: RegExp; params: number }> = [];
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) {
      if (!op?.responses) continue;
      const re = new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      ops.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        re,
        params: (path.match(/\{/g) ?? []).length,
      });
    }
  ops.sort((a, b) => a.params - b.params);
  const ok = new Set<string>();
  for (const r of logs) {
    if (r.msg !== 'request' || r.status < 200 || r.status > 299) continue;
    const path = String(r.url).split('?')[0];
    const op = ops.find((o) => o.method === r.method && o.re.test(path));
    if (op) ok.add(op.key);
  }
  return { ok, all: ops.length };
}

async function main(): Promise<void> {
  if (!existsSync(st)) {
    console.log(`# schemathesis not installed at ${st}`);
    console.log('0 passed, 1 failed');
    process.exitCode = 1;
    return;
  }
  const total: Outcome = { passed: 0, failed: 0 };
  // '1.36': ZoneMinder 1.36.33's own schema (Debian's zm_create.sql, its rows included), not bridged:
  // the service as it runs beside the ZoneMinder most people have.
  const charsets = (process.env.SCHEMATHESIS_CHARSETS ?? 'latin1,utf8mb4,1.36').split(',') as Array<
    'latin1' | 'utf8mb4' | '1.36'
  >;
  for (const charset of charsets) {
    const zm136 = charset === '1.36';
    const db = zm136 ? await database136('st_136') : await zmDatabase(`st_${charset}`, { charset });
    // A password no example or generated value can guess: PUT /me/password with the right current
    // password would revoke the token the whole run uses.
    const password = randomBytes(18).toString('base64url');
    const perms = {
      Stream: 'View',
      Events: 'Edit',
      Control: 'Edit',
      Monitors: 'Edit',
      Groups: 'Edit',
      Devices: 'Edit',
      Snapshots: 'Edit',
      System: 'Edit',
    };
    if (zm136) {
      // ZoneMinder's own admin (zm_create.sql) makes way; 1.36's Users has no RoleId (addUser writes one).
      await db.db.query("DELETE FROM Users WHERE Username = 'admin'", [], db.name);
      await db.db.query(
        `INSERT INTO Users (Username, Password, Enabled, APIEnabled, ${Object.keys(perms)
          .map((c) => `\`${c}\``)
          .join(', ')}) VALUES ('admin', ?, 1, 1, ${Object.keys(perms)
          .map(() => '?')
          .join(', ')})`,
        [bcrypt.hashSync(password, 4), ...Object.values(perms)],
        db.name,
      );
    } else await addUser(db, 'admin', perms, { password, stored: bcrypt.hashSync(password, 4) });
    await db.db.query('UPDATE Users SET Id = 1234567 WHERE Username = ?', ['admin'], db.name);
    // Event files, shared memory and daemon sockets all under a directory of this run's own.
    const dir = mkdtempSync(join(tmpdir(), `zmgate-st-${charset}-`));
    if (seedRows) {
      const counts = await seedFuzzDatabase(db, join(dir, 'events'), !zm136);
      const filled = Object.values(counts).filter((n) => n > 0).length;
      console.log(`# seeded ${charset}: ${filled} of ${Object.keys(counts).length} tables hold rows`);
    }
    const app = await startTestApp({
      db,
      env: {
        APP_AUTH__RATE_LIMIT__ENABLED: 'false',
        APP_SERVER__MIDDLEWARE__RATE_LIMIT__ENABLED: 'false',
        // As shipped: on 1.36 the start-up keeps 1.39's tables beside ZoneMinder's.
        APP_DB__MIGRATE_ON_START: zm136 ? 'true' : 'false',
        APP_ZONEMINDER__DIR_EVENTS: join(dir, 'events'),
        APP_ZONEMINDER__PATH_MAP: dir,
        APP_ZONEMINDER__PATH_SOCKS: dir,
      },
    });
    try {
      const document = await fuzzDocument(app, dir);
      // Paths that answer 503 by design, in one pattern:
      // - the reference's motion-synopsis routes (zmgate has no renderer, so they answer as the
      //   reference does with synopsis off); test/contract/reference-routes.test.ts checks them;
      // - on 1.36, roles and group permissions (docs/zoneminder/coexistence.md);
      //   test/db/routes-136.test.ts checks those.
      const by503 = ['events/.*synopsis', ...(zm136 ? ['roles', 'role-', 'groups-permissions'] : [])];
      const main = [
        ...REVOKING.flatMap((id) => ['--exclude-operation-id', id]),
        ...['--exclude-path-regex', `^/api/v3/(${by503.join('|')})`],
      ];
      const revoking = REVOKING.flatMap((id) => ['--include-operation-id', id]);
      for (const [label, selection, budget] of [
        [charset, main, budgetSecs],
        [`${charset}, token-revoking operations`, revoking, 30],
      ] as const) {
        // The operations of the last phase count as passed; failures of every phase count.
        for (const [i, [phases, workers]] of PHASES.entries()) {
          // A fresh token each time: the token-revoking operations end the previous one.
          const token = await login(app, 'admin', password);
          const outcome = await runSchemathesis(
            `${label} (${phases})`,
            app.url,
            document,
            token,
            [...selection],
            budget,
            phases,
            workers,
          );
          if (i === PHASES.length - 1) total.passed += outcome.passed;
          total.failed += outcome.failed;
        }
      }
      const served = (await request(`${app.url}/api-docs/openapi.json`)).body as Doc;
      const { ok, all } = operationsWith2xx(served, app.logs);
      console.log(`# schemathesis ${charset}: ${ok.size} of ${all} operations answered at least one 2xx`);
      if (process.env.SCHEMATHESIS_LIST_2XX) for (const key of [...ok].sort()) console.log(`#   2xx ${key}`);
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
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(`${total.passed} passed, ${total.failed} failed`);
  process.exitCode = total.failed ? 1 : 0;
}

await main();
