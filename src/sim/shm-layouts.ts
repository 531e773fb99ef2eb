// ZoneMinder shared-memory layouts as docs/zoneminder/shared-memory.md states them, transcribed here on their own (not
// from the C++ reader): the simulated camera (shm-writer.ts) and the test fixtures build their
// files from these numbers, and the tests compare them with the reader's table
// (shmLayoutTable()), so a wrong offset on either side shows up.

export type ShmLayoutSize = 760 | 768 | 872 | 888;
export const LAYOUTS: readonly ShmLayoutSize[] = [760, 768, 872, 888];

export type FieldType = 'u8' | 'i32' | 'u32' | 'u64' | 'i64' | 'f64' | 'chars';

export interface FactsField {
  name: string;
  type: FieldType;
  length: number;
  /** Per layout; null: the field does not exist there. */
  offsets: Record<ShmLayoutSize, number | null>;
}

const _ = null;
const f = (
  name: string,
  type: FieldType,
  length: number,
  o760: number | null,
  o768: number | null,
  o872: number | null,
  o888: number | null,
): FactsField => ({
  name,
  type,
  length,
  offsets: { 760: o760, 768: o768, 872: o872, 888: o888 },
});

/** docs/zoneminder/shared-memory.md "SharedData offsets", row by row. */
export const SHARED_DATA: readonly FactsField[] = [
  f('size', 'u32', 4, 0, 0, 0, 0),
  f('last_write_index', 'i32', 4, 4, 4, 4, 4),
  f('last_read_index', 'i32', 4, 8, 8, 8, 8),
  f('image_count', 'i32', 4, _, 12, 12, 12),
  f('state', 'u32', 4, 12, 16, 16, 16),
  f('capture_fps', 'f64', 8, 16, 24, 24, 24),
  f('analysis_fps', 'f64', 8, 24, 32, 32, 32),
  f('latitude', 'f64', 8, _, _, 40, 40),
  f('longitude', 'f64', 8, _, _, 48, 48),
  f('last_event_id', 'u64', 8, 32, 40, 56, 56),
  f('action', 'u32', 4, 40, 48, 64, 64),
  f('brightness', 'i32', 4, 44, 52, 68, 68),
  f('hue', 'i32', 4, 48, 56, 72, 72),
  f('colour', 'i32', 4, 52, 60, 76, 76),
  f('contrast', 'i32', 4, 56, 64, 80, 80),
  f('alarm_x', 'i32', 4, 60, 68, 84, 84),
  f('alarm_y', 'i32', 4, 64, 72, 88, 88),
  f('valid', 'u8', 1, 68, 76, 92, 92),
  f('capturing', 'u8', 1, 69, 77, 93, 93), // "active" in 1.36
  f('analysing', 'u8', 1, _, _, 94, 94),
  f('recording', 'u8', 1, _, _, 95, 95),
  f('signal', 'u8', 1, 70, 78, 96, 96),
  f('format', 'u8', 1, 71, 79, 97, 97),
  f('imagesize', 'u32', 4, 72, 80, 100, 100),
  f('last_frame_score', 'u32', 4, 76, 84, 104, 104),
  f('audio_frequency', 'u32', 4, 80, 88, 108, 108),
  f('audio_channels', 'u32', 4, 84, 92, 112, 112),
  f('startup_time', 'i64', 8, 88, 96, 120, 120),
  f('heartbeat_time', 'i64', 8, 96, 104, 128, 128),
  f('last_write_time', 'i64', 8, 104, 112, 136, 136),
  f('last_read_time', 'i64', 8, 112, 120, 144, 144),
  f('last_viewed_time', 'i64', 8, _, _, 152, 152),
  f('last_analysis_viewed_time', 'i64', 8, _, _, 160, 160),
  f('control_state', 'chars', 256, 120, 128, 168, 168),
  f('alarm_cause', 'chars', 256, 376, 384, 424, 424),
  f('video_fifo_path', 'chars', 64, 632, 640, 680, 680),
  f('audio_fifo_path', 'chars', 64, 696, 704, 744, 744),
  f('janus_pin', 'chars', 64, _, _, 808, 808),
  f('last_analysis_index', 'i32', 4, _, _, _, 872),
  f('analysis_image_count', 'i32', 4, _, _, _, 876),
];

/** docs/zoneminder/shared-memory.md TriggerData, relative to its start (= SharedData.size). */
export const TRIGGER_DATA = {
  size: 560,
  fields: { size: 0, trigger_state: 4, trigger_score: 8, trigger_cause: 16, trigger_text: 48, trigger_showtext: 304 },
  lengths: { trigger_cause: 32, trigger_text: 256, trigger_showtext: 256 },
} as const;

export const VIDEO_STORE_DATA_SIZE = 4128;

/** docs/zoneminder/shared-memory.md: AVPixelFormat numbers (≥ 1.39.5 per-slot formats) and ZM subpixel orders (1.36/1.38). */
export const AV_PIX_FMT = {
  yuv420p: 0,
  rgb24: 2,
  bgr24: 3,
  yuv422p: 4,
  gray8: 8,
  yuvj420p: 12,
  yuvj422p: 13,
  argb: 25,
  rgba: 26,
  abgr: 27,
  bgra: 28,
} as const;
export const SUBPIX_ORDER = {
  gray8: 2,
  bgr24: 5,
  rgb24: 6,
  bgra: 7,
  rgba: 8,
  abgr: 9,
  argb: 10,
  yuv420p: 11,
  yuvj420p: 12,
  yuv422p: 13,
  yuvj422p: 14,
} as const;

export function factsField(name: string): FactsField {
  const field = SHARED_DATA.find((x) => x.name === name);
  if (!field) throw new Error(`no SharedData field ${name}`);
  return field;
}
