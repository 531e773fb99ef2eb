// The motion-detection columns Zones and ZonePresets share, and their JSON ↔ row mapping.
import type { Zones } from '../../generated/prisma/client.js';

export type ZoneType = 'Active' | 'Inclusive' | 'Exclusive' | 'Preclusive' | 'Inactive' | 'Privacy';
export type ZoneUnitsValue = 'Pixels' | 'Percent';
export type ZoneCheckMethod = 'AlarmedPixels' | 'FilteredPixels' | 'Blobs';

/** Motion settings as responses carry them (NULL columns as null). */
export interface ZoneMotionFields {
  check_method: string;
  /** @isInt @minimum 0 */
  min_pixel_threshold: number | null;
  /** @isInt @minimum 0 */
  max_pixel_threshold: number | null;
  min_alarm_pixels: number | null;
  max_alarm_pixels: number | null;
  /** @isInt @minimum 0 */
  filter_x: number | null;
  /** @isInt @minimum 0 */
  filter_y: number | null;
  min_filter_pixels: number | null;
  max_filter_pixels: number | null;
  min_blob_pixels: number | null;
  max_blob_pixels: number | null;
  /** @isInt @minimum 0 */
  min_blobs: number | null;
  /** @isInt @minimum 0 */
  max_blobs: number | null;
  /** @isInt @minimum 0 */
  overload_frames: number;
  /** @isInt @minimum 0 */
  extend_alarm_frames: number;
}

/** Motion settings on input; all optional, null clears a nullable column. */
export interface ZoneMotionSettings {
  /** How motion is measured. */
  check_method?: ZoneCheckMethod | null;
  /** Minimum pixel difference. @isInt @minimum 0 @maximum 65535 */
  min_pixel_threshold?: number | null;
  /** Maximum pixel difference. @isInt @minimum 0 @maximum 65535 */
  max_pixel_threshold?: number | null;
  /** Minimum alarmed area (in the zone's units). @minimum 0 @maximum 99999999.99 */
  min_alarm_pixels?: number | null;
  /** Maximum alarmed area. @minimum 0 @maximum 99999999.99 */
  max_alarm_pixels?: number | null;
  /** Filter width. @isInt @minimum 0 @maximum 255 */
  filter_x?: number | null;
  /** Filter height. @isInt @minimum 0 @maximum 255 */
  filter_y?: number | null;
  /** Minimum filtered area. @minimum 0 @maximum 99999999.99 */
  min_filter_pixels?: number | null;
  /** Maximum filtered area. @minimum 0 @maximum 99999999.99 */
  max_filter_pixels?: number | null;
  /** Minimum blob area. @minimum 0 @maximum 99999999.99 */
  min_blob_pixels?: number | null;
  /** Maximum blob area. @minimum 0 @maximum 99999999.99 */
  max_blob_pixels?: number | null;
  /** Minimum number of blobs. @isInt @minimum 0 @maximum 65535 */
  min_blobs?: number | null;
  /** Maximum number of blobs. @isInt @minimum 0 @maximum 65535 */
  max_blobs?: number | null;
  /** Frames ignored after an overload. @isInt @minimum 0 @maximum 65535 */
  overload_frames?: number | null;
  /** Frames an alarm is extended by. @isInt @minimum 0 @maximum 65535 */
  extend_alarm_frames?: number | null;
}

type MotionColumn = keyof Pick<
  Zones,
  | 'CheckMethod'
  | 'MinPixelThreshold'
  | 'MaxPixelThreshold'
  | 'MinAlarmPixels'
  | 'MaxAlarmPixels'
  | 'FilterX'
  | 'FilterY'
  | 'MinFilterPixels'
  | 'MaxFilterPixels'
  | 'MinBlobPixels'
  | 'MaxBlobPixels'
  | 'MinBlobs'
  | 'MaxBlobs'
  | 'OverloadFrames'
  | 'ExtendAlarmFrames'
>;

/** [JSON name, column, column accepts NULL, DECIMAL column]. */
const MOTION: Array<[keyof ZoneMotionFields, MotionColumn, boolean, boolean]> = [
  ['check_method', 'CheckMethod', false, false],
  ['min_pixel_threshold', 'MinPixelThreshold', true, false],
  ['max_pixel_threshold', 'MaxPixelThreshold', true, false],
  ['min_alarm_pixels', 'MinAlarmPixels', true, true],
  ['max_alarm_pixels', 'MaxAlarmPixels', true, true],
  ['filter_x', 'FilterX', true, false],
  ['filter_y', 'FilterY', true, false],
  ['min_filter_pixels', 'MinFilterPixels', true, true],
  ['max_filter_pixels', 'MaxFilterPixels', true, true],
  ['min_blob_pixels', 'MinBlobPixels', true, true],
  ['max_blob_pixels', 'MaxBlobPixels', true, true],
  ['min_blobs', 'MinBlobs', true, false],
  ['max_blobs', 'MaxBlobs', true, false],
  ['overload_frames', 'OverloadFrames', false, false],
  ['extend_alarm_frames', 'ExtendAlarmFrames', false, false],
];

export function motionToJson(row: Pick<Zones, MotionColumn>): ZoneMotionFields {
  const out: Record<string, unknown> = {};
  for (const [json, column, , decimal] of MOTION) {
    const v = row[column];
    out[json] = v === null ? null : decimal ? Number(String(v)) : v;
  }
  return out as unknown as ZoneMotionFields;
}

/** Supplied motion settings → column values (null clears nullable columns, else is ignored). */
export function motionToData(body: ZoneMotionSettings): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [json, column, nullable] of MOTION) {
    const v = body[json];
    if (v === undefined || (v === null && !nullable)) continue;
    data[column] = v;
  }
  return data;
}

/**
 * The area thresholds of `data` (column values from motionToData), given as a percentage of the
 * zone's area as 1.39 reads them beside percent coordinates, as the pixel counts an older zma
 * reads: the same rounding 1.39 applies when it loads them (docs/zoneminder/coexistence.md, zone writes). Zero and
 * null stay as they are (no bound).
 */
export function areaPercentToPixels(data: Record<string, unknown>, zonePixels: number): void {
  for (const [, column, , decimal] of MOTION) {
    const v = data[column];
    if (!decimal || typeof v !== 'number' || v <= 0) continue;
    data[column] = Math.floor((v * zonePixels) / 100 + 0.5);
  }
}

/**
 * The reverse of areaPercentToPixels, on response fields (motionToJson): stored pixel counts as a
 * percentage of the zone's `zonePixels`, to two decimals. Zero and null stay as they are.
 */
export function areaPixelsToPercent(json: ZoneMotionFields, zonePixels: number): void {
  const out = json as unknown as Record<string, unknown>;
  for (const [field, , , decimal] of MOTION) {
    const v = out[field];
    if (!decimal || typeof v !== 'number' || v <= 0) continue;
    out[field] = Math.round((v * 10000) / zonePixels) / 100;
  }
}
