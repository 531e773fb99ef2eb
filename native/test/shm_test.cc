// zm.mmap layouts against synthetic maps: the offset table (checked against the numbers of
// docs/zoneminder/shared-memory.md, typed in here, not taken from the table), layout detection,
// geometry solving, state decoding, the retry rule of the newest-image copy, trigger write order,
// and the reader's re-open logic on real files.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <set>
#include <string>

#include "zm/error.h"
#include "zm/shm_layout.h"
#include "zm/shm_reader.h"

namespace zm::shm {
namespace {

std::string CodeOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code() + ": " + e.what();
  }
  return "no error";
}

void PutU32(Bytes& b, std::size_t at, std::uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
void PutI32(Bytes& b, std::size_t at, std::int32_t v) { std::memcpy(b.data() + at, &v, 4); }
void PutI64(Bytes& b, std::size_t at, std::int64_t v) { std::memcpy(b.data() + at, &v, 8); }
void PutF64(Bytes& b, std::size_t at, double v) { std::memcpy(b.data() + at, &v, 8); }

// SharedData size word + TriggerData.size: the minimum DetectLayout accepts.
Bytes Header(std::uint32_t size, std::size_t total = 0) {
  Bytes b(std::max<std::size_t>(total, size + kTriggerDataSize), 0);
  PutU32(b, 0, size);
  PutU32(b, size, kTriggerDataSize);
  return b;
}

TEST(ShmLayout, TableIsIndexedByFieldAndNamesAreUnique) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < SharedDataFields().size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(SharedDataFields()[i].field), i)
        << SharedDataFields()[i].name;
    EXPECT_TRUE(names.insert(SharedDataFields()[i].name).second);
  }
  EXPECT_EQ(SharedDataFields().size(), static_cast<std::size_t>(Field::kCount));
}

TEST(ShmLayout, FieldsDoNotOverlapAndFitInsideSharedData) {
  for (int l = 0; l < kLayoutCount; ++l) {
    std::vector<std::pair<int, int>> spans;
    for (const auto& f : SharedDataFields()) {
      if (f.offset[l] >= 0) spans.push_back({f.offset[l], f.offset[l] + f.length});
    }
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
      EXPECT_LE(spans[i - 1].second, spans[i].first) << kLayoutSizes[l];
    EXPECT_LE(spans.back().second, int(kLayoutSizes[l]));
    // Natural alignment: zmc's compiler laid the struct out that way.
    for (const auto& f : SharedDataFields()) {
      if (f.offset[l] >= 0 && f.type != FieldType::kChars)
        EXPECT_EQ(f.offset[l] % f.length, 0) << f.name;
    }
  }
}

TEST(ShmLayout, OffsetsMatchFacts) {
  // A few rows of docs/zoneminder/shared-memory.md, typed in by hand: 760 | 768 | 872 | 888.
  const struct {
    Field f;
    int o[4];
  } rows[] = {
      {Field::kState, {12, 16, 16, 16}},
      {Field::kLastEventId, {32, 40, 56, 56}},
      {Field::kValid, {68, 76, 92, 92}},
      {Field::kCapturing, {69, 77, 93, 93}},
      {Field::kAnalysing, {-1, -1, 94, 94}},
      {Field::kImageSize, {72, 80, 100, 100}},
      {Field::kHeartbeatTime, {96, 104, 128, 128}},
      {Field::kLastWriteTime, {104, 112, 136, 136}},
      {Field::kAlarmCause, {376, 384, 424, 424}},
      {Field::kJanusPin, {-1, -1, 808, 808}},
      {Field::kLastAnalysisIndex, {-1, -1, -1, 872}},
      {Field::kImageCount, {-1, 12, 12, 12}},
  };
  for (const auto& r : rows) {
    for (int l = 0; l < kLayoutCount; ++l)
      EXPECT_EQ(Offset(LayoutId(l), r.f), r.o[l]) << Spec(r.f).name << " " << l;
  }
}

TEST(ShmLayout, DetectsTheFourSizesAndRefusesOthers) {
  for (int l = 0; l < kLayoutCount; ++l) {
    const Bytes b = Header(kLayoutSizes[l]);
    const Layout layout = DetectLayout(b);
    EXPECT_EQ(layout.id, LayoutId(l));
    EXPECT_EQ(layout.shared_size, kLayoutSizes[l]);
  }
  EXPECT_EQ(CodeOf([] {
              DetectLayout(Header(1000));
            }).rfind("ERR_ZM_SHM_LAYOUT: unknown zm.mmap layout: SharedData.size is 1000", 0),
            0u);
  EXPECT_NE(CodeOf([] { DetectLayout(Header(864)); }).find("1.37.61"), std::string::npos);
  Bytes zero(2000, 0);
  EXPECT_EQ(CodeOf([&] { DetectLayout(zero); }).substr(0, 18), "ERR_ZM_SHM_INVALID");
  Bytes bad_trigger = Header(872);
  PutU32(bad_trigger, 872, 561);
  EXPECT_NE(
      CodeOf([&] { DetectLayout(bad_trigger); }).find("TriggerData.size at offset 872 is 561"),
      std::string::npos);
  Bytes short_map = Header(888);
  short_map.resize(888 + 100);
  EXPECT_EQ(CodeOf([&] { DetectLayout(short_map); }).substr(0, 17), "ERR_ZM_SHM_LAYOUT");
}

TEST(ShmGeometry, MatchesTheVerified136Example) {
  // docs/zoneminder/shared-memory.md [V]: 320×240×4, n = 5 ⇒ 1,541,592 bytes, images at 5568.
  const Layout l = DetectLayout(Header(760));
  GeometryHint hint;
  hint.width = 320;
  hint.height = 240;
  const Geometry g = ResolveGeometry(l, 1541592, 320 * 240 * 4, hint);
  EXPECT_STREQ(g.variant, "1.36");
  EXPECT_EQ(g.image_count, 5u);
  EXPECT_EQ(g.colours, 4u);
  EXPECT_EQ(g.timestamps, 5448u);
  EXPECT_EQ(g.images, 5568u);
  EXPECT_EQ(g.slot_size, 307200u);
  EXPECT_EQ(g.formats, 0u);
}

TEST(ShmGeometry, Tells138From139By872FileSize) {
  const Layout l = DetectLayout(Header(872));
  GeometryHint hint;
  hint.width = 642;  // 4W = 2568 is not a multiple of 32: the 1.39 slot is larger than W·H·3
  hint.height = 10;
  const std::uint64_t s138 = 642 * 10 * 3, s139 = 2592 * 10;
  const std::uint64_t n = 4, z = 3;
  const std::uint64_t size138 = 872 + 560 + 4 * z + 4128 + 16 * n + 2 * n * s138 + 4 * n + 64;
  const std::uint64_t size139 =
      872 + 560 + 4 * z + 4128 + 16 * n + 2 * n * s139 + 4 * n + 4 + 63 + 3;
  const Geometry a = ResolveGeometry(l, size138, 642 * 10 * 3, hint);
  EXPECT_STREQ(a.variant, "1.38");
  EXPECT_EQ(a.scheme, SlotScheme::kPacked);
  EXPECT_EQ(a.image_count, n);
  EXPECT_EQ(a.zone_count, z);
  EXPECT_EQ(a.video_store, 872u + 560 + 12);
  const Geometry b = ResolveGeometry(l, size139, 642 * 10 * 3, hint);
  EXPECT_STREQ(b.variant, "1.39");
  EXPECT_EQ(b.slot_size, s139);
  EXPECT_EQ(b.images % 64, 0u);
  EXPECT_EQ(b.formats, (b.images + 2 * n * s139 + 3) / 4 * 4);
  // Wrong geometry: imagesize not W·H·{1,3,4}, or a size that fits nothing.
  hint.width = 643;
  EXPECT_EQ(CodeOf([&] { ResolveGeometry(l, size139, 642 * 10 * 3, hint); }).substr(0, 19),
            "ERR_ZM_SHM_GEOMETRY");
  hint.width = 642;
  EXPECT_EQ(CodeOf([&] { ResolveGeometry(l, size139 + 1, 642 * 10 * 3, hint); }).substr(0, 19),
            "ERR_ZM_SHM_GEOMETRY");
  EXPECT_EQ(
      CodeOf([&] { ResolveGeometry(l, size139, 642 * 10 * 3, GeometryHint{}); }).substr(0, 19),
      "ERR_ZM_SHM_GEOMETRY");
}

TEST(ShmGeometry, Layout888HasTwoFormatArrays) {
  const Layout l = DetectLayout(Header(888));
  GeometryHint hint;
  hint.width = 64;
  hint.height = 48;
  const std::uint64_t s = 64 * 4 * 48, n = 3, z = 0;
  const std::uint64_t size = 888 + 560 + 4 * z + 4128 + 16 * n + 2 * n * s + 4 * n + 4 * n + 63 + 3;
  const Geometry g = ResolveGeometry(l, size, 64 * 48 * 3, hint);
  EXPECT_STREQ(g.variant, "1.39.17");
  EXPECT_EQ(g.image_count, n);
  EXPECT_EQ(g.slot_size, s);
  EXPECT_EQ(g.timestamps, 888u + 560 + 4128);
}

TEST(ShmState, DecodesEveryKindOfField) {
  Bytes b = Header(888);
  PutI32(b, 4, 2);                  // last_write_index
  PutU32(b, 16, 3);                 // state: Alarm
  PutF64(b, 24, 29.97);             // capture_fps
  PutF64(b, 40, 52.5);              // latitude
  PutI64(b, 56, 9007199254740991);  // last_event_id
  PutI32(b, 84, -1);                // alarm_x
  b[92] = 1, b[93] = 3, b[94] = 2,
  b[95] = 2;                   // valid, capturing Always, analysing Always, recording OnMotion
  PutI64(b, 128, 1700000000);  // heartbeat_time
  std::memcpy(b.data() + 424, "Motion: Yard", 12);
  PutI32(b, 872, 7);  // last_analysis_index
  std::memcpy(b.data() + 888 + 16, "cause-31-bytes-long-exactly-xyz", 31);
  const SharedState s = ReadState(b, DetectLayout(b));
  EXPECT_EQ(s.last_write_index, 2);
  EXPECT_EQ(s.state, 3u);
  EXPECT_DOUBLE_EQ(s.capture_fps, 29.97);
  EXPECT_DOUBLE_EQ(*s.latitude, 52.5);
  EXPECT_EQ(s.last_event_id, 9007199254740991u);
  EXPECT_EQ(s.alarm_x, -1);
  EXPECT_EQ(s.capturing, 3);
  EXPECT_EQ(*s.analysing, 2);
  EXPECT_EQ(*s.recording, 2);
  EXPECT_EQ(s.heartbeat_time, 1700000000);
  EXPECT_EQ(s.alarm_cause, "Motion: Yard");
  EXPECT_EQ(*s.last_analysis_index, 7);
  EXPECT_EQ(s.trigger.cause, "cause-31-bytes-long-exactly-xyz");

  const Bytes old = Header(760);
  const SharedState s136 = ReadState(old, DetectLayout(old));
  EXPECT_FALSE(s136.image_count);
  EXPECT_FALSE(s136.analysing);
  EXPECT_FALSE(s136.latitude);
  EXPECT_FALSE(s136.last_analysis_index);
}

// A 1.36 map (n slots of 8×2 gray) with each slot's first byte = slot number.
struct Ring {
  Bytes map;
  Layout layout;
  Geometry geometry;
  explicit Ring(std::uint32_t n) {
    const std::uint64_t s = 16, size = 760 + 560 + 4128 + 16 * n + n * s + 64;
    map = Header(760, size);
    PutU32(map, 72, 16);  // imagesize
    map[71] = 2;          // format: grey
    layout = DetectLayout(map);
    GeometryHint hint;
    hint.width = 8;
    hint.height = 2;
    geometry = ResolveGeometry(layout, size, 16, hint);
    for (std::uint32_t i = 0; i < n; ++i) {
      map[geometry.images + i * s] = std::uint8_t(i);
      PutI64(map, geometry.timestamps + 16 * i, 1000 + i);
    }
  }
  void SetIndex(std::int32_t i) { PutI32(map, 4, i); }
  void SetStamp(std::int32_t i, std::int64_t sec) {
    PutI64(map, geometry.timestamps + 16 * i, sec);
  }
};

TEST(ShmCopy, ReturnsTheNewestSlotOrNothing) {
  Ring r(4);
  r.SetIndex(4);  // == n: nothing written yet
  EXPECT_FALSE(CopyNewestImage(r.map, r.layout, r.geometry));
  r.SetIndex(2);
  auto img = CopyNewestImage(r.map, r.layout, r.geometry);
  ASSERT_TRUE(img);
  EXPECT_EQ(img->index, 2);
  EXPECT_EQ(img->data[0], 2);
  EXPECT_EQ(img->timestamp_us, 1002 * 1000000LL);
  EXPECT_EQ(img->format, PixelFormat::kGray8);
  EXPECT_EQ(img->attempts, 1);
}

TEST(ShmCopy, RetriesWhenTheSlotWasRewrittenDuringTheCopy) {
  Ring r(4);
  r.SetIndex(2);
  CopyOptions o;
  o.after_copy = [&](int attempt) {
    if (attempt == 1) r.SetStamp(2, 5000);  // zmc re-wrote slot 2 meanwhile
  };
  auto img = CopyNewestImage(r.map, r.layout, r.geometry, o);
  ASSERT_TRUE(img);
  EXPECT_EQ(img->attempts, 2);
  EXPECT_EQ(img->timestamp_us, 5000 * 1000000LL);
}

TEST(ShmCopy, AcceptsAWriterThatMovedOnButRetriesOneAboutToReachTheSlot) {
  Ring r(4);
  r.SetIndex(1);
  CopyOptions o;
  o.after_copy = [&](int attempt) {
    if (attempt == 1) r.SetIndex(2);  // one commit: slot 2 written, ours (1) untouched
  };
  EXPECT_EQ(CopyNewestImage(r.map, r.layout, r.geometry, o)->attempts, 1);

  r.SetIndex(1);
  o.after_copy = [&](int attempt) {
    if (attempt == 1) r.SetIndex(0);  // n-1 commits: the writer is now writing slot 1
  };
  auto img = CopyNewestImage(r.map, r.layout, r.geometry, o);
  EXPECT_EQ(img->attempts, 2);
  EXPECT_EQ(img->index, 0);
}

TEST(ShmCopy, GivesUpAfterTheAttemptLimit) {
  Ring r(4);
  r.SetIndex(3);
  CopyOptions o;
  o.max_attempts = 3;
  std::int64_t stamp = 9000;
  o.after_copy = [&](int) { r.SetStamp(3, ++stamp); };
  EXPECT_EQ(CodeOf([&] { CopyNewestImage(r.map, r.layout, r.geometry, o); }).substr(0, 15),
            "ERR_ZM_SHM_BUSY");
}

TEST(ShmTrigger, OnWritesTheStateLastOffAndCancelFirst) {
  const Layout l = DetectLayout(Header(888));
  TriggerRequest on;
  on.state = trigger::kOn;
  on.score = 77;
  on.cause = std::string(40, 'c');  // longer than the field: cut to 31 + NUL
  on.text = "text";
  on.show_text = "show";
  const auto plan = PlanTrigger(l, on);
  ASSERT_EQ(plan.size(), 5u);
  EXPECT_STREQ(plan.back().name, "trigger_state");
  EXPECT_EQ(plan.back().offset, 888u + 4);
  EXPECT_STREQ(plan[0].name, "trigger_score");
  EXPECT_EQ(plan[1].offset, 888u + 16);
  EXPECT_EQ(plan[1].bytes.size(), 32u);
  EXPECT_EQ(plan[1].bytes[30], 'c');
  EXPECT_EQ(plan[1].bytes[31], 0);

  Bytes map = Header(888);
  ApplyTrigger(map.data(), plan);
  EXPECT_EQ(ReadU32Le(map.data() + 888 + 4), 1u);
  EXPECT_EQ(ReadU32Le(map.data() + 888 + 8), 77u);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(map.data() + 888 + 48)), "text");
  EXPECT_EQ(std::string(reinterpret_cast<char*>(map.data() + 888 + 304)), "show");

  TriggerRequest cancel;  // state 0
  const auto undo = PlanTrigger(l, cancel);
  EXPECT_STREQ(undo.front().name, "trigger_state");
  ApplyTrigger(map.data(), undo);
  EXPECT_EQ(ReadU32Le(map.data() + 888 + 4), 0u);
  EXPECT_EQ(ReadU32Le(map.data() + 888 + 8), 0u);
  EXPECT_EQ(map[888 + 16], 0);
  EXPECT_EQ(map[888 + 48], 0);
  EXPECT_EQ(ReadU32Le(map.data() + 888), kTriggerDataSize);  // size untouched
}

// The reader on real files: missing, re-open on inode change and on valid = 0.
class ShmFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/zmshm-test-XXXXXX";
    ASSERT_TRUE(mkdtemp(tmpl));
    dir_ = tmpl;
    path_ = dir_ + "/zm.mmap.1";
  }
  void TearDown() override {
    std::remove(path_.c_str());
    ::rmdir(dir_.c_str());
  }
  // Writes a valid 1.36 map with `state` through a rename (a new inode, like a zmc restart).
  void Write(std::uint32_t state, std::uint8_t valid = 1) {
    Ring r(3);
    PutU32(r.map, 12, state);
    r.map[68] = valid;
    const std::string tmp = path_ + ".tmp";
    FILE* f = std::fopen(tmp.c_str(), "wb");
    ASSERT_TRUE(f);
    ASSERT_EQ(std::fwrite(r.map.data(), 1, r.map.size(), f), r.map.size());
    std::fclose(f);
    ASSERT_EQ(std::rename(tmp.c_str(), path_.c_str()), 0);
  }
  void PokeValid(std::uint8_t v) {
    const int fd = ::open(path_.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pwrite(fd, &v, 1, 68), 1);
    ::close(fd);
  }
  std::string dir_, path_;
};

TEST_F(ShmFile, MissingFileIsReported) {
  ShmReader r(path_, {});
  EXPECT_EQ(CodeOf([&] { r.Refresh(); }).substr(0, 18), "ERR_ZM_SHM_MISSING");
}

TEST_F(ShmFile, ReopensWhenThePathNamesAnotherInode) {
  Write(1);
  GeometryHint hint;
  hint.width = 8;
  hint.height = 2;
  ShmReader r(path_, hint);
  EXPECT_EQ(r.ReadState().state, 1u);
  EXPECT_EQ(r.ReadState().state, 1u);
  EXPECT_EQ(r.stats().opens, 1u);
  Write(3);
  EXPECT_EQ(r.ReadState().state, 3u);
  EXPECT_EQ(r.stats().opens, 2u);
  EXPECT_TRUE(r.geometry());
  EXPECT_EQ(r.geometry()->image_count, 3u);
}

TEST_F(ShmFile, RefusesWhileValidIsZeroAndRecovers) {
  Write(2);
  ShmReader r(path_, {});
  EXPECT_EQ(r.ReadState().state, 2u);
  PokeValid(0);
  EXPECT_EQ(CodeOf([&] { r.ReadState(); }).substr(0, 18), "ERR_ZM_SHM_INVALID");
  PokeValid(1);
  EXPECT_EQ(r.ReadState().state, 2u);
  std::remove(path_.c_str());  // zmc exited and unlinked the file
  EXPECT_EQ(CodeOf([&] { r.ReadState(); }).substr(0, 18), "ERR_ZM_SHM_MISSING");
  r.Close();
  EXPECT_EQ(CodeOf([&] { r.ReadState(); }).substr(0, 17), "ERR_ZM_SHM_CLOSED");
}

TEST_F(ShmFile, TriggerGoesThroughAWritableMapping) {
  Write(1);
  ShmReader r(path_, {});
  TriggerRequest on;
  on.state = trigger::kOn;
  on.score = 5;
  on.cause = "API";
  r.Trigger(on);
  const SharedState s = r.ReadState();  // the read-only mapping sees the write
  EXPECT_EQ(s.trigger.state, 1u);
  EXPECT_EQ(s.trigger.score, 5u);
  EXPECT_EQ(s.trigger.cause, "API");
}

}  // namespace
}  // namespace zm::shm
