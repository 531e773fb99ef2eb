// MP4 demuxer and VOD/remux writer on synthetic files: moov before/after mdat, co64 + largesize,
// stz2, edit lists with B-frame offsets, NAL length sizes, fragmented files (per-sample values or
// trex/tfhd defaults, moof-relative or absolute data offsets), truncated in-progress files, and
// inputs that must be rejected cleanly.
#include "zm/mp4_demuxer.h"

#include <gtest/gtest.h>

#include "mp4_builder.h"
#include "test_support.h"
#include "test_vectors.h"
#include "zm/error.h"
#include "zm/mp4_vod.h"

namespace zm {
namespace {

using test::BuildFragmented;
using test::BuildProgressive;
using test::Hex;
using test::SynthSample;
using test::SynthTrack;
using test::WalkBoxes;

Bytes Idr(std::uint8_t tag) { return {0x65, 0x88, 0x84, tag, 0x21, 0x43}; }
Bytes Slice(std::uint8_t tag) { return {0x41, 0x9a, 0x02, tag, 0x11}; }

// 2 s at 30 fps (3000 ticks), keyframe every 30 frames; 48 kHz AAC frames of 1024.
SynthTrack Video(int nal_length = 4, int frames = 60) {
  SynthTrack t;
  t.config = test::MakeAvcC(Hex(test::kH264BaselineSps), Hex(test::kH264BaselinePps), nal_length);
  for (int i = 0; i < frames; ++i) {
    const bool key = i % 30 == 0;
    t.samples.push_back(
        {test::LengthPrefixed(key ? Idr(std::uint8_t(i)) : Slice(std::uint8_t(i)), nal_length),
         3000, 0, key});
  }
  return t;
}

SynthTrack Audio(int frames = 94) {
  SynthTrack t;
  t.video = false;
  t.timescale = 48000;
  t.config = {0x11, 0x90};
  for (int i = 0; i < frames; ++i)
    t.samples.push_back({Bytes{0x21, 0x10, std::uint8_t(i), 0x04}, 1024, 0, true});
  return t;
}

std::shared_ptr<Mp4Demuxer> Open(Bytes file) {
  return std::make_shared<Mp4Demuxer>(std::make_shared<MemorySource>(std::move(file)));
}

void ExpectSameSamples(const Mp4Demuxer& d, const std::vector<SynthTrack>& src) {
  ASSERT_EQ(d.tracks().size(), src.size());
  for (std::size_t t = 0; t < src.size(); ++t) {
    const Mp4Track& track = d.tracks()[t];
    ASSERT_EQ(track.samples.size(), src[t].samples.size()) << "track " << t;
    std::int64_t dts = 0;
    for (std::size_t i = 0; i < src[t].samples.size(); ++i) {
      const SynthSample& want = src[t].samples[i];
      EXPECT_EQ(track.samples[i].dts, dts);
      EXPECT_EQ(track.samples[i].duration, want.duration);
      EXPECT_EQ(track.samples[i].cto, want.cto);
      EXPECT_EQ(track.samples[i].sync, want.sync) << "track " << t << " sample " << i;
      const Bytes got = d.ReadSample(t, i);
      if (track.is_video() && track.nal_length_size != 4) {
        EXPECT_EQ(got, test::LengthPrefixed(
                           Bytes(want.data.begin() + track.nal_length_size, want.data.end()), 4));
      } else {
        EXPECT_EQ(got, want.data) << "track " << t << " sample " << i;
      }
      dts += want.duration;
    }
  }
}

TEST(Mp4Demuxer, MoovFirstAndMoovLast) {
  const std::vector<SynthTrack> tracks{Video(), Audio()};
  for (bool first : {true, false}) {
    test::ProgressiveOptions o;
    o.moov_first = first;
    auto d = Open(BuildProgressive(tracks, o));
    EXPECT_FALSE(d->fragmented());
    EXPECT_FALSE(d->truncated());
    ExpectSameSamples(*d, tracks);
    const Mp4Track& v = d->tracks()[0];
    EXPECT_EQ(v.codec, Codec::kH264);
    EXPECT_EQ(v.codec_string, "avc1.42c01e");
    EXPECT_EQ(v.width, 640u);
    EXPECT_EQ(v.height, 360u);
    EXPECT_EQ(v.timescale, 90000u);
    const Mp4Track& a = d->tracks()[1];
    EXPECT_EQ(a.codec, Codec::kAAC);
    EXPECT_EQ(a.codec_string, "mp4a.40.2");
    EXPECT_EQ(a.sample_rate, 48000u);
    EXPECT_EQ(a.channels, 2u);
    EXPECT_EQ(a.config, (Bytes{0x11, 0x90}));
    EXPECT_EQ(d->duration_us(), 2005333);  // 94 AAC frames (2.0053 s) outlast 60 video frames
  }
}

TEST(Mp4Demuxer, Co64LargesizeAndStz2) {
  const std::vector<SynthTrack> tracks{Video(), Audio()};
  test::ProgressiveOptions o;
  o.co64 = true, o.largesize_mdat = true, o.stz2 = true, o.samples_per_chunk = 7,
  o.moov_first = false;
  auto d = Open(BuildProgressive(tracks, o));
  ExpectSameSamples(*d, tracks);
}

TEST(Mp4Demuxer, NalLengthSizesAreNormalised) {
  for (int n : {1, 2, 3}) {
    const std::vector<SynthTrack> tracks{Video(n)};
    auto d = Open(BuildProgressive(tracks));
    EXPECT_EQ(d->tracks()[0].nal_length_size, std::uint32_t(n));
    ExpectSameSamples(*d, tracks);
  }
}

TEST(Mp4Demuxer, EditListAndCompositionOffsets) {
  // I0 P3 B1 B2 (decode order), pts = dts + cto with a 1-frame shift removed by the edit list.
  SynthTrack v = Video(4, 8);
  const std::int32_t cto[] = {3000, 9000, 0, 0, 3000, 9000, 0, 0};
  for (std::size_t i = 0; i < 8; ++i) v.samples[i].cto = cto[i];
  v.edit_media_time = 3000;
  auto d = Open(BuildProgressive({v}));
  const Mp4Track& t = d->tracks()[0];
  EXPECT_EQ(t.presentation_offset, -3000);
  EXPECT_EQ(t.PtsTicks(0), 0);
  EXPECT_EQ(t.PtsTicks(1), 9000);
  EXPECT_EQ(t.PtsTicks(2), 3000);
  EXPECT_EQ(t.DtsTicks(0), -3000);

  // VOD: decode times are shifted so none precedes the first frame; one segment per keyframe.
  Mp4Vod vod(d);
  const auto plan = vod.Plan(0);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].start_us, 0);
  EXPECT_EQ(plan[0].duration_us, 266667);
  const Bytes seg = vod.Segment(plan, 0);
  const auto boxes = WalkBoxes(seg, 0, seg.size());
  const auto* trun = test::Find(boxes, "moof/traf/trun");
  ASSERT_NE(trun, nullptr);
  EXPECT_EQ(seg[trun->offset + 8], 1) << "trun v1: a B-frame decodes after its presentation time";
  const auto* tfdt = test::Find(boxes, "moof/traf/tfdt");
  EXPECT_EQ(ReadU32Be(&seg[tfdt->offset + 16]), 0u);
}

TEST(Mp4Demuxer, FragmentedWithPerSampleValues) {
  const std::vector<SynthTrack> tracks{Video(), Audio()};
  auto d = Open(BuildFragmented(tracks));
  EXPECT_TRUE(d->fragmented());
  EXPECT_FALSE(d->truncated());
  EXPECT_EQ(d->fragments(), 24u);  // 94 audio frames / 4 per fragment
  ExpectSameSamples(*d, tracks);
}

TEST(Mp4Demuxer, FragmentedWithDefaultsAndAbsoluteOffsets) {
  SynthTrack v = Video();
  for (auto& s : v.samples) s.data = test::LengthPrefixed(Idr(1)), s.sync = false;  // equal sizes
  for (std::size_t i = 0; i < v.samples.size(); i += 4)
    v.samples[i].sync = true;  // first of each fragment
  test::FragmentOptions fo;
  fo.use_defaults = true;
  fo.explicit_base = true;
  auto d = Open(BuildFragmented({v}, fo));
  ExpectSameSamples(*d, {v});
}

TEST(Mp4Demuxer, TruncatedLastFragmentIsIgnored) {
  const std::vector<SynthTrack> tracks{Video()};
  const Bytes whole = BuildFragmented(tracks);  // 15 fragments of 4 frames
  // Cut inside the last mdat, then inside the last moof: 14 complete fragments either way.
  const auto boxes = WalkBoxes(whole, 0, whole.size());
  const auto& last_moof = boxes[boxes.size() - 2];
  for (std::size_t cut : {whole.size() - 3, last_moof.offset + 20, last_moof.offset + 4}) {
    auto d = Open(Bytes(whole.begin(), whole.begin() + std::ptrdiff_t(cut)));
    EXPECT_TRUE(d->truncated()) << cut;
    EXPECT_EQ(d->fragments(), 14u) << cut;
    EXPECT_EQ(d->tracks()[0].samples.size(), 56u) << cut;
  }
  // A progressive file cut short keeps the samples whose bytes are there.
  test::ProgressiveOptions o;
  const Bytes progressive = BuildProgressive(tracks, o);
  auto d = Open(Bytes(progressive.begin(), progressive.end() - 20));
  EXPECT_TRUE(d->truncated());
  EXPECT_LT(d->tracks()[0].samples.size(), 60u);
  EXPECT_GT(d->tracks()[0].samples.size(), 50u);
}

TEST(Mp4Demuxer, RejectsWhatIsNotAnIndexedMp4) {
  auto code = [](Bytes file) {
    try {
      Open(std::move(file));
    } catch (const Error& e) {
      return e.code();
    }
    return std::string("none");
  };
  EXPECT_EQ(code(Bytes{}), "ERR_ZM_MP4_NO_MOOV");
  EXPECT_EQ(code(Bytes(100, 0xab)), "ERR_ZM_MP4_FORMAT");
  Bytes mdat_only{0, 0, 0, 16, 'f', 't', 'y', 'p', 'i', 's', 'o', 'm', 0, 0,
                  0, 0, 0, 0,  0,   12,  'm', 'd', 'a', 't', 1,   2,   3, 4};
  EXPECT_EQ(code(mdat_only), "ERR_ZM_MP4_NO_MOOV");  // a progressive recording still in progress
  Bytes broken = BuildProgressive({Video()});
  // Make the stsz sample count absurd: a format error, not a huge allocation.
  const auto boxes = WalkBoxes(broken, 0, broken.size());
  const auto* stsz = test::Find(boxes, "moov/trak/mdia/minf/stbl/stsz");
  ASSERT_NE(stsz, nullptr);
  for (int i = 0; i < 4; ++i) broken[stsz->offset + 16 + std::size_t(i)] = 0xff;
  EXPECT_EQ(code(broken), "ERR_ZM_MP4_FORMAT");
}

TEST(Mp4Demuxer, AbsurdTimestampsDoNotOverflow) {
  // Fuzzer findings: a 2^64 tfdt or a huge edit-list media time once overflowed the µs/tick
  // conversions (UBSan). Now they clamp; the file still demuxes and segments.
  SynthTrack v = Video(4, 8);
  v.edit_media_time = std::int64_t(1) << 62;
  Bytes file = BuildFragmented({v, Audio(8)});
  const auto boxes = WalkBoxes(file, 0, file.size());
  for (const auto& b : boxes) {
    if (b.type != "moof") continue;
    const auto* tfdt = test::Find(b.children, "traf/tfdt");
    for (int i = 0; i < 8; ++i) file[tfdt->offset + 12 + std::size_t(i)] = 0xff;
    break;
  }
  auto d = Open(file);
  Mp4Vod vod(d);
  const auto plan = vod.Plan(0);
  for (std::size_t i = 0; i < plan.size(); ++i) EXPECT_FALSE(vod.Segment(plan, i).empty());
}

TEST(Mp4Vod, PlanSegmentsAndRemux) {
  SynthTrack v = Video(4, 150);  // 5 s, keyframes every second
  auto d = Open(BuildProgressive({v, Audio(235)}));
  Mp4Vod vod(d);
  EXPECT_EQ(vod.Codecs(), "avc1.42c01e,mp4a.40.2");
  EXPECT_EQ(vod.duration_us(), 5000000);
  const auto plan = vod.Plan(2000000);
  ASSERT_EQ(plan.size(), 3u);  // 2 s, 2 s, 1 s
  EXPECT_EQ(plan[0].start_us, 0);
  EXPECT_EQ(plan[1].start_us, 2000000);
  EXPECT_EQ(plan[2].duration_us, 1000000);
  EXPECT_EQ(plan[1].first_sample, 60u);
  EXPECT_EQ(plan[1].last_sample, 119u);
  EXPECT_EQ(plan[1].first_audio, 94u);  // the first frame at or after 2 s (2.0053 s)
  EXPECT_EQ(plan[2].end_audio, 235u);
  const auto per_gop = vod.Plan(0);
  EXPECT_EQ(per_gop.size(), 5u);

  const Bytes init = vod.Init();
  const auto init_boxes = WalkBoxes(init, 0, init.size());
  EXPECT_NE(test::Find(init_boxes, "moov/mvex"), nullptr);
  std::uint64_t video_tfdt = 0;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const Bytes seg = vod.Segment(plan, i);
    const auto boxes = WalkBoxes(seg, 0, seg.size());
    ASSERT_EQ(boxes.size(), 2u);
    EXPECT_EQ(ReadU32Be(&seg[test::Find(boxes, "moof/mfhd")->offset + 12]), i + 1);
    const auto* tfdt = test::Find(boxes, "moof/traf/tfdt");
    const std::uint64_t t = (std::uint64_t(ReadU32Be(&seg[tfdt->offset + 12])) << 32) |
                            ReadU32Be(&seg[tfdt->offset + 16]);
    EXPECT_EQ(t, video_tfdt) << "segment " << i << " continues the timeline";
    video_tfdt += std::uint64_t(plan[i].duration_us) * 90000 / 1000000;
  }
  EXPECT_THROW(vod.Segment(plan, 3), Error);

  SynthTrack audio_only = Audio();
  EXPECT_THROW(Mp4Vod(Open(BuildProgressive({audio_only}))), Error);
}

// zmc records a monitor's Orientation only in the video tkhd matrix (ffmpeg's `rotate` tag):
// the demuxer reads it (tkhd v0 and v1) and the init segment of the remux/VOD carries it, in a
// tkhd of unchanged size; mvhd and the audio track keep the identity, as does an unrotated source.
TEST(Mp4Vod, InitCarriesTheVideoTrackMatrix) {
  const DisplayMatrix rotate90{0, 0x00010000, 0, -0x00010000, 0, 0, 360 << 16, 0, 0x40000000};
  auto matrix_at = [](const Bytes& b, std::size_t at) {
    DisplayMatrix m{};
    for (std::size_t k = 0; k < 9; ++k) m[k] = std::int32_t(ReadU32Be(&b[at + 4 * k]));
    return m;
  };
  for (bool v1 : {false, true}) {
    SynthTrack v = Video();
    for (std::size_t k = 0; k < 9; ++k) v.matrix[k] = std::uint32_t(rotate90[k]);
    v.tkhd_v1 = v1;
    for (bool fragmented : {false, true}) {
      auto d =
          Open(fragmented ? test::BuildFragmented({v, Audio()}) : BuildProgressive({v, Audio()}));
      ASSERT_EQ(d->tracks().size(), 2u);
      EXPECT_EQ(d->tracks()[0].matrix, rotate90) << "v1 " << v1 << " fragmented " << fragmented;
      EXPECT_EQ(d->tracks()[0].width, 640u);
      EXPECT_EQ(d->tracks()[1].matrix, kIdentityMatrix);

      const Bytes init = Mp4Vod(d).Init();
      const auto boxes = WalkBoxes(init, 0, init.size());
      const auto* moov = test::Find(boxes, "moov");
      ASSERT_NE(moov, nullptr);
      std::vector<DisplayMatrix> tkhd_matrices;
      for (const auto& trak : moov->children) {
        if (trak.type != "trak") continue;
        const auto* tkhd = test::Find(trak.children, "tkhd");
        ASSERT_NE(tkhd, nullptr);
        EXPECT_EQ(tkhd->size, 92u);  // version 0, fixed size whatever the matrix
        tkhd_matrices.push_back(matrix_at(init, tkhd->offset + 8 + 40));
        // width stays the coded (unrotated) size, 16.16; 0 for audio
        EXPECT_EQ(ReadU32Be(&init[tkhd->offset + 8 + 76]),
                  tkhd_matrices.size() == 1 ? 640u << 16 : 0u);
      }
      EXPECT_EQ(tkhd_matrices, (std::vector<DisplayMatrix>{rotate90, kIdentityMatrix}));
      const auto* mvhd = test::Find(boxes, "moov/mvhd");
      EXPECT_EQ(matrix_at(init, mvhd->offset + 8 + 36), kIdentityMatrix);
    }
  }
  const Bytes plain = Mp4Vod(Open(BuildProgressive({Video()}))).Init();
  const auto plain_boxes = WalkBoxes(plain, 0, plain.size());
  const auto* tkhd = test::Find(plain_boxes, "moov/trak/tkhd");
  ASSERT_NE(tkhd, nullptr);
  EXPECT_EQ(matrix_at(plain, tkhd->offset + 8 + 40), kIdentityMatrix);
}

}  // namespace
}  // namespace zm
