// Checks push messages against docs/push-messages.schema.json, so the documented schema and the
// messages sent cannot drift apart. Implements the JSON Schema keywords that file uses ($ref to
// $defs, oneOf, type, enum, const, properties, required, items, pattern, minimum) and refuses
// properties the schema does not name.
import { readFileSync } from 'node:fs';

const schema = JSON.parse(readFileSync(new URL('../../docs/push-messages.schema.json', import.meta.url), 'utf8'));

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** The problems of `value` against `node` (empty: valid). */
function check(node: any, value: unknown, at: string): string[] {
  if (node.$ref) return check(schema.$defs[node.$ref.replace('#/$defs/', '')], value, at);
  if (node.oneOf) {
    const passing = node.oneOf.filter((n: any) => check(n, value, at).length === 0).length;
    return passing === 1 ? [] : [`${at}: matches ${passing} of oneOf`];
  }
  const problems: string[] = [];
  const actual = typeOf(value);
  if (node.type) {
    const types: string[] = Array.isArray(node.type) ? node.type : [node.type];
    if (!types.includes(actual) && !(actual === 'integer' && types.includes('number')))
      return [`${at}: ${actual}, expected ${types.join('|')}`];
  }
  if ('const' in node && value !== node.const) problems.push(`${at}: expected ${JSON.stringify(node.const)}`);
  if (node.enum && !node.enum.includes(value))
    problems.push(`${at}: ${JSON.stringify(value)} not in ${JSON.stringify(node.enum)}`);
  if (node.pattern && typeof value === 'string' && !new RegExp(node.pattern).test(value))
    problems.push(`${at}: ${value} does not match ${node.pattern}`);
  if (node.minimum !== undefined && typeof value === 'number' && value < node.minimum)
    problems.push(`${at}: below ${node.minimum}`);
  if (node.items && Array.isArray(value))
    value.forEach((v, i) => problems.push(...check(node.items, v, `${at}[${i}]`)));
  if (node.properties && actual === 'object') {
    const obj = value as Record<string, unknown>;
    for (const key of node.required ?? []) if (!(key in obj)) problems.push(`${at}.${key}: missing`);
    for (const [key, v] of Object.entries(obj)) {
      if (!node.properties[key]) problems.push(`${at}.${key}: not in the schema`);
      else problems.push(...check(node.properties[key], v, `${at}.${key}`));
    }
  }
  return problems;
}

/** Problems of one server message; [] when it matches the documented schema. */
export function pushSchemaProblems(message: unknown): string[] {
  return check(schema, message, '$');
}
