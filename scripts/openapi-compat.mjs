// The compatibility gate (spec "Versioning" 3): compares the generated OpenAPI document with the
// reviewed baseline in openapi/baseline.json. It fails when a change removes an endpoint,
// changes an operationId, replaces a response shape, makes a response field no longer
// guaranteed, drops an enum value, or adds a required request field. New endpoints and new
// optional fields pass. `--write-baseline` accepts the current document as the new baseline.
import { copyFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function resolver(doc) {
  return (schema) => {
    let s = schema;
    const seen = new Set();
    while (s && typeof s.$ref === 'string') {
      if (seen.has(s.$ref)) break;
      seen.add(s.$ref);
      s = s.$ref
        .split('/')
        .slice(1)
        .reduce((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    }
    return s ?? {};
  };
}

const types = (s) => new Set(Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);
const refName = (s) => (typeof s?.$ref === 'string' ? s.$ref.split('/').pop() : undefined);

/**
 * Walks two schemas side by side. `mode` is 'response' (what clients read) or 'request'
 * (what clients send). Problems are pushed as human-readable lines.
 */
function compareSchema(ctx, base, cur, where, mode, depth = 0) {
  if (depth > 12 || !base || !cur) return;
  const key = `${mode}|${where}|${refName(base)}|${refName(cur)}`;
  if (ctx.visited.has(key)) return;
  ctx.visited.add(key);
  const b = ctx.rb(base);
  const c = ctx.rc(cur);
  const bt = types(b);
  const ct = types(c);
  if (mode === 'response') {
    for (const t of ct) {
      if (bt.size && !bt.has(t) && !(t === 'integer' && bt.has('number'))) {
        ctx.problems.push(`${where}: response type ${[...bt].join('|')} replaced by ${[...ct].join('|')}`);
        break;
      }
    }
  } else if (bt.size && ct.size && ![...bt].some((t) => ct.has(t) || (t === 'integer' && ct.has('number')))) {
    ctx.problems.push(`${where}: request type ${[...bt].join('|')} replaced by ${[...ct].join('|')}`);
  }
  if (Array.isArray(b.enum)) {
    const now = new Set(Array.isArray(c.enum) ? c.enum : []);
    if (Array.isArray(c.enum)) {
      for (const v of b.enum) if (!now.has(v)) ctx.problems.push(`${where}: enum value ${JSON.stringify(v)} dropped`);
    }
  }
  const bProps = b.properties ?? {};
  const cProps = c.properties ?? {};
  const bReq = new Set(b.required ?? []);
  const cReq = new Set(c.required ?? []);
  for (const [name, bs] of Object.entries(bProps)) {
    const here = `${where}.${name}`;
    if (mode === 'response') {
      if (bReq.has(name) && !cReq.has(name)) ctx.problems.push(`${here}: response field no longer guaranteed`);
      else if (!(name in cProps)) {
        if (bReq.has(name)) ctx.problems.push(`${here}: response field removed`);
        continue;
      }
      if (bReq.has(name) && !types(ctx.rb(bs)).has('null') && types(ctx.rc(cProps[name])).has('null')) {
        ctx.problems.push(`${here}: response field became nullable`);
      }
    }
    if (name in cProps) compareSchema(ctx, bs, cProps[name], here, mode, depth + 1);
  }
  if (mode === 'request') {
    for (const name of cReq) if (!bReq.has(name)) ctx.problems.push(`${where}.${name}: new required request field`);
  }
  if (b.items && c.items) compareSchema(ctx, b.items, c.items, `${where}[]`, mode, depth + 1);
}

const firstJson = (content) => content?.['application/json']?.schema ?? Object.values(content ?? {})[0]?.schema;

export function compareOpenapi(baseDoc, curDoc) {
  const ctx = { problems: [], visited: new Set(), rb: resolver(baseDoc), rc: resolver(curDoc) };
  for (const [path, bItem] of Object.entries(baseDoc.paths ?? {})) {
    for (const method of METHODS) {
      const bOp = bItem[method];
      if (!bOp) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const cOp = curDoc.paths?.[path]?.[method];
      if (!cOp) {
        ctx.problems.push(`${where}: endpoint removed`);
        continue;
      }
      if (bOp.operationId !== cOp.operationId) {
        ctx.problems.push(`${where}: operationId ${bOp.operationId} changed to ${cOp.operationId}`);
      }
      for (const [status, bRes] of Object.entries(bOp.responses ?? {})) {
        const cRes = cOp.responses?.[status];
        if (!cRes) {
          ctx.problems.push(`${where} ${status}: response removed`);
          continue;
        }
        const bs = firstJson(ctx.rb(bRes).content);
        const cs = firstJson(ctx.rc(cRes).content);
        if (bs && !cs) ctx.problems.push(`${where} ${status}: response body removed`);
        else if (bs && cs) compareSchema(ctx, bs, cs, `${where} ${status}`, 'response');
      }
      const bParams = new Map((bOp.parameters ?? []).map((p) => ctx.rb(p)).map((p) => [`${p.in}:${p.name}`, p]));
      for (const p of (cOp.parameters ?? []).map((q) => ctx.rc(q))) {
        const old = bParams.get(`${p.in}:${p.name}`);
        if (p.required && !old?.required) ctx.problems.push(`${where}: new required parameter ${p.in} ${p.name}`);
        if (old?.schema && p.schema) compareSchema(ctx, old.schema, p.schema, `${where} param ${p.name}`, 'request');
      }
      const bBody = bOp.requestBody ? ctx.rb(bOp.requestBody) : undefined;
      const cBody = cOp.requestBody ? ctx.rc(cOp.requestBody) : undefined;
      if (cBody?.required && !bBody?.required) ctx.problems.push(`${where}: request body became required`);
      const bbs = firstJson(bBody?.content);
      const cbs = firstJson(cBody?.content);
      if (bbs && cbs) compareSchema(ctx, bbs, cbs, `${where} body`, 'request');
      else if (!bbs && cbs && cBody?.required) ctx.problems.push(`${where}: new required request body`);
    }
  }
  return ctx.problems;
}

/** Endpoints present now but not in the baseline (reported as notices, never failures). */
export function addedEndpoints(baseDoc, curDoc) {
  const added = [];
  for (const [path, item] of Object.entries(curDoc.paths ?? {})) {
    for (const method of METHODS)
      if (item[method] && !baseDoc.paths?.[path]?.[method]) added.push(`${method.toUpperCase()} ${path}`);
  }
  return added;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const current = join(root, 'src', 'generated', 'openapi.json');
  const baseline = join(root, 'openapi', 'baseline.json');
  if (process.argv.includes('--write-baseline')) {
    copyFileSync(current, baseline);
    console.log(`openapi: baseline updated from ${current}`);
    process.exit(0);
  }
  const base = JSON.parse(readFileSync(baseline, 'utf8'));
  const cur = JSON.parse(readFileSync(current, 'utf8'));
  for (const e of addedEndpoints(base, cur)) console.log(`openapi: new endpoint ${e}`);
  const problems = compareOpenapi(base, cur);
  for (const p of problems) console.error(`openapi: BREAKING ${p}`);
  console.log(
    problems.length ? `openapi: ${problems.length} breaking change(s)` : 'openapi: compatible with the baseline',
  );
  process.exit(problems.length ? 1 : 0);
}
