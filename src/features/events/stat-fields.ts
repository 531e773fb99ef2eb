// The Stats table as a field table (src/features/field-table.ts): per-zone alarm figures of one
// frame. StatResponse, CreateStatRequest and UpdateStatRequest are generated from it.
import type { Stats } from '../../generated/prisma/client.js';
import { fieldTable } from '../field-table.js';

type Column = keyof Stats & string;

/** Ids are int32 on the wire (the reference's format), though the columns are unsigned. */
const ID: [number, number] = [0, 2147483647];

export const STAT_FIELDS = fieldTable<Column>([
  ['id', 'Id', 'u32', { readOnly: true }],
  [
    'monitor_id',
    'MonitorId',
    'u32',
    { range: ID, doc: 'The monitor.', inputDoc: 'An existing monitor the caller may edit.' },
  ],
  [
    'zone_id',
    'ZoneId',
    'u32',
    { range: ID, doc: 'The zone of that monitor.', inputDoc: 'A zone of the (resulting) monitor.' },
  ],
  ['event_id', 'EventId', 'u64', { doc: 'The event.', inputDoc: 'An event of the (resulting) monitor.' }],
  ['frame_id', 'FrameId', 'u32', { range: ID, doc: 'Frame number within the event.' }],
  ['pixel_diff', 'PixelDiff', 'u8', { doc: 'Pixel difference threshold, percent.' }],
  ['alarm_pixels', 'AlarmPixels', 'u32', { range: ID, doc: 'Alarmed pixels.' }],
  ['filter_pixels', 'FilterPixels', 'u32', { range: ID, doc: 'Pixels left after filtering.' }],
  ['blob_pixels', 'BlobPixels', 'u32', { range: ID, doc: 'Pixels in blobs.' }],
  ['blobs', 'Blobs', 'u16', { doc: 'Number of blobs.' }],
  ['min_blob_size', 'MinBlobSize', 'u32', { range: ID, doc: 'Smallest blob, pixels.' }],
  ['max_blob_size', 'MaxBlobSize', 'u32', { range: ID, doc: 'Largest blob, pixels.' }],
  ['min_x', 'MinX', 'u16', { doc: 'Alarm box left.' }],
  ['max_x', 'MaxX', 'u16', { doc: 'Alarm box right.' }],
  ['min_y', 'MinY', 'u16', { doc: 'Alarm box top.' }],
  ['max_y', 'MaxY', 'u16', { doc: 'Alarm box bottom.' }],
  ['score', 'Score', 'u16', { doc: 'Zone score.' }],
]);
