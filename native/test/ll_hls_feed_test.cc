// The reader-thread path of LL-HLS: DeliveryQueue taps (and keeping media out of JS), and
// LlHlsRecordFeed routing session records into the packager.
#include "zm/ll_hls_feed.h"

#include <gtest/gtest.h>

#include <cstring>

#include "test_support.h"
#include "test_vectors.h"
#include "zm/delivery_queue.h"

namespace zm {
namespace {

using test::AnnexB;
using test::Hex;

constexpr std::uint64_t kBase = 1'700'000'000'000'000;

MediaRecord Media(StreamKind stream, std::uint64_t pts, bool key, const Bytes& data,
                  bool cached = false) {
  MediaRecord m;
  m.stream = stream;
  m.header.type = proto::kMedia;
  m.header.flags = key ? proto::kFlagKeyframe : 0;
  m.header.pts_us = pts;
  m.payload = proto::Payload::Allocate(data.size());
  std::memcpy(m.payload.data.get(), data.data(), data.size());
  m.cached = cached;
  return m;
}

CodecRecord Hello(StreamKind stream, Codec codec, Bytes extradata) {
  auto info = std::make_shared<CodecInfo>();
  info->codec = codec;
  info->extradata = std::move(extradata);
  CodecRecord r;
  r.stream = stream;
  r.codec = info;
  return r;
}

const Bytes kSps = Hex(test::kH264BaselineSps), kPps = Hex(test::kH264BaselinePps);
Bytes Key() { return AnnexB({kSps, kPps, {0x65, 0x88, 0x84, 0x21}}); }
Bytes Delta() { return AnnexB({{0x41, 0x9a, 0x02, 0x11}}); }

struct CountingTap : RecordTap {
  std::size_t media = 0, other = 0;
  void OnRecords(const std::vector<Record>& records) override {
    for (const auto& r : records) (std::holds_alternative<MediaRecord>(r) ? media : other)++;
  }
};

TEST(DeliveryQueue, TapsSeeEverythingAndMediaCanStayNative) {
  int notified = 0;
  DeliveryQueue q(1 << 20, [&] { ++notified; });
  auto tap = std::make_shared<CountingTap>();
  q.AddTap(tap);
  q.SetMediaToJs(false);
  std::vector<Record> batch;
  batch.push_back(Media(StreamKind::kVideo, kBase, true, Key()));
  batch.push_back(ConnectedRecord{1});
  q.Push(std::move(batch));
  EXPECT_EQ(tap->media, 1u);
  EXPECT_EQ(tap->other, 1u);
  auto drained = q.Drain();
  ASSERT_EQ(drained.size(), 1u) << "only the control record crosses into JS";
  EXPECT_TRUE(std::holds_alternative<ConnectedRecord>(drained[0]));

  std::vector<Record> media_only;
  media_only.push_back(Media(StreamKind::kVideo, kBase, false, Delta()));
  q.Push(std::move(media_only));
  EXPECT_EQ(notified, 1) << "nothing for JS: no wake-up";
  q.SetMediaToJs(true);
  q.RemoveTap(tap);
  std::vector<Record> again;
  again.push_back(Media(StreamKind::kVideo, kBase, false, Delta()));
  q.Push(std::move(again));
  EXPECT_EQ(tap->media, 2u);
  EXPECT_EQ(q.Drain().size(), 1u);
}

TEST(LlHlsRecordFeed, RoutesSessionRecords) {
  LlHlsPackager p;
  LlHlsRecordFeed feed(p);
  feed.Feed(ConnectedRecord{1}, 0);
  feed.Feed(Hello(StreamKind::kVideo, Codec::kH264, AnnexB({kSps, kPps})), 0);
  feed.Feed(Hello(StreamKind::kAudio, Codec::kPCMU, {}), 0);  // G.711: video-only
  EXPECT_FALSE(feed.unsupported());
  EXPECT_EQ(feed.Feed(Media(StreamKind::kVideo, kBase, true, Key(), /*cached=*/true), 0), 0u)
      << "zmc's cached keyframe";
  unsigned flags = 0;
  for (int i = 0; i < 31; ++i) {
    flags |= feed.Feed(Media(StreamKind::kVideo, kBase + std::uint64_t(i) * 1000000 / 30,
                             i % 30 == 0, i % 30 == 0 ? Key() : Delta()),
                       0);
  }
  EXPECT_TRUE(flags & LlHlsPackager::kNewInit);
  EXPECT_TRUE(flags & LlHlsPackager::kNewPart);
  EXPECT_EQ(p.segments().front().parts.size(), 5u);
  EXPECT_EQ(p.Codecs(), "avc1.42c01e");
  feed.Feed(GenerationRecord{1, 2}, 0);  // closes the open segment; the next keyframe starts init-1
  for (int i = 0; i < 2; ++i)
    feed.Feed(Media(StreamKind::kVideo, kBase + 5000000 + std::uint64_t(i) * 33333, i == 0,
                    i == 0 ? Key() : Delta()),
              0);
  EXPECT_EQ(p.Stats().init_id, 1u);

  LlHlsPackager q;
  LlHlsRecordFeed av1(q);
  av1.Feed(Hello(StreamKind::kVideo, Codec::kAV1, {}), 0);
  EXPECT_TRUE(av1.unsupported());
  EXPECT_FALSE(MuxTrackFromCodec(CodecInfo{}).has_value());
}

}  // namespace
}  // namespace zm
