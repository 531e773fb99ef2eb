// Coverage of the AI, configs, controls, control presets, users, storage and servers families
// against the v3 reference surface (see helpers/coverage.ts for what is checked).
import test from 'ava';
import { registerCoverage } from '../helpers/coverage.js';

registerCoverage(
  test,
  [
    [/^\/api\/v3\/ai\/(datasets|models|object-classes)(\/|$)/, 'system'],
    [/^\/api\/v3\/(configs|users|storage|servers)(\/|$)/, 'system'],
    [/^\/api\/v3\/(controls|control_presets)(\/|$)/, 'control'],
  ],
  44,
  'AI 15, configs 4, presets 5, controls 5, users 5, storage 5, servers 5',
);
