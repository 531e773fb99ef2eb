// Coverage of the manufacturers, models, monitor presets, montage layouts, server stats,
// sessions, states, stats, X10 triggers, user preferences, object types and locale families
// against the v3 reference surface (see helpers/coverage.ts for what is checked).
import test from 'ava';
import { registerCoverage } from '../helpers/coverage.js';

const doc = registerCoverage(
  test,
  [
    [/^\/api\/v3\/(manufacturers|models)(\/\{id\})?$/, 'devices'],
    [/^\/api\/v3\/monitor_presets(\/\{id\})?$/, 'monitors'],
    [/^\/api\/v3\/(montage_layouts|server-stats|states|stats|user_preferences)(\/\{id\})?$/, 'system'],
    // Session ids are ZoneMinder web credentials: even reading them needs System Edit.
    [/^\/api\/v3\/sessions(\/\{id\})?$/, 'system:Edit'],
    [/^\/api\/v3\/triggers_x10(\/\{monitor_id\})?$/, 'control'],
    [/^\/api\/v3\/object-types(\/\{id\})?$/, 'events'],
    [/^\/api\/v3\/system\/locale$/, 'authenticated'],
  ],
  55,
  'manufacturers 5, models 5, monitor presets 5, montage layouts 5, server stats 4, sessions 5, states 5, stats 5, triggers 5, user preferences 5, object types 5, locale 1',
);

test('the states preset update carries the documented rename; no other operationId of these families changed', (t) => {
  t.is(doc().paths['/api/v3/states/{id}'].patch.operationId, 'update_state_preset');
  t.is(doc().paths['/api/v3/models'].get.operationId, 'list_models');
  t.is(doc().paths['/api/v3/ai/models'].get.operationId, 'list_ai_models');
});

test('lists are paginated with page_size capped at 1000; path ids are integers >= 0 except object types (signed in the reference)', (t) => {
  for (const path of [
    '/api/v3/manufacturers',
    '/api/v3/models',
    '/api/v3/monitor_presets',
    '/api/v3/montage_layouts',
    '/api/v3/server-stats',
    '/api/v3/sessions',
    '/api/v3/states',
    '/api/v3/stats',
    '/api/v3/triggers_x10',
    '/api/v3/user_preferences',
    '/api/v3/object-types',
  ]) {
    const size = doc().paths[path].get.parameters.find((p: any) => p.name === 'page_size');
    t.is(size?.schema?.maximum, 1000, path);
  }
  const objectTypeId = doc().paths['/api/v3/object-types/{id}'].get.parameters.find((p: any) => p.name === 'id').schema;
  t.is(objectTypeId.type, 'integer');
  t.is(objectTypeId.minimum, -2147483648, 'the int32 range, no more: the reference allows negative ids');
  const sessionId = doc().paths['/api/v3/sessions/{id}'].get.parameters.find((p: any) => p.name === 'id').schema;
  t.is(sessionId.type, 'string');
  t.is(sessionId.maxLength, 32);
});
