// Bit reader, Annex B helpers, SPS parsing (real x264/x265 output), codec strings, AAC config.
#include <gtest/gtest.h>

#include "test_support.h"
#include "test_vectors.h"
#include "zm/aac.h"
#include "zm/av1_config.h"
#include "zm/bit_reader.h"
#include "zm/codec_info.h"
#include "zm/error.h"
#include "zm/h264_sps.h"
#include "zm/h265_sps.h"
#include "zm/nal.h"
#include "zm/opus.h"

namespace zm {
namespace {

using test::Hex;

TEST(BitReader, ReadsBitsAndExpGolomb) {
  // 1 | 010 | 011 | 00100 | 00101 → ue: 0, 1, 2, 3, 4 ; then se codes below.
  const Bytes data = {0b10100110, 0b01000010, 0b10000000};
  BitReader r(data);
  EXPECT_EQ(r.Ue(), 0u);
  EXPECT_EQ(r.Ue(), 1u);
  EXPECT_EQ(r.Ue(), 2u);
  EXPECT_EQ(r.Ue(), 3u);
  EXPECT_EQ(r.Ue(), 4u);
  const Bytes se = {0b01001100, 0b10000000};  // 010 → +1, 011 → -1, 00100 → +2
  BitReader s(se);
  EXPECT_EQ(s.Se(), 1);
  EXPECT_EQ(s.Se(), -1);
  EXPECT_EQ(s.Se(), 2);
}

TEST(BitReader, ThrowsPastTheEnd) {
  const Bytes data = {0xff};
  BitReader r(data);
  EXPECT_EQ(r.Bits(8), 0xffu);
  EXPECT_THROW(r.Bits(1), Error);
  const Bytes zeros = {0, 0, 0, 0, 0};
  BitReader z(zeros);
  EXPECT_THROW(z.Ue(), Error);  // no terminating 1 within the data
}

TEST(Nal, SplitsAnnexBWithThreeAndFourByteStartCodes) {
  const Bytes data = {0xaa, 0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 0, 1, 0x65, 4};
  const auto nals = SplitAnnexB(data);
  ASSERT_EQ(nals.size(), 3u);
  EXPECT_EQ(nals[0].copy(), (Bytes{0x67, 1, 2}));
  EXPECT_EQ(nals[1].copy(), (Bytes{0x68, 3}));  // trailing zeros belong to the next start code
  EXPECT_EQ(nals[2].copy(), (Bytes{0x65, 4}));
  EXPECT_TRUE(SplitAnnexB(Bytes{1, 2, 3}).empty());
}

TEST(Nal, RemovesEmulationPrevention) {
  EXPECT_EQ(RemoveEmulationPrevention(Bytes{0, 0, 3, 1, 0, 0, 3, 0, 0, 3}),
            (Bytes{0, 0, 1, 0, 0, 0, 0}));
  EXPECT_EQ(RemoveEmulationPrevention(Bytes{0, 3, 0, 0, 2}), (Bytes{0, 3, 0, 0, 2}));
}

TEST(Nal, ConvertsAnnexBToLengthPrefixedWithoutAudOrParameterSets) {
  const Bytes au = test::AnnexB({{0x09, 0xf0},
                                 Hex(test::kH264HighSps),
                                 Hex(test::kH264HighPps),
                                 {0x06, 5, 1, 0x80},
                                 {0x65, 0x88, 0x84}});
  Bytes out;
  EXPECT_EQ(AppendLengthPrefixed(Codec::kH264, au, out), 4u + 4 + 4 + 3);
  EXPECT_EQ(out, (Bytes{0, 0, 0, 4, 0x06, 5, 1, 0x80, 0, 0, 0, 3, 0x65, 0x88, 0x84}));
  EXPECT_TRUE(HasKeyframeNal(Codec::kH264, au));
  EXPECT_FALSE(HasKeyframeNal(Codec::kH264, test::AnnexB({{0x41, 0x9a}})));
  EXPECT_TRUE(HasKeyframeNal(Codec::kH265, test::AnnexB({{0x26, 0x01, 0xaf}})));  // IDR_W_RADL (19)
}

TEST(Nal, ExtractsParameterSetsFromAnnexBAndAvcC) {
  const Bytes sps = Hex(test::kH264HighSps), pps = Hex(test::kH264HighPps);
  auto sets = ExtractParameterSets(Codec::kH264, test::AnnexB({sps, pps, sps}));
  ASSERT_EQ(sets.sps.size(), 1u);  // duplicates collapse
  EXPECT_EQ(sets.sps[0], sps);
  EXPECT_EQ(sets.pps[0], pps);
  Bytes avcc = {1, 0x64, 0, 0x28, 0xff, 0xe1, 0, std::uint8_t(sps.size())};
  avcc.insert(avcc.end(), sps.begin(), sps.end());
  avcc.insert(avcc.end(), {1, 0, std::uint8_t(pps.size())});
  avcc.insert(avcc.end(), pps.begin(), pps.end());
  sets = ExtractParameterSets(Codec::kH264, avcc);
  ASSERT_EQ(sets.sps.size(), 1u);
  EXPECT_EQ(sets.sps[0], sps);
  EXPECT_EQ(sets.pps[0], pps);
  EXPECT_TRUE(ExtractParameterSets(Codec::kH264, Bytes{1, 2}).sps.empty());  // truncated avcC
}

TEST(H264Sps, High1080p) {
  const H264Sps s = ParseH264Sps(Hex(test::kH264HighSps));
  EXPECT_EQ(s.profile_idc, 100);
  EXPECT_EQ(s.level_idc, 40);
  EXPECT_EQ(s.width, 1920u);
  EXPECT_EQ(s.height, 1080u);  // 1088 coded, 8 rows cropped
  EXPECT_EQ(s.chroma_format_idc, 1u);
  EXPECT_EQ(s.bit_depth_luma, 8u);
  EXPECT_EQ(s.time_scale / (2 * s.num_units_in_tick), 30u);
  EXPECT_GE(s.max_num_reorder_frames, 1);  // x264 high: B-frames allowed
  EXPECT_EQ(H264CodecString(s), "avc1.640028");
}

TEST(H264Sps, ConstrainedBaseline360pWithCropping) {
  const H264Sps s = ParseH264Sps(Hex(test::kH264BaselineSps));
  EXPECT_EQ(s.profile_idc, 66);
  EXPECT_EQ(s.width, 640u);
  EXPECT_EQ(s.height, 360u);
  EXPECT_EQ(H264CodecString(s), "avc1.42c01e");
}

TEST(H264Sps, High422) {
  const H264Sps s = ParseH264Sps(Hex(test::kH264High422Sps));
  EXPECT_EQ(s.profile_idc, 122);
  EXPECT_EQ(s.chroma_format_idc, 2u);
  EXPECT_EQ(s.width, 1280u);
  EXPECT_EQ(s.height, 720u);
}

TEST(H264Sps, RejectsOtherNalsAndTruncation) {
  EXPECT_THROW(ParseH264Sps(Hex(test::kH264HighPps)), Error);
  const Bytes sps = Hex(test::kH264HighSps);
  for (std::size_t n = 1; n < 12; ++n)
    EXPECT_THROW(ParseH264Sps(ByteView(sps).sub(0, n)), Error) << n;
}

TEST(H265Sps, Main360p) {
  const H265Sps s = ParseH265Sps(Hex(test::kH265MainSps));
  EXPECT_EQ(s.profile_idc, 1);
  EXPECT_EQ(s.level_idc, 63);
  EXPECT_EQ(s.width, 640u);
  EXPECT_EQ(s.height, 360u);
  EXPECT_EQ(H265CodecString(s), "hvc1.1.6.L63.90");
}

TEST(H265Sps, ConformanceWindowCropping) {
  const H265Sps s = ParseH265Sps(Hex(test::kH265CropSps));
  EXPECT_EQ(s.width, 1278u);
  EXPECT_EQ(s.height, 718u);
  EXPECT_EQ(s.level_idc, 93);
}

TEST(H265Sps, Main10) {
  const H265Sps s = ParseH265Sps(Hex(test::kH265Main10Sps));
  EXPECT_EQ(s.profile_idc, 2);
  EXPECT_EQ(s.bit_depth_luma, 10u);
  EXPECT_EQ(s.width, 1920u);
  EXPECT_EQ(s.height, 1080u);
  EXPECT_EQ(H265CodecString(s), "hvc1.2.4.L120.90");
}

TEST(H265Sps, RejectsTruncation) {
  const Bytes sps = Hex(test::kH265MainSps);
  for (std::size_t n = 2; n < 20; ++n)
    EXPECT_THROW(ParseH265Sps(ByteView(sps).sub(0, n)), Error) << n;
}

TEST(CodecInfo, DerivesFromHvcCLikeAnnexBExtradata) {
  CodecInfo info;
  info.codec = Codec::kH265;
  ASSERT_TRUE(DeriveCodecDetails(
      info,
      test::AnnexB({Hex(test::kH265MainVps), Hex(test::kH265MainSps), Hex(test::kH265MainPps)})));
  EXPECT_TRUE(info.parameter_sets.complete(Codec::kH265));
  EXPECT_EQ(info.width, 640u);
  EXPECT_EQ(info.codec_string, "hvc1.1.6.L63.90");
}

TEST(Aac, ParsesAudioSpecificConfig) {
  const AacConfig lc = ParseAudioSpecificConfig(Bytes{0x11, 0x90});  // AAC-LC 48 kHz stereo
  EXPECT_EQ(lc.object_type, 2u);
  EXPECT_EQ(lc.sample_rate, 48000u);
  EXPECT_EQ(lc.channels, 2u);
  EXPECT_EQ(lc.frame_length, 1024u);
  EXPECT_EQ(AacCodecString(lc), "mp4a.40.2");
  const AacConfig he =
      ParseAudioSpecificConfig(Bytes{0x2b, 0x92, 0x08, 0x00});  // SBR 22.05→44.1 kHz
  EXPECT_EQ(he.object_type, 5u);
  EXPECT_EQ(he.extension_sample_rate, 44100u);
  EXPECT_THROW(ParseAudioSpecificConfig(Bytes{0x17}), Error);
  EXPECT_EQ(MakeAudioSpecificConfig(2, 48000, 2), (Bytes{0x11, 0x90}));
}

TEST(Aac, ParsesAdtsHeader) {
  // AAC-LC, 44.1 kHz (index 4), 2 channels, frame of 371 bytes, no CRC.
  const Bytes h = {0xff, 0xf1, 0x50, 0x80, 0x2e, 0x7f, 0xfc};
  AdtsHeader adts;
  ASSERT_TRUE(ParseAdtsHeader(h, &adts));
  EXPECT_EQ(adts.config.object_type, 2u);
  EXPECT_EQ(adts.config.sample_rate, 44100u);
  EXPECT_EQ(adts.config.channels, 2u);
  EXPECT_EQ(adts.header_size, 7u);
  EXPECT_EQ(adts.frame_size, 371u);
  EXPECT_FALSE(
      ParseAdtsHeader(Bytes{0xff, 0xf7, 0x50, 0x80, 0x2e, 0x7f, 0xfc}, &adts));  // layer != 0
  EXPECT_FALSE(ParseAdtsHeader(Bytes{0x21, 0x10}, &adts));
}

TEST(Opus, HeadAndPacketDurations) {
  const Bytes head = {'O',  'p',  'u',  's',  'H', 'e', 'a', 'd', 1, 2,
                      0x38, 0x01, 0x80, 0xbb, 0,   0,   0,   0,   0};
  OpusConfig c;
  ASSERT_TRUE(ParseOpusHead(head, &c));
  EXPECT_EQ(c.channels, 2);
  EXPECT_EQ(c.pre_skip, 312);
  EXPECT_EQ(c.input_sample_rate, 48000u);
  EXPECT_EQ(OpusPacketSamples(Bytes{0xfc}), 960u);         // CELT 20 ms, one frame
  EXPECT_EQ(OpusPacketSamples(Bytes{0xfd}), 1920u);        // two frames
  EXPECT_EQ(OpusPacketSamples(Bytes{0x0b, 0x03}), 2880u);  // SILK 20 ms, code 3 with 3 frames
  EXPECT_EQ(OpusPacketSamples(Bytes{0x03, 0x02}), 960u);   // SILK 10 ms × 2
  EXPECT_EQ(OpusPacketSamples(Bytes{0x1b, 0x03}), 0u);     // 3 × 60 ms exceeds 120 ms
  EXPECT_EQ(OpusPacketSamples(Bytes{0x03}), 0u);           // code 3 without its count byte
}

TEST(Av1, CodecStringFromAv1C) {
  EXPECT_EQ(Av1CodecString(Bytes{0x81, 0x08, 0x0c, 0x00}), "av01.0.08M.08");
  EXPECT_EQ(Av1CodecString(Bytes{0x81, 0x2d, 0xc0, 0x00}), "av01.1.13H.10");
  EXPECT_EQ(Av1CodecString(Bytes{0x01}), "");
}

}  // namespace
}  // namespace zm
