// The operation index (`npm run routes`): every operation of the built OpenAPI document, one line
// each: method and path → operationId → where it is declared (file:line) → what answers it.
//   table       a line of a route table (src/features/**/*.api.ts); the generated controller
//               calls the service method named there
//   controller  a method of a hand-written tsoa controller (src/features/**/*Controller.ts)
//   media       an entry of the media route table (src/http/media-table.ts gathers the features' lists)
//   + fast path the table line is marked [polled]: the read is also answered by the hot-read lane
//               (src/http/fast-path/), through its generated entry (src/generated/controllers/polled-reads.ts)
// Run with tsx after a build (it reads src/generated/openapi.json). `--json` prints the rows as JSON.
// test/architecture/routes-index.test.ts keeps it complete.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ControllerSpec } from '../src/features/controller-spec.js';
import { parseOperation } from './generate-controllers.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const VERBS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export interface RouteRow {
  method: string;
  path: string;
  operationId: string;
  /** `src/...:line` where the operation is declared. */
  at: string;
  kind: 'table' | 'controller' | 'media';
  /** The method that answers it: `Service.method` (tables), `Controller.method`, or the media entry's list. */
  handler: string;
  /** The read's generated fast-path entry (`src/generated/controllers/polled-reads.ts:line`) when its table line is marked [polled]. */
  fastPath?: string;
}

function* files(dir: string, suffix: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p, suffix);
    else if (p.endsWith(suffix)) yield p;
  }
}

const rel = (p: string) => relative(root, p).split('\\').join('/');
const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;
const joinPath = (...parts: string[]) => `/${parts.join('/').split('/').filter(Boolean).join('/')}`;
const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

/** Operations declared by the route tables. */
async function tableRows(): Promise<Map<string, Omit<RouteRow, 'method' | 'path' | 'operationId'>>> {
  const out = new Map<string, Omit<RouteRow, 'method' | 'path' | 'operationId'>>();
  for (const file of files(join(src, 'features'), '.api.ts')) {
    const spec = (await import(pathToFileURL(file).href)).default as ControllerSpec;
    const text = readFileSync(file, 'utf8');
    for (const op of spec.operations) {
      const { verb, path, call } = parseOperation(op as string | [string, object], spec.name);
      const head = typeof op === 'string' ? op : op[0];
      const index = text.indexOf(head.slice(0, head.indexOf('=')).trimEnd());
      const [field, method] = call.slice(0, call.indexOf('(')).split('.');
      const services = spec.services as Record<string, string>;
      out.set(key(verb, joinPath(spec.route, path)), {
        at: `${rel(file)}:${index < 0 ? 1 : lineOf(text, index)}`,
        kind: 'table',
        handler: `${services[field] ?? field}.${method}`,
      });
    }
  }
  return out;
}

/** Operations of the hand-written tsoa controllers, read from their decorators. */
function controllerRows(): Map<string, Omit<RouteRow, 'method' | 'path' | 'operationId'>> {
  const out = new Map<string, Omit<RouteRow, 'method' | 'path' | 'operationId'>>();
  for (const file of files(join(src, 'features'), 'Controller.ts')) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/@(Get|Post|Put|Patch|Delete)\((?:'([^']*)')?\)/g)) {
      // A file may hold several controllers: the class and its @Route are the last ones above.
      const before = text.slice(0, m.index);
      const route = [...before.matchAll(/@Route\('([^']*)'\)/g)].pop()?.[1] ?? '';
      const cls = [...before.matchAll(/export class (\w+)/g)].pop()?.[1] ?? '?';
      const after = text.slice(m.index);
      const method = /(?:public\s+)?async\s+(\w+)\s*\(/.exec(after)?.[1] ?? '?';
      out.set(key(m[1], joinPath(route, m[2] ?? '')), {
        at: `${rel(file)}:${lineOf(text, m.index)}`,
        kind: 'controller',
        handler: `${cls}.${method}`,
      });
    }
  }
  return out;
}

/** Where a media path is declared: the feature file whose route entry names it. */
function mediaAt(path: string, sources: Array<[string, string]>): string | undefined {
  const literal = `'${path}'`;
  // The route list's entry first (route(...), mediaRoute(...), `path:`), then any mention.
  for (const pick of [(line: string) => /route\(|mediaRoute\(|path:/.test(line), () => true]) {
    for (const [file, text] of sources) {
      for (let i = text.indexOf(literal); i >= 0; i = text.indexOf(literal, i + 1)) {
        const line = text.slice(text.lastIndexOf('\n', i) + 1, text.indexOf('\n', i));
        if (pick(line)) return `${rel(file)}:${lineOf(text, i)}`;
      }
    }
  }
  return undefined;
}

/** The operationIds of the generated fast-path entries, with their entry's line. */
function fastPaths(): Map<string, string> {
  const file = join(src, 'generated', 'controllers', 'polled-reads.ts');
  const text = readFileSync(file, 'utf8');
  const out = new Map<string, string>();
  for (const m of text.matchAll(/operationId: '([^']+)'/g)) out.set(m[1], `${rel(file)}:${lineOf(text, m.index)}`);
  return out;
}

export async function routeIndex(document = join(src, 'generated', 'openapi.json')): Promise<RouteRow[]> {
  if (!existsSync(document)) throw new Error(`${rel(document)} is missing: npm run build:ts first`);
  const doc = JSON.parse(readFileSync(document, 'utf8')) as { paths: Record<string, Record<string, any>> };
  const tables = await tableRows();
  const controllers = controllerRows();
  const fast = fastPaths();
  const mediaSources: Array<[string, string]> = [...files(join(src, 'features'), '.ts')]
    .sort((a, b) => Number(/-openapi\.ts$/.test(a)) - Number(/-openapi\.ts$/.test(b)))
    .map((f) => [f, readFileSync(f, 'utf8')]);
  const rows: RouteRow[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const verb of VERBS) {
      const op = item[verb];
      if (!op) continue;
      const k = key(verb, path);
      const found = tables.get(k) ?? controllers.get(k);
      const row: RouteRow = found
        ? { method: verb.toUpperCase(), path, operationId: op.operationId, ...found }
        : {
            method: verb.toUpperCase(),
            path,
            operationId: op.operationId,
            at: mediaAt(path, mediaSources) ?? '?',
            kind: 'media',
            handler: 'media route (src/http/media-table.ts)',
          };
      const lane = fast.get(op.operationId);
      if (lane && verb === 'get') row.fastPath = lane;
      rows.push(row);
    }
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await routeIndex();
  if (process.argv.includes('--json')) console.log(JSON.stringify(rows, null, 2));
  else {
    for (const r of rows)
      console.log(
        `${r.method.padEnd(6)} ${r.path.padEnd(58)} ${r.operationId.padEnd(34)} ${r.at.padEnd(52)} ${r.kind.padEnd(10)} ${r.handler}${r.fastPath ? `  + fast path ${r.fastPath}` : ''}`,
      );
    const by = (k: RouteRow['kind']) => rows.filter((r) => r.kind === k).length;
    console.log(
      `${rows.length} operations: ${by('table')} from route tables, ${by('controller')} from controllers, ${by('media')} media; ${rows.filter((r) => r.fastPath).length} also on the fast path`,
    );
  }
}
