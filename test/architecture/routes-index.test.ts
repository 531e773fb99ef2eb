// `npm run routes` (scripts/routes.ts) is complete: every operation of openapi/baseline.json and
// of the built document is listed once, each with a file:line that exists and declares it.
import test from 'ava';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { routeIndex } from '../../scripts/routes.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const VERBS = ['get', 'post', 'put', 'patch', 'delete'];

function operations(file: string): string[] {
  const doc = JSON.parse(readFileSync(`${root}/${file}`, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    VERBS.filter((v) => item[v]).map((v) => `${v.toUpperCase()} ${path}`),
  );
}

test('every operation of the baseline and of the built document is in the index once', async (t) => {
  const rows = await routeIndex();
  const listed = rows.map((r) => `${r.method} ${r.path}`);
  t.is(new Set(listed).size, listed.length, 'an operation listed twice');
  const missing = [...operations('openapi/baseline.json'), ...operations('src/generated/openapi.json')].filter(
    (op) => !listed.includes(op),
  );
  t.deepEqual([...new Set(missing)], []);
  for (const kind of ['table', 'controller', 'media'] as const)
    t.true(
      rows.some((r) => r.kind === kind),
      `no ${kind} operation`,
    );
  t.deepEqual(
    rows
      .filter((r) => r.fastPath)
      .map((r) => r.operationId)
      .sort(),
    ['listEvents', 'list_monitor_statuses', 'list_monitors', 'me'],
  );
});

test('each row points at a line that declares its operation', async (t) => {
  for (const r of await routeIndex()) {
    const [file, line] = r.at.split(':');
    t.true(existsSync(`${root}/${file}`), `${r.method} ${r.path}: ${r.at}`);
    const text = readFileSync(`${root}/${file}`, 'utf8').split('\n')[Number(line) - 1] ?? '';
    // A table line names its operationId, a controller line is its verb decorator, a media entry names its path.
    const ok =
      r.kind === 'controller'
        ? new RegExp(`@${r.method[0]}${r.method.slice(1).toLowerCase()}\\(`).test(text)
        : text.includes(r.kind === 'media' ? `'${r.path}'` : ` ${r.operationId} = `);
    t.true(ok, `${r.method} ${r.path} (${r.kind}): ${r.at} reads ${JSON.stringify(text.trim())}`);
    if (r.fastPath) {
      // A fast-path read is a table line marked [polled]; its generated entry names it.
      t.is(r.kind, 'table', `${r.operationId} on the fast path`);
      t.regex(text, / \[polled\]'/, `${r.operationId}: ${r.at} is not marked [polled]`);
      const [lf, ll] = r.fastPath.split(':');
      t.regex(readFileSync(`${root}/${lf}`, 'utf8').split('\n')[Number(ll) - 1] ?? '', new RegExp(r.operationId));
    } else t.notRegex(text, / \[polled\]'/, `${r.operationId}: marked [polled] but not on the fast path`);
  }
});
