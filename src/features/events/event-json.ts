// Events rows (as read by the raw list/get queries) -> EventResponse, and the input spellings
// of enums. Field names and types follow the reference EventResponse exactly.
import { Decimal } from '@prisma/client-runtime-utils';
import { bigintToJson } from '../../db/prisma-json.js';
import type { DateTimeWrapper, DecimalWrapper, Orientation, SchemeWrapper } from '../../api/wrappers.js';
import type { ZoneClock } from './event-time.js';

/** The columns every event query reads, in EventResponse order. */
export const EVENT_COLUMNS = [
  'Id',
  'MonitorId',
  'StorageId',
  'SecondaryStorageId',
  'Name',
  'Cause',
  'StartDateTime',
  'EndDateTime',
  'Width',
  'Height',
  'Length',
  'Frames',
  'AlarmFrames',
  'DefaultVideo',
  'SaveJPEGs',
  'TotScore',
  'AvgScore',
  'MaxScore',
  'Archived',
  'Videoed',
  'Uploaded',
  'Emailed',
  'Messaged',
  'Executed',
  'Notes',
  'StateId',
  'Orientation',
  'DiskSpace',
  'Scheme',
  'Locked',
  'Latitude',
  'Longitude',
] as const;

type IntLike = number | bigint;

/** An Events row as the adapter returns raw rows (unsigned INTs arrive as bigint). */
export interface EventRow {
  Id: IntLike;
  MonitorId: IntLike;
  StorageId: IntLike | null;
  SecondaryStorageId: IntLike | null;
  Name: string;
  Cause: string | null;
  StartDateTime: Date | null;
  EndDateTime: Date | null;
  Width: IntLike;
  Height: IntLike;
  Length: Decimal | string | number;
  Frames: IntLike | null;
  AlarmFrames: IntLike | null;
  DefaultVideo: string;
  SaveJPEGs: IntLike | null;
  TotScore: IntLike;
  AvgScore: IntLike | null;
  MaxScore: IntLike | null;
  Archived: IntLike;
  Videoed: IntLike;
  Uploaded: IntLike;
  Emailed: IntLike;
  Messaged: IntLike;
  Executed: IntLike;
  Notes: string | null;
  StateId: IntLike;
  Orientation: Orientation;
  DiskSpace: IntLike | null;
  Scheme: string;
  Locked: IntLike | boolean;
  Latitude: Decimal | string | null;
  Longitude: Decimal | string | null;
}

export interface TagSummary {
  /**
   * @isLong
   * @minimum 0
   */
  id: number;
  name: string;
}

export interface EventResponse {
  /**
   * @isLong
   * @minimum 0
   */
  id: number;
  /**
   * @isInt
   * @minimum 0
   */
  monitor_id: number;
  /**
   * Storage row; 0 is the default events directory.
   * @isInt
   * @minimum 0
   */
  storage_id: number;
  /**
   * @isInt
   * @minimum 0
   */
  secondary_storage_id?: number | null;
  name: string;
  cause?: string | null;
  /** Start of the event as UTC with `Z` (ZoneMinder's local time converted with its time zone). */
  start_date_time?: DateTimeWrapper | null;
  /** End of the event as UTC with `Z`; null while the event is being recorded. */
  end_date_time?: DateTimeWrapper | null;
  /**
   * @isInt
   * @minimum 0
   */
  width: number;
  /**
   * @isInt
   * @minimum 0
   */
  height: number;
  /** Seconds, as a decimal string with two places, e.g. `"579.93"`. */
  length: DecimalWrapper;
  /**
   * @isInt
   * @minimum 0
   */
  frames: number;
  /**
   * @isInt
   * @minimum 0
   */
  alarm_frames: number;
  default_video: string;
  /**
   * ZoneMinder's SaveJPEGs (the key is spelt as the reference spells it).
   * @isInt
   */
  save_jpe_gs?: number | null;
  /**
   * @isInt
   * @minimum 0
   */
  tot_score: number;
  /**
   * @isInt
   * @minimum 0
   */
  avg_score?: number | null;
  /**
   * @isInt
   * @minimum 0
   */
  max_score?: number | null;
  /**
   * 0 or 1.
   * @isInt
   * @minimum 0
   */
  archived: number;
  /**
   * @isInt
   * @minimum 0
   */
  videoed: number;
  /**
   * @isInt
   * @minimum 0
   */
  uploaded: number;
  /**
   * @isInt
   * @minimum 0
   */
  emailed: number;
  /**
   * @isInt
   * @minimum 0
   */
  messaged: number;
  /**
   * @isInt
   * @minimum 0
   */
  executed: number;
  notes?: string | null;
  /**
   * @isInt
   * @minimum 0
   */
  state_id: number;
  orientation: Orientation;
  /**
   * Bytes; null until ZoneMinder has measured the event.
   * @isLong
   * @minimum 0
   */
  disk_space?: number | null;
  scheme: SchemeWrapper;
  /**
   * 0 or 1.
   * @isInt
   */
  locked: number;
  latitude?: DecimalWrapper | null;
  longitude?: DecimalWrapper | null;
  /** The event's tags; omitted when it has none. */
  tags?: TagSummary[] | null;
}

const n = (v: IntLike | boolean): number => (typeof v === 'bigint' ? Number(v) : Number(v));
const nOrNull = (v: IntLike | null): number | null => (v === null || v === undefined ? null : n(v));

function decimal(v: Decimal | string | number | null, scale: number): string | null {
  if (v === null || v === undefined) return null;
  return new Decimal(v as Decimal.Value).toFixed(scale);
}

export function toEventResponse(row: EventRow, clock: ZoneClock, tags?: TagSummary[]): EventResponse {
  const event: EventResponse = {
    id: bigintToJson(BigInt(row.Id)) as number,
    monitor_id: n(row.MonitorId),
    storage_id: nOrNull(row.StorageId) ?? 0,
    secondary_storage_id: nOrNull(row.SecondaryStorageId),
    name: row.Name,
    cause: row.Cause,
    start_date_time: clock.toUtcString(row.StartDateTime),
    end_date_time: clock.toUtcString(row.EndDateTime),
    width: n(row.Width),
    height: n(row.Height),
    length: decimal(row.Length, 2) ?? '0.00',
    frames: nOrNull(row.Frames) ?? 0,
    alarm_frames: nOrNull(row.AlarmFrames) ?? 0,
    default_video: row.DefaultVideo,
    save_jpe_gs: nOrNull(row.SaveJPEGs),
    tot_score: n(row.TotScore),
    avg_score: nOrNull(row.AvgScore),
    max_score: nOrNull(row.MaxScore),
    archived: n(row.Archived),
    videoed: n(row.Videoed),
    uploaded: n(row.Uploaded),
    emailed: n(row.Emailed),
    messaged: n(row.Messaged),
    executed: n(row.Executed),
    notes: row.Notes,
    state_id: n(row.StateId),
    orientation: row.Orientation,
    disk_space: nOrNull(row.DiskSpace),
    scheme: row.Scheme,
    locked: n(row.Locked) ? 1 : 0,
    latitude: decimal(row.Latitude, 8),
    longitude: decimal(row.Longitude, 8),
  };
  if (tags && tags.length) event.tags = tags;
  return event;
}

/** Older variant spellings clients send, accepted beside the stored values. */
export type OrientationInput =
  Orientation | 'Rotate0' | 'Rotate90' | 'Rotate180' | 'Rotate270' | 'FlipHori' | 'FlipVert';

const ORIENTATION_VARIANTS: Record<string, Orientation> = {
  Rotate0: 'ROTATE_0',
  Rotate90: 'ROTATE_90',
  Rotate180: 'ROTATE_180',
  Rotate270: 'ROTATE_270',
  FlipHori: 'FLIP_HORI',
  FlipVert: 'FLIP_VERT',
};

export function storedOrientation(value: OrientationInput): Orientation {
  return ORIENTATION_VARIANTS[value] ?? (value as Orientation);
}
