// Box writers and the muxer: structure (sizes add up, nesting), field values, timing.
#include <gtest/gtest.h>

#include "test_support.h"
#include "test_vectors.h"
#include "zm/box.h"
#include "zm/box_writer.h"
#include "zm/dts_reorder.h"
#include "zm/error.h"
#include "zm/fmp4_fragment.h"
#include "zm/fmp4_muxer.h"

namespace zm {
namespace {

using test::Find;
using test::Hex;
using test::WalkBoxes;

std::uint32_t U32At(const Bytes& b, std::size_t at) { return ReadU32Be(b.data() + at); }

TEST(Box, HeaderAndNestedBoxes) {
  const auto h = BoxHeader("ftyp", 24);
  EXPECT_EQ(Bytes(h.begin(), h.end()), (Bytes{0, 0, 0, 24, 'f', 't', 'y', 'p'}));
  EXPECT_THROW(BoxHeader("ftypx", 24), Error);
  EXPECT_THROW(BoxHeader("ftyp", 7), Error);
  Bytes out;
  ByteWriter w(out);
  {
    Box moov(w, "moov");
    {
      Box mvhd(w, "mvhd", 1, 0x000203);
      w.u32(7);
    }
    { Box trak(w, "trak"); }
  }
  EXPECT_EQ(out.size(), 8u + 16 + 8);
  EXPECT_EQ(U32At(out, 0), 32u);
  EXPECT_EQ(U32At(out, 8), 16u);
  EXPECT_EQ(U32At(out, 16), 0x01000203u);  // version 1, flags
  const auto tree = WalkBoxes(out, 0, out.size());
  ASSERT_NE(Find(tree, "moov/trak"), nullptr);
}

TEST(DtsReorderer, DerivesMonotonicDecodeTimes) {
  // I0 P3 B1 B2 P6 B4 B5 (decode order), depth 1: dts = 0 1 2 3 4 5 6 (sorted pts).
  DtsReorderer r(1);
  std::vector<std::int64_t> dts;
  for (std::int64_t pts : {0, 3, 1, 2, 6, 4, 5}) {
    r.Push(pts);
    while (r.HasDts()) dts.push_back(r.PopDts());
  }
  r.Drain();
  while (r.HasDts()) dts.push_back(r.PopDts());
  EXPECT_EQ(dts, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(r.violations(), 0u);
}

TEST(DtsReorderer, WidensWhenTheStreamReordersDeeper) {
  DtsReorderer r(0);
  std::vector<std::int64_t> dts;
  for (std::int64_t pts : {0, 3, 1, 2, 6, 4, 5, 9, 7, 8}) {
    r.Push(pts);
    while (r.HasDts()) dts.push_back(r.PopDts());
  }
  r.Drain();
  while (r.HasDts()) dts.push_back(r.PopDts());
  EXPECT_GT(r.violations(), 0u);
  for (std::size_t i = 1; i < dts.size(); ++i) EXPECT_GT(dts[i], dts[i - 1]);
}

TEST(Fragment, LayoutAndDataOffsets) {
  const Bytes a = {1, 2, 3}, b = {4, 5}, c = {6};
  TrackFragment v{1, 90000, {{3000, true, 0, a}, {3000, false, -3000, b}}};
  TrackFragment s{2, 48000, {{1024, true, 0, c}}};
  const Bytes f = WriteFragment(7, {v, s});
  const auto tree = WalkBoxes(f, 0, f.size());
  ASSERT_EQ(tree.size(), 2u);
  EXPECT_EQ(tree[0].type, "moof");
  EXPECT_EQ(tree[1].type, "mdat");
  EXPECT_EQ(U32At(f, Find(tree, "moof/mfhd")->offset + 12), 7u);
  const auto& trafs = Find(tree, "moof")->children;
  ASSERT_EQ(trafs.size(), 3u);  // mfhd + 2 traf
  // Video trun: version 1 (a negative composition offset), 2 samples, data at mdat payload start.
  const auto* trun = Find(trafs[1].children, "trun");
  ASSERT_NE(trun, nullptr);
  EXPECT_EQ(f[trun->offset + 8], 1);
  EXPECT_EQ(U32At(f, trun->offset + 8) & 0xffffff, 0x000f01u);
  EXPECT_EQ(U32At(f, trun->offset + 12), 2u);
  const std::uint32_t video_offset = U32At(f, trun->offset + 16);
  EXPECT_EQ(video_offset, tree[1].offset + 8);
  EXPECT_EQ(std::int32_t(U32At(f, trun->offset + 20 + 16 + 12)), -3000);  // 2nd sample's offset
  EXPECT_EQ(U32At(f, trun->offset + 20 + 8), kSyncSampleFlags);
  const auto* tfdt = Find(trafs[1].children, "tfdt");
  EXPECT_EQ(f[tfdt->offset + 8], 1);  // 64-bit decode time
  // Audio trun: version 0 (no offsets), data after the video bytes.
  const auto* atrun = Find(trafs[2].children, "trun");
  EXPECT_EQ(f[atrun->offset + 8], 0);
  EXPECT_EQ(U32At(f, atrun->offset + 16), video_offset + 5);
  EXPECT_EQ(Bytes(f.end() - 6, f.end()), (Bytes{1, 2, 3, 4, 5, 6}));
}

Bytes H264Extradata() { return test::AnnexB({Hex(test::kH264HighSps), Hex(test::kH264HighPps)}); }
Bytes Idr() {
  return test::AnnexB(
      {{0x09, 0x10}, Hex(test::kH264HighSps), Hex(test::kH264HighPps), {0x65, 0x88, 0x80}});
}
Bytes NonIdr(std::uint8_t tag) { return test::AnnexB({{0x41, 0x9a, tag}}); }

TEST(Fmp4Muxer, InitSegmentStructure) {
  MuxTrackConfig v;
  v.codec = Codec::kH264;
  v.extradata = H264Extradata();
  MuxTrackConfig a;
  a.codec = Codec::kAAC;
  a.extradata = {0x11, 0x90};
  Fmp4Muxer mux({v, a});
  ASSERT_TRUE(mux.InitReady());
  const Bytes init = mux.InitSegment();
  const auto tree = WalkBoxes(init, 0, init.size());
  ASSERT_EQ(tree.size(), 2u);
  EXPECT_EQ(tree[0].type, "ftyp");
  const auto* moov = Find(tree, "moov");
  ASSERT_NE(moov, nullptr);
  std::size_t traks = 0;
  for (const auto& n : moov->children) traks += n.type == "trak";
  EXPECT_EQ(traks, 2u);
  ASSERT_NE(Find(tree, "moov/mvex/trex"), nullptr);
  const auto* stbl = Find(tree, "moov/trak/mdia/minf/stbl");
  ASSERT_NE(stbl, nullptr);
  const auto* stsd = Find(stbl->children, "stsd");
  EXPECT_EQ(std::string(init.begin() + stsd->offset + 20, init.begin() + stsd->offset + 24),
            "avc1");
  const auto* mdhd = Find(tree, "moov/trak/mdia/mdhd");
  EXPECT_EQ(U32At(init, mdhd->offset + 20), 90000u);
  const auto* tkhd = Find(tree, "moov/trak/tkhd");
  EXPECT_EQ(U32At(init, tkhd->offset + 84), 1920u << 16);
  EXPECT_EQ(U32At(init, tkhd->offset + 88), 1080u << 16);
  EXPECT_EQ(mux.Info(0).codec_string, "avc1.640028");
  EXPECT_EQ(mux.Info(1).codec_string, "mp4a.40.2");
  EXPECT_EQ(mux.Info(1).timescale, 48000u);
}

TEST(Fmp4Muxer, RefusesG711AndWaitsForParameterSets) {
  MuxTrackConfig g;
  g.codec = Codec::kPCMU;
  try {
    Fmp4Muxer m({g});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "ERR_ZM_MUX_CODEC_UNSUPPORTED");
  }
  MuxTrackConfig v;
  v.codec = Codec::kH264;  // no extradata: learnt from the first keyframe
  Fmp4Muxer mux({v});
  EXPECT_FALSE(mux.InitReady());
  try {
    mux.InitSegment();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "ERR_ZM_MUX_NOT_READY");
  }
  mux.AddSample(0, {1'000'000, std::nullopt, true, Idr()});
  EXPECT_TRUE(mux.InitReady());
}

TEST(Fmp4Muxer, DurationsFromTimestampsAndBFrameOffsets) {
  MuxTrackConfig v;
  v.codec = Codec::kH264;
  v.extradata = H264Extradata();
  v.reorder_depth = 1;
  Fmp4Muxer mux({v});
  // Decode order I P B B with an irregular clock: pts (ms) 0, 120, 40, 80; then the next GOP.
  const std::int64_t base = 5'000'000;
  mux.AddSample(0, {base + 0, std::nullopt, true, Idr()});
  mux.AddSample(0, {base + 120'000, std::nullopt, false, NonIdr(1)});
  mux.AddSample(0, {base + 40'000, std::nullopt, false, NonIdr(2)});
  mux.AddSample(0, {base + 80'000, std::nullopt, false, NonIdr(3)});
  auto frag = mux.Cut(CutMode::kAll, base + 160'000);
  ASSERT_TRUE(frag);
  EXPECT_TRUE(frag->independent);
  ASSERT_EQ(frag->tracks.size(), 1u);
  EXPECT_EQ(frag->tracks[0].sample_count, 4u);
  EXPECT_EQ(frag->tracks[0].base_decode_time, 0u);
  EXPECT_EQ(frag->tracks[0].duration, 14400u);  // 160 ms at 90 kHz
  EXPECT_EQ(frag->tracks[0].start_us, base);
  const Bytes& f = frag->data;
  const auto tree = WalkBoxes(f, 0, f.size());
  const auto* trun = Find(Find(tree, "moof")->children[1].children, "trun");
  ASSERT_NE(trun, nullptr);
  const std::size_t s0 = trun->offset + 20;
  // dts = sorted pts = 0, 40, 80, 120 ms → durations 3600 each; offsets 0, +80 ms, -40 ms, -40 ms.
  std::vector<std::int32_t> offsets;
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(U32At(f, s0 + i * 16), 3600u);
    offsets.push_back(std::int32_t(U32At(f, s0 + i * 16 + 12)));
  }
  EXPECT_EQ(offsets, (std::vector<std::int32_t>{0, 7200, -3600, -3600}));
  // AUD and parameter sets are not in the sample: 4-byte length + the 3-byte IDR slice.
  EXPECT_EQ(U32At(f, s0 + 4), 7u);
  // Next fragment continues the decode timeline.
  mux.AddSample(0, {base + 160'000, std::nullopt, true, Idr()});
  mux.AddSample(0, {base + 200'000, std::nullopt, false, NonIdr(4)});
  auto next = mux.Cut(CutMode::kAll);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->sequence, 2u);
  EXPECT_EQ(next->tracks[0].base_decode_time, 14400u);
  EXPECT_EQ(next->tracks[0].duration, 7200u);  // last sample: the previous gap
}

TEST(Fmp4Muxer, ReadyModeHoldsBackUnfinishedSamples) {
  MuxTrackConfig v;
  v.codec = Codec::kH264;
  v.extradata = H264Extradata();
  v.reorder_depth = 1;
  Fmp4Muxer mux({v});
  mux.AddSample(0, {0, std::nullopt, true, Idr()});
  EXPECT_FALSE(mux.Cut(CutMode::kReady));  // nothing final yet
  mux.AddSample(0, {66'666, std::nullopt, false, NonIdr(1)});
  mux.AddSample(0, {33'333, std::nullopt, false, NonIdr(2)});
  auto part = mux.Cut(CutMode::kReady);
  ASSERT_TRUE(part);
  EXPECT_EQ(part->tracks[0].sample_count, 1u);
  EXPECT_EQ(part->tracks[0].duration, 3000u);
  EXPECT_EQ(mux.Info(0).pending, 2u);
}

TEST(Fmp4Muxer, AudioTimescaleAndAdtsStripping) {
  MuxTrackConfig a;
  a.codec = Codec::kAAC;
  a.sample_rate = 48000;
  Fmp4Muxer mux({a});
  Bytes frame = {0xff, 0xf1, 0x4c, 0x80, 0x01, 0x3f, 0xfc, 0x21, 0x10};  // ADTS LC 48 kHz stereo
  for (int i = 0; i < 3; ++i) mux.AddSample(0, {i * 21'333, std::nullopt, true, frame});
  ASSERT_TRUE(mux.InitReady());
  auto frag = mux.Cut(CutMode::kAll);
  ASSERT_TRUE(frag);
  EXPECT_EQ(frag->tracks[0].timescale, 48000u);
  EXPECT_EQ(frag->tracks[0].duration,
            1024u + 1024 + 1024);  // 21.333 ms rounds to 1024; last = frame length
  EXPECT_EQ(frag->data.size() - (WalkBoxes(frag->data, 0, frag->data.size())[1].offset + 8),
            6u);  // 3 × 2 raw bytes
}

TEST(Fmp4Muxer, OpusTrack) {
  MuxTrackConfig o;
  o.codec = Codec::kOpus;
  o.channels = 1;
  Fmp4Muxer mux({o});
  const Bytes init = mux.InitSegment();
  const auto tree = WalkBoxes(init, 0, init.size());
  const auto* stsd = Find(tree, "moov/trak/mdia/minf/stbl/stsd");
  EXPECT_EQ(std::string(init.begin() + stsd->offset + 20, init.begin() + stsd->offset + 24),
            "Opus");
  mux.AddSample(0, {0, std::nullopt, true, Bytes{0xfc, 1, 2}});
  auto frag = mux.Cut(CutMode::kAll);
  EXPECT_EQ(frag->tracks[0].duration, 960u);
}

}  // namespace
}  // namespace zm
