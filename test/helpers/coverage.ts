// Coverage of reference operations in the served OpenAPI document, for any family: the v3
// reference surface (data/contract/) says what must be served; a
// family's test picks its operations and the feature scope they are gated on, and checks each
// one for method, path, operationId (documented renames aside), security scope, parameters,
// documented statuses, and every request/response field of the reference schemas with a
// compatible JSON type (required response fields staying required).
import type { ExecutionContext, TestFn } from 'ava';
import { readFileSync } from 'node:fs';
import { startTestApp, type TestApp } from './app.js';
import { expectedOperationId } from './reference-renames.js';

export interface ReferenceOperation {
  method: string;
  path: string;
  operationId: string;
  params: string[];
  body: string | null;
  responses: Record<string, string>;
}

interface ReferenceSurface {
  operations: ReferenceOperation[];
  schemas: Record<string, { fields?: Record<string, string>; type?: string }>;
}

export const reference: ReferenceSurface = JSON.parse(
  readFileSync(new URL('../../data/contract/v3-reference-surface.json', import.meta.url), 'utf8'),
);

export function referenceOperations(match: (op: ReferenceOperation) => boolean): ReferenceOperation[] {
  return reference.operations.filter(match);
}

/** The served document, fetched from a running app. */
export async function servedDocument(baseUrl: string): Promise<any> {
  return (await fetch(`${baseUrl}/api-docs/openapi.json`)).json();
}

function resolve(doc: any, schema: any): any {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++)
    s = s.$ref
      .split('/')
      .slice(1)
      .reduce((n: any, k: string) => n?.[k], doc);
  return s ?? {};
}

/** Object schema behind $ref / single allOf / the non-null member of an anyOf. */
export function objectSchema(doc: any, schema: any): any {
  const s = resolve(doc, schema);
  const alt = (s.anyOf ?? s.oneOf)?.find((a: any) => resolve(doc, a).type !== 'null');
  if (alt) return objectSchema(doc, alt);
  if (s.allOf?.length === 1) return objectSchema(doc, s.allOf[0]);
  return s;
}

/** JSON types a served schema admits (through $ref, anyOf, oneOf and allOf). */
export function servedTypes(doc: any, schema: any): Set<string> {
  const s = resolve(doc, schema);
  const out = new Set<string>();
  for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])])
    for (const t of servedTypes(doc, alt)) out.add(t);
  for (const t of Array.isArray(s.type) ? s.type : s.type ? [s.type] : []) out.add(t);
  if (s.enum && !s.type) out.add(typeof s.enum[0]);
  if (s.properties && !s.type) out.add('object');
  return out;
}

/** The non-null JSON type of a reference field spec ("integer(format=int32) | null ?", "AxisRange", …). */
function referenceType(spec: string): string | null {
  const part =
    spec
      .replace(/\?$/, '')
      .split('|')
      .map((p) => p.trim())
      .find((p) => p !== 'null') ?? 'null';
  const base = /^[a-z]+/.exec(part)?.[0];
  if (base === 'any') return null;
  if (base) return base;
  const named = reference.schemas[part];
  return named?.type ? (/^[a-z]+/.exec(named.type)?.[0] ?? 'object') : 'object';
}

/** Fields of a reference schema, following `A & object` aliases. */
function referenceFields(name: string): Record<string, string> | undefined {
  const schema = reference.schemas[name];
  if (schema?.fields) return schema.fields;
  const alias = schema?.type && /^([A-Za-z]\w*) & object$/.exec(schema.type)?.[1];
  return alias ? referenceFields(alias) : undefined;
}

function checkFields(
  t: ExecutionContext,
  doc: any,
  where: string,
  refSchema: string,
  served: any,
  response: boolean,
): void {
  const refFields = referenceFields(refSchema);
  if (!refFields) return;
  const mine = objectSchema(doc, served);
  const props = mine.properties ?? {};
  for (const [name, spec] of Object.entries(refFields)) {
    t.truthy(props[name], `${where}: field ${name} missing`);
    if (!props[name]) continue;
    if (response && !spec.endsWith('?'))
      t.true((mine.required ?? []).includes(name), `${where}: field ${name} must be required`);
    const want = referenceType(spec);
    if (!want) continue;
    const got = servedTypes(doc, props[name]);
    t.true(
      got.has(want) || (want === 'number' && got.has('integer')),
      `${where}.${name}: ${[...got].join('|')} vs reference ${spec}`,
    );
    // Nested reference objects are checked field by field too.
    const nested = spec
      .replace(/\?$/, '')
      .split('|')
      .map((p) => p.trim())
      .find((p) => reference.schemas[p]);
    if (nested) checkFields(t, doc, `${where}.${name}`, nested, props[name], response);
  }
}

/** Operations whose reference body schema is wrong because of the operationId clash the spec renames away. */
const CLASHING_BODIES = new Set(['patch /api/v3/monitors/{id}/state']);

/** Checks one reference operation against the served document; `scope` is its jwt scope. */
export function checkOperation(t: ExecutionContext, doc: any, ref: ReferenceOperation, scope: string): void {
  const where = `${ref.method} ${ref.path}`;
  const op = doc.paths?.[ref.path]?.[ref.method.toLowerCase()];
  t.truthy(op, `${where} is not served`);
  if (!op) return;
  t.is(op.operationId, expectedOperationId(ref.method, ref.path, ref.operationId), `${where} operationId`);
  t.deepEqual(op.security, [{ jwt: [scope] }], `${where} scope`);
  for (const param of ref.params) {
    const [location, rawName, type] = param.split(':');
    const name = rawName.replace(/\?$/, '');
    const served = (op.parameters ?? []).find((p: any) => p.in === location && p.name === name);
    t.truthy(served, `${where}: ${location} parameter ${name}`);
    if (!served) continue;
    t.is(served.required ?? false, !rawName.endsWith('?'), `${where}: ${name} required`);
    t.true(servedTypes(doc, served.schema).has(/^[a-z]+/.exec(type)![0]), `${where}: ${name} type`);
    if (type.includes('minimum=0')) t.is(resolve(doc, served.schema).minimum, 0, `${where}: ${name} >= 0`);
  }
  // A reference 2xx may be served as another 2xx (201 on create, 204 on delete, as the spec says).
  const servedSuccess = Object.keys(op.responses ?? {}).find((s) => s.startsWith('2'));
  for (const status of Object.keys(ref.responses)) {
    t.truthy(status.startsWith('2') ? servedSuccess : op.responses?.[status], `${where}: documents ${status}`);
  }
  if (ref.body) {
    const served = op.requestBody?.content?.['application/json']?.schema;
    t.truthy(served, `${where}: request body`);
    if (served && !CLASHING_BODIES.has(`${ref.method.toLowerCase()} ${ref.path}`)) {
      checkFields(t, doc, `${where} body`, ref.body.split(':')[1], served, false);
    }
  }
  const content = Object.entries(ref.responses).find(([s]) => s.startsWith('2'))?.[1];
  if (content === '-') {
    t.truthy(op.responses['204'] ?? op.responses['200'], `${where}: empty success`);
  } else if (content) {
    const schemaName = content.split(':')[1];
    const served = servedSuccess ? op.responses[servedSuccess]?.content?.['application/json']?.schema : undefined;
    t.truthy(served, `${where}: success body`);
    const item = /^array<(.*)>$/.exec(schemaName)?.[1];
    if (served && item) {
      const list = resolve(doc, served);
      t.is(list.type, 'array', `${where}: array response`);
      checkFields(t, doc, `${where} response item`, item, list.items, true);
    } else if (served && schemaName !== 'any') {
      checkFields(t, doc, `${where} response`, schemaName, served, true);
    }
  }
}

/** A family: the paths it owns and the one scope its operations declare (`system`, `system:Edit`, …). */
export type Family = [paths: RegExp, scope: string];

export function familyOperations(families: Family[]): Array<ReferenceOperation & { scope: string }> {
  return reference.operations.flatMap((op) => {
    const family = families.find(([re]) => re.test(op.path));
    return family ? [{ ...op, scope: family[1] }] : [];
  });
}

/**
 * Registers the coverage tests of some families: the reference must list `count` operations for
 * them (so a family pattern that matches nothing, or too much, is noticed), and each one is checked.
 * Returns a getter for the served document, for extra family-specific tests.
 */
export function registerCoverage(test: TestFn, families: Family[], count: number, note: string): () => any {
  const ops = familyOperations(families);
  let app: TestApp;
  let doc: any;
  test.before(async () => {
    app = await startTestApp();
    doc = await servedDocument(app.url);
  });
  test.after.always(async () => app?.close());

  test(`the reference lists ${count} operations of these families (${note})`, (t) => {
    t.is(ops.length, count);
    for (const [re] of families)
      t.true(
        ops.some((op) => re.test(op.path)),
        `${re} matches no reference operation`,
      );
  });
  for (const op of ops) test(`${op.operationId}: ${op.method} ${op.path}`, (t) => checkOperation(t, doc, op, op.scope));
  return () => doc;
}
