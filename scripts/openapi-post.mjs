// tsoa emits an OpenAPI 3.0 document (nullability as `nullable: true`). This step declares it as
// 3.0.3, upgrades it to 3.1 (nullability becomes type unions), checks the project's rules, and
// validates it against the 3.1 schema. The result is src/generated/openapi.json. Before the
// upgrade it merges the operations of the route table (src/http/media-table.ts: media routes and
// the WebRTC WebSocket, which tsoa cannot see); run it with tsx, which loads that TypeScript.
import { readFileSync, writeFileSync } from 'node:fs';
import { upgrade } from '@scalar/openapi-upgrader';
import { Validator } from '@seriousme/openapi-schema-validator';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Problems with the project's own rules (the 3.1 schema cannot see these). */
export function ruleViolations(doc) {
  const problems = [];
  const seen = new Map();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const where = `${method.toUpperCase()} ${path}`;
      if (!op.operationId) problems.push(`${where}: no operationId`);
      else if (seen.has(op.operationId))
        problems.push(`${where}: operationId ${op.operationId} also used by ${seen.get(op.operationId)}`);
      else seen.set(op.operationId, where);
      for (const requirement of op.security ?? []) {
        for (const scheme of Object.keys(requirement)) {
          if (scheme !== 'jwt') problems.push(`${where}: security scheme ${scheme} is not jwt`);
        }
      }
    }
  }
  const text = JSON.stringify(doc);
  if (text.includes('"nullable"')) problems.push('a `nullable` keyword survived the 3.1 upgrade');
  return problems;
}

/**
 * tsoa writes nullability in ways the upgrader leaves behind: `nullable: false` on enums and
 * `{allOf: [{$ref}], nullable: true}` for nullable references. Rewrite those as 3.1 would say
 * them; plain `type` + `nullable: true` is left to the upgrader.
 */
export function normaliseNullable(node) {
  if (Array.isArray(node)) return node.map(normaliseNullable);
  if (!node || typeof node !== 'object') return node;
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, normaliseNullable(v)]));
  if (out.nullable === false) delete out.nullable;
  if (out.nullable === true && out.type === undefined && Array.isArray(out.anyOf)) {
    const { nullable: _nullable, anyOf, ...rest } = out;
    return { ...rest, anyOf: anyOf.some((a) => a.type === 'null') ? anyOf : [...anyOf, { type: 'null' }] };
  }
  if (out.nullable === true && out.type === undefined) {
    const { nullable: _nullable, allOf, $ref, ...rest } = out;
    const alternatives = allOf ?? ($ref ? [{ $ref }] : []);
    if (alternatives.length) return { ...rest, anyOf: [...alternatives, { type: 'null' }] };
  }
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return out;
}

const ERROR_BODY = { content: { 'application/json': { schema: { $ref: '#/components/schemas/AppResponseError' } } } };

/**
 * The statuses any operation can answer whatever its handler does, added where an operation
 * does not list them already (the document is the contract, so every status must be in it):
 * 400 when it takes parameters or a body (validation), 413 with a body, 401 when secured, 404
 * with a path parameter, 429 (rate limits), 500 and 503 (database unavailable, with Retry-After).
 */
export function documentCommonResponses(doc) {
  const add = (op, status, description, extra = {}) => {
    op.responses ??= {};
    if (!op.responses[status]) op.responses[status] = { description, ...ERROR_BODY, ...extra };
  };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])];
      if (params.length || op.requestBody) add(op, '400', 'Invalid parameter or body');
      if (op.requestBody) add(op, '413', 'Request body too large');
      if ((op.security ?? doc.security ?? []).length) add(op, '401', 'Missing, invalid or revoked token');
      if (params.some((p) => p.in === 'path')) add(op, '404', 'Not found');
      add(op, '429', 'Too many requests', {
        headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
      });
      add(op, '500', 'Internal or database error');
      add(op, '503', 'Database unavailable; retry after the given seconds', {
        headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
      });
      // One order whatever declared a status (a decorator or this pass): by status code.
      op.responses = Object.fromEntries(Object.entries(op.responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
}

/**
 * Request bodies are open: unknown properties are accepted and dropped (tsoa's
 * silently-remove-extras), because the reference client sends extra keys on several routes. The
 * schemas say so instead of declaring `additionalProperties: false`. Response schemas stay closed.
 */
export function openRequestSchemas(doc) {
  const schemas = doc.components?.schemas ?? {};
  const pending = [];
  const collect = (node) => {
    if (Array.isArray(node)) return node.forEach(collect);
    if (!node || typeof node !== 'object') return;
    if (typeof node.$ref === 'string') pending.push(node.$ref.replace('#/components/schemas/', ''));
    for (const value of Object.values(node)) collect(value);
  };
  for (const item of Object.values(doc.paths ?? {})) for (const method of METHODS) collect(item[method]?.requestBody);
  const seen = new Set();
  while (pending.length) {
    const name = pending.pop();
    if (seen.has(name) || !schemas[name]) continue;
    seen.add(name);
    const open = (node) => {
      if (Array.isArray(node)) return node.forEach(open);
      if (!node || typeof node !== 'object') return;
      if (node.additionalProperties === false) delete node.additionalProperties;
      for (const value of Object.values(node)) open(value);
    };
    open(schemas[name]);
    collect(schemas[name]);
  }
  // Inline request body schemas too.
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of METHODS) {
      const schema = item[method]?.requestBody?.content?.['application/json']?.schema;
      if (schema && schema.additionalProperties === false) delete schema.additionalProperties;
    }
  }
}

/** The parameter aliases of src/api/params.ts, inlined into each parameter as tsoa writes a
 * parameter declared `number` with its own JSDoc validators; the alias's description becomes the
 * parameter's when the route gives none. */
export const PARAMETER_ALIASES = ['Id', 'BigId', 'PageNumber', 'PageSize'];
export function inlineParameterAliases(doc) {
  const schemas = doc.components?.schemas ?? {};
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of METHODS) {
      for (const param of item[method]?.parameters ?? []) {
        const name = param.schema?.$ref?.replace('#/components/schemas/', '');
        if (!PARAMETER_ALIASES.includes(name)) continue;
        const { description, format, type, ...rest } = schemas[name];
        if (description && !param.description) {
          const { in: where, name: pname, required, schema, ...others } = param;
          Object.keys(param).forEach((k) => delete param[k]);
          Object.assign(param, { description, in: where, name: pname, required, schema, ...others });
        }
        param.schema = { ...(format && { format }), type, ...rest };
      }
    }
  }
  const used = JSON.stringify(doc);
  for (const name of PARAMETER_ALIASES) if (!used.includes(`"#/components/schemas/${name}"`)) delete schemas[name];
}

/** Paths and component schemas in name order: the document does not depend on where tsoa found
 * each controller (hand-written in src/features, generated in src/generated/controllers). */
export function sortPathsAndSchemas(doc) {
  const byKey = (obj) => Object.fromEntries(Object.entries(obj).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  doc.paths = byKey(doc.paths ?? {});
  if (doc.components?.schemas) doc.components.schemas = byKey(doc.components.schemas);
}

/** Adds `paths` to the tsoa document; a path+method tsoa already has is an error. */
export function mergePaths(doc, paths) {
  const problems = [];
  doc.paths ??= {};
  for (const [path, item] of Object.entries(paths)) {
    const existing = (doc.paths[path] ??= {});
    for (const [method, operation] of Object.entries(item)) {
      if (existing[method]) problems.push(`${method.toUpperCase()} ${path}: declared by tsoa and by the route table`);
      else existing[method] = operation;
    }
  }
  return problems;
}

/** `mediaPaths`: the route table's OpenAPI path items (mediaOpenapiPaths()). */
export async function finalize(tsoaDoc, mediaPaths = {}) {
  const merged = structuredClone(tsoaDoc);
  inlineParameterAliases(merged);
  const mergeProblems = mergePaths(merged, mediaPaths);
  const doc = upgrade({ ...normaliseNullable(merged), openapi: '3.0.3' }, '3.1');
  doc.openapi = '3.1.0';
  documentCommonResponses(doc);
  openRequestSchemas(doc);
  sortPathsAndSchemas(doc);
  const problems = [...mergeProblems, ...ruleViolations(doc)];
  const result = await new Validator().validate(structuredClone(doc));
  if (!result.valid) problems.push(`not a valid OpenAPI 3.1 document: ${JSON.stringify(result.errors).slice(0, 2000)}`);
  return { doc, problems };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [input = 'src/generated/tsoa-openapi.json', output = 'src/generated/openapi.json'] = process.argv.slice(2);
  const { mediaOpenapiPaths } = await import('../src/http/media-table.ts');
  const { doc, problems } = await finalize(JSON.parse(readFileSync(input, 'utf8')), mediaOpenapiPaths());
  if (problems.length) {
    for (const p of problems) console.error(`openapi: ${p}`);
    process.exit(1);
  }
  writeFileSync(output, `${JSON.stringify(doc, null, 2)}\n`);
}
