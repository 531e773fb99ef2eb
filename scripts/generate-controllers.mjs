// Writes the plain tsoa controllers into src/generated/controllers/ from their route tables
// (`src/features/**/<name>.api.ts`, the format is in src/features/controller-spec.ts), and beside
// them polled-reads.ts: the fast path's entry of every line marked `[polled]`, whose service call
// is rendered from the same signature as the controller's (src/http/fast-path/README.md). Run by
// scripts/build-ts.mjs before tsoa reads the controllers. Run with tsx. The output is committed;
// test/architecture/generated-fresh.test.ts keeps it equal to what this renders.
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stamp } from './generated-stamp.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const outDir = join(src, 'generated', 'controllers');

const quote = (v) => `'${String(v).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const camel = (id) => id.replace(/[_-](\w)/g, (_, c) => c.toUpperCase());
const DECORATOR = { GET: 'Get', POST: 'Post', PUT: 'Put', PATCH: 'Patch', DELETE: 'Delete' };
const PARAM_ALIASES = ['Id', 'BigId', 'PageNumber', 'PageSize'];
const POLLED = /\s+\[polled\]$/;
/** The fast path's entries, beside the controllers. */
export const POLLED_READS_FILE = 'polled-reads.ts';

function* specFiles(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* specFiles(p);
    else if (name.endsWith('.api.ts')) yield p;
  }
}

/** Splits `a, b?: T<x, y>` at the top-level commas. */
function splitArgs(text) {
  const out = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if ('<([{'.includes(ch)) depth++;
    if ('>)]}'.includes(ch)) depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** `field.method(args): Ret` → its parts; each arg as {name, optional, type}. */
export function parseCall(call, where) {
  const m = /^(\w+)\.(\w+)\((.*)\)(?::\s*(.+))?$/s.exec(call.trim());
  if (!m) throw new Error(`${where}: call ${JSON.stringify(call)} is not field.method(args): Type`);
  const parseArg = (arg) => {
    // A literal (`"up"`, `'zoom in'`, `-1`, `0.5`) is passed to the service as written; it declares no parameter.
    if (/^(?:"[^"\\]*"|'[^'\\]*'|-?\d+(?:\.\d+)?)$/.test(arg))
      return { literal: arg.startsWith('"') ? `'${arg.slice(1, -1)}'` : arg };
    const a = /^([A-Za-z_]\w*)(\?)?(?::\s*([^;]+))?$/s.exec(arg);
    if (!a) throw new Error(`${where}: argument ${JSON.stringify(arg)}`);
    return { name: a[1], optional: Boolean(a[2]), type: a[3]?.trim() };
  };
  // `{ a?: T, b?: U }` passes those parameters to the service as one object.
  const args = splitArgs(m[3]).map((arg) =>
    arg.startsWith('{') && arg.endsWith('}') ? { group: splitArgs(arg.slice(1, -1)).map(parseArg) } : parseArg(arg),
  );
  return { field: m[1], method: m[2], args, returns: m[4]?.trim() };
}

function renderParam(arg, path, used) {
  if (arg.literal !== undefined) return { pass: arg.literal };
  if (!arg.type && (arg.name === 'user' || arg.name === 'req')) {
    used.add('Request');
    used.add('ExRequest');
    if (arg.name === 'user') used.add('currentUser');
    return { decl: '@Request() req: ExRequest', pass: arg.name === 'user' ? 'currentUser(req)' : 'req' };
  }
  if (!arg.type) throw new Error(`argument ${arg.name} has no type`);
  const kind = path.includes(`{${arg.name}}`) ? 'Path' : arg.name === 'body' ? 'Body' : 'Query';
  used.add(kind);
  return { decl: `@${kind}() ${arg.name}${arg.optional ? '?' : ''}: ${arg.type}`, pass: arg.name };
}

/**
 * `'<VERB> <path> <operationId> = <call>'`, optionally ending in ` [polled]` (or that line with
 * options) → its parts.
 */
export function parseOperation(op, controller) {
  const [text, options = {}] = typeof op === 'string' ? [op] : op;
  const polled = POLLED.test(text);
  const line = text.replace(POLLED, '');
  const m = /^(GET|POST|PUT|PATCH|DELETE) (\S+) (\w+) = (.+)$/s.exec(line);
  if (!m)
    throw new Error(`${controller}: operation ${JSON.stringify(line)} is not '<VERB> <path> <operationId> = <call>'`);
  return { verb: m[1], path: m[2] === '/' ? '' : m[2], operationId: m[3], call: m[4], options, polled };
}

function renderOperation(op, spec, used) {
  const { verb, path, operationId, call, options } = parseOperation(op, spec.name);
  const where = `${spec.name} ${operationId}`;
  const parsed = parseCall(call, where);
  if (!spec.services[parsed.field]) throw new Error(`${where}: no service field ${parsed.field}`);
  const params = parsed.args.flatMap((a) => {
    if (a.group?.some((g) => g.literal !== undefined))
      throw new Error(`${where}: a literal cannot be a member of { ... }`);
    if (!a.group) return [renderParam(a, path, used)];
    const members = a.group.map((g) => renderParam(g, path, used));
    return members.map((p, i) => ({
      decl: p.decl,
      pass: i === 0 ? `{ ${a.group.map((g) => g.name).join(', ')} }` : undefined,
    }));
  });
  const lines = [];
  if (options.doc?.length) lines.push('  /**', ...options.doc.map((l) => `   * ${l}`.trimEnd()), '   */');
  used.add(DECORATOR[verb]);
  used.add('OperationId');
  lines.push(`  @${DECORATOR[verb]}(${path ? quote(path) : ''})`, `  @OperationId(${quote(operationId)})`);
  if (options.status) {
    used.add('SuccessResponse');
    lines.push(`  @SuccessResponse(${options.status[0]}, ${quote(options.status[1])})`);
  }
  for (const [status, text] of Object.entries(options.responses ?? {})) {
    used.add('Response');
    lines.push(`  @Response<AppResponseError>(${status}, ${quote(text)})`);
  }
  const returns = parsed.returns ?? 'void';
  const passed = params.filter((p) => p.pass !== undefined).map((p) => p.pass);
  const invoke = `this.${parsed.field}.${parsed.method}(${passed.join(', ')})`;
  lines.push(
    `  public async ${camel(operationId)}(${params
      .filter((p) => p.decl !== undefined)
      .map((p) => p.decl)
      .join(', ')}): Promise<${returns}> {`,
    parsed.returns ? `    return ${invoke};` : `    await ${invoke};`,
    '  }',
  );
  return lines.join('\n');
}

export function render(spec, specPath, outPath) {
  const used = new Set(['Route', 'Tags', 'Security']);
  const body = spec.operations.map((op) => renderOperation(op, spec, used));
  const classResponses = Object.entries(spec.responses ?? {}).map(
    ([status, text]) => `@Response<AppResponseError>(${status}, ${quote(text)})`,
  );
  if (classResponses.length) used.add('Response');
  const text = [...body, ...Object.keys(spec.pages ?? {})].join('\n');
  const toSrc = (p) => {
    const rel = posix.relative(posix.dirname(relative(src, outPath)), p);
    return rel.startsWith('.') ? rel : `./${rel}`;
  };
  const tsoa = [...used].filter((n) => /^[A-Z]/.test(n) && n !== 'ExRequest').sort();
  const out = [
    `// Generated by scripts/generate-controllers.mjs from src/${relative(src, specPath)}; do not edit.`,
    `import { ${tsoa.join(', ')} } from '@tsoa/runtime';`,
  ];
  if (used.has('ExRequest')) out.push(`import type { Request as ExRequest } from 'express';`);
  if (used.has('Response') || /AppResponseError/.test(text))
    out.push(`import type { AppResponseError } from '${toSrc('api/envelopes.js')}';`);
  const aliases = PARAM_ALIASES.filter((a) => new RegExp(`\\b${a}\\b`).test(text));
  if (aliases.length) out.push(`import type { ${aliases.join(', ')} } from '${toSrc('api/params.js')}';`);
  if (spec.pages) out.push(`import type { Page } from '${toSrc('api/pagination.js')}';`);
  if (used.has('currentUser')) out.push(`import { currentUser } from '${toSrc('auth/request-user.js')}';`);
  out.push(`import { FeatureController } from '${toSrc('features/feature-controller.js')}';`);
  const serviceClasses = new Set(Object.values(spec.services));
  const specDir = posix.dirname(relative(src, specPath));
  for (const [module, names] of Object.entries(spec.imports)) {
    const list = names.map((n) => (serviceClasses.has(n) ? n : `type ${n}`));
    out.push(`import { ${list.join(', ')} } from '${toSrc(posix.join(specDir, module))}';`);
  }
  out.push('');
  for (const [name, item] of Object.entries(spec.pages ?? {}))
    out.push(`export interface ${name} extends Page<${item}> {}`, '');
  if (spec.comment) out.push(...spec.comment.map((l) => `// ${l}`));
  out.push(
    `@Route(${quote(spec.route)})`,
    `@Tags(${quote(spec.tag)})`,
    `@Security('jwt', [${spec.security.map(quote).join(', ')}])`,
    ...classResponses,
    `export class ${spec.name} extends FeatureController {`,
    ...Object.entries(spec.services).map(([field, cls]) => `  private readonly ${field} = this.services.get(${cls});`),
    '',
    body.join('\n\n'),
    '}',
    '',
  );
  return out.join('\n');
}

/**
 * A `[polled]` line's fast-path entry: its operationId, the query parameters the call passes (all
 * of them, in the call's order) and the call itself, rendered from the signature the controller's
 * method is rendered from. The lane hands over the query values it checked; the others are absent.
 */
function renderPolledRead(op, spec, types) {
  const { verb, path, operationId, call } = parseOperation(op, spec.name);
  const where = `${spec.name} ${operationId} [polled]`;
  const parsed = parseCall(call, where);
  if (verb !== 'GET' || path.includes('{')) throw new Error(`${where}: only a GET of a fixed path is polled`);
  if (!parsed.returns) throw new Error(`${where}: a polled read answers a body`);
  const query = [];
  const passArg = (arg) => {
    if (arg.literal !== undefined) return arg.literal;
    if (!arg.type && arg.name === 'user') return 'user';
    if (!arg.type || arg.name === 'body')
      throw new Error(`${where}: ${arg.name} cannot be polled (query parameters and user only)`);
    if (!arg.optional)
      throw new Error(`${where}: ${arg.name} is required; a polled read takes optional query parameters only`);
    query.push(arg.name);
    for (const name of arg.type.match(/\b[A-Z]\w*/g) ?? []) types.add(name);
    return `q.${arg.name} as ${arg.type} | undefined`;
  };
  const passed = parsed.args.map((a) =>
    a.group ? `{ ${a.group.map((g) => `${g.name}: ${passArg(g)}`).join(', ')} }` : passArg(a),
  );
  const service = spec.services[parsed.field];
  if (!service) throw new Error(`${where}: no service field ${parsed.field}`);
  types.add(service);
  return [
    '  {',
    `    operationId: ${quote(operationId)},`,
    `    query: [${query.map(quote).join(', ')}],`,
    `    answer: (services, user, ${query.length ? 'q' : '_q'}) => services.get(${service}).${parsed.method}(${passed.join(', ')}),`,
    '  },',
  ].join('\n');
}

/** polled-reads.ts: every `[polled]` line's entry, in table order. */
function renderPolledReads(specs) {
  const entries = [];
  const imports = new Map();
  for (const [spec, specPath] of specs) {
    for (const op of spec.operations) {
      if (!parseOperation(op, spec.name).polled) continue;
      const types = new Set();
      entries.push(renderPolledRead(op, spec, types));
      const specDir = posix.dirname(relative(src, specPath));
      for (const name of types) {
        const module = PARAM_ALIASES.includes(name)
          ? 'api/params.js'
          : Object.entries(spec.imports)
              .filter(([, names]) => names.includes(name))
              .map(([m]) => posix.join(specDir, m))[0];
        if (!module) throw new Error(`${spec.name}: ${name} is not among its imports`);
        if (!imports.has(module)) imports.set(module, new Set());
        imports.get(module).add(name);
      }
    }
  }
  const serviceClasses = new Set(specs.flatMap(([spec]) => Object.values(spec.services)));
  const lines = [
    `// Generated by scripts/generate-controllers.mjs from the route tables' lines marked [polled]; do not edit.`,
    "// The fast path's entries (src/http/fast-path/): each makes the service call of its generated",
    '// controller method, rendered from the same line; `query` names every query parameter it passes.',
    `import type { PolledRead } from '../../features/controller-spec.js';`,
  ];
  for (const module of [...imports.keys()].sort()) {
    const names = [...imports.get(module)].sort();
    const list = names.map((n) => (serviceClasses.has(n) ? n : `type ${n}`));
    const allTypes = names.every((n) => !serviceClasses.has(n));
    lines.push(
      allTypes
        ? `import type { ${names.join(', ')} } from '../../${module}';`
        : `import { ${list.join(', ')} } from '../../${module}';`,
    );
  }
  lines.push('', 'export const POLLED_READS: readonly PolledRead[] = [', ...entries, '];', '');
  return lines.join('\n');
}

/** Every controller as it should be on disk, and polled-reads.ts: path under src/generated/controllers/ → text. */
export async function renderControllers() {
  const files = new Map();
  const specs = [];
  for (const specPath of specFiles(join(src, 'features'))) {
    const spec = (await import(pathToFileURL(specPath).href)).default;
    specs.push([spec, specPath]);
    const outPath = join(outDir, posix.dirname(relative(join(src, 'features'), specPath)), `${spec.name}.ts`);
    files.set(relative(outDir, outPath), stamp(render(spec, specPath, outPath)));
  }
  files.set(POLLED_READS_FILE, stamp(renderPolledReads(specs)));
  return files;
}

export async function generateControllers() {
  const files = await renderControllers();
  rmSync(outDir, { recursive: true, force: true });
  const written = [];
  for (const [rel, text] of files) {
    const outPath = join(outDir, rel);
    mkdirSync(dirname(outPath), { recursive: true });
    writeFileSync(outPath, text);
    written.push(outPath);
  }
  return written;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const written = await generateControllers();
  console.log(
    `generate-controllers: ${written.length - 1} controllers and ${POLLED_READS_FILE} in src/generated/controllers/`,
  );
}
