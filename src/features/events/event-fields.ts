// The Events table as a field table (src/features/field-table.ts): EventResponse is generated from
// it, and it lists the columns every event query reads (EVENT_COLUMNS). Field names and types
// follow the reference EventResponse exactly. The derived fields (the id beyond 2^53, the UTC
// times, the decimal strings, the tags) are computed in event-json.ts; the requests' rules are in
// events-service.ts.
import type { Events } from '../../generated/prisma/client.js';
import { fieldTable, requestFields, type DtoRequest } from '../field-table.js';

type Column = keyof Events & string;

/** Older spellings of Orientation clients send (OrientationInput) → the stored value. */
export const ORIENTATION_VARIANTS: Readonly<Record<string, string>> = {
  Rotate0: 'ROTATE_0',
  Rotate90: 'ROTATE_90',
  Rotate180: 'ROTATE_180',
  Rotate270: 'ROTATE_270',
  FlipHori: 'FLIP_HORI',
  FlipVert: 'FLIP_VERT',
};

/** Derived in event-json.ts from the column named beside it. */
const DERIVED = { derived: true };

export const EVENT_FIELDS = fieldTable<Column>([
  ['id', 'Id', 'u64', DERIVED],
  [
    'monitor_id',
    'MonitorId',
    'u32',
    { range: [0, Infinity], inputDoc: 'Monitor the event belongs to; must exist and be visible to the caller.' },
  ],
  [
    'storage_id',
    'StorageId',
    'u16?',
    {
      nullAs: 0,
      doc: 'Storage row; 0 is the default events directory.',
      inputDoc: 'Storage row (0 = the default events directory).',
    },
  ],
  ['secondary_storage_id', 'SecondaryStorageId', 'u16?', { inputDoc: 'Secondary storage row.' }],
  ['name', 'Name', 'str:64', { inputDoc: 'Event name.' }],
  ['cause', 'Cause', 'str:65535?', { inputDoc: 'What triggered the event.' }],
  [
    'start_date_time',
    'StartDateTime',
    'str?',
    {
      ...DERIVED,
      schemaType: 'DateTimeWrapper',
      doc: "Start of the event as UTC with `Z` (ZoneMinder's local time converted with its time zone).",
      inputDoc: "ISO 8601; with `Z` or an offset it is converted to ZoneMinder's local time. Default: now.",
    },
  ],
  [
    'end_date_time',
    'EndDateTime',
    'str?',
    {
      ...DERIVED,
      schemaType: 'DateTimeWrapper',
      doc: 'End of the event as UTC with `Z`; null while the event is being recorded.',
      inputDoc: 'ISO 8601 as start_date_time; absent or null: the event is still open.',
    },
  ],
  ['width', 'Width', 'u16', { inputDoc: 'Frame width in pixels.' }],
  ['height', 'Height', 'u16', { inputDoc: 'Frame height in pixels.' }],
  [
    'length',
    'Length',
    'dec',
    {
      ...DERIVED,
      schemaType: 'DecimalWrapper',
      doc: 'Seconds, as a decimal string with two places, e.g. `"579.93"`.',
      inputDoc: 'Seconds as a decimal string, at most 99999999.99 with two places.',
    },
  ],
  ['frames', 'Frames', 'u32?', { nullAs: 0 }],
  ['alarm_frames', 'AlarmFrames', 'u32?', { nullAs: 0 }],
  ['default_video', 'DefaultVideo', 'str:64'],
  ['save_jpe_gs', 'SaveJPEGs', 'i8?', { doc: "ZoneMinder's SaveJPEGs (the key is spelt as the reference spells it)." }],
  ['tot_score', 'TotScore', 'u32'],
  ['avg_score', 'AvgScore', 'u16?'],
  ['max_score', 'MaxScore', 'u16?'],
  ['archived', 'Archived', 'u8', { doc: '0 or 1.' }],
  ['videoed', 'Videoed', 'u8'],
  ['uploaded', 'Uploaded', 'u8'],
  ['emailed', 'Emailed', 'u8'],
  ['messaged', 'Messaged', 'u8'],
  ['executed', 'Executed', 'u8'],
  ['notes', 'Notes', 'str:65535?', { inputDoc: 'Free text.' }],
  ['state_id', 'StateId', 'u32'],
  [
    'orientation',
    'Orientation',
    'enum',
    { schemaType: 'Orientation', inputType: 'OrientationInput', variants: ORIENTATION_VARIANTS },
  ],
  ['disk_space', 'DiskSpace', 'u64?', { doc: 'Bytes; null until ZoneMinder has measured the event.' }],
  ['scheme', 'Scheme', 'enum', { schemaType: 'SchemeWrapper' }],
  ['locked', 'Locked', 'flag', { doc: '0 or 1.' }],
  ['latitude', 'Latitude', 'dec?', { ...DERIVED, schemaType: 'DecimalWrapper' }],
  ['longitude', 'Longitude', 'dec?', { ...DERIVED, schemaType: 'DecimalWrapper' }],
  [
    'tags',
    'Id',
    'object?',
    { ...DERIVED, schemaType: 'TagSummary[]', doc: "The event's tags; omitted when it has none." },
  ],
]);

/** The columns every event query reads, in EventResponse order. */
export const EVENT_COLUMNS = [...new Set(EVENT_FIELDS.map((f) => f.column))];

/** POST /events: the service writes the columns itself (defaults, times, length, storage scheme). */
export const EVENT_CREATE: DtoRequest = {
  name: 'EventCreateRequest',
  fields: [
    ['monitor_id', { required: true }],
    ['storage_id', { required: true }],
    'secondary_storage_id',
    ['name', { required: true }],
    'cause',
    'notes',
    'start_date_time',
    'end_date_time',
    ['width', { required: true }],
    ['height', { required: true }],
    ['length', { required: true }],
    ['orientation', { required: true }],
  ],
};

/** PUT /events/{id}: the fields a client may change, the 0/1 flags as booleans. */
export const EVENT_UPDATE: DtoRequest = {
  name: 'EventUpdateRequest',
  fields: [
    ['name', { doc: 'Event name; null leaves it unchanged.' }],
    ['cause', { doc: 'What triggered the event; null clears it.' }],
    ['notes', { doc: 'Free text; null clears it.' }],
    ['archived', { type: 'boolean' }],
    ['locked', { type: 'boolean' }],
    ['emailed', { type: 'boolean' }],
    ['messaged', { type: 'boolean' }],
    ['uploaded', { type: 'boolean' }],
    ['executed', { type: 'boolean' }],
    'orientation',
  ],
};

/** The columns an update may write. */
export const EVENT_UPDATE_FIELDS = requestFields(EVENT_FIELDS, EVENT_UPDATE);
