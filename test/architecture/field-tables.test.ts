// The field tables (src/features/field-table.ts) and the generator that writes the interfaces from
// them (scripts/generate-dtos.mjs): derived fields, raw-query integers, booleans into 0/1 columns,
// and request interfaces that pick fields of a table.
import test from 'ava';
import { render } from '../../scripts/generate-dtos.mjs';
import { fieldTable, jsonToColumns, requestFields, rowToJson, type DtoTable } from '../../src/features/field-table.js';

type Column = 'Id' | 'Name' | 'Done' | 'Shape' | 'Note';

const FIELDS = fieldTable<Column>([
  ['id', 'Id', 'u64', { readOnly: true }],
  ['name', 'Name', 'str:20', { inputDoc: 'A name.' }],
  ['done', 'Done', 'u8', { range: [0, 1], doc: '0 or 1.' }],
  ['shape', 'Shape', 'enum', { schemaType: 'Shape', inputType: 'ShapeInput', variants: { sq: 'SQUARE' } }],
  ['note', 'Note', 'str:99?'],
  ['summary', 'Name', 'object?', { derived: true, schemaType: 'Summary', doc: 'Derived.' }],
]);

test('rowToJson: raw bigint integers become numbers, derived fields come from the service or are omitted', (t) => {
  const row = { Id: 7n, Name: 'a', Done: 1n, Shape: 'SQUARE', Note: null };
  t.deepEqual(rowToJson(FIELDS, row, { derived: { summary: { n: 1 } } }), {
    id: 7,
    name: 'a',
    done: 1,
    shape: 'SQUARE',
    note: null,
    summary: { n: 1 },
  });
  t.false('summary' in rowToJson(FIELDS, row));
  t.is(rowToJson(FIELDS, row, { derived: { summary: null } }).summary, null);
});

test('jsonToColumns: booleans into 0/1 columns, variants, derived and read-only fields left out', (t) => {
  t.deepEqual(jsonToColumns(FIELDS, { id: 3, done: true, shape: 'sq', note: null, summary: {} }), {
    Done: 1,
    Shape: 'SQUARE',
    Note: null,
  });
  t.deepEqual(jsonToColumns(FIELDS, { done: false, name: null }), { Done: 0 });
  const picked = requestFields(FIELDS, { name: 'R', fields: ['note', ['done', { type: 'boolean' }]] });
  t.deepEqual(
    picked.map((f) => f.json),
    ['note', 'done'],
  );
  t.deepEqual(jsonToColumns(picked, { name: 'x', note: 'n', done: true }), { Note: 'n', Done: 1 });
  t.throws(() => requestFields(FIELDS, { name: 'R', fields: ['nope'] }), { message: /no field nope/ });
});

test('render: request selections keep their order, required flags, docs and types', (t) => {
  const table: DtoTable = {
    name: 'things',
    table: 'Things',
    response: 'ThingResponse',
    imports: { '../../features/things.js': ['Shape', 'ShapeInput', 'Summary'] },
    describeColumns: false,
    docInResponse: true,
    nullableOptional: true,
    requests: [
      { name: 'CreateThing', fields: [['name', { required: true }], 'shape', 'note'] },
      { name: 'UpdateThing', fields: ['note', ['done', { type: 'boolean' }], ['name', { doc: 'Renames.' }]] },
    ],
    fields: FIELDS,
  };
  const out = render(table);
  t.true(out.includes("import type { Shape, ShapeInput, Summary } from '../../features/things.js';"));
  t.false(out.includes('export interface undefined'), 'no input interface without `input`');
  t.regex(out, /\/\*\* 0 or 1\. @isInt @minimum 0 \*\/\n {2}done: number;/);
  t.regex(out, /\/\*\* Derived\. \*\/\n {2}summary\?: Summary \| null;/);
  t.regex(
    out,
    /export interface CreateThing \{\n {2}\/\*\* A name\. @maxLength 20 \*\/\n {2}name: string;\n {2}shape\?: ShapeInput \| null;\n {2}\/\*\* @maxLength 99 \*\/\n {2}note\?: string \| null;\n\}/,
  );
  t.regex(
    out,
    /export interface UpdateThing \{\n {2}\/\*\* @maxLength 99 \*\/\n {2}note\?: string \| null;\n {2}done\?: boolean \| null;\n {2}\/\*\* Renames\. @maxLength 20 \*\/\n {2}name\?: string \| null;\n\}/,
  );
});
