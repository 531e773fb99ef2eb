// Checks the error contract table (reference-errors.ts) against the running service: the kind and
// code of every 404, the paging bounds and the required create inputs; and that every operation
// with an id in its path has a 404 row or a stated reason for having none.
import { readFileSync } from 'node:fs';
import test from 'ava';
import bcrypt from 'bcryptjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { caller, insertMonitor, login } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';
import { MEDIA_ROUTES, NOT_FOUND_ROWS, NO_NOT_FOUND, REQUIRED_ROWS, VALIDATION_ROWS } from './reference-errors.js';

let app: TestApp;
let db: FreshDatabase;
let call: ReturnType<typeof caller>;
const MONITOR = 1;

const spec = JSON.parse(readFileSync(new URL('../../src/generated/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, unknown>>;
};

test.before(async () => {
  db = await zmDatabase('contract');
  const all = 'Edit';
  await insertUser(db, {
    username: 'admin',
    password: 'admin',
    stored: bcrypt.hashSync('admin', 4),
    perms: {
      Stream: 'View',
      Events: all,
      Control: all,
      Monitors: all,
      Groups: all,
      Devices: all,
      Snapshots: all,
      System: all,
    },
  });
  await insertMonitor(db, MONITOR);
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  call = caller(app, await login(app, 'admin'));
});

test.after.always(async () => app?.close());

test('every operation with an id in its path has a 404 row or a reason for none', (t) => {
  const covered = new Set([...NOT_FOUND_ROWS, ...NO_NOT_FOUND].map((r) => r.operation));
  const missing: string[] = [];
  const served = new Set<string>();
  for (const [path, ops] of Object.entries(spec.paths)) {
    for (const method of Object.keys(ops)) {
      const op = `${method.toUpperCase()} ${path}`;
      served.add(op);
      if (!['get', 'put', 'patch', 'delete'].includes(method) || !path.includes('{') || MEDIA_ROUTES.test(path))
        continue;
      if (!covered.has(op)) missing.push(op);
    }
  }
  t.deepEqual(missing, [], 'operations without a 404 row');
  t.deepEqual(
    [...covered].filter((op) => !served.has(op)),
    [],
    'rows for operations the service does not serve',
  );
});

for (const row of NOT_FOUND_ROWS) {
  test(`404 ${row.operation} (${row.ref})`, async (t) => {
    const [method] = row.operation.split(' ');
    const res = await call(method, row.path, row.body);
    t.is(res.status, 404, JSON.stringify(res.body));
    t.like(res.body, { kind: row.kind, code: row.code });
  });
}

for (const row of VALIDATION_ROWS) {
  test(`${row.status} ${row.method} ${row.path} (${row.ref})`, async (t) => {
    const res = await call(row.method, row.path, row.body);
    t.is(res.status, row.status, JSON.stringify(res.body));
    if (row.kind) t.is(res.body.kind, row.kind);
    if (row.names) t.true(names(res.body).includes(row.names), JSON.stringify(res.body.details));
  });
}

/** The field names a 400 names: the first element of each details pair, without a "body." prefix. */
function names(body: { details?: Array<[string, string]> }): string[] {
  return (body.details ?? []).map(([name]) => name.replace(/^(body|requestBody)\./, ''));
}

for (const row of REQUIRED_ROWS) {
  const required = row.zmgate ?? row.reference;
  // A create with no required input would make a row from an empty body: nothing to check.
  if (!required.length) continue;
  test(`required inputs of ${row.operation} (${row.ref})`, async (t) => {
    const res = await call('POST', row.path.replace('{id}', String(MONITOR)), {});
    t.is(res.status, 400, JSON.stringify(res.body));
    t.is(res.body.kind, 'INVALID_INPUT_ERROR');
    t.deepEqual(names(res.body).sort(), [...required].sort(), JSON.stringify(res.body.details));
  });
}
