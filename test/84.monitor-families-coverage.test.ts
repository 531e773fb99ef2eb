// Coverage of the monitors, zones, zone presets, monitor status, groups, group memberships and
// permission families against the v3 reference surface: every reference operation must be served
// with the same method, path, operationId (documented renames aside), parameters, the feature
// scope the spec assigns, and every reference request/response field with a compatible type.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectedOperationId } from './helpers/reference-renames.js';

const reference = JSON.parse(readFileSync(new URL('../../shared/api/v3-reference-surface.json', import.meta.url), 'utf8'));

/** Path patterns of the families and the feature scope each one is gated on. */
const FAMILIES: Array<[RegExp, string]> = [
  [/^\/api\/v3\/monitors(\/\{id\}(\/(state|alarm|zones))?)?$/, 'monitors'],
  [/^\/api\/v3\/zones\/\{id\}$/, 'monitors'],
  [/^\/api\/v3\/zone-presets(\/\{id\})?$/, 'monitors'],
  [/^\/api\/v3\/monitor-status(\/\{monitor_id\})?$/, 'monitors'],
  [/^\/api\/v3\/groups(\/\{id\})?$/, 'groups'],
  [/^\/api\/v3\/groups-monitors(\/\{id\})?$/, 'groups'],
  [/^\/api\/v3\/(monitors|groups)-permissions(\/\{id\})?$/, 'system'],
];

const ops = reference.operations
  .map((o: any) => ({ ...o, scope: FAMILIES.find(([re]) => re.test(o.path))?.[1] }))
  .filter((o: any) => o.scope);

let app: TestApp;
let doc: any;

test.before(async () => {
  app = await startTestApp();
  doc = await (await fetch(`${app.url}/api-docs/openapi.json`)).json();
});
test.after.always(async () => app?.close());

function resolve(schema: any): any {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++) s = s.$ref.split('/').slice(1).reduce((n: any, k: string) => n?.[k], doc);
  return s ?? {};
}

/** JSON types a served schema admits (through $ref, anyOf and allOf). */
function servedTypes(schema: any): Set<string> {
  const s = resolve(schema);
  const out = new Set<string>();
  for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) for (const t of servedTypes(alt)) out.add(t);
  for (const t of Array.isArray(s.type) ? s.type : s.type ? [s.type] : []) out.add(t);
  if (s.enum && !s.type) out.add(typeof s.enum[0]);
  if (s.properties && !s.type) out.add('object');
  return out;
}

/** The non-null JSON type of a reference field spec ("integer(format=int32) | null ?", "Orientation", …). */
function referenceType(spec: string): string | null {
  const part = spec.replace(/\?$/, '').split('|').map((p) => p.trim()).find((p) => p !== 'null') ?? 'null';
  const base = /^[a-z]+/.exec(part)?.[0];
  if (base === 'any') return null;
  if (base) return base;
  const named = reference.schemas[part];
  return named?.type ? /^[a-z]+/.exec(named.type)![0] : 'object';
}

function checkFields(t: any, where: string, refSchemaName: string, served: any) {
  const refFields = reference.schemas[refSchemaName]?.fields;
  if (!refFields) return;
  const props = resolve(served).properties ?? {};
  for (const [name, spec] of Object.entries<string>(refFields)) {
    t.truthy(props[name], `${where}: field ${name} missing`);
    if (!props[name]) continue;
    const want = referenceType(spec);
    if (!want) continue;
    const got = servedTypes(props[name]);
    t.true(got.has(want) || (want === 'number' && got.has('integer')), `${where}.${name}: ${[...got].join('|')} vs reference ${spec}`);
  }
}

test('the reference operations of these families are all listed here', (t) => {
  t.is(ops.length, 39, 'monitors 7, zones 5, zone presets 5, monitor status 3, groups 5, memberships 4, permissions 10');
  t.true(ops.some((o: any) => o.path === '/api/v3/monitors/{id}/state'));
  t.true(ops.some((o: any) => o.path === '/api/v3/groups-permissions/{id}' && o.method === 'PATCH'));
});

test('every reference operation is served with its method, path, operationId, params, scope and fields', (t) => {
  for (const ref of ops) {
    const where = `${ref.method} ${ref.path}`;
    const op = doc.paths[ref.path]?.[ref.method.toLowerCase()];
    t.truthy(op, `${where} is not served`);
    if (!op) continue;
    t.is(op.operationId, expectedOperationId(ref.method, ref.path, ref.operationId), where);
    t.deepEqual(op.security, [{ jwt: [ref.scope] }], `${where} scope`);
    for (const param of ref.params as string[]) {
      const [location, rawName, type] = param.split(':');
      const name = rawName.replace(/\?$/, '');
      const served = (op.parameters ?? []).find((p: any) => p.in === location && p.name === name);
      t.truthy(served, `${where}: ${location} parameter ${name}`);
      if (served) {
        t.is(served.required ?? false, !rawName.endsWith('?'), `${where}: ${name} required`);
        t.true(servedTypes(served.schema).has(/^[a-z]+/.exec(type)![0]), `${where}: ${name} type`);
      }
    }
    if (ref.body) {
      const schemaName = ref.body.split(':')[1];
      const served = op.requestBody?.content?.['application/json']?.schema;
      t.truthy(served, `${where}: request body`);
      // /monitors/{id}/state: the reference points at the /states body by a name clash; skip it.
      if (served && ref.operationId !== 'update_state') checkFields(t, `${where} body`, schemaName, served);
    }
    for (const [status, content] of Object.entries<string>(ref.responses)) {
      if (!status.startsWith('2')) continue;
      if (content === '-') {
        t.truthy(op.responses['204'] ?? op.responses['200'], `${where}: empty success`);
        continue;
      }
      const schemaName = content.split(':')[1];
      const served = Object.entries<any>(op.responses).find(([s]) => s.startsWith('2'))?.[1]?.content?.['application/json']?.schema;
      t.truthy(served, `${where}: success body`);
      if (served && schemaName !== 'any') checkFields(t, `${where} response`, schemaName, served);
    }
  }
});

test('paginated envelopes carry items of the right schema', (t) => {
  const monitors = resolve(doc.paths['/api/v3/monitors'].get.responses['200'].content['application/json'].schema);
  t.deepEqual([...monitors.required].sort(), ['current_page', 'items', 'last_page', 'per_page', 'total']);
  t.truthy(resolve(monitors.properties.items.items).properties.orientation);
  t.is(doc.paths['/api/v3/monitors'].get.parameters.find((p: any) => p.name === 'page_size').schema.maximum, 1000);
});

test('monitor request bounds match the columns: every varchar/text has its maxLength, every integer its range', async (t) => {
  const { MONITOR_FIELDS, INT_RANGES } = await import('../src/services/monitor-fields.js');
  const prisma = readFileSync(new URL('../prisma/schema.prisma', import.meta.url), 'utf8');
  const model = /model Monitors \{([\s\S]*?)\n\}/.exec(prisma)![1];
  const columnType = (column: string) => new RegExp(`^\\s+${column}\\s+\\S+\\s.*$`, 'm').exec(model)?.[0] ?? '';
  const props = resolve(doc.components.schemas.UpdateMonitorRequest).properties;
  t.deepEqual(MONITOR_FIELDS.find((f) => f.json === 'save_jpe_gs')!.range, [0, 3]);
  t.deepEqual(MONITOR_FIELDS.find((f) => f.json === 'video_writer')!.range, [0, 2]);
  t.deepEqual(MONITOR_FIELDS.find((f) => f.json === 'record_audio')!.range, [0, 1]);
  let checked = 0;
  for (const f of MONITOR_FIELDS) {
    if (f.readOnly) continue;
    const served = resolve(props[f.json]);
    const line = columnType(f.column);
    t.truthy(line, `${f.column} in schema.prisma`);
    const varchar = /@db\.VarChar\((\d+)\)/.exec(line)?.[1];
    if (varchar) t.is(f.maxLength, Number(varchar), `${f.json}: table length`);
    if (/@db\.(TinyText)/.test(line)) t.is(f.maxLength, 255, `${f.json}: tinytext`);
    if (f.maxLength !== undefined) {
      t.is(served.maxLength, f.maxLength, `${f.json}: served maxLength`);
      checked++;
    }
    const range = f.range ?? INT_RANGES[f.kind];
    if (range) {
      t.deepEqual([served.minimum, served.maximum], range, `${f.json}: served range`);
      const unsigned = /@db\.Unsigned/.test(line);
      if (f.kind !== 'flag') t.is(unsigned, f.kind.startsWith('u'), `${f.json}: signedness matches the column`);
      checked++;
    }
  }
  t.true(checked > 100, `checked ${checked}`);
});
