import test from 'ava';
import { readFileSync } from 'node:fs';
import { compareOpenapi, addedEndpoints } from '../../scripts/openapi-compat.mjs';

const json = (p: string) => JSON.parse(readFileSync(new URL(p, import.meta.url), 'utf8'));

/** A small document exercising every rule: a response with an enum, a request body, a param. */
function baseDoc(): any {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/api/v3/things/{id}': {
        get: {
          operationId: 'get_thing',
          parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'integer' } }],
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
        },
        patch: {
          operationId: 'update_thing',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/UpdateThing' } } } },
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
        },
      },
    },
    components: {
      schemas: {
        Thing: {
          type: 'object',
          required: ['id', 'name', 'state'],
          properties: {
            id: { type: 'integer' },
            name: { type: 'string' },
            state: { type: 'string', enum: ['on', 'off'] },
            note: { type: ['string', 'null'] },
          },
        },
        UpdateThing: { type: 'object', properties: { name: { type: 'string' }, state: { type: 'string', enum: ['on', 'off'] } } },
      },
    },
  };
}

test('an unchanged document is compatible', (t) => {
  t.deepEqual(compareOpenapi(baseDoc(), baseDoc()), []);
});

test('new endpoints and new optional fields pass, and are listed', (t) => {
  const cur = baseDoc();
  cur.paths['/api/v3/others'] = { get: { operationId: 'list_others', responses: { '200': { description: 'ok' } } } };
  cur.components.schemas.Thing.properties.extra = { type: 'string' };
  cur.components.schemas.UpdateThing.properties.extra = { type: 'string' };
  t.deepEqual(compareOpenapi(baseDoc(), cur), []);
  t.deepEqual(addedEndpoints(baseDoc(), cur), ['GET /api/v3/others']);
});

const breaks: Array<[string, (d: any) => void, RegExp]> = [
  ['removed endpoint', (d) => delete d.paths['/api/v3/things/{id}'].patch, /PATCH .*endpoint removed/],
  ['changed operationId', (d) => (d.paths['/api/v3/things/{id}'].get.operationId = 'fetch_thing'), /operationId get_thing changed/],
  ['replaced response shape', (d) => (d.paths['/api/v3/things/{id}'].get.responses['200'].content['application/json'].schema = { type: 'array', items: {} }), /response type object replaced by array/],
  ['field no longer guaranteed', (d) => (d.components.schemas.Thing.required = ['id', 'state']), /\.name: response field no longer guaranteed/],
  ['field became nullable', (d) => (d.components.schemas.Thing.properties.name.type = ['string', 'null']), /\.name: response field became nullable/],
  ['dropped enum value', (d) => (d.components.schemas.Thing.properties.state.enum = ['on']), /enum value "off" dropped/],
  ['new required request field', (d) => (d.components.schemas.UpdateThing.required = ['name']), /body\.name: new required request field/],
  ['new required parameter', (d) => d.paths['/api/v3/things/{id}'].get.parameters.push({ in: 'query', name: 'q', required: true, schema: { type: 'string' } }), /new required parameter query q/],
];

for (const [name, mutate, expected] of breaks) {
  test(`breaking: ${name}`, (t) => {
    const cur = baseDoc();
    mutate(cur);
    const problems = compareOpenapi(baseDoc(), cur);
    t.true(problems.some((p: string) => expected.test(p)), problems.join('\n'));
  });
}

test('the generated document is compatible with the committed baseline', (t) => {
  const problems = compareOpenapi(json('../../openapi/baseline.json'), json('../../src/generated/openapi.json'));
  t.deepEqual(problems, []);
});
