// The field tables scripts/generate-dtos.mjs turns into interfaces (src/generated/dto/<name>.ts).
import type { DtoTable } from './field-table.js';
import { MONITOR_FIELDS } from './monitors/monitor-fields.js';
import { CONTROL_FIELDS, CONTROL_SCALARS } from './ptz/control-fields.js';
import { STAT_FIELDS } from './events/stat-fields.js';
import { SERVER_FIELDS, SERVER_SCALARS } from './system/server-fields.js';
import { USER_FIELDS, USER_INPUT_ORDER } from './users/user-fields.js';
import { FILTER_FIELDS } from './filters/filter-fields.js';
import { EVENT_CREATE, EVENT_FIELDS, EVENT_UPDATE } from './events/event-fields.js';

export const DTO_TABLES: DtoTable[] = [
  {
    name: 'monitors',
    table: 'Monitors',
    response: 'MonitorResponse',
    responseDoc: 'A monitor as clients see it: every column but the two passwords, enums as stored.',
    input: 'MonitorSettings',
    inputDoc: 'Every writable column; all optional (unset columns keep their value or database default).',
    inputExclude: ['name'],
    fields: MONITOR_FIELDS,
  },
  {
    name: 'controls',
    table: 'Controls',
    response: 'ControlCapabilities',
    responseDoc: 'What a control profile can do (ControlResponse adds its id, name, type and protocol).',
    input: 'ControlFields',
    inputDoc: 'The numeric fields every create and update may carry; absent keeps (or defaults), null clears a range.',
    describeColumns: false,
    nullableOptional: true,
    scalars: CONTROL_SCALARS,
    fields: CONTROL_FIELDS,
  },
  {
    name: 'stats',
    table: 'Stats',
    response: 'StatResponse',
    responseDoc: 'Per-zone alarm figures of one frame of an event.',
    create: 'CreateStatRequest',
    input: 'UpdateStatRequest',
    inputDoc: 'Every field optional; null leaves a value unchanged (no column is nullable).',
    docInResponse: true,
    fields: STAT_FIELDS,
  },
  {
    name: 'servers',
    table: 'Servers',
    response: 'ServerResponse',
    input: 'ServerFields',
    inputDoc: 'Fields shared by create and update; absent keeps (or defaults), null clears a nullable column.',
    extend: { create: 'CreateServerRequest', update: 'UpdateServerRequest', fields: ['name'] },
    describeColumns: false,
    nullableOptional: true,
    scalars: SERVER_SCALARS,
    fields: SERVER_FIELDS,
  },
  {
    name: 'users',
    table: 'Users',
    response: 'UserResponse',
    input: 'UserFields',
    inputDoc: 'Fields shared by create and update; absent keeps (or defaults), null clears a nullable column.',
    inputFirst: USER_INPUT_ORDER,
    extend: { create: 'CreateUserRequest', update: 'UpdateUserRequest', fields: ['username', 'password'] },
    imports: { '../../auth/permissions.js': ['StoredLevel'] },
    describeColumns: false,
    nullableOptional: true,
    fields: USER_FIELDS,
  },
  {
    name: 'filters',
    table: 'Filters',
    response: 'FilterResponse',
    input: 'FilterFields',
    inputDoc: 'The settable columns, shared by create and update.',
    inputFirst: ['filter'],
    extend: { create: 'CreateFilterRequest', update: 'UpdateFilterRequest', fields: ['name'] },
    imports: { '../../features/filters/filter-query.js': ['FilterQuery'] },
    describeColumns: false,
    docInResponse: true,
    nullableOptional: true,
    fields: FILTER_FIELDS,
  },
  {
    name: 'events',
    table: 'Events',
    response: 'EventResponse',
    imports: {
      '../../api/wrappers.js': ['DateTimeWrapper', 'DecimalWrapper', 'Orientation', 'SchemeWrapper'],
      '../../features/events/event-json.js': ['OrientationInput', 'TagSummary'],
    },
    requests: [EVENT_CREATE, EVENT_UPDATE],
    describeColumns: false,
    docInResponse: true,
    nullableOptional: true,
    fields: EVENT_FIELDS,
  },
];
