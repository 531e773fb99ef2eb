// Issue 6's surface test: every operation of the v3 reference surface outside the live,
// playback, daemon and system families is served with the same method, path and operationId
// (documented renames aside), unless openapi/deliberate-differences.json lists it with a reason.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { reference } from '../helpers/coverage.js';
import { expectedOperationId } from '../helpers/reference-renames.js';

const doc = JSON.parse(readFileSync(new URL('../../src/generated/openapi.json', import.meta.url), 'utf8'));
const differences: Array<{ method: string; path: string; reason: string }> = JSON.parse(
  readFileSync(new URL('../../openapi/deliberate-differences.json', import.meta.url), 'utf8'),
).operations;

/** The families other issues own (live streaming, playback, daemons, system control). */
function otherFamily(path: string): boolean {
  return (
    /^\/api\/v3\/(live|daemons)(\/|$)/.test(path) ||
    (/^\/api\/v3\/system\//.test(path) && path !== '/api/v3/system/locale') ||
    /^\/api\/v3\/server\/control\//.test(path) ||
    /^\/api\/v3\/events\/\{[^}]+\}\/(video|stream|thumbnail|info)(\/|$)/.test(path) ||
    /^\/api\/v3\/monitors\/\{[^}]+\}\/snapshot$/.test(path)
  );
}

const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
const deliberate = new Set(differences.map((d) => key(d.method, d.path)));

test('every in-scope reference operation is served as the reference names it, or is a listed deliberate difference', (t) => {
  const inScope = reference.operations.filter((op) => !otherFamily(op.path));
  let served = 0;
  const missing: string[] = [];
  for (const op of inScope) {
    const item = doc.paths[op.path]?.[op.method.toLowerCase()];
    if (!item) {
      if (!deliberate.has(key(op.method, op.path))) missing.push(key(op.method, op.path));
      continue;
    }
    served++;
    t.is(item.operationId, expectedOperationId(op.method, op.path, op.operationId), key(op.method, op.path));
  }
  t.deepEqual(missing, []);
  t.log(`reference operations: ${reference.operations.length}; in scope: ${inScope.length}; served: ${served}; deliberate differences: ${deliberate.size}`);
  t.is(served + deliberate.size, inScope.length);
});

test('each deliberate difference is a real reference operation, is not served, and says why', (t) => {
  for (const d of differences) {
    t.true(reference.operations.some((op) => key(op.method, op.path) === key(d.method, d.path)), key(d.method, d.path));
    t.falsy(doc.paths[d.path]?.[d.method.toLowerCase()], `${key(d.method, d.path)} is served; drop it from the list`);
    t.true(d.reason.length > 40, `${key(d.method, d.path)}: give a reason`);
  }
});
