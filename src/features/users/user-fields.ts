// The Users table as a field table (src/features/field-table.ts): UserResponse, UserFields, the
// Create/UpdateUserRequest built on it and UserLevel are generated from it. The password is
// write-only (its bcrypt hash is never returned) and the service hashes it itself; TokenMinExpiry
// and RoleId are maintained elsewhere and are not in the table. Rows may come from any ZoneMinder
// version, so absent columns read as the column's default (nullAs).
import type { Users } from '../../generated/prisma/client.js';
import { FEATURE_COLUMNS, FEATURES, type Feature } from '../../auth/permissions.js';
import { fieldTable, type FieldSpec } from '../field-table.js';

type Column = keyof Users & string;

/** Enabled/APIEnabled: 0/1 in a TINYINT, declared a plain int in the response (the reference's format). */
const SWITCH: [number, number] = [0, 1];

const LEVEL_DOCS: Partial<Record<Feature, string>> = {
  stream: 'None or View.',
  monitors: 'None, View, Edit or Create.',
};

/** A permission column: stored as ZoneMinder stores it (StoredLevel), sent as UserLevel. */
const level = (feature: Feature): FieldSpec<Column> => [
  feature,
  FEATURE_COLUMNS[feature] as Column,
  'enum',
  {
    enumType: 'UserLevel',
    enumDoc: 'A permission level as clients send it. Stream stops at View; only Monitors has Create.',
    values: ['None', 'View', 'Edit', 'Create'],
    responseType: 'StoredLevel',
    nullAs: 'None',
    ...(LEVEL_DOCS[feature] ? { doc: LEVEL_DOCS[feature] } : {}),
  },
];

export const USER_FIELDS = fieldTable<Column>([
  // A plain int32 on the wire (the reference's format), though the column is unsigned.
  ['id', 'Id', 'i32', { readOnly: true }],
  [
    'username',
    'Username',
    'str:64',
    {
      nullAs: '',
      minLength: 1,
      pattern: '^[\\x20-\\x7E\\xA0-\\xFF]+$',
      doc: 'Unique login name (printable Latin-1, as ZoneMinder stores it).',
    },
  ],
  [
    'password',
    'Password',
    'str:72',
    {
      writeOnly: true,
      minLength: 1,
      doc: "Plain-text password, at most 72 bytes (bcrypt's limit); stored as a bcrypt hash.",
      updateDoc: "New plain-text password, at most 72 bytes; revokes the account's tokens.",
    },
  ],
  ['name', 'Name', 'str:64', { nullAs: '', doc: 'Display name.' }],
  ['email', 'Email', 'str:64', { nullAs: '', doc: 'E-mail address.' }],
  ['phone', 'Phone', 'str:64', { nullAs: '', doc: 'Phone number.' }],
  ['language', 'Language', 'str:8?', { doc: 'UI language code, e.g. en_gb; null clears it.' }],
  ['enabled', 'Enabled', 'i8', { nullAs: 0, range: SWITCH, doc: '1 = may log in.' }],
  ...FEATURES.map(level),
  ['max_bandwidth', 'MaxBandwidth', 'str:16?', { doc: 'Bandwidth class (low, medium, high); null clears it.' }],
  ['api_enabled', 'APIEnabled', 'i8', { nullAs: 1, range: SWITCH, doc: '1 = may use the API.' }],
  ['home_view', 'HomeView', 'str:64', { nullAs: '', doc: 'Start page of the web UI.' }],
]);

/** The requests list the profile first, then the permission columns, then username and password. */
export const USER_INPUT_ORDER = [
  'name',
  'email',
  'phone',
  'language',
  'enabled',
  'api_enabled',
  'home_view',
  'max_bandwidth',
  ...FEATURES,
  'username',
  'password',
];
