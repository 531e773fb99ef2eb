// tsoa emits an OpenAPI 3.0 document (nullability as `nullable: true`). This step declares it as
// 3.0.3, upgrades it to 3.1 (nullability becomes type unions), checks the project's rules, and
// validates it against the 3.1 schema. The result is src/generated/openapi.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { upgrade } from '@scalar/openapi-upgrader';
import { Validator } from '@seriousme/openapi-schema-validator';
import { mergePaths, playbackPaths } from './openapi-playback.mjs';
import { liveImagePaths } from './openapi-live-images.mjs';
import { livePaths } from './openapi-live.mjs';
import { pushPaths } from './openapi-push.mjs';

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
      else if (seen.has(op.operationId)) problems.push(`${where}: operationId ${op.operationId} also used by ${seen.get(op.operationId)}`);
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
    const { nullable, anyOf, ...rest } = out;
    return { ...rest, anyOf: anyOf.some((a) => a.type === 'null') ? anyOf : [...anyOf, { type: 'null' }] };
  }
  if (out.nullable === true && out.type === undefined) {
    const { nullable, allOf, $ref, ...rest } = out;
    const alternatives = allOf ?? ($ref ? [{ $ref }] : []);
    if (alternatives.length) return { ...rest, anyOf: [...alternatives, { type: 'null' }] };
  }
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return out;
}

export async function finalize(tsoaDoc) {
  // The media routes are plain express handlers that tsoa cannot see (openapi-playback.mjs).
  const merged = structuredClone(tsoaDoc);
  const mergeProblems = [
    ...mergePaths(merged, playbackPaths),
    ...mergePaths(merged, liveImagePaths),
    ...mergePaths(merged, livePaths),
    ...mergePaths(merged, pushPaths),
  ];
  const doc = upgrade({ ...normaliseNullable(merged), openapi: '3.0.3' }, '3.1');
  doc.openapi = '3.1.0';
  const problems = [...mergeProblems, ...ruleViolations(doc)];
  const result = await new Validator().validate(structuredClone(doc));
  if (!result.valid) problems.push(`not a valid OpenAPI 3.1 document: ${JSON.stringify(result.errors).slice(0, 2000)}`);
  return { doc, problems };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [input = 'src/generated/tsoa-openapi.json', output = 'src/generated/openapi.json'] = process.argv.slice(2);
  const { doc, problems } = await finalize(JSON.parse(readFileSync(input, 'utf8')));
  if (problems.length) {
    for (const p of problems) console.error(`openapi: ${p}`);
    process.exit(1);
  }
  writeFileSync(output, `${JSON.stringify(doc, null, 2)}\n`);
}
