// The Filters table as a field table (src/features/field-table.ts): a saved event filter and what
// zmfilter.pl does with the events it matches. FilterResponse, FilterFields and the create/update
// requests are generated from it. The condition itself (query_json / filter) is validated and
// normalised by filters-service.ts, not by the table.
import type { Filters } from '../../generated/prisma/client.js';
import { fieldTable } from '../field-table.js';

type Column = keyof Filters & string;

/** A 0/1 switch stored as tinyint unsigned. */
const SWITCH = { range: [0, 1] as [number, number] };

export const FILTER_FIELDS = fieldTable<Column>([
  ['id', 'Id', 'u32', { readOnly: true }],
  ['name', 'Name', 'str:64', { inputDoc: 'Filter name.' }],
  [
    'query_json',
    'Query_json',
    'str:65535',
    {
      doc: 'The condition as ZoneMinder stores it (Filters.Query_json): `{terms:[{cnj, obr, attr, op, val, cbr}], sort_field, sort_asc, limit}`.',
      inputDoc: "The condition in ZoneMinder's Query_json format (a JSON string of terms).",
    },
  ],
  [
    'filter',
    'Query_json',
    'object?',
    {
      derived: true,
      schemaType: 'FilterQuery',
      doc: 'The same condition as a typed tree; null when it uses something the tree cannot express.',
      inputDoc: 'The condition as a typed tree (preferred; wins over query_json).',
    },
  ],
  ['auto_archive', 'AutoArchive', 'u8', { ...SWITCH, inputDoc: 'Archive matching events.' }],
  ['auto_unarchive', 'AutoUnarchive', 'u8', { ...SWITCH, inputDoc: 'Unarchive matching events.' }],
  ['auto_video', 'AutoVideo', 'u8', { ...SWITCH, inputDoc: 'Create videos of matching events.' }],
  ['auto_upload', 'AutoUpload', 'u8', { ...SWITCH, inputDoc: 'Upload matching events.' }],
  ['auto_email', 'AutoEmail', 'u8', { ...SWITCH, inputDoc: 'E-mail details of matching events.' }],
  ['email_to', 'EmailTo', 'str:65535?', { inputDoc: 'E-mail recipients.' }],
  ['email_subject', 'EmailSubject', 'str:65535?', { inputDoc: 'E-mail subject.' }],
  ['email_body', 'EmailBody', 'str:65535?', { inputDoc: 'E-mail body.' }],
  ['email_server', 'EmailServer', 'str:65535?', { inputDoc: 'E-mail server.' }],
  [
    'email_format',
    'EmailFormat',
    'enum',
    {
      enumType: 'EmailFormat',
      values: ['Individual', 'Summary'],
      inputDoc: 'One mail per event (Individual) or one for all (Summary).',
    },
  ],
  ['auto_message', 'AutoMessage', 'u8', { ...SWITCH, inputDoc: 'Message details of matching events.' }],
  [
    'auto_execute',
    'AutoExecute',
    'u8',
    { ...SWITCH, inputDoc: 'Run auto_execute_cmd on matching events; setting it needs System Edit.' },
  ],
  [
    'auto_execute_cmd',
    'AutoExecuteCmd',
    'str:255?',
    { inputDoc: 'Shell command zmfilter.pl runs per matching event; setting it needs System Edit.' },
  ],
  ['auto_delete', 'AutoDelete', 'u8', { ...SWITCH, inputDoc: 'Delete matching events.' }],
  ['auto_move', 'AutoMove', 'u8', { ...SWITCH, inputDoc: 'Move matching events to auto_move_to.' }],
  ['auto_move_to', 'AutoMoveTo', 'u16', { inputDoc: 'Target Storage id of auto_move.' }],
  ['auto_copy', 'AutoCopy', 'u8', { ...SWITCH, inputDoc: 'Copy matching events to auto_copy_to.' }],
  ['auto_copy_to', 'AutoCopyTo', 'u16', { inputDoc: 'Target Storage id of auto_copy.' }],
  [
    'update_disk_space',
    'UpdateDiskSpace',
    'u8',
    { ...SWITCH, inputDoc: 'Recompute the disk space of matching events.' },
  ],
  ['background', 'Background', 'u8', { ...SWITCH, inputDoc: 'Run in the background (zmfilter.pl daemon).' }],
  ['concurrent', 'Concurrent', 'u8', { ...SWITCH, inputDoc: 'Run concurrently with other filters.' }],
  ['lock_rows', 'LockRows', 'u8', { ...SWITCH, inputDoc: 'Lock matching rows while acting on them.' }],
  [
    'execute_interval',
    'ExecuteInterval',
    'u32',
    { range: [0, 2147483647], inputDoc: 'Seconds between background runs.' },
  ],
  ['user_id', 'UserId', 'u32?', { range: [0, Infinity], inputDoc: 'Owner; default the caller.' }],
]);
