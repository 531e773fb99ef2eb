// LL-HLS packager: part boundaries and durations, INDEPENDENT flags, segment cuts at keyframes,
// the rolling window (count and bytes), discontinuities, blocking-reload availability, names and
// the rendered playlists. Input: synthetic H.264 access units around real parameter sets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "test_support.h"
#include "test_vectors.h"
#include "zm/error.h"
#include "zm/ll_hls_packager.h"

namespace zm {
namespace {

using test::AnnexB;
using test::Hex;
using test::WalkBoxes;

constexpr std::int64_t kBase = 1'700'000'000'000'000;  // zmc's clock is not zero-based

struct Source {
  Bytes sps = Hex(test::kH264BaselineSps), pps = Hex(test::kH264BaselinePps);
  Bytes Key(std::uint8_t tag = 0) const {
    return AnnexB({sps, pps, {0x65, 0x88, 0x84, tag, 0x21}});
  }
  static Bytes Delta(std::uint8_t tag = 0) { return AnnexB({{0x41, 0x9a, 0x02, tag, 0x11}}); }
};

MuxTrackConfig Video() {
  MuxTrackConfig c;
  c.codec = Codec::kH264;
  return c;
}

// Pushes `frames` frames at `fps_num/fps_den`, a keyframe every `gop` frames, from frame `first`.
unsigned PushFrames(LlHlsPackager& p, int first, int frames, int gop, double fps,
                    const Source& src = {}) {
  unsigned flags = 0;
  for (int i = first; i < first + frames; ++i) {
    const auto pts = kBase + std::int64_t(std::llround(i * 1e6 / fps));
    const bool key = i % gop == 0;
    flags |= p.PushVideo(pts, key, key ? src.Key(std::uint8_t(i)) : Source::Delta(std::uint8_t(i)));
  }
  return flags;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::size_t Count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

TEST(LlHls, PartsAreWholeFramesAndSegmentsCutAtKeyframes) {
  LlHlsPackager p;  // 200 ms parts, 1 s segments
  p.Configure(Video(), std::nullopt);
  EXPECT_EQ(p.RenderMediaPlaylist(), "");  // nothing yet
  PushFrames(p, 0, 91, 30, 30);            // 3 GOPs + the keyframe opening the 4th
  const auto& segs = p.segments();
  ASSERT_EQ(segs.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    const HlsSegment& s = segs[i];
    EXPECT_TRUE(s.complete);
    EXPECT_EQ(s.msn, std::uint64_t(i));
    EXPECT_EQ(s.duration_us, 1000000);
    EXPECT_EQ(s.video_samples, 30u);
    ASSERT_EQ(s.parts.size(), 5u);
    for (std::size_t k = 0; k < 5; ++k) {
      EXPECT_EQ(s.parts[k].duration_us, 200000) << "segment " << i << " part " << k;
      EXPECT_EQ(s.parts[k].independent, k == 0);
    }
    // The segment is its parts back to back, each a moof + mdat.
    std::size_t at = 0;
    for (const auto& part : s.parts) {
      EXPECT_EQ(part.bytes.owner, s.bytes.owner);
      EXPECT_EQ(part.bytes.offset, at);
      const auto boxes =
          WalkBoxes(ByteView(part.bytes.data(), part.bytes.size), 0, part.bytes.size);
      ASSERT_EQ(boxes.size(), 2u);
      EXPECT_EQ(boxes[0].type, "moof");
      EXPECT_EQ(boxes[1].type, "mdat");
      at += part.bytes.size;
    }
    EXPECT_EQ(at, s.bytes.size);
  }
  EXPECT_FALSE(segs[3].complete);
  EXPECT_EQ(p.cut_target_us(), 200000);
  EXPECT_EQ(p.part_target_us(), 216670);  // + half a frame of headroom, rounded up to 10 µs
  EXPECT_EQ(p.target_duration_s(), 2u);   // ceil(1 s) + 1 s
}

TEST(LlHls, IndependentWhereAPartStartsWithAKeyframe) {
  LlHlsOptions o;
  o.segment_target_us = 1000000;
  LlHlsPackager p(o);
  p.Configure(Video(), std::nullopt);
  PushFrames(p, 0, 73, 12, 30);  // GOP 0.4 s: segments of 3 GOPs (1.2 s), parts of 6 frames
  const HlsSegment& s = p.segments().front();
  ASSERT_TRUE(s.complete);
  EXPECT_EQ(s.duration_us, 1200000);
  ASSERT_EQ(s.parts.size(), 6u);
  for (std::size_t k = 0; k < 6; ++k) EXPECT_EQ(s.parts[k].independent, k % 2 == 0) << k;
  EXPECT_EQ(p.target_duration_s(), 2u);
}

TEST(LlHls, PartTargetRoundsToFrames) {
  LlHlsPackager p;
  p.Configure(Video(), std::nullopt);
  PushFrames(p, 0, 61, 30, 30000.0 / 1001);
  EXPECT_EQ(p.cut_target_us(), 200200);   // 6 frames of 3003 ticks
  EXPECT_EQ(p.part_target_us(), 216890);  // + 16683 µs, rounded up to 10 µs
  const std::string text = p.RenderMediaPlaylist();
  EXPECT_NE(text.find("#EXT-X-PART-INF:PART-TARGET=0.21689\n"), std::string::npos) << text;
  EXPECT_NE(text.find("PART-HOLD-BACK=0.65067"), std::string::npos) << text;
  for (const auto& s : p.segments()) {
    for (const auto& part : s.parts) EXPECT_LE(part.duration_us, p.part_target_us());
  }
  LlHlsPackager slow;  // 12 fps: 2 frames (166.7 ms) are closest to 200 ms
  slow.Configure(Video(), std::nullopt);
  PushFrames(slow, 0, 30, 12, 12);
  EXPECT_EQ(slow.cut_target_us(), 166667);
  EXPECT_EQ(slow.part_target_us(), 208340);
}

TEST(LlHls, MediaPlaylistText) {
  LlHlsPackager p;
  p.Configure(Video(), std::nullopt);
  PushFrames(p, 0, 68, 30, 30);  // 2 segments + 8 frames: one part of the third, a second pending
  const std::string text = p.RenderMediaPlaylist({"?token=a.b-c"});
  const auto lines = Lines(text);
  ASSERT_GE(lines.size(), 8u);
  EXPECT_EQ(lines[0], "#EXTM3U");
  EXPECT_EQ(lines[1], "#EXT-X-VERSION:6");
  EXPECT_EQ(lines[2], "#EXT-X-TARGETDURATION:2");
  EXPECT_EQ(lines[3], "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=0.65001");
  EXPECT_EQ(lines[4], "#EXT-X-PART-INF:PART-TARGET=0.21667");
  EXPECT_EQ(lines[5], "#EXT-X-MEDIA-SEQUENCE:0");
  EXPECT_EQ(lines[6], "#EXT-X-INDEPENDENT-SEGMENTS");
  EXPECT_EQ(lines[7], "#EXT-X-MAP:URI=\"init-0.mp4?token=a.b-c\"");
  EXPECT_EQ(lines[8],
            "#EXT-X-PART:DURATION=0.20000,URI=\"part-0.0.m4s?token=a.b-c\",INDEPENDENT=YES");
  EXPECT_EQ(lines[9], "#EXT-X-PART:DURATION=0.20000,URI=\"part-0.1.m4s?token=a.b-c\"");
  EXPECT_EQ(Count(text, "#EXTINF:1.00000,\n"), 2u);
  EXPECT_NE(text.find("seg-1.m4s?token=a.b-c\n"), std::string::npos);
  EXPECT_EQ(Count(text, "#EXT-X-PART:"), 11u);
  EXPECT_EQ(lines.back(), "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"part-2.1.m4s?token=a.b-c\"");
  EXPECT_EQ(text.find("ENDLIST"), std::string::npos);
  EXPECT_EQ(text.find("DISCONTINUITY"), std::string::npos);

  p.End();
  const std::string ended = p.RenderMediaPlaylist();
  EXPECT_NE(ended.find("#EXT-X-ENDLIST\n"), std::string::npos);
  EXPECT_EQ(ended.find("PRELOAD-HINT"), std::string::npos);
  EXPECT_EQ(ended.find("SERVER-CONTROL"), std::string::npos);
  EXPECT_EQ(Count(ended, "#EXTINF:"), 3u);
  EXPECT_NE(ended.find("#EXTINF:0.26667,\nseg-2.m4s\n"), std::string::npos) << ended;  // 8 frames
}

TEST(LlHls, PartsOnlyNearTheLiveEdge) {
  LlHlsOptions o;
  o.window_segments = 10;
  LlHlsPackager p(o);
  p.Configure(Video(), std::nullopt);
  PushFrames(p, 0, 10 * 30 + 1, 30, 30);
  const std::string text = p.RenderMediaPlaylist();
  // Three target durations (3 × 2 s) from the end: the last six complete segments keep their parts.
  EXPECT_EQ(text.find("part-0.0.m4s"), std::string::npos);
  EXPECT_EQ(text.find("part-3.0.m4s"), std::string::npos);
  EXPECT_NE(text.find("part-4.0.m4s"), std::string::npos);
  EXPECT_TRUE(p.Part(0, 0));  // still fetchable while the segment is in the window
}

TEST(LlHls, WindowEvictionByCountAndBytes) {
  LlHlsOptions o;
  o.window_segments = 3;
  LlHlsPackager p(o);
  p.Configure(Video(), std::nullopt);
  PushFrames(p, 0, 10 * 30 + 1, 30, 30);
  SharedBytes old = p.Segment(7);
  ASSERT_TRUE(old);
  const Bytes copy(old.data(), old.data() + old.size);
  PushFrames(p, 301, 30, 30, 30);
  LlHlsStats st = p.Stats();
  EXPECT_EQ(st.first_msn, 8u);
  EXPECT_EQ(st.next_msn, 12u);
  EXPECT_EQ(st.segments, 4u);  // 3 complete + the open one
  EXPECT_EQ(st.evicted_segments, 8u);
  EXPECT_FALSE(p.Segment(7));
  EXPECT_FALSE(p.Get("part-7.0.m4s"));
  EXPECT_EQ(Bytes(old.data(), old.data() + old.size), copy);  // a fetched buffer outlives eviction
  std::size_t held = p.Init(0).size;
  for (const auto& s : p.segments()) {
    if (s.complete)
      held += s.bytes.size;
    else
      for (const auto& part : s.parts) held += part.bytes.size;
  }
  EXPECT_EQ(st.bytes, held);
  EXPECT_NE(p.RenderMediaPlaylist().find("#EXT-X-MEDIA-SEQUENCE:8\n"), std::string::npos);

  LlHlsOptions tight;
  tight.max_bytes = 1;  // every segment is over budget: only the newest complete one stays
  LlHlsPackager q(tight);
  q.Configure(Video(), std::nullopt);
  PushFrames(q, 0, 5 * 30 + 1, 30, 30);
  EXPECT_EQ(q.Stats().first_msn, 4u);
  EXPECT_EQ(q.Stats().segments, 2u);
}

TEST(LlHls, DiscontinuityStartsANewInit) {
  LlHlsOptions o;
  o.window_segments = 2;
  LlHlsPackager p(o);
  p.Configure(Video(), std::nullopt);
  PushFrames(p, 0, 45, 30, 30);  // segment 0 complete, segment 1 half way
  p.Discontinuity();             // e.g. a generation bump: segment 1 closes short
  ASSERT_TRUE(p.segments().back().complete);
  EXPECT_EQ(p.segments().back().duration_us, 500000);
  EXPECT_EQ(p.PushVideo(kBase + 9000000, false, Source::Delta()), 0u) << "waits for a keyframe";
  const unsigned flags = PushFrames(p, 300, 31, 30, 30);  // a new timeline (pts 10 s on)
  EXPECT_TRUE(flags & LlHlsPackager::kNewInit);
  EXPECT_TRUE(p.Init(1));
  EXPECT_TRUE(p.Get("init-1.mp4"));
  std::string text = p.RenderMediaPlaylist();
  EXPECT_NE(text.find("#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI=\"init-1.mp4\"\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("DISCONTINUITY-SEQUENCE"), std::string::npos);
  PushFrames(p, 331, 60, 30, 30);  // evict the segment after the discontinuity
  text = p.RenderMediaPlaylist();
  EXPECT_NE(text.find("#EXT-X-DISCONTINUITY-SEQUENCE:1\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("init-0.mp4"), std::string::npos);
  EXPECT_FALSE(p.Init(0)) << "an init no listed segment needs is dropped";
  EXPECT_EQ(p.Stats().discontinuities, 1u);
}

TEST(LlHls, NewSpsOrATimestampJumpIsADiscontinuity) {
  LlHlsPackager p;
  p.Configure(Video(), std::nullopt);
  PushFrames(p, 0, 40, 30, 30);
  Source other;
  other.sps = Hex(test::kH264HighSps),
  other.pps = Hex(test::kH264HighPps);  // the camera changed resolution
  PushFrames(p, 40, 21, 20, 30, other);
  EXPECT_EQ(p.Stats().init_id, 1u);
  EXPECT_EQ(p.Stats().discontinuities, 1u);
  PushFrames(p, 61 + 30 * 60, 31, 30, 30, other);  // a minute later on the same clock
  EXPECT_EQ(p.Stats().init_id, 2u);
  EXPECT_EQ(p.Stats().discontinuities, 2u);
}

TEST(LlHls, GapSkipsToTheNextKeyframe) {
  LlHlsPackager p;
  p.Configure(Video(), std::nullopt);
  PushFrames(p, 0, 10, 30, 30);
  p.PushVideo(kBase + 15 * 33333, false, Source::Delta(), /*after_gap=*/true);
  PushFrames(p, 16, 14, 30, 30);
  EXPECT_EQ(p.Stats().skipped_until_keyframe, 15u);
  PushFrames(p, 30, 31, 30, 30);
  const HlsSegment& s = p.segments().front();
  ASSERT_TRUE(s.complete);
  EXPECT_EQ(s.video_samples, 10u);
  // Lasting until the keyframe would make a part longer than PART-TARGET: the last frame before
  // the gap keeps its nominal length and the keyframe resumes after a discontinuity.
  EXPECT_EQ(s.duration_us, 333333);
  for (const auto& part : s.parts) EXPECT_LE(part.duration_us, p.part_target_us());
  EXPECT_EQ(p.Stats().stalls, 1u);
  ASSERT_GE(p.segments().size(), 2u);
  EXPECT_TRUE(p.segments()[1].discontinuity);
  EXPECT_EQ(p.segments()[1].start_us, kBase + 1000000);
}

TEST(LlHls, AvailabilityForBlockingReload) {
  LlHlsPackager p;
  p.Configure(Video(), std::nullopt);
  EXPECT_FALSE(p.Available(0, 0));
  PushFrames(p, 0, 36, 30, 30);  // segment 0 complete (5 parts), segment 1 has none yet
  EXPECT_TRUE(p.Available(0, 4));
  EXPECT_TRUE(p.Available(0, -1));
  EXPECT_FALSE(p.Available(1, -1));
  EXPECT_FALSE(p.Available(1, 0));
  EXPECT_FALSE(p.Available(0, 5))
      << "past the last part of a finished segment = part 0 of the next";
  PushFrames(p, 36, 1, 30, 30);  // frame 36 ends part 1.0
  EXPECT_TRUE(p.Available(1, 0));
  EXPECT_TRUE(p.Available(0, 5));
  EXPECT_FALSE(p.TooFarAhead(3));
  EXPECT_TRUE(p.TooFarAhead(4));
  p.End();
  EXPECT_TRUE(p.Available(100, 0)) << "after the end, nothing is worth waiting for";
}

TEST(LlHls, NamesAreParsedStrictly) {
  LlHlsPackager p;
  p.Configure(Video(), std::nullopt);
  PushFrames(p, 0, 37, 30, 30);
  EXPECT_TRUE(p.Get("init-0.mp4"));
  EXPECT_TRUE(p.Get("seg-0.m4s"));
  EXPECT_TRUE(p.Get("part-0.4.m4s"));
  EXPECT_EQ(p.Get("part-0.4.m4s").size, p.Part(0, 4).size);
  for (const char* bad :
       {"seg-00.m4s", "seg-+0.m4s", "seg-0.mp4", "part-0.04.m4s", "part-0..m4s", "part-0.m4s",
        "init-.mp4", "seg-99999999999999999999.m4s", "seg-1.m4s", "../seg-0.m4s", "seg-0.m4s?x"}) {
    EXPECT_FALSE(p.Get(bad)) << bad;
  }
}

TEST(LlHls, AudioIsCarriedAndNamedInCodecs) {
  LlHlsPackager p;
  MuxTrackConfig audio;
  audio.codec = Codec::kAAC;
  audio.extradata = {0x11, 0x90};  // AAC-LC 48 kHz stereo
  p.Configure(Video(), audio);
  const Source src;
  for (int i = 0; i < 61; ++i) {
    const std::int64_t t = std::int64_t(i) * 1000000 / 30;
    p.PushVideo(kBase + t, i % 30 == 0, i % 30 == 0 ? src.Key() : Source::Delta());
    // 1024-sample frames at 48 kHz interleaved in time.
    for (std::int64_t a = t; a < t + 33333; a += 21333)
      p.PushAudio(kBase + a, Bytes{0x21, 0x10, 0x04});
  }
  EXPECT_EQ(p.Codecs(), "avc1.42c01e,mp4a.40.2");
  const HlsSegment& s = p.segments().front();
  ASSERT_TRUE(s.complete);
  const auto& part = s.parts[1];
  const auto boxes = WalkBoxes(ByteView(part.bytes.data(), part.bytes.size), 0, part.bytes.size);
  EXPECT_EQ(std::count_if(boxes[0].children.begin(), boxes[0].children.end(),
                          [](const auto& b) { return b.type == "traf"; }),
            2);

  LlHlsPackager g711;
  MuxTrackConfig pcmu;
  pcmu.codec = Codec::kPCMU;
  g711.Configure(Video(), pcmu);  // video-only
  PushFrames(g711, 0, 2, 30, 30);
  EXPECT_EQ(g711.PushAudio(kBase, Bytes{1, 2, 3}), 0u);
  EXPECT_EQ(g711.Codecs(), "avc1.42c01e");
}

TEST(LlHls, MasterPlaylist) {
  LlHlsPackager p;
  p.Configure(Video(), std::nullopt);
  EXPECT_EQ(p.RenderMasterPlaylist(), "");
  PushFrames(p, 0, 61, 30, 30);
  MasterOptions mo;
  mo.query = "?token=x";
  const std::string text = p.RenderMasterPlaylist(mo);
  const auto lines = Lines(text);
  ASSERT_EQ(lines.size(), 4u) << text;
  EXPECT_EQ(lines[0], "#EXTM3U");
  EXPECT_EQ(lines[2].rfind("#EXT-X-STREAM-INF:BANDWIDTH=", 0), 0u);
  EXPECT_NE(lines[2].find(",CODECS=\"avc1.42c01e\",RESOLUTION=640x360,FRAME-RATE=30.000"),
            std::string::npos)
      << lines[2];
  EXPECT_EQ(lines[3], "live.m3u8?token=x");
}

TEST(LlHls, BFramesKeepWholeFrameParts) {
  LlHlsPackager p;
  MuxTrackConfig v = Video();
  v.reorder_depth = 2;
  p.Configure(v, std::nullopt);
  Source src;
  src.sps = Hex(test::kH264HighSps), src.pps = Hex(test::kH264HighPps);
  // Decode order I0 P3 B1 B2 P6 B4 B5 …, GOP of 30 (closed: each GOP starts with its own I).
  std::vector<int> order;
  for (int g = 0; g < 3; ++g) {
    order.push_back(g * 30);
    for (int k = 1; k < 30; k += 3)
      order.insert(order.end(), {g * 30 + k + 2, g * 30 + k, g * 30 + k + 1});
  }
  order.push_back(90);
  for (int f : order) {
    if (f > 90) continue;
    const bool key = f % 30 == 0;
    p.PushVideo(kBase + std::int64_t(f) * 1000000 / 30, key, key ? src.Key() : Source::Delta());
  }
  const HlsSegment& s = p.segments().front();
  ASSERT_TRUE(s.complete);
  EXPECT_EQ(s.parts.size(), 5u);
  std::int64_t sum = 0;
  for (const auto& part : s.parts) {
    sum += part.duration_us;
    EXPECT_EQ(part.duration_us, 200000);
  }
  EXPECT_EQ(sum, 1000000);
  EXPECT_TRUE(s.parts[0].independent);
}

TEST(LlHls, ProgramDateTimeFollowsTheMediaTimeline) {
  LlHlsOptions o;
  o.program_date_time = true;
  LlHlsPackager p(o);
  p.Configure(Video(), std::nullopt);
  const Source src;
  const std::int64_t wall =
      1'767'225'600'000'000;  // 2026-01-01T00:00:00Z, when the first keyframe arrived
  for (int i = 0; i < 61; ++i) {
    const bool key = i % 30 == 0;
    p.PushVideo(kBase + std::int64_t(i) * 1000000 / 30, key, key ? src.Key() : Source::Delta(),
                false, wall + i * 33333 + (i % 3) * 700);
  }
  const std::string text = p.RenderMediaPlaylist();
  EXPECT_NE(text.find("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:01.000Z\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:02.000Z\n"), std::string::npos)
      << "open, no parts yet";
  EXPECT_NE(text.find("00:00:01.000Z\n#EXT-X-PART:DURATION=0.20000,URI=\"part-1.0.m4s\""),
            std::string::npos)
      << text;
}

TEST(LlHls, AbsurdTimestampsAreDropped) {
  // Fuzzer finding: a u64 pts from a damaged stream, read as a negative int64, overflowed the
  // timestamp-jump check.
  LlHlsPackager p;
  p.Configure(Video(), std::nullopt);
  PushFrames(p, 0, 10, 30, 30);
  EXPECT_EQ(p.PushVideo(std::numeric_limits<std::int64_t>::min() + 5, false, Source::Delta()), 0u);
  EXPECT_EQ(p.PushVideo(std::numeric_limits<std::int64_t>::max() - 5, true, Source().Key()), 0u);
  EXPECT_EQ(p.Stats().dropped_samples, 2u);
  EXPECT_EQ(p.Stats().discontinuities, 0u);
}

// RFC 8216bis invariants over the whole window: parts within PART-TARGET, segments within
// TARGETDURATION (EXTINF rounded to the nearest second), each segment the sum of its parts.
void ExpectConformant(const LlHlsPackager& p, const std::string& where) {
  for (const auto& s : p.segments()) {
    std::int64_t sum = 0;
    for (std::size_t k = 0; k < s.parts.size(); ++k) {
      EXPECT_LE(s.parts[k].duration_us, p.part_target_us())
          << where << ": part " << s.msn << "." << k;
      EXPECT_GT(s.parts[k].duration_us, 0) << where;
      sum += s.parts[k].duration_us;
    }
    EXPECT_EQ(sum, s.duration_us) << where;
    if (s.complete)
      EXPECT_LE((s.duration_us + 500000) / 1000000, std::int64_t(p.target_duration_s()))
          << where << ": segment " << s.msn;
  }
  const std::string text = p.RenderMediaPlaylist();
  EXPECT_GE(Count(text, "PART-HOLD-BACK="), 1u);
  EXPECT_EQ(Count(text, "#EXT-X-TARGETDURATION:" + std::to_string(p.target_duration_s()) + "\n"),
            1u)
      << where;
}

// Pushes frames with the given intervals (µs) from `*pts`, a keyframe every `gop` frames.
void PushIntervals(LlHlsPackager& p, std::int64_t* pts, int* index,
                   const std::vector<std::int64_t>& intervals, int gop) {
  const Source src;
  for (std::int64_t d : intervals) {
    const bool key = *index % gop == 0;
    p.PushVideo(*pts, key,
                key ? src.Key(std::uint8_t(*index)) : Source::Delta(std::uint8_t(*index)));
    *pts += d;
    ++*index;
  }
}

TEST(LlHls, JitteredFramesStayWithinTheAdvertisedPartTarget) {
  // 5 fps: the cut target is one frame (200 ms); PART-TARGET = 300 ms absorbs frames up to half
  // a frame late. Before, a 1-frame target of 200 ms was broken by any late frame.
  LlHlsPackager p;
  p.Configure(Video(), std::nullopt);
  std::vector<std::int64_t> intervals;
  for (int i = 0; i < 60; ++i)
    intervals.push_back(200000 + (i % 3 == 1 ? 90000 : i % 3 == 2 ? -80000 : 0));
  std::int64_t pts = kBase;
  int index = 0;
  PushIntervals(p, &pts, &index, intervals, 5);
  EXPECT_EQ(p.cut_target_us(), 200000);
  EXPECT_EQ(p.part_target_us(), 300000);
  EXPECT_EQ(p.target_duration_s(), 2u);
  EXPECT_EQ(p.Stats().stalls, 0u);
  EXPECT_GE(p.Stats().next_msn, 10u);
  bool long_part = false;
  for (const auto& s : p.segments()) {
    for (const auto& part : s.parts) long_part = long_part || part.duration_us > p.cut_target_us();
  }
  EXPECT_TRUE(long_part)
      << "a late frame makes a part longer than the cut target (within the headroom)";
  ExpectConformant(p, "jitter");
}

TEST(LlHls, AStallBeyondTheHeadroomIsADiscontinuity) {
  LlHlsPackager p;
  p.Configure(Video(), std::nullopt);
  std::int64_t pts = kBase;
  int index = 0;
  PushIntervals(p, &pts, &index, std::vector<std::int64_t>(7, 200000), 5);
  pts += 250000;  // frame 7 arrives 450 ms after frame 6 (PART-TARGET 300 ms)
  PushIntervals(p, &pts, &index, std::vector<std::int64_t>(20, 200000), 5);
  EXPECT_EQ(p.Stats().stalls, 1u);
  EXPECT_EQ(p.Stats().skipped_until_keyframe, 3u);  // frames 7–9; 10 is a keyframe
  const HlsSegment& second = p.segments()[1];
  EXPECT_TRUE(second.complete);
  EXPECT_EQ(second.duration_us, 400000) << "frames 5 and 6, the last at its nominal length";
  EXPECT_TRUE(p.segments()[2].discontinuity);
  EXPECT_NE(p.RenderMediaPlaylist().find(
                "seg-1.m4s\n#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI=\"init-0.mp4\"\n"),
            std::string::npos)
      << p.RenderMediaPlaylist();
  ExpectConformant(p, "stall");
}

TEST(LlHls, LowerFrameRateAfterARestart) {
  LlHlsOptions o;
  o.window_segments = 4;
  LlHlsPackager p(o);
  p.Configure(Video(), std::nullopt);
  std::int64_t pts = kBase;
  int index = 0;
  PushIntervals(p, &pts, &index, std::vector<std::int64_t>(26, 200000), 5);  // 5 fps
  const std::int64_t part_target = p.part_target_us();
  const std::uint32_t target_duration = p.target_duration_s();
  // zmc restarts at 4 fps: 250 ms frames fit PART-TARGET 300 ms, the playlist carries on.
  p.Discontinuity();
  index = 0;
  PushIntervals(p, &pts, &index, std::vector<std::int64_t>(21, 250000), 4);
  EXPECT_EQ(p.part_target_us(), part_target);
  EXPECT_EQ(p.target_duration_s(), target_duration);
  EXPECT_EQ(p.Stats().epochs, 0u);
  EXPECT_EQ(p.Stats().stalls, 0u);
  ExpectConformant(p, "4 fps");
  const std::uint64_t next_before = p.Stats().next_msn;

  // Then at 2 fps: 500 ms frames cannot fit. A new epoch: only the new generation's segments,
  // new targets, the media sequence and discontinuity sequence carry on.
  p.Discontinuity();
  index = 0;
  PushIntervals(p, &pts, &index, std::vector<std::int64_t>(12, 500000), 4);
  EXPECT_EQ(p.Stats().epochs, 1u);
  EXPECT_EQ(p.cut_target_us(), 500000);
  EXPECT_EQ(p.part_target_us(), 750000);
  EXPECT_EQ(p.target_duration_s(), 2u);
  EXPECT_EQ(p.Stats().first_msn, next_before) << "nothing of the old epoch is listed";
  const std::string text = p.RenderMediaPlaylist();
  EXPECT_NE(text.find("#EXT-X-MEDIA-SEQUENCE:" + std::to_string(next_before) + "\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("#EXT-X-DISCONTINUITY-SEQUENCE:2\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("#EXT-X-DISCONTINUITY\n"), std::string::npos) << text;
  EXPECT_NE(text.find("#EXT-X-PART-INF:PART-TARGET=0.75000\n"), std::string::npos) << text;
  EXPECT_FALSE(p.Init(0));
  ExpectConformant(p, "2 fps");
}

TEST(LlHls, TargetDurationNeverChangesWithLongGops) {
  LlHlsPackager p;  // 1 s segment target: TARGETDURATION 2
  p.Configure(Video(), std::nullopt);
  PushFrames(p, 0, 60, 30, 30);  // 1 s GOPs
  ASSERT_EQ(p.target_duration_s(), 2u);
  EXPECT_NE(p.RenderMediaPlaylist().find("#EXT-X-INDEPENDENT-SEGMENTS\n"), std::string::npos);
  p.Discontinuity();  // zmc restarts with a 3.5 s GOP
  PushFrames(p, 100, 3 * 105 + 1, 105, 30);
  EXPECT_EQ(p.target_duration_s(), 2u);
  EXPECT_GE(p.Stats().forced_cuts, 3u);
  bool dependent = false;
  for (const auto& s : p.segments()) {
    if (!s.complete) continue;
    EXPECT_LE(s.duration_us, 2000000) << s.msn;
    if (!s.independent) {
      dependent = true;
      EXPECT_FALSE(s.parts.front().independent) << "starts mid-GOP";
    }
  }
  EXPECT_TRUE(dependent);
  const std::string text = p.RenderMediaPlaylist();
  EXPECT_EQ(text.find("#EXT-X-INDEPENDENT-SEGMENTS"), std::string::npos) << text;
  EXPECT_EQ(Count(text, "#EXT-X-TARGETDURATION:2\n"), 1u);
  ExpectConformant(p, "long GOP");
}

TEST(LlHls, PlainPlaylistLeavesOutTheOpenSegment) {
  LlHlsOptions o;
  o.program_date_time = true;
  LlHlsPackager p(o);
  p.Configure(Video(), std::nullopt);
  PushFrames(p, 0, 45, 30, 30);
  p.Discontinuity();
  PushFrames(p, 300, 14, 30, 30);  // the open segment after the discontinuity has parts
  RenderOptions plain;
  plain.low_latency = false;
  const std::string text = p.RenderMediaPlaylist(plain);
  const auto lines = Lines(text);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "seg-1.m4s") << text;
  for (const char* tag :
       {"#EXT-X-PART", "PRELOAD-HINT", "SERVER-CONTROL", "#EXT-X-DISCONTINUITY\n", "init-1.mp4"}) {
    EXPECT_EQ(text.find(tag), std::string::npos) << tag << "\n" << text;
  }
  EXPECT_EQ(Count(text, "#EXT-X-PROGRAM-DATE-TIME:"), 2u);
  EXPECT_NE(p.RenderMediaPlaylist().find("#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI=\"init-1.mp4\"\n"),
            std::string::npos);
}

TEST(LlHls, RejectsBadConfiguration) {
  LlHlsOptions o;
  o.part_target_us = 1000;
  EXPECT_THROW(LlHlsPackager{o}, Error);
  o = {};
  o.segment_target_us = 100000;
  EXPECT_THROW(LlHlsPackager{o}, Error);
  LlHlsPackager p;
  MuxTrackConfig a;
  a.codec = Codec::kAAC;
  EXPECT_THROW(p.Configure(a, std::nullopt), Error);
  EXPECT_EQ(p.PushVideo(kBase, true, Source().Key()), 0u) << "unconfigured: dropped";
}

}  // namespace
}  // namespace zm
