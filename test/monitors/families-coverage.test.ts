// Coverage of the monitors, zones, zone presets, monitor status, groups, group memberships and
// permission families against the v3 reference surface: every reference operation must be served
// with the same method, path, operationId (documented renames aside), parameters, the feature
// scope the spec assigns, and every reference request/response field with a compatible type.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { registerCoverage } from '../helpers/coverage.js';

const servedDoc = registerCoverage(
  test,
  [
    [/^\/api\/v3\/monitors(\/\{id\}(\/(state|alarm|zones))?)?$/, 'monitors'],
    [/^\/api\/v3\/zones\/\{id\}$/, 'monitors'],
    [/^\/api\/v3\/zone-presets(\/\{id\})?$/, 'monitors'],
    [/^\/api\/v3\/monitor-status(\/\{monitor_id\})?$/, 'monitors'],
    [/^\/api\/v3\/groups(\/\{id\})?$/, 'groups'],
    [/^\/api\/v3\/groups-monitors(\/\{id\})?$/, 'groups'],
    [/^\/api\/v3\/(monitors|groups)-permissions(\/\{id\})?$/, 'system'],
  ],
  39,
  'monitors 7, zones 5, zone presets 5, monitor status 3, groups 5, memberships 4, permissions 10',
);

function resolve(schema: any): any {
  const doc = servedDoc();
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++)
    s = s.$ref
      .split('/')
      .slice(1)
      .reduce((n: any, k: string) => n?.[k], doc);
  return s ?? {};
}

test('paginated envelopes carry items of the right schema', (t) => {
  const monitors = resolve(
    servedDoc().paths['/api/v3/monitors'].get.responses['200'].content['application/json'].schema,
  );
  t.deepEqual([...monitors.required].sort(), ['current_page', 'items', 'last_page', 'per_page', 'total']);
  t.truthy(resolve(monitors.properties.items.items).properties.orientation);
  t.is(
    servedDoc().paths['/api/v3/monitors'].get.parameters.find((p: any) => p.name === 'page_size').schema.maximum,
    1000,
  );
});

test('monitor request bounds match the columns: every varchar/text has its maxLength, every integer its range', async (t) => {
  const { MONITOR_FIELDS, INT_RANGES } = await import('../../src/features/monitors/monitor-fields.js');
  const prisma = readFileSync(new URL('../../prisma/schema.prisma', import.meta.url), 'utf8');
  const model = /model Monitors \{([\s\S]*?)\n\}/.exec(prisma)![1];
  const columnType = (column: string) => new RegExp(`^\\s+${column}\\s+\\S+\\s.*$`, 'm').exec(model)?.[0] ?? '';
  const props = resolve(servedDoc().components.schemas.UpdateMonitorRequest).properties;
  t.deepEqual(MONITOR_FIELDS.find((f) => f.json === 'save_jpe_gs')!.range, [0, 3]);
  t.deepEqual(MONITOR_FIELDS.find((f) => f.json === 'video_writer')!.range, [0, 2]);
  t.deepEqual(MONITOR_FIELDS.find((f) => f.json === 'record_audio')!.range, [0, 1]);
  let checked = 0;
  for (const f of MONITOR_FIELDS) {
    if (f.readOnly) continue;
    const served = resolve(props[f.json]);
    const line = columnType(f.column);
    t.truthy(line, `${f.column} in schema.prisma`);
    const varchar = /@db\.VarChar\((\d+)\)/.exec(line)?.[1];
    if (varchar) t.is(f.maxLength, Number(varchar), `${f.json}: table length`);
    if (/@db\.(TinyText)/.test(line)) t.is(f.maxLength, 255, `${f.json}: tinytext`);
    if (f.maxLength !== undefined) {
      t.is(served.maxLength, f.maxLength, `${f.json}: served maxLength`);
      checked++;
    }
    const range = f.range ?? INT_RANGES[f.kind];
    if (range) {
      t.deepEqual([served.minimum, served.maximum], range, `${f.json}: served range`);
      const unsigned = /@db\.Unsigned/.test(line);
      if (f.kind !== 'flag') t.is(unsigned, f.kind.startsWith('u'), `${f.json}: signedness matches the column`);
      checked++;
    }
  }
  t.true(checked > 100, `checked ${checked}`);
});
