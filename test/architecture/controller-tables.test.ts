// The route tables (src/features/**/*.api.ts) and the generator that turns them into tsoa
// controllers (scripts/generate-controllers.mjs): what each kind of parameter becomes, and that a
// malformed table stops the build instead of producing a controller that serves the wrong thing.
import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseCall, parseOperation, render } from '../../scripts/generate-controllers.mjs';
import type { ControllerSpec } from '../../src/features/controller-spec.js';

const src = fileURLToPath(new URL('../../src', import.meta.url));

const spec: ControllerSpec = {
  name: 'WidgetsController',
  route: 'api/v3/widgets',
  tag: 'Widgets',
  security: ['system'],
  responses: { 403: 'System permission required' },
  imports: { './widgets-service.js': ['WidgetsService', 'WidgetResponse', 'WidgetRequest'] },
  services: { widgets: 'WidgetsService' },
  pages: { PaginatedWidgetsResponse: 'WidgetResponse' },
  operations: [
    'GET / list_widgets = widgets.list(user, { kind?: string, page?: PageNumber }): PaginatedWidgetsResponse',
    [
      'PUT {id} update_widget = widgets.update(user, id: Id, body: WidgetRequest): WidgetResponse',
      { doc: ['Replaces a widget.'], responses: { 404: 'No such widget' } },
    ],
    ['DELETE {id} delete_widget = widgets.remove(req, id: Id)', { status: [204, 'Deleted'] }],
  ],
};
const out = render(spec, join(src, 'features/widgets/widgets.api.ts'), join(src, 'generated/controllers/widgets/W.ts'));

test('parameters: path names in the path, body as the body, others as query, user and req from the request', (t) => {
  t.true(out.includes('@Path() id: Id'));
  t.true(out.includes('@Body() body: WidgetRequest'));
  t.true(out.includes('@Query() kind?: string, @Query() page?: PageNumber'));
  t.true(out.includes('return this.widgets.list(currentUser(req), { kind, page });'));
  t.true(out.includes('return this.widgets.update(currentUser(req), id, body);'));
  t.true(out.includes('await this.widgets.remove(req, id);'), 'no return type: no body');
  t.true(out.includes('Promise<void>'));
});

test('decorators: route, tag, scopes, statuses and the paginated interface', (t) => {
  t.true(out.includes("@Route('api/v3/widgets')"));
  t.true(out.includes("@Security('jwt', ['system'])"));
  t.true(out.includes("@Response<AppResponseError>(403, 'System permission required')"));
  t.true(out.includes("@Put('{id}')\n  @OperationId('update_widget')"));
  t.true(out.includes("@SuccessResponse(204, 'Deleted')"));
  t.true(out.includes("@Response<AppResponseError>(404, 'No such widget')"));
  t.true(out.includes('export interface PaginatedWidgetsResponse extends Page<WidgetResponse> {}'));
  t.true(out.includes('   * Replaces a widget.'));
  t.true(
    out.includes(
      "import { WidgetsService, type WidgetResponse, type WidgetRequest } from '../../../features/widgets/widgets-service.js';",
    ),
  );
});

test('a malformed call or an unknown service field stops the generator', (t) => {
  t.throws(() => parseCall('widgets.list(', 'X'), { message: /is not field\.method/ });
  t.throws(() => parseCall('widgets.get(1d: Id)', 'X'), { message: /argument/ });
  const bad: ControllerSpec = { ...spec, operations: ['GET {id} x = gadgets.get(id: Id): WidgetResponse'] };
  t.throws(() => render(bad, join(src, 'features/w/w.api.ts'), join(src, 'generated/controllers/w/W.ts')), {
    message: /no service field gadgets/,
  });
  const untyped: ControllerSpec = { ...spec, operations: ['GET {id} x = widgets.get(id): WidgetResponse'] };
  t.throws(() => render(untyped, join(src, 'features/w/w.api.ts'), join(src, 'generated/controllers/w/W.ts')), {
    message: /has no type/,
  });
  const noVerb: ControllerSpec = { ...spec, operations: ['FETCH {id} x = widgets.get(id: Id)'] };
  t.throws(() => render(noVerb, join(src, 'features/w/w.api.ts'), join(src, 'generated/controllers/w/W.ts')), {
    message: /is not '<VERB> <path> <operationId> = <call>'/,
  });
});

function* tables(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* tables(p);
    else if (name.endsWith('.api.ts')) yield p;
  }
}

test('every route table names its own controller, and its operationIds are its own', async (t) => {
  const names = new Set<string>();
  const ids = new Map<string, string>();
  const handWritten = new Set<string>();
  for (const dir of readdirSync(join(src, 'features'))) {
    if (!statSync(join(src, 'features', dir)).isDirectory()) continue;
    for (const f of readdirSync(join(src, 'features', dir)))
      if (f.endsWith('Controller.ts')) handWritten.add(f.slice(0, -3));
  }
  let count = 0;
  for (const file of tables(join(src, 'features'))) {
    const table = (await import(pathToFileURL(file).href)).default as ControllerSpec;
    count++;
    t.false(names.has(table.name), `${table.name} declared twice`);
    t.false(handWritten.has(table.name), `${table.name} is also hand-written`);
    names.add(table.name);
    for (const op of table.operations) {
      const { operationId: id } = parseOperation(op, table.name);
      t.false(ids.has(`${table.name}:${id}`), `${id} twice in ${table.name}`);
      ids.set(`${table.name}:${id}`, file);
    }
    t.regex(readFileSync(file, 'utf8'), /export default controller\(/);
  }
  t.true(count > 0);
});

test('literal arguments: a quoted string or a number is passed as written and declares no parameter', (t) => {
  const lit: ControllerSpec = {
    ...spec,
    operations: [
      'POST {id}/move/up move_up = widgets.move(user, id: Id, "up", -1, body?: WidgetRequest): WidgetResponse',
    ],
  };
  const text = render(lit, join(src, 'features/w/w.api.ts'), join(src, 'generated/controllers/w/W.ts'));
  t.true(text.includes("return this.widgets.move(currentUser(req), id, 'up', -1, body);"));
  t.true(text.includes('public async moveUp(@Request() req: ExRequest, @Path() id: Id, @Body() body?: WidgetRequest)'));
  t.deepEqual(parseCall("widgets.zoom('in', 0.5)", 'X').args, [{ literal: "'in'" }, { literal: '0.5' }]);
  const grouped: ControllerSpec = { ...spec, operations: ['GET / x = widgets.list({ a?: string, "b" })'] };
  t.throws(() => render(grouped, join(src, 'features/w/w.api.ts'), join(src, 'generated/controllers/w/W.ts')), {
    message: /literal cannot be a member/,
  });
});
