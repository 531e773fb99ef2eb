// The Events table as a field table (src/features/field-table.ts): EventResponse is generated from
// it, and it lists the columns every event query reads (EVENT_COLUMNS). Field names and types
// follow the reference EventResponse exactly. The derived fields (the id beyond 2^53, the UTC
// times, the decimal strings, the tags) are computed in event-json.ts; the requests' rules are in
// events-service.ts.
import type { Events } from '../../generated/prisma/client.js';
import { fieldTable } from '../field-table.js';

type Column = keyof Events & string;

/** Derived in event-json.ts from the column named beside it. */
const DERIVED = { derived: true };

export const EVENT_FIELDS = fieldTable<Column>([
  ['id', 'Id', 'u64', DERIVED],
  ['monitor_id', 'MonitorId', 'u32'],
  ['storage_id', 'StorageId', 'u16?', { nullAs: 0, doc: 'Storage row; 0 is the default events directory.' }],
  ['secondary_storage_id', 'SecondaryStorageId', 'u16?'],
  ['name', 'Name', 'str:64'],
  ['cause', 'Cause', 'str:65535?'],
  [
    'start_date_time',
    'StartDateTime',
    'str?',
    {
      ...DERIVED,
      schemaType: 'DateTimeWrapper',
      doc: "Start of the event as UTC with `Z` (ZoneMinder's local time converted with its time zone).",
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
    },
  ],
  ['width', 'Width', 'u16'],
  ['height', 'Height', 'u16'],
  [
    'length',
    'Length',
    'dec',
    { ...DERIVED, schemaType: 'DecimalWrapper', doc: 'Seconds, as a decimal string with two places, e.g. `"579.93"`.' },
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
  ['notes', 'Notes', 'str:65535?'],
  ['state_id', 'StateId', 'u32'],
  ['orientation', 'Orientation', 'enum', { schemaType: 'Orientation' }],
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
