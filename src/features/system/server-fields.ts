// The Servers table as a field table (src/features/field-table.ts): ServerResponse, ServerFields
// and the Create/UpdateServerRequest built on it are generated from it. Every field of the
// response is accepted on create and update; the CPU and memory columns are written by the
// stats job, not through this API, and are not in the table.
import type { Servers } from '../../generated/prisma/client.js';
import { fieldTable, type DtoScalar } from '../field-table.js';

type Column = keyof Servers & string;

export const SERVER_SCALARS: DtoScalar[] = [
  { name: 'ServerBit', doc: '0 or 1.', tags: ['@isInt', '@minimum 0', '@maximum 1'] },
  {
    name: 'ServerFlag',
    doc: 'A 0/1 flag; JSON booleans are accepted too (the newest UI sends booleans).',
    tags: [],
    type: 'ServerBit | boolean',
  },
];

/** The daemon switches: BOOLEAN columns sent as 0/1, taking 0/1 or a boolean. */
const daemon = (name: string) => ({ inputType: 'ServerFlag', doc: `Run ${name} on this server (0/1 or a boolean).` });

export const SERVER_FIELDS = fieldTable<Column>([
  ['id', 'Id', 'u32', { readOnly: true }],
  ['name', 'Name', 'str:64', { minLength: 1, doc: 'Server name (ZM_SERVER_NAME on that host).' }],
  ['hostname', 'Hostname', 'str:65535?', { doc: 'Host name or address.' }],
  ['port', 'Port', 'u32?', { range: [0, 65535], doc: 'TCP port of the web server.' }],
  [
    'status',
    'Status',
    'enum',
    {
      enumType: 'ServerStatus',
      responseType: 'ServerStatus',
      enumDoc: 'Servers.Status as stored.',
      values: ['Unknown', 'NotRunning', 'Running'],
      doc: 'Default Unknown.',
    },
  ],
  ['protocol', 'Protocol', 'str:65535?', { doc: 'http or https.' }],
  ['path_to_index', 'PathToIndex', 'str:65535?', { doc: 'Path of index.php on this server.' }],
  ['path_to_zms', 'PathToZMS', 'str:65535?', { doc: 'Path of zms on this server.' }],
  ['path_to_api', 'PathToApi', 'str:65535?', { doc: 'Path of the API on this server.' }],
  ['zmaudit', 'zmaudit', 'flag', daemon('zmaudit')],
  ['zmstats', 'zmstats', 'flag', daemon('zmstats')],
  ['zmtrigger', 'zmtrigger', 'flag', daemon('zmtrigger')],
  ['zmeventnotification', 'zmeventnotification', 'flag', daemon('zmeventnotification')],
  ['state_id', 'State_Id', 'u32?', { range: [0, 2147483647], doc: 'Run state the server is in; null clears it.' }],
  ['latitude', 'Latitude', 'dec?', { isDouble: true, range: [-90, 90], doc: 'Degrees north.' }],
  ['longitude', 'Longitude', 'dec?', { isDouble: true, range: [-180, 180], doc: 'Degrees east.' }],
]);
