#include "zm/shm_layout.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <sstream>

#include "zm/error.h"

namespace zm::shm {

namespace {

using T = FieldType;
constexpr std::int16_t kNo = -1;

// docs/zoneminder/shared-memory.md, column for column: 760 (1.36.0–1.36.33) | 768 (1.36.34–38) |
// 872 (1.38–1.39.16) | 888 (≥ 1.39.17). test/helpers/shm-layouts.ts holds the same table,
// transcribed separately; the ava tests compare the two and build synthetic maps from theirs.
const std::vector<FieldSpec> kFields = {
    {Field::kSize, "size", T::kU32, 4, {0, 0, 0, 0}},
    {Field::kLastWriteIndex, "last_write_index", T::kI32, 4, {4, 4, 4, 4}},
    {Field::kLastReadIndex, "last_read_index", T::kI32, 4, {8, 8, 8, 8}},
    {Field::kImageCount, "image_count", T::kI32, 4, {kNo, 12, 12, 12}},
    {Field::kState, "state", T::kU32, 4, {12, 16, 16, 16}},
    {Field::kCaptureFps, "capture_fps", T::kF64, 8, {16, 24, 24, 24}},
    {Field::kAnalysisFps, "analysis_fps", T::kF64, 8, {24, 32, 32, 32}},
    {Field::kLatitude, "latitude", T::kF64, 8, {kNo, kNo, 40, 40}},
    {Field::kLongitude, "longitude", T::kF64, 8, {kNo, kNo, 48, 48}},
    {Field::kLastEventId, "last_event_id", T::kU64, 8, {32, 40, 56, 56}},
    {Field::kAction, "action", T::kU32, 4, {40, 48, 64, 64}},
    {Field::kBrightness, "brightness", T::kI32, 4, {44, 52, 68, 68}},
    {Field::kHue, "hue", T::kI32, 4, {48, 56, 72, 72}},
    {Field::kColour, "colour", T::kI32, 4, {52, 60, 76, 76}},
    {Field::kContrast, "contrast", T::kI32, 4, {56, 64, 80, 80}},
    {Field::kAlarmX, "alarm_x", T::kI32, 4, {60, 68, 84, 84}},
    {Field::kAlarmY, "alarm_y", T::kI32, 4, {64, 72, 88, 88}},
    {Field::kValid, "valid", T::kU8, 1, {68, 76, 92, 92}},
    {Field::kCapturing, "capturing", T::kU8, 1, {69, 77, 93, 93}},  // "active" in 1.36
    {Field::kAnalysing, "analysing", T::kU8, 1, {kNo, kNo, 94, 94}},
    {Field::kRecording, "recording", T::kU8, 1, {kNo, kNo, 95, 95}},
    {Field::kSignal, "signal", T::kU8, 1, {70, 78, 96, 96}},
    {Field::kFormat, "format", T::kU8, 1, {71, 79, 97, 97}},
    {Field::kImageSize, "imagesize", T::kU32, 4, {72, 80, 100, 100}},
    {Field::kLastFrameScore, "last_frame_score", T::kU32, 4, {76, 84, 104, 104}},
    {Field::kAudioFrequency, "audio_frequency", T::kU32, 4, {80, 88, 108, 108}},
    {Field::kAudioChannels, "audio_channels", T::kU32, 4, {84, 92, 112, 112}},
    {Field::kStartupTime, "startup_time", T::kI64, 8, {88, 96, 120, 120}},
    {Field::kHeartbeatTime, "heartbeat_time", T::kI64, 8, {96, 104, 128, 128}},
    {Field::kLastWriteTime, "last_write_time", T::kI64, 8, {104, 112, 136, 136}},
    {Field::kLastReadTime, "last_read_time", T::kI64, 8, {112, 120, 144, 144}},
    {Field::kLastViewedTime, "last_viewed_time", T::kI64, 8, {kNo, kNo, 152, 152}},
    {Field::kLastAnalysisViewedTime, "last_analysis_viewed_time", T::kI64, 8, {kNo, kNo, 160, 160}},
    {Field::kControlState, "control_state", T::kChars, 256, {120, 128, 168, 168}},
    {Field::kAlarmCause, "alarm_cause", T::kChars, 256, {376, 384, 424, 424}},
    {Field::kVideoFifoPath, "video_fifo_path", T::kChars, 64, {632, 640, 680, 680}},
    {Field::kAudioFifoPath, "audio_fifo_path", T::kChars, 64, {696, 704, 744, 744}},
    {Field::kJanusPin, "janus_pin", T::kChars, 64, {kNo, kNo, 808, 808}},
    {Field::kLastAnalysisIndex, "last_analysis_index", T::kI32, 4, {kNo, kNo, kNo, 872}},
    {Field::kAnalysisImageCount, "analysis_image_count", T::kI32, 4, {kNo, kNo, kNo, 876}},
};

const char* const kVersions[kLayoutCount] = {"1.36.0–1.36.33", "1.36.34–1.36.38", "1.38.0–1.39.16",
                                             "≥ 1.39.17"};

std::string KnownLayouts() {
  std::string s;
  for (int i = 0; i < kLayoutCount; ++i) {
    if (i) s += ", ";
    s += std::to_string(kLayoutSizes[i]) + " (" + kVersions[i] + ")";
  }
  return s;
}

std::uint64_t AlignUp(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

const std::uint8_t* At(ByteView map, const Layout& l, Field f) {
  const int off = Offset(l.id, f);
  return off < 0 ? nullptr : map.data + off;
}

std::uint32_t U32(ByteView map, const Layout& l, Field f) { return ReadU32Le(At(map, l, f)); }

double F64(const std::uint8_t* p) {
  double d;
  std::memcpy(&d, p, sizeof d);  // x86-64 little-endian, as written by zmc
  return d;
}

// A NUL-terminated string inside a fixed char[n] (no terminator: all n bytes).
std::string Chars(const std::uint8_t* p, std::size_t n) {
  const void* nul = std::memchr(p, 0, n);
  return std::string(reinterpret_cast<const char*>(p),
                     nul ? static_cast<const std::uint8_t*>(nul) - p : n);
}

template <typename V, typename Read>
std::optional<V> Optional(ByteView map, const Layout& l, Field f, Read read) {
  const std::uint8_t* p = At(map, l, f);
  if (!p) return std::nullopt;
  return static_cast<V>(read(p));
}

// One way the tail of a layout can be organised (docs/zoneminder/shared-memory.md); the file size
// picks among them.
struct Variant {
  const char* name;
  SlotScheme scheme;
  std::uint32_t rings;  // capture slots only (1.36) or capture + alarm/analysis (≥ 1.38)
  bool zone_scores;     // int32 × zones after TriggerData (≥ 1.38)
  std::uint32_t formats_per_slot;  // int32 AVPixelFormat arrays after the slots (per n)
  std::uint32_t extra;             // constant bytes after them (the 64-alignment slack, …)
  bool formats_used;               // whether the per-slot formats describe the slots
};

// mem_size = SD + 560 + 4z + 4128 + 16n + rings·n·S + formats_per_slot·4·n + extra.
std::vector<Variant> VariantsFor(LayoutId id) {
  switch (id) {
    case LayoutId::k760:
      return {{"1.36", SlotScheme::kPacked, 1, false, 0, 64, false}};
    case LayoutId::k768:
      return {{"1.36.34", SlotScheme::kPacked, 1, false, 0, 64, false}};
    case LayoutId::k872:
      // 1.38.x: the pixfmt array lies on the first alarm slot (upstream bug) and is unused.
      // 1.39.x ≤ 16 / the stream-socket fork: n capture pixfmts + one alarm pixfmt, 63+3 slack.
      return {{"1.38", SlotScheme::kPacked, 2, true, 1, 64, false},
              {"1.39", SlotScheme::kAvFrame, 2, true, 1, 4 + 63 + 3, true}};
    case LayoutId::k888:
      return {{"1.39.17", SlotScheme::kAvFrame, 2, true, 2, 63 + 3, true}};
  }
  return {};
}

// 1.39.10+ (and the fork) size slots for an RGBA frame with 32-byte aligned rows at least.
std::uint64_t SlotSize(SlotScheme scheme, std::uint32_t w, std::uint32_t h,
                       std::uint32_t image_size) {
  if (scheme == SlotScheme::kPacked) return image_size;
  return std::max<std::uint64_t>(image_size, AlignUp(std::uint64_t(w) * 4, 32) * h);
}

// Bounds the search: each zone adds 4 bytes, so a loose bound lets tiny images fit several
// arrangements. Real monitors have a handful; callers that know the count pass it.
constexpr std::uint32_t kMaxZones = 256;

}  // namespace

const std::vector<FieldSpec>& SharedDataFields() { return kFields; }

const FieldSpec& Spec(Field f) { return kFields[static_cast<std::size_t>(f)]; }

int Offset(LayoutId layout, Field f) { return Spec(f).offset[static_cast<int>(layout)]; }

Layout DetectLayout(ByteView map) {
  if (map.size < 4) {
    throw Error("ERR_ZM_SHM_LAYOUT",
                "zm.mmap file is " + std::to_string(map.size) + " bytes: too small for SharedData");
  }
  const std::uint32_t size = ReadU32Le(map.data);
  if (size == 0)
    throw Error("ERR_ZM_SHM_INVALID",
                "zm.mmap is not initialised yet (SharedData.size is 0): zmc is starting");
  int column = -1;
  for (int i = 0; i < kLayoutCount; ++i) {
    if (kLayoutSizes[i] == size) column = i;
  }
  if (column < 0) {
    std::string msg = "unknown zm.mmap layout: SharedData.size is " + std::to_string(size);
    if (size == 864) msg += " (the 1.37.61–1.37.74 development layout, not supported)";
    throw Error("ERR_ZM_SHM_LAYOUT", msg + "; known sizes: " + KnownLayouts());
  }
  Layout l{static_cast<LayoutId>(column), size, kVersions[column]};
  if (map.size < std::uint64_t(size) + kTriggerDataSize) {
    throw Error("ERR_ZM_SHM_LAYOUT", "zm.mmap file is " + std::to_string(map.size) +
                                         " bytes: too small for SharedData (" +
                                         std::to_string(size) + ") + TriggerData (560)");
  }
  const std::uint32_t trigger_size = ReadU32Le(map.data + size + trigger::kSize);
  if (trigger_size != kTriggerDataSize) {
    throw Error("ERR_ZM_SHM_LAYOUT", "zm.mmap layout " + std::to_string(size) + " (" + l.versions +
                                         ") but TriggerData.size at offset " +
                                         std::to_string(size) + " is " +
                                         std::to_string(trigger_size) + ", not 560");
  }
  return l;
}

Geometry ResolveGeometry(const Layout& layout, std::uint64_t file_size, std::uint32_t image_size,
                         const GeometryHint& hint) {
  if (hint.width == 0 || hint.height == 0) {
    throw Error("ERR_ZM_SHM_GEOMETRY",
                "the image geometry needs the monitor's width and height (Monitors.Width/Height)");
  }
  const std::uint64_t pixels = std::uint64_t(hint.width) * hint.height;
  const std::uint64_t colours = image_size / pixels;
  if (image_size == 0 || image_size % pixels != 0 ||
      (colours != 1 && colours != 3 && colours != 4)) {
    throw Error("ERR_ZM_SHM_GEOMETRY",
                "SharedData.imagesize " + std::to_string(image_size) + " is not " +
                    std::to_string(hint.width) + "×" + std::to_string(hint.height) +
                    "×{1,3,4}: the width/height given do not match the running zmc");
  }

  std::vector<Geometry> found;
  std::ostringstream tried;
  for (const Variant& v : VariantsFor(layout.id)) {
    const std::uint64_t slot = SlotSize(v.scheme, hint.width, hint.height, image_size);
    const std::uint64_t fixed =
        std::uint64_t(layout.shared_size) + kTriggerDataSize + kVideoStoreDataSize + v.extra;
    const std::uint64_t per_image = kTimevalSize + v.rings * slot + 4ull * v.formats_per_slot;
    if (tried.tellp() > 0) tried << "; ";
    tried << v.name << ": slot " << slot;
    if (file_size < fixed + per_image) continue;
    std::uint32_t n_min = 1, n_max = std::uint32_t(std::min<std::uint64_t>(
                                 (file_size - fixed) / per_image, 1u << 20));
    if (hint.image_count) n_min = n_max = *hint.image_count;
    for (std::uint32_t n = n_min; n <= n_max && n > 0; ++n) {
      const std::uint64_t used = fixed + per_image * n;
      if (used > file_size) break;
      const std::uint64_t rest = file_size - used;  // the zone scores
      if (rest % 4 != 0) continue;
      const std::uint64_t zones = rest / 4;
      // 1.36 keeps no zone scores, whatever the Monitors row says: the hint applies to ≥ 1.38 only.
      if (!v.zone_scores && zones != 0) continue;
      if (v.zone_scores && (zones > kMaxZones || (hint.zone_count && zones != *hint.zone_count)))
        continue;
      Geometry g;
      g.variant = v.name;
      g.scheme = v.scheme;
      g.width = hint.width;
      g.height = hint.height;
      g.colours = std::uint32_t(colours);
      g.image_count = n;
      g.zone_count = std::uint32_t(zones);
      g.slot_size = slot;
      g.zone_scores = layout.shared_size + kTriggerDataSize;
      g.video_store = g.zone_scores + 4 * zones;
      g.timestamps = g.video_store + kVideoStoreDataSize;
      // zmc aligns the address; the map starts on a page, so the offset aligns the same way.
      g.images = AlignUp(g.timestamps + std::uint64_t(kTimevalSize) * n, 64);
      if (v.formats_used) g.formats = AlignUp(g.images + std::uint64_t(v.rings) * n * slot, 4);
      const std::uint64_t end =
          g.formats ? g.formats + 4ull * v.formats_per_slot * n : g.images + v.rings * n * slot;
      if (end > file_size) continue;
      found.push_back(g);
    }
  }
  const std::string what = "zm.mmap layout " + std::to_string(layout.shared_size) + " with " +
                           std::to_string(hint.width) + "×" + std::to_string(hint.height) + "×" +
                           std::to_string(colours) + " images";
  if (found.empty()) {
    throw Error("ERR_ZM_SHM_GEOMETRY",
                "the file size " + std::to_string(file_size) + " fits no known " + what + " (" +
                    tried.str() + ")" +
                    (hint.image_count ? ", " + std::to_string(*hint.image_count) + " slots" : "") +
                    ": check Monitors.Width/Height/ImageBufferCount");
  }
  if (found.size() > 1) {
    throw Error("ERR_ZM_SHM_GEOMETRY", "the file size " + std::to_string(file_size) + " fits " +
                                           std::to_string(found.size()) + " arrangements of " +
                                           what + ": give imageBufferCount (and zoneCount)");
  }
  return found.front();
}

std::uint8_t LoadU8(const std::uint8_t* p) { return *p; }

std::int32_t LoadI32(const std::uint8_t* p) { return std::int32_t(ReadU32Le(p)); }

std::int64_t LoadI64(const std::uint8_t* p) { return std::int64_t(ReadU64Le(p)); }

std::int32_t LoadAcquireI32(const std::uint8_t* p) {
  return __atomic_load_n(reinterpret_cast<const std::int32_t*>(p), __ATOMIC_ACQUIRE);
}

SharedState ReadState(ByteView map, const Layout& l) {
  SharedState s;
  auto p = [&](Field f) { return At(map, l, f); };
  s.size = U32(map, l, Field::kSize);
  s.last_write_index = LoadAcquireI32(p(Field::kLastWriteIndex));
  s.last_read_index = LoadI32(p(Field::kLastReadIndex));
  s.image_count = Optional<std::int32_t>(map, l, Field::kImageCount, LoadI32);
  s.state = U32(map, l, Field::kState);
  s.capture_fps = F64(p(Field::kCaptureFps));
  s.analysis_fps = F64(p(Field::kAnalysisFps));
  s.latitude = Optional<double>(map, l, Field::kLatitude, F64);
  s.longitude = Optional<double>(map, l, Field::kLongitude, F64);
  s.last_event_id = ReadU64Le(p(Field::kLastEventId));
  s.action = U32(map, l, Field::kAction);
  s.brightness = LoadI32(p(Field::kBrightness));
  s.hue = LoadI32(p(Field::kHue));
  s.colour = LoadI32(p(Field::kColour));
  s.contrast = LoadI32(p(Field::kContrast));
  s.alarm_x = LoadI32(p(Field::kAlarmX));
  s.alarm_y = LoadI32(p(Field::kAlarmY));
  s.valid = LoadU8(p(Field::kValid));
  s.capturing = LoadU8(p(Field::kCapturing));
  s.analysing = Optional<std::uint8_t>(map, l, Field::kAnalysing, LoadU8);
  s.recording = Optional<std::uint8_t>(map, l, Field::kRecording, LoadU8);
  s.signal = LoadU8(p(Field::kSignal));
  s.format = LoadU8(p(Field::kFormat));
  s.image_size = U32(map, l, Field::kImageSize);
  s.last_frame_score = U32(map, l, Field::kLastFrameScore);
  s.audio_frequency = U32(map, l, Field::kAudioFrequency);
  s.audio_channels = U32(map, l, Field::kAudioChannels);
  s.startup_time = LoadI64(p(Field::kStartupTime));
  s.heartbeat_time = LoadI64(p(Field::kHeartbeatTime));
  s.last_write_time = LoadI64(p(Field::kLastWriteTime));
  s.last_read_time = LoadI64(p(Field::kLastReadTime));
  s.last_viewed_time = Optional<std::int64_t>(map, l, Field::kLastViewedTime, LoadI64);
  s.last_analysis_viewed_time =
      Optional<std::int64_t>(map, l, Field::kLastAnalysisViewedTime, LoadI64);
  s.alarm_cause = Chars(p(Field::kAlarmCause), Spec(Field::kAlarmCause).length);
  s.last_analysis_index = Optional<std::int32_t>(map, l, Field::kLastAnalysisIndex, LoadI32);
  s.analysis_image_count = Optional<std::int32_t>(map, l, Field::kAnalysisImageCount, LoadI32);

  const std::uint8_t* t = map.data + l.shared_size;
  s.trigger.state = ReadU32Le(t + trigger::kState);
  s.trigger.score = ReadU32Le(t + trigger::kScore);
  s.trigger.cause = Chars(t + trigger::kCause, trigger::kCauseLength);
  s.trigger.text = Chars(t + trigger::kText, trigger::kTextLength);
  s.trigger.show_text = Chars(t + trigger::kShowText, trigger::kShowTextLength);
  return s;
}

namespace {

Bytes U32Bytes(std::uint32_t v) {
  return {std::uint8_t(v), std::uint8_t(v >> 8), std::uint8_t(v >> 16), std::uint8_t(v >> 24)};
}

// The whole char[n] field: the text (cut to n-1 bytes) and NULs after it, so nothing of a longer
// previous value survives.
Bytes CharField(const std::string& s, std::size_t n) {
  Bytes b(n, 0);
  std::memcpy(b.data(), s.data(), std::min(s.size(), n - 1));
  return b;
}

}  // namespace

std::vector<FieldWrite> PlanTrigger(const Layout& layout, const TriggerRequest& r) {
  const std::uint32_t base = layout.shared_size;
  FieldWrite state{"trigger_state", base + trigger::kState, U32Bytes(r.state)};
  const bool on = r.state == trigger::kOn;
  std::vector<FieldWrite> payload = {
      {"trigger_score", base + trigger::kScore, U32Bytes(on ? r.score : 0)},
      {"trigger_cause", base + trigger::kCause,
       CharField(on ? r.cause : "", trigger::kCauseLength)},
      {"trigger_text", base + trigger::kText, CharField(on ? r.text : "", trigger::kTextLength)},
      {"trigger_showtext", base + trigger::kShowText,
       CharField(r.show_text, trigger::kShowTextLength)},
  };
  std::vector<FieldWrite> out;
  if (!on) out.push_back(std::move(state));
  for (auto& w : payload) out.push_back(std::move(w));
  if (on) out.push_back(std::move(state));
  return out;
}

void ApplyTrigger(std::uint8_t* map, const std::vector<FieldWrite>& writes) {
  for (const FieldWrite& w : writes) {
    // A fence between every store: neither the compiler nor the CPU may let zmc see them out of
    // plan order (x86 keeps store order anyway; the fence is what stops the compiler).
    std::atomic_thread_fence(std::memory_order_release);
    if (std::strcmp(w.name, "trigger_state") == 0) {
      __atomic_store_n(reinterpret_cast<std::uint32_t*>(map + w.offset), ReadU32Le(w.bytes.data()),
                       __ATOMIC_RELEASE);
    } else {
      std::memcpy(map + w.offset, w.bytes.data(), w.bytes.size());
    }
  }
  std::atomic_thread_fence(std::memory_order_release);
}

}  // namespace zm::shm
