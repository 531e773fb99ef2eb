// Coverage of resource families against the v3 reference surface
// (../shared/api/v3-reference-surface.json): every reference operation of the chosen families
// must be served with the same method, path and operationId (documented renames aside), the
// expected security scope, every reference parameter (required-ness and JSON type), every
// documented status, and every reference request/response field with a compatible type,
// required response fields staying required.
import type { ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
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
  readFileSync(new URL('../../../shared/api/v3-reference-surface.json', import.meta.url), 'utf8'),
);

/**
 * The reference operations whose path is one of `prefixes` or below it, with the scope each is
 * expected to declare: `scope(op)` (e.g. the family's feature, or an explicit level).
 */
export function familyOperations(prefixes: string[], scope: (op: ReferenceOperation) => string): Array<ReferenceOperation & { scope: string }> {
  const inFamily = (path: string) => prefixes.some((p) => path === p || path.startsWith(`${p}/`));
  return reference.operations.filter((op) => inFamily(op.path)).map((op) => ({ ...op, scope: scope(op) }));
}

/** The OpenAPI document a running app serves. */
export async function servedDocument(app: { url: string }): Promise<any> {
  return (await fetch(`${app.url}/api-docs/openapi.json`)).json();
}

function resolve(doc: any, schema: any): any {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++) s = s.$ref.split('/').slice(1).reduce((n: any, k: string) => n?.[k], doc);
  return s ?? {};
}

/** The object schema behind a served schema ($ref, a nullable anyOf, a single allOf). */
function objectSchema(doc: any, schema: any): any {
  const s = resolve(doc, schema);
  const alt = s.anyOf ?? s.oneOf;
  if (alt) return objectSchema(doc, alt.find((a: any) => resolve(doc, a).type !== 'null'));
  if (s.allOf?.length === 1) return objectSchema(doc, s.allOf[0]);
  return s;
}

/** JSON types a served schema admits (through $ref, anyOf, oneOf and allOf). */
export function servedTypes(doc: any, schema: any): Set<string> {
  const s = resolve(doc, schema);
  const out = new Set<string>();
  for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) for (const t of servedTypes(doc, alt)) out.add(t);
  for (const t of Array.isArray(s.type) ? s.type : s.type ? [s.type] : []) out.add(t);
  if (s.enum && !s.type) out.add(typeof s.enum[0]);
  if (s.properties && !s.type) out.add('object');
  return out;
}

/** The non-null JSON type of a reference field spec ("integer(format=int32) | null ?", "Orientation", …); null for `any`. */
export function referenceType(spec: string): string | null {
  const part = spec.replace(/\?$/, '').split('|').map((p) => p.trim()).find((p) => p !== 'null') ?? 'null';
  const base = /^[a-z]+/.exec(part)?.[0];
  if (base === 'any') return null;
  if (base) return base === 'array' ? 'array' : base;
  const named = reference.schemas[part];
  return named?.type ? /^[a-z]+/.exec(named.type)![0] : 'object';
}

function checkFields(t: ExecutionContext, doc: any, where: string, refSchema: string, served: any, requiredToo: boolean): void {
  const refFields = reference.schemas[refSchema]?.fields;
  if (!refFields) return;
  const mine = objectSchema(doc, served);
  const props = mine.properties ?? {};
  for (const [name, spec] of Object.entries(refFields)) {
    t.truthy(props[name], `${where}: field ${name} missing`);
    if (!props[name]) continue;
    const want = referenceType(spec);
    if (want) {
      const got = servedTypes(doc, props[name]);
      t.true(got.has(want) || (want === 'number' && got.has('integer')), `${where}.${name}: ${[...got].join('|')} vs reference ${spec}`);
    }
    if (requiredToo && !spec.endsWith('?')) t.true((mine.required ?? []).includes(name), `${where}: ${name} must stay required`);
  }
}

/** Checks one reference operation against the served document (see the header). */
export function checkOperation(t: ExecutionContext, doc: any, ref: ReferenceOperation & { scope: string }): void {
  const where = `${ref.method} ${ref.path}`;
  const op = doc.paths?.[ref.path]?.[ref.method.toLowerCase()];
  t.truthy(op, `${where} is not served`);
  if (!op) return;
  t.is(op.operationId, expectedOperationId(ref.method, ref.path, ref.operationId), `${where} operationId`);
  t.deepEqual(op.security, [{ jwt: [ref.scope] }], `${where} scope`);
  for (const param of ref.params) {
    const [location, rawName, type] = param.split(':');
    const name = rawName.replace(/\?$/, '');
    const served = (op.parameters ?? []).find((p: any) => p.in === location && p.name === name);
    t.truthy(served, `${where}: ${location} parameter ${name}`);
    if (!served) continue;
    t.is(served.required ?? false, !rawName.endsWith('?'), `${where}: ${name} required`);
    const want = /^[a-z]+/.exec(type)![0];
    const got = servedTypes(doc, served.schema);
    t.true(got.has(want) || (want === 'number' && got.has('integer')), `${where}: ${name} is ${[...got].join('|')}, reference ${type}`);
    if (type.includes('minimum=0')) t.is(resolve(doc, served.schema).minimum, 0, `${where}: ${name} >= 0`);
  }
  for (const status of Object.keys(ref.responses)) t.truthy(op.responses?.[status], `${where}: status ${status} documented`);
  if (ref.body) {
    const served = op.requestBody?.content?.['application/json']?.schema;
    t.truthy(served, `${where}: request body`);
    if (served) checkFields(t, doc, `${where} body`, ref.body.split(':')[1], served, false);
  }
  for (const [status, content] of Object.entries(ref.responses)) {
    if (!status.startsWith('2') || content === '-') continue;
    const schemaName = content.split(':')[1];
    const served = op.responses?.[status]?.content?.['application/json']?.schema;
    t.truthy(served, `${where}: ${status} body`);
    if (served && schemaName !== 'any') checkFields(t, doc, `${where} ${status}`, schemaName, served, true);
  }
}
