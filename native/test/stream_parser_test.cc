// The incremental parser: every fragmentation of a valid stream gives the same messages, and
// protocol violations are detected as soon as the offending byte arrives.
#include "zm/stream_parser.h"

#include <gtest/gtest.h>

#include <random>

#include "zm/error.h"

namespace zm {
namespace {

Bytes Encode(std::uint8_t type, std::uint8_t stream, std::uint32_t seq, std::uint64_t pts,
             const Bytes& payload, std::uint8_t version = 1, std::uint32_t length_override = 0) {
  proto::Header h;
  h.length = length_override ? length_override : std::uint32_t(20 + payload.size());
  h.version = version, h.type = type, h.stream = stream, h.flags = type == proto::kKeyframe ? 1 : 0;
  h.sequence = seq, h.generation = 7, h.pts_us = pts;
  Bytes out(proto::kHeaderSize);
  proto::EncodeHeader(h, out.data());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

Bytes SampleStream() {
  Bytes s;
  auto add = [&](const Bytes& m) { s.insert(s.end(), m.begin(), m.end()); };
  add(Encode(proto::kHello, 0, 0, 0, {0x01, 4, 0, 27, 0, 0, 0}));
  add(Encode(proto::kKeyframe, 0, 41, 1'000'000, Bytes(300, 0xab)));
  add(Encode(proto::kMedia, 0, 42, 0x1'0000'0000ull + 5, {}));  // empty payload, 64-bit pts
  add(Encode(proto::kStats, 0, 0, 0, Bytes(16, 0)));
  add(Encode(0x42, 2, 1, 0, {1, 2, 3}));  // unknown type: still framed
  return s;
}

void ExpectSample(const std::vector<proto::Message>& m) {
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[0].header.type, proto::kHello);
  EXPECT_EQ(m[0].payload.size, 7u);
  EXPECT_EQ(m[1].header.sequence, 41u);
  EXPECT_EQ(m[1].header.generation, 7u);
  EXPECT_TRUE(m[1].header.keyframe());
  EXPECT_EQ(m[1].payload.size, 300u);
  EXPECT_EQ(m[1].payload.data[299], 0xab);
  EXPECT_EQ(m[2].header.pts_us, 0x1'0000'0000ull + 5);
  EXPECT_EQ(m[2].payload.size, 0u);
  EXPECT_EQ(m[3].header.type, proto::kStats);
  EXPECT_EQ(m[4].header.type, 0x42);
}

TEST(StreamParser, WholeBuffer) {
  const Bytes s = SampleStream();
  StreamParser p;
  std::vector<proto::Message> out;
  p.Feed(s.data(), s.size(), out);
  ExpectSample(out);
  EXPECT_TRUE(p.AtBoundary());
}

TEST(StreamParser, SplitAtEveryByteBoundary) {
  const Bytes s = SampleStream();
  for (std::size_t cut = 0; cut <= s.size(); ++cut) {
    StreamParser p;
    std::vector<proto::Message> out;
    p.Feed(s.data(), cut, out);
    p.Feed(s.data() + cut, s.size() - cut, out);
    ExpectSample(out);
  }
}

TEST(StreamParser, OneByteAtATime) {
  const Bytes s = SampleStream();
  StreamParser p;
  std::vector<proto::Message> out;
  for (std::uint8_t b : s) {
    p.Feed(&b, 1, out);
  }
  ExpectSample(out);
}

TEST(StreamParser, DirectPayloadWindow) {
  const Bytes s = SampleStream();
  StreamParser p;
  std::vector<proto::Message> out;
  // Header of HELLO + header of KEYFRAME through Feed, then the keyframe payload via the window.
  const std::size_t hello = 24 + 7;
  p.Feed(s.data(), hello + 24, out);
  std::size_t n = 0;
  std::uint8_t* w = p.PayloadWindow(&n);
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(n, 300u);
  std::copy(s.begin() + hello + 24, s.begin() + hello + 24 + 300, w);
  p.Commit(300, out);
  EXPECT_EQ(p.PayloadWindow(&n), nullptr);
  p.Feed(s.data() + hello + 324, s.size() - hello - 324, out);
  ExpectSample(out);
}

TEST(StreamParser, OversizeLengthFailsOnTheFourthByte) {
  const Bytes bad = Encode(proto::kMedia, 0, 1, 0, {}, 1, 32u * 1024 * 1024 + 1);
  StreamParser p;
  std::vector<proto::Message> out;
  p.Feed(bad.data(), 3, out);
  try {
    p.Feed(bad.data() + 3, 1, out);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "ERR_ZM_STREAM_PROTOCOL_LENGTH");
  }
  // Dead until reset: the stream cannot be re-synchronised.
  EXPECT_THROW(p.Feed(bad.data(), 1, out), Error);
  p.Reset();
  const Bytes ok = Encode(proto::kBye, 0, 0, 0, {});
  p.Feed(ok.data(), ok.size(), out);
  EXPECT_EQ(out.size(), 1u);
}

TEST(StreamParser, UndersizeLength) {
  const Bytes bad = Encode(proto::kMedia, 0, 1, 0, {}, 1, 19);
  StreamParser p;
  std::vector<proto::Message> out;
  try {
    p.Feed(bad.data(), bad.size(), out);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "ERR_ZM_STREAM_PROTOCOL_LENGTH");
  }
}

TEST(StreamParser, BadVersionFailsOnTheFifthByte) {
  const Bytes bad = Encode(proto::kMedia, 0, 1, 0, {1, 2}, 2);
  StreamParser p;
  std::vector<proto::Message> out;
  p.Feed(bad.data(), 4, out);
  try {
    p.Feed(bad.data() + 4, 1, out);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "ERR_ZM_STREAM_PROTOCOL_VERSION");
  }
}

TEST(StreamParser, SmallerMaximum) {
  const Bytes m = Encode(proto::kMedia, 0, 1, 0, Bytes(100, 1));
  StreamParser p(100);
  std::vector<proto::Message> out;
  EXPECT_THROW(p.Feed(m.data(), m.size(), out), Error);
}

// A cheap fuzz pass (the sanitizer build makes it meaningful): random bytes in random chunks must
// either parse or throw zm::Error, never crash or over-read.
TEST(StreamParser, RandomInputNeverCrashes) {
  std::mt19937 rng(1234);
  for (int round = 0; round < 300; ++round) {
    Bytes data(1 + rng() % 400);
    for (auto& b : data) b = std::uint8_t(rng());
    if (round % 2 == 0 && data.size() >= 5) {  // make half of them plausible headers
      data[0] = std::uint8_t(20 + rng() % 60), data[1] = data[2] = data[3] = 0, data[4] = 1;
    }
    StreamParser p(1024);
    std::vector<proto::Message> out;
    try {
      std::size_t pos = 0;
      while (pos < data.size()) {
        const std::size_t n = std::min<std::size_t>(data.size() - pos, 1 + rng() % 32);
        p.Feed(data.data() + pos, n, out);
        pos += n;
      }
    } catch (const Error&) {
    }
  }
}

}  // namespace
}  // namespace zm
