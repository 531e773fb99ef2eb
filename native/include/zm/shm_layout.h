// ZoneMinder's per-monitor shared memory (zm.mmap.<id>), as data: the SharedData offset table of
// the four supported layouts, layout detection from the size word, the position of everything
// after TriggerData (solved from the file size), decoding of the state, and the ordered writes of
// a trigger. No I/O here (shm_reader.h maps the file); docs/zoneminder/shared-memory.md is the
// source of every number.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "zm/bytes.h"
#include "zm/image.h"

namespace zm::shm {

constexpr std::uint32_t kTriggerDataSize = 560;      // the same in every version
constexpr std::uint32_t kVideoStoreDataSize = 4128;  // x86-64
constexpr std::uint32_t kTimevalSize = 16;           // {i64 sec, i64 usec}

// The four columns of the offset table, one per SharedData size.
enum class LayoutId : std::uint8_t { k760, k768, k872, k888 };
constexpr int kLayoutCount = 4;
constexpr std::uint32_t kLayoutSizes[kLayoutCount] = {760, 768, 872, 888};

enum class FieldType : std::uint8_t { kU8, kI32, kU32, kU64, kI64, kF64, kChars };

enum class Field : std::uint8_t {
  kSize,
  kLastWriteIndex,
  kLastReadIndex,
  kImageCount,
  kState,
  kCaptureFps,
  kAnalysisFps,
  kLatitude,
  kLongitude,
  kLastEventId,
  kAction,
  kBrightness,
  kHue,
  kColour,
  kContrast,
  kAlarmX,
  kAlarmY,
  kValid,
  kCapturing,
  kAnalysing,
  kRecording,
  kSignal,
  kFormat,
  kImageSize,
  kLastFrameScore,
  kAudioFrequency,
  kAudioChannels,
  kStartupTime,
  kHeartbeatTime,
  kLastWriteTime,
  kLastReadTime,
  kLastViewedTime,
  kLastAnalysisViewedTime,
  kControlState,
  kAlarmCause,
  kVideoFifoPath,
  kAudioFifoPath,
  kJanusPin,
  kLastAnalysisIndex,
  kAnalysisImageCount,
  kCount
};

struct FieldSpec {
  Field field;
  const char* name;  // ZoneMinder's member name
  FieldType type;
  std::uint16_t length;               // bytes
  std::int16_t offset[kLayoutCount];  // -1: the field does not exist in that layout
};

// The whole SharedData table, in docs/zoneminder/shared-memory.md order.
const std::vector<FieldSpec>& SharedDataFields();
const FieldSpec& Spec(Field f);
// Byte offset of `f` in `layout`, or -1.
int Offset(LayoutId layout, Field f);

// TriggerData, relative to its start (= SharedData.size).
namespace trigger {
constexpr std::uint32_t kSize = 0, kState = 4, kScore = 8, kCause = 16, kText = 48, kShowText = 304;
constexpr std::uint32_t kCauseLength = 32, kTextLength = 256, kShowTextLength = 256;
enum State : std::uint32_t { kCancel = 0, kOn = 1, kOff = 2 };
}  // namespace trigger

struct Layout {
  LayoutId id;
  std::uint32_t shared_size;  // SharedData.size = offset of TriggerData
  const char* versions;       // human-readable ZoneMinder versions
};

// Reads the size word (and TriggerData.size) from the start of a map. Throws zm::Error:
// ERR_ZM_SHM_INVALID when the size word is still 0 (zmc is initialising), ERR_ZM_SHM_LAYOUT for
// any unknown size (the message names it) or a TriggerData.size other than 560.
Layout DetectLayout(ByteView map);

// How the image slots are organised.
enum class SlotScheme : std::uint8_t {
  kPacked,   // 1.36/1.38: one format per monitor (SharedData.format + Colours), rows packed
  kAvFrame,  // 1.39.x: an AVPixelFormat per slot, rows aligned to 32 (av_image_fill_arrays)
};

// From the Monitors row; image count and zone count are solved from the file size when absent
// (zone_count only matters for ≥ 1.38, which keep a score per zone in the map).
struct GeometryHint {
  std::uint32_t width = 0, height = 0;
  std::optional<std::uint32_t> image_count, zone_count;
};

struct Geometry {
  const char* variant = "";  // "1.36", "1.36.34", "1.38", "1.39", "1.39.17"
  SlotScheme scheme = SlotScheme::kPacked;
  std::uint32_t width = 0, height = 0, colours = 0;
  std::uint32_t image_count = 0;  // n = Monitors.ImageBufferCount
  std::uint32_t zone_count =
      0;  // int32 zone scores between TriggerData and VideoStoreData (≥ 1.38)
  std::uint64_t slot_size = 0;  // stride between slots
  std::uint64_t zone_scores = 0, video_store = 0, timestamps = 0, images = 0;
  std::uint64_t formats = 0;  // int32 AVPixelFormat[n] of the capture slots; 0 = none (kPacked)
};

// Places everything after TriggerData. Throws ERR_ZM_SHM_GEOMETRY when width/height are missing
// or do not match SharedData.imagesize, or when the file size fits no (or more than one) variant.
Geometry ResolveGeometry(const Layout& layout, std::uint64_t file_size, std::uint32_t image_size,
                         const GeometryHint& hint);

// SharedData + TriggerData, decoded. Absent fields (older layouts) are nullopt.
struct TriggerState {
  std::uint32_t state = 0, score = 0;
  std::string cause, text, show_text;
};

struct SharedState {
  std::uint32_t size = 0;
  std::int32_t last_write_index = 0, last_read_index = 0;
  std::optional<std::int32_t> image_count;
  std::uint32_t state = 0;
  double capture_fps = 0, analysis_fps = 0;
  std::optional<double> latitude, longitude;
  std::uint64_t last_event_id = 0;
  std::uint32_t action = 0;
  std::int32_t brightness = 0, hue = 0, colour = 0, contrast = 0, alarm_x = 0, alarm_y = 0;
  std::uint8_t valid = 0, capturing = 0, signal = 0, format = 0;  // capturing = "active" in 1.36
  std::optional<std::uint8_t> analysing, recording;
  std::uint32_t image_size = 0, last_frame_score = 0, audio_frequency = 0, audio_channels = 0;
  std::int64_t startup_time = 0, heartbeat_time = 0, last_write_time = 0, last_read_time = 0;
  std::optional<std::int64_t> last_viewed_time, last_analysis_viewed_time;
  std::string alarm_cause;
  std::optional<std::int32_t> last_analysis_index, analysis_image_count;
  TriggerState trigger;
};

// `map` must hold at least shared_size + 560 bytes (DetectLayout checked that).
SharedState ReadState(ByteView map, const Layout& layout);

// Field readers over live memory (another process writes it): byte copies, no alignment needed.
std::uint8_t LoadU8(const std::uint8_t* p);
std::int32_t LoadI32(const std::uint8_t* p);
std::int64_t LoadI64(const std::uint8_t* p);
// An aligned int32 with acquire order: the commit word (last_write_index).
std::int32_t LoadAcquireI32(const std::uint8_t* p);

struct TriggerRequest {
  std::uint32_t state = trigger::kCancel;
  std::uint32_t score = 0;
  std::string cause, text, show_text;  // truncated to the field size minus the NUL
};

// One store of a trigger, in the order it must happen.
struct FieldWrite {
  const char* name;
  std::uint32_t offset;  // from the start of the map
  Bytes bytes;
};

// ON: score, cause, text, showtext, then the state (the commit zmc acts on, as ForceAlarmOn and
// zmTriggerEventOn do). OFF/CANCEL: the state first, then score/cause/text cleared, so zmc never
// sees ON with half-cleared fields.
std::vector<FieldWrite> PlanTrigger(const Layout& layout, const TriggerRequest& request);
// Applies the writes in order, with a release fence before each state store.
void ApplyTrigger(std::uint8_t* map, const std::vector<FieldWrite>& writes);

}  // namespace zm::shm
