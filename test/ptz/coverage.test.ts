// Every reference PTZ operation is served as the reference has it (method, path, operationId,
// parameters, statuses, fields), gated on Control; and the zmcontrol socket client on its own:
// one JSON line per connection, in order per socket, failures classified.
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { checkOperation, referenceOperations, servedDocument } from '../helpers/coverage.js';
import { startFakeZmControl } from '../helpers/fake-zmcontrol.js';
import { ControlSocketError, ZmControlClient } from '../../src/features/ptz/zmcontrol-client.js';

const ops = referenceOperations((op) => op.path.startsWith('/api/v3/ptz/'));

let app: TestApp;
let doc: any;

test.before(async () => {
  app = await startTestApp();
  doc = await servedDocument(app.url);
});
test.after.always(async () => app?.close());

test('the reference has 33 PTZ operations', (t) => {
  t.is(ops.length, 33);
  t.true(ops.some((op) => op.operationId === 'ptzClearPreset' && op.method === 'DELETE'));
});

for (const op of ops) {
  test(`${op.operationId}: ${op.method} ${op.path}`, (t) => {
    checkOperation(t, doc, op, 'control');
    // Every PTZ error status of zmgate is documented, 503 (daemon not running) included.
    const served = doc.paths[op.path][op.method.toLowerCase()];
    for (const status of ['400', '401', '403', '404', '503'])
      t.truthy(served.responses[status], `${op.operationId} documents ${status}`);
  });
}

test('no other PTZ operations are served', (t) => {
  const served = Object.entries<any>(doc.paths)
    .filter(([path]) => path.startsWith('/api/v3/ptz/'))
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
  t.deepEqual(served.sort(), ops.map((op) => `${op.method} ${op.path}`).sort());
});

// ---------------------------------------------------------------- the socket client

test('client: one JSON line per connection, delivered in order per socket', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'zmgate-ctl-'));
  const fake = await startFakeZmControl(dir, 7);
  try {
    const client = new ZmControlClient(dir);
    const sends = Array.from({ length: 25 }, (_, i) =>
      client.send(7, { command: `cmd${i}`, preset: String(i), text: 'a\nb' }),
    );
    await Promise.all(sends);
    const got = await fake.waitFor(25);
    t.deepEqual(
      got.map((m) => m.command),
      Array.from({ length: 25 }, (_, i) => `cmd${i}`),
    );
    t.is(got[3].text, 'a\nb', 'a newline inside a value stays escaped, so the message is one line');
    t.true(await client.probe(7));
    await fake.waitForProbes(1);
    t.is(fake.probes, 1);
  } finally {
    await fake.close();
  }
});

test('client: a missing socket, a non-socket file and a failed send do not block later sends', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'zmgate-ctl-'));
  const client = new ZmControlClient(dir, 500);
  const missing = await t.throwsAsync(client.send(1, { command: 'moveStop' }), { instanceOf: ControlSocketError });
  t.is(missing?.reason, 'socket missing');
  writeFileSync(join(dir, 'zmcontrol-2.sock'), '');
  const refused = await t.throwsAsync(client.send(2, { command: 'moveStop' }), { instanceOf: ControlSocketError });
  t.is(refused?.reason, 'connection refused');
  t.false(await client.probe(1));
  const fake = await startFakeZmControl(dir, 1);
  try {
    await client.send(1, { command: 'presetHome' });
    t.deepEqual(await fake.waitFor(1), [{ command: 'presetHome' }]);
  } finally {
    await fake.close();
  }
});
