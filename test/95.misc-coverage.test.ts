// Every reference operation of the AI, configs, controls, control presets, users, storage and
// servers families is served with the same method, path and operationId, its parameters, its
// success status, the feature gate, and (where the reference names them) every request and
// response field, required response fields staying required.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestApp, type TestApp } from './helpers/app.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const reference = JSON.parse(readFileSync(join(ROOT, '..', 'shared', 'api', 'v3-reference-surface.json'), 'utf8')) as {
  operations: Array<{
    method: string;
    path: string;
    operationId: string;
    params: string[];
    body: string | null;
    responses: Record<string, string>;
  }>;
  schemas: Record<string, { fields?: Record<string, string>; type?: string }>;
};

/** Family prefix → the feature its routes are gated on. */
const FAMILIES: Record<string, string> = {
  '/api/v3/ai/datasets': 'system',
  '/api/v3/ai/models': 'system',
  '/api/v3/ai/object-classes': 'system',
  '/api/v3/configs': 'system',
  '/api/v3/users': 'system',
  '/api/v3/storage': 'system',
  '/api/v3/servers': 'system',
  '/api/v3/controls': 'control',
  '/api/v3/control_presets': 'control',
};
const familyOf = (path: string) => Object.keys(FAMILIES).find((p) => path === p || path.startsWith(`${p}/`));
const ops = reference.operations.filter((op) => familyOf(op.path));

let app: TestApp;
let doc: any;

test.before(async () => {
  app = await startTestApp();
  doc = await (await fetch(`${app.url}/api-docs/openapi.json`)).json();
});
test.after.always(async () => app?.close());

function resolve(schema: any): any {
  let s = schema;
  while (s?.$ref) s = s.$ref.split('/').slice(1).reduce((node: any, key: string) => node?.[key], doc);
  const alt = s?.anyOf ?? s?.oneOf;
  if (alt) return resolve(alt.find((a: any) => a.type !== 'null'));
  if (s?.allOf?.length === 1) return resolve(s.allOf[0]);
  return s;
}

const schemaName = (spec: string) => spec.split(':')[1];

test('the reference lists the 44 operations of these families', (t) => {
  t.is(ops.length, 44); // AI 15, configs 4, presets 5, controls 5, users 5, storage 5, servers 5
  for (const prefix of Object.keys(FAMILIES)) t.true(ops.some((op) => familyOf(op.path) === prefix), prefix);
});

for (const op of ops) {
  test(`${op.operationId}: ${op.method} ${op.path}`, (t) => {
    const served = doc.paths[op.path]?.[op.method.toLowerCase()];
    if (!served) return t.fail(`${op.method} ${op.path} is not served`);
    t.is(served.operationId, op.operationId);
    t.deepEqual(served.security, [{ jwt: [FAMILIES[familyOf(op.path)!]] }]);

    const params = new Map<string, any>((served.parameters ?? []).map((p: any) => [`${p.in}:${p.name}`, p]));
    for (const spec of op.params) {
      const [where, rawName, type] = spec.split(':');
      const name = rawName.replace(/\?$/, '');
      const p = params.get(`${where}:${name}`);
      if (!p) {
        t.fail(`parameter ${where} ${name} missing`);
        continue;
      }
      t.is(p.required ?? false, !rawName.endsWith('?'), `${name} required`);
      if (type.startsWith('integer')) {
        t.is(p.schema.type, 'integer', `${name} is an integer`);
        if (type.includes('minimum=0')) t.is(p.schema.minimum, 0, `${name} >= 0`);
      }
    }

    const success = Object.keys(op.responses).find((s) => s.startsWith('2'))!;
    t.truthy(served.responses[success], `success status ${success}`);
    for (const status of Object.keys(op.responses)) t.truthy(served.responses[status], `documented status ${status}`);

    const responseSpec = op.responses[success];
    const responseRef = schemaName(responseSpec ?? '');
    if (responseRef && responseRef !== 'any') {
      const ours = resolve(served.responses[success].content['application/json'].schema);
      const refName = responseRef.replace(/^array<(.*)>$/, '$1');
      const mine = responseRef.startsWith('array<') ? (t.is(ours.type, 'array'), resolve(ours.items)) : ours;
      for (const [field, type] of Object.entries(reference.schemas[refName]?.fields ?? {})) {
        t.truthy(mine.properties?.[field], `response field ${field}`);
        if (!type.endsWith('?')) t.true((mine.required ?? []).includes(field), `response field ${field} required`);
      }
    }
    if (op.body) {
      const ours = resolve(served.requestBody.content['application/json'].schema);
      for (const field of Object.keys(reference.schemas[schemaName(op.body)]?.fields ?? {})) {
        t.truthy(ours.properties?.[field], `request field ${field}`);
      }
    }
  });
}
