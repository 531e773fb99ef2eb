// Session logic: HELLO decoding, sequence gaps, generation bumps, keyframe cache, EVENT/STATS.
#include "zm/stream_session.h"

#include <gtest/gtest.h>

#include "test_support.h"
#include "test_vectors.h"
#include "zm/error.h"

namespace zm {
namespace {

using test::Hex;

void Tlv(Bytes& out, std::uint8_t tag, const Bytes& v) {
  out.push_back(tag);
  out.push_back(std::uint8_t(v.size())), out.push_back(std::uint8_t(v.size() >> 8));
  out.insert(out.end(), v.begin(), v.end());
}
Bytes U32(std::uint32_t v) {
  return {std::uint8_t(v), std::uint8_t(v >> 8), std::uint8_t(v >> 16), std::uint8_t(v >> 24)};
}

proto::Message Msg(std::uint8_t type, std::uint8_t stream, std::uint32_t seq, std::uint32_t gen,
                   const Bytes& payload, std::uint8_t flags = 0, std::uint64_t pts = 0) {
  proto::Message m;
  m.header.length = std::uint32_t(20 + payload.size());
  m.header.version = 1, m.header.type = type, m.header.stream = stream, m.header.flags = flags;
  m.header.sequence = seq, m.header.generation = gen, m.header.pts_us = pts;
  m.payload = proto::Payload::Allocate(payload.size());
  std::copy(payload.begin(), payload.end(), m.payload.data.get());
  return m;
}

Bytes VideoHello() {
  Bytes p;
  Tlv(p, 0x01, U32(27));
  Tlv(p, 0x02, test::AnnexB({Hex(test::kH264HighSps), Hex(test::kH264HighPps)}));
  Tlv(p, 0x03, U32(1920));
  Tlv(p, 0x04, U32(1088));  // what a demuxer may say before cropping; the SPS wins
  Tlv(p, 0x7f, {1, 2, 3});  // unknown tag: skipped
  return p;
}

TEST(StreamSession, HelloGivesCodecDetails) {
  StreamSession s;
  std::vector<Record> out;
  s.Process(Msg(proto::kHello, 0, 0, 1, VideoHello()), out);
  ASSERT_EQ(out.size(), 1u);
  const auto& c = std::get<CodecRecord>(out[0]);
  EXPECT_EQ(c.codec->codec, Codec::kH264);
  EXPECT_EQ(c.codec->width, 1920u);
  EXPECT_EQ(c.codec->height, 1080u);
  EXPECT_EQ(c.codec->codec_string, "avc1.640028");
  EXPECT_FALSE(c.in_band);
}

TEST(StreamSession, MalformedHelloIsFatal) {
  StreamSession s;
  std::vector<Record> out;
  Bytes p;
  Tlv(p, 0x03, U32(1920));  // no codec_id
  try {
    s.Process(Msg(proto::kHello, 0, 0, 1, p), out);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "ERR_ZM_STREAM_PROTOCOL_HELLO");
  }
  EXPECT_THROW(s.Process(Msg(proto::kHello, 0, 0, 1, {0x01, 9, 0, 1}), out), Error);  // TLV overrun
}

TEST(StreamSession, GapsCountDroppedMessagesButNotTheCachedKeyframe) {
  StreamSession s;
  std::vector<Record> out;
  s.OnConnect();
  s.Process(Msg(proto::kHello, 0, 0, 1, VideoHello()), out);
  s.Process(Msg(proto::kKeyframe, 0, 100, 1, {0, 0, 1, 0x65}, 1), out);  // old sequence
  s.Process(Msg(proto::kMedia, 0, 130, 1, {0, 0, 1, 0x41}), out);        // baseline
  s.Process(Msg(proto::kMedia, 0, 131, 1, {0, 0, 1, 0x41}), out);
  s.Process(Msg(proto::kMedia, 0, 135, 1, {0, 0, 1, 0x41}), out);  // 132..134 dropped
  ASSERT_EQ(out.size(), 5u);
  EXPECT_TRUE(std::get<MediaRecord>(out[1]).cached);
  EXPECT_EQ(std::get<MediaRecord>(out[1]).gap, 0u);
  EXPECT_EQ(std::get<MediaRecord>(out[2]).gap, 0u);
  EXPECT_EQ(std::get<MediaRecord>(out[3]).gap, 0u);
  EXPECT_EQ(std::get<MediaRecord>(out[4]).gap, 3u);
  EXPECT_EQ(s.Counters().lost, 3u);
  // The keyframe cache holds its own copy.
  auto k = s.LatestKeyframe();
  ASSERT_TRUE(k);
  EXPECT_EQ(k->header.sequence, 100u);
  EXPECT_EQ(k->data, (Bytes{0, 0, 1, 0x65}));
}

TEST(StreamSession, GenerationBumpResetsState) {
  StreamSession s;
  std::vector<Record> out;
  s.Process(Msg(proto::kHello, 0, 0, 1, VideoHello()), out);
  s.Process(Msg(proto::kMedia, 0, 5, 1, {0, 0, 1, 0x65}, 1), out);
  ASSERT_TRUE(s.LatestKeyframe());
  out.clear();
  s.Process(Msg(proto::kHello, 0, 0, 2, VideoHello()), out);
  ASSERT_EQ(out.size(), 2u);
  const auto& g = std::get<GenerationRecord>(out[0]);
  EXPECT_EQ(g.previous, 1u);
  EXPECT_EQ(g.current, 2u);
  EXPECT_FALSE(s.LatestKeyframe());
  out.clear();
  s.Process(Msg(proto::kMedia, 0, 0, 2, {0, 0, 1, 0x41}), out);  // sequences restart: no gap
  EXPECT_EQ(std::get<MediaRecord>(out[0]).gap, 0u);
  EXPECT_EQ(s.Counters().generations, 1u);
}

TEST(StreamSession, LearnsParameterSetsFromTheFirstKeyframe) {
  StreamSession s;
  std::vector<Record> out;
  Bytes hello;
  Tlv(hello, 0x01, U32(173));  // H.265, no extradata
  s.Process(Msg(proto::kHello, 0, 0, 1, hello), out);
  EXPECT_FALSE(std::get<CodecRecord>(out[0]).codec->from_bitstream);
  const Bytes au = test::AnnexB(
      {Hex(test::kH265MainVps), Hex(test::kH265MainSps), Hex(test::kH265MainPps), {0x26, 1, 0xaf}});
  s.Process(Msg(proto::kMedia, 0, 1, 1, au, 1), out);
  ASSERT_EQ(out.size(), 3u);
  const auto& c = std::get<CodecRecord>(out[1]);
  EXPECT_TRUE(c.in_band);
  EXPECT_EQ(c.codec->width, 640u);
  EXPECT_EQ(c.codec->codec_string, "hvc1.1.6.L63.90");
  EXPECT_TRUE(std::holds_alternative<MediaRecord>(out[2]));
}

TEST(StreamSession, LearnsAacConfigFromAdts) {
  StreamSession s;
  std::vector<Record> out;
  Bytes hello;
  Tlv(hello, 0x01, U32(86018));
  s.Process(Msg(proto::kHello, 1, 0, 1, hello), out);
  Bytes frame = {0xff, 0xf1, 0x4c, 0x80, 0x01, 0x3f, 0xfc};  // LC 48 kHz stereo, 9-byte frame
  frame.insert(frame.end(), {0x21, 0x10});
  s.Process(Msg(proto::kMedia, 1, 1, 1, frame), out);
  ASSERT_EQ(out.size(), 3u);
  const auto& c = std::get<CodecRecord>(out[1]);
  EXPECT_EQ(c.codec->sample_rate, 48000u);
  EXPECT_EQ(c.codec->channels, 2u);
  EXPECT_EQ(c.codec->codec_string, "mp4a.40.2");
}

TEST(StreamSession, EventsStatsByeAndUnknown) {
  StreamSession s;
  std::vector<Record> out;
  Bytes ev = {0x01, 0x02};  // state_changed
  Tlv(ev, 0x01, {1, 0, 0, 0, 0, 0, 0, 0});
  Tlv(ev, 0x03, U32(2));
  Tlv(ev, 0x06, {'A', 'L', 'A', 'R', 'M'});
  Tlv(ev, 0x07, {3, 0});
  s.Process(Msg(proto::kEvent, 2, 9, 1, ev), out);
  s.Process(Msg(proto::kEvent, 2, 10, 1, {0x01}), out);  // malformed: skipped
  Bytes bad_ev = {0x01, 0x02};
  Tlv(bad_ev, 0x03, {1, 2});  // wrong-sized state_id
  s.Process(Msg(proto::kEvent, 2, 11, 1, bad_ev), out);
  Bytes stats(16, 0);
  stats[0] = 10, stats[8] = 2;
  s.Process(Msg(proto::kStats, 0, 0, 1, stats), out);
  s.Process(Msg(0x11, 2, 0, 0, {'{', '}'}), out);  // control extension: skipped
  s.Process(Msg(proto::kBye, 0, 0, 1, {}), out);
  ASSERT_EQ(out.size(), 3u);
  const auto& e = std::get<EventRecord>(out[0]);
  EXPECT_EQ(e.sequence, 9u);
  EXPECT_EQ(e.event.code, 0x0201);
  EXPECT_EQ(*e.event.wall_clock_us, 1u);
  EXPECT_EQ(*e.event.state_id, 2u);
  EXPECT_EQ(*e.event.state_name, "ALARM");
  EXPECT_EQ(*e.event.health_code, 3);
  EXPECT_EQ(std::get<StatsRecord>(out[1]).stats.messages_sent, 10u);
  EXPECT_EQ(std::get<StatsRecord>(out[1]).stats.messages_dropped, 2u);
  EXPECT_TRUE(std::holds_alternative<ByeRecord>(out[2]));
  EXPECT_EQ(s.Counters().malformed_events, 2u);
  EXPECT_EQ(s.Counters().unknown, 1u);
}

}  // namespace
}  // namespace zm
