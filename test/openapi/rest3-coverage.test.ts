// Coverage of the tags, events-tags, filters, logs, search, snapshots, snapshots-events and
// reports families against the v3 reference surface (helpers/coverage.ts), with the feature
// gates of docs/contract/clients.md. The filter preview is a read and declares Events View.
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { checkOperation, referenceOperations, servedDocument } from '../helpers/coverage.js';

const FEATURE: Record<string, string> = {
  '/api/v3/tags': 'events',
  '/api/v3/events-tags': 'events',
  '/api/v3/filters': 'events',
  '/api/v3/search': 'events',
  '/api/v3/logs': 'system',
  '/api/v3/reports': 'system',
  '/api/v3/snapshots': 'snapshots',
  '/api/v3/snapshots-events': 'snapshots',
};
const prefixes = Object.keys(FEATURE);
const prefixOf = (path: string) =>
  prefixes.filter((p) => path === p || path.startsWith(`${p}/`)).sort((a, b) => b.length - a.length)[0];
const ops = referenceOperations((op) => prefixOf(op.path) !== undefined).map((op) => ({
  ...op,
  scope: op.operationId === 'preview_filter' ? 'events:View' : FEATURE[prefixOf(op.path)],
}));

let app: TestApp;
let doc: any;

test.before(async () => {
  app = await startTestApp();
  doc = await servedDocument(app.url);
});
test.after.always(async () => app?.close());

test('the reference lists the 33 operations of these families', (t) => {
  t.is(ops.length, 33, 'tags 5, events-tags 4, filters 6, logs 3, search 1, snapshots 5, snapshots-events 4, reports 5');
  for (const prefix of prefixes) t.true(ops.some((op) => op.path === prefix || op.path.startsWith(`${prefix}/`)), prefix);
});

for (const op of ops) {
  test(`${op.operationId}: ${op.method} ${op.path}`, (t) => checkOperation(t, doc, op, op.scope));
}

test('extensions beyond the reference are optional: logs `all`, snapshot-events `snapshot_id`', (t) => {
  const param = (path: string, method: string, name: string) => doc.paths[path][method].parameters.find((p: any) => p.name === name);
  t.false(param('/api/v3/logs', 'delete', 'all').required ?? false);
  t.false(param('/api/v3/snapshots-events', 'get', 'snapshot_id').required ?? false);
});
