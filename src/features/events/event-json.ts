// Events rows (as read by the raw list/get queries) -> EventResponse (its fields: event-fields.ts),
// and the input spellings of enums.
import { Decimal } from '@prisma/client-runtime-utils';
import { bigintToJson } from '../../db/prisma-json.js';
import type { Orientation } from '../../api/wrappers.js';
import type { ZoneClock } from '../../zm/event-time.js';
import type { EventResponse } from '../../generated/dto/events.js';
import { rowToJson } from '../field-table.js';
import { EVENT_COLUMNS, EVENT_FIELDS, ORIENTATION_VARIANTS } from './event-fields.js';

export { EVENT_COLUMNS };

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

// EventResponse is generated from event-fields.ts.
export type { EventResponse };

function decimal(v: Decimal | string | number | null, scale: number): string | null {
  if (v === null || v === undefined) return null;
  return new Decimal(v as Decimal.Value).toFixed(scale);
}

/**
 * The derived fields: ids beyond 2^53 as strings, ZoneMinder's local times as UTC with `Z`, the
 * length and coordinates as decimal strings with the columns' places, the tags only when there are some.
 */
export function toEventResponse(row: EventRow, clock: ZoneClock, tags?: TagSummary[]): EventResponse {
  return rowToJson(EVENT_FIELDS, row, {
    derived: {
      id: bigintToJson(BigInt(row.Id)),
      start_date_time: clock.toUtcString(row.StartDateTime),
      end_date_time: clock.toUtcString(row.EndDateTime),
      length: decimal(row.Length, 2) ?? '0.00',
      latitude: decimal(row.Latitude, 8),
      longitude: decimal(row.Longitude, 8),
      tags: tags?.length ? tags : undefined,
    },
  }) as unknown as EventResponse;
}

/** Older variant spellings clients send, accepted beside the stored values. */
export type OrientationInput =
  Orientation | 'Rotate0' | 'Rotate90' | 'Rotate180' | 'Rotate270' | 'FlipHori' | 'FlipVert';

export function storedOrientation(value: OrientationInput): Orientation {
  return (ORIENTATION_VARIANTS[value] ?? value) as Orientation;
}
