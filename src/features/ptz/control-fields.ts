// The Controls table's capability columns as a field table (src/features/field-table.ts): about 90
// 0/1 flags, counts and numeric ranges. JSON names are the snake_case of the columns
// (CanAutoFocus → can_auto_focus). ControlCapabilities and ControlFields are generated from it.
import type { Controls } from '../../generated/prisma/client.js';
import { fieldTable, type DtoScalar, type FieldSpec } from '../field-table.js';

type Column = keyof Controls & string;

/** can_auto_focus → CanAutoFocus */
const column = (json: string) => json.replace(/(?:^|_)([a-z])/g, (_m, c: string) => c.toUpperCase()) as Column;

// Flags and counts are NOT NULL (null on input = no change); ranges, steps and speeds are
// nullable (null clears them). Pan and tilt values are signed.
const flag = (json: string): FieldSpec<Column> => [json, column(json), 'u8', { schemaType: 'ControlFlag' }];
const count = (json: string): FieldSpec<Column> => [json, column(json), 'u8', { schemaType: 'ControlCount' }];
const uint = (json: string): FieldSpec<Column> => [json, column(json), 'u32?', { schemaType: 'ControlUInt' }];
const int = (json: string): FieldSpec<Column> => [json, column(json), 'i32?', { schemaType: 'ControlInt' }];

/** The zoom, focus, iris, gain and white-balance columns, which all have the same shape. */
const lensAxis = (axis: string): FieldSpec<Column>[] => [
  ...['can_%', 'can_auto_%', 'can_%_abs', 'can_%_rel', 'can_%_con'].map((f) => flag(f.replace('%', axis))),
  ...['min_%_range', 'max_%_range', 'min_%_step', 'max_%_step'].map((f) => uint(f.replace('%', axis))),
  flag(`has_${axis}_speed`),
  uint(`min_${axis}_speed`),
  uint(`max_${axis}_speed`),
];

/** Pan and tilt: signed ranges and a turbo speed. */
const moveAxis = (axis: string): FieldSpec<Column>[] => [
  flag(`can_${axis}`),
  ...['min_%_range', 'max_%_range', 'min_%_step', 'max_%_step'].map((f) => int(f.replace('%', axis))),
  flag(`has_${axis}_speed`),
  int(`min_${axis}_speed`),
  int(`max_${axis}_speed`),
  flag(`has_turbo_${axis}`),
  int(`turbo_${axis}_speed`),
];

export const CONTROL_FIELDS = fieldTable<Column>([
  ...['can_wake', 'can_sleep', 'can_reset', 'can_reboot'].map(flag),
  ...['zoom', 'focus', 'iris', 'gain', 'white'].flatMap(lensAxis),
  flag('has_presets'),
  count('num_presets'),
  flag('has_home_preset'),
  flag('can_set_presets'),
  ...['can_move', 'can_move_diag', 'can_move_map', 'can_move_abs', 'can_move_rel', 'can_move_con'].map(flag),
  ...['pan', 'tilt'].flatMap(moveAxis),
  flag('can_auto_scan'),
  count('num_scan_paths'),
]);

export const CONTROL_SCALARS: DtoScalar[] = [
  { name: 'ControlFlag', doc: 'A capability flag, 0 or 1.', tags: ['@isInt', '@minimum 0', '@maximum 1'] },
  { name: 'ControlCount', doc: 'A small count (tinyint unsigned).', tags: ['@isInt', '@minimum 0', '@maximum 255'] },
  {
    name: 'ControlUInt',
    doc: 'A non-negative range, step or speed (int unsigned, int32 on the wire).',
    tags: ['@isInt', '@minimum 0', '@maximum 2147483647'],
  },
  {
    name: 'ControlInt',
    doc: 'A signed pan/tilt range, step or speed (int32).',
    tags: ['@isInt', '@minimum -2147483648', '@maximum 2147483647'],
  },
];
