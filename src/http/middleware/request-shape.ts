// Checks that need no route knowledge, before tsoa's validator runs:
// - JSON nesting depth. A body nested thousands deep parses fine but makes recursive
//   validation and serialisation overflow the stack (a 500). No request schema nests deeper
//   than a few levels, so anything beyond MAX_JSON_DEPTH is refused with a 400.
// - Integer ranges from the OpenAPI document. tsoa checks that an int32/int64 parameter is an
//   integer, not that it fits: 2^63 in a path reached the database as an out-of-range value
//   (a 500). Every integer path and query parameter, and every integer in a JSON body, is held
//   to its declared format here.
import type { RequestHandler } from 'express';
import { InvalidInputError } from '../../errors.js';
import { groupOf } from '../fast-path/route-index.js';

export const MAX_JSON_DEPTH = 64;

/** Depth of a parsed JSON value (a scalar is 0), without recursion; stops past `limit`. */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, level]);
    }
  }
  return deepest;
}

export function jsonDepthLimit(limit = MAX_JSON_DEPTH): RequestHandler {
  return (req, _res, next) => {
    if (req.body !== null && typeof req.body === 'object' && jsonDepth(req.body, limit) > limit) {
      return next(new InvalidInputError('Invalid input', [['body', `nested deeper than ${limit} levels`]]));
    }
    next();
  };
}

const RANGES: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
};

interface IntegerParam {
  name: string;
  in: 'path' | 'query';
  format: 'int32' | 'int64';
}

interface Operation {
  /** fast-path/route-index.ts's groupOf() of the path ('' outside /api/v3/). */
  group: string;
  pattern: RegExp;
  pathNames: string[];
  method: string;
  params: IntegerParam[];
  body?: Schema;
}

type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};

interface OpenApiLike {
  paths?: Record<
    string,
    Record<
      string,
      {
        parameters?: Array<{ name: string; in: string; schema?: { type?: string; format?: string } }>;
        requestBody?: { content?: Record<string, { schema?: Schema }> };
      }
    >
  >;
  components?: { schemas?: Record<string, Schema> };
}

const hasType = (schema: Schema, type: string) =>
  schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type));

/**
 * The dotted name of the first integer in `value` outside the int32/int64 format its schema
 * declares, or null. Where alternatives (anyOf/oneOf) disagree, the widest integer wins.
 */
function bodyIntegerOutOfRange(
  value: unknown,
  schema: Schema | undefined,
  schemas: Record<string, Schema>,
  at: string,
  depth = 0,
): string | null {
  if (!schema || depth > MAX_JSON_DEPTH) return null;
  if (schema.$ref)
    return bodyIntegerOutOfRange(
      value,
      schemas[schema.$ref.replace('#/components/schemas/', '')],
      schemas,
      at,
      depth + 1,
    );
  const alternatives = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  if (typeof value === 'number') {
    if (alternatives.length) {
      const formats = alternatives
        .map((a) => (a.$ref ? schemas[a.$ref.replace('#/components/schemas/', '')] : a))
        .filter((a) => a && (hasType(a, 'integer') || hasType(a, 'number')));
      if (
        !formats.length ||
        formats.some((a) => !hasType(a, 'integer') || (a.format !== 'int32' && a.format !== 'int64'))
      )
        return null;
      const widest = formats.some((a) => a.format === 'int64') ? 'int64' : 'int32';
      return outOfRange(String(value), widest) ? at : null;
    }
    if (
      hasType(schema, 'integer') &&
      (schema.format === 'int32' || schema.format === 'int64') &&
      Number.isInteger(value)
    ) {
      const big = Math.abs(value) >= 2 ** 63 ? 2n ** 64n : BigInt(value);
      const [min, max] = RANGES[schema.format];
      return big < min || big > max ? at : null;
    }
    return null;
  }
  for (const part of [...alternatives, ...(schema.allOf ?? [])]) {
    const found = bodyIntegerOutOfRange(value, part, schemas, at, depth + 1);
    if (found) return found;
  }
  if (Array.isArray(value) && schema.items) {
    for (const [i, item] of value.entries()) {
      const found = bodyIntegerOutOfRange(item, schema.items, schemas, `${at}[${i}]`, depth + 1);
      if (found) return found;
    }
  } else if (value && typeof value === 'object' && schema.properties) {
    for (const [key, item] of Object.entries(value)) {
      const found = bodyIntegerOutOfRange(item, schema.properties[key], schemas, at ? `${at}.${key}` : key, depth + 1);
      if (found) return found;
    }
  }
  return null;
}

function compile(doc: OpenApiLike): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths ?? {})) {
    const pathNames: string[] = [];
    const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_m, name: string) => {
      pathNames.push(name);
      return '([^/]+)';
    });
    const pattern = new RegExp(`^${source}/?$`);
    for (const [method, op] of Object.entries(methods)) {
      const params = (op?.parameters ?? []).flatMap((p) =>
        (p.in === 'path' || p.in === 'query') &&
        p.schema?.type === 'integer' &&
        (p.schema.format === 'int32' || p.schema.format === 'int64')
          ? [{ name: p.name, in: p.in, format: p.schema.format } as IntegerParam]
          : [],
      );
      const body = op?.requestBody?.content?.['application/json']?.schema;
      if (params.length || body)
        operations.push({ group: groupOf(path) ?? '', pattern, pathNames, method: method.toUpperCase(), params, body });
    }
  }
  return operations;
}

function outOfRange(raw: unknown, format: 'int32' | 'int64'): boolean {
  const values = Array.isArray(raw) ? raw : [raw];
  return values.some((v) => {
    if (typeof v !== 'string' || !/^[+-]?\d+$/.test(v.trim())) return false; // not an integer: tsoa answers
    const n = BigInt(v.trim());
    const [min, max] = RANGES[format];
    return n < min || n > max;
  });
}

/** Refuses integer path/query parameters outside their declared int32/int64 range with a 400. */
export function integerRanges(doc: OpenApiLike): RequestHandler {
  // Grouped by first segment as the routes are (fast-path/route-index.ts, which refuses a path whose first
  // segment is a parameter): a request is matched against its own resource's operations only,
  // in document order as before.
  const groups = new Map<string, Operation[]>();
  for (const op of compile(doc)) groups.set(op.group, [...(groups.get(op.group) ?? []), op]);
  const schemas = doc.components?.schemas ?? {};
  return (req, _res, next) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    for (const op of groups.get(groupOf(req.path) ?? '') ?? []) {
      if (op.method !== method) continue;
      const m = op.pattern.exec(req.path);
      if (!m) continue;
      for (const p of op.params) {
        let raw: unknown;
        if (p.in === 'path') {
          const i = op.pathNames.indexOf(p.name);
          try {
            raw = i >= 0 ? decodeURIComponent(m[i + 1]) : undefined;
          } catch {
            raw = undefined;
          }
        } else {
          raw = (req.query as Record<string, unknown>)[p.name];
        }
        if (outOfRange(raw, p.format)) {
          return next(new InvalidInputError('Invalid input', [[p.name, `must be an integer within ${p.format}`]]));
        }
      }
      if (op.body && req.body !== null && typeof req.body === 'object') {
        const field = bodyIntegerOutOfRange(req.body, op.body, schemas, '');
        if (field !== null)
          return next(
            new InvalidInputError('Invalid input', [[field || 'body', 'integer out of range for its format']]),
          );
      }
      break;
    }
    next();
  };
}
