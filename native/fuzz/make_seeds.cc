// Writes seed inputs for the fuzz targets: synthetic MP4s in every layout the demuxer tests use
// (progressive moov first/last, co64 + largesize, stz2, fragmented with per-sample values or
// defaults) and protocol byte streams (HELLO video/audio, MEDIA, KEYFRAME, STATS, EVENT, BYE).
// Usage: make_seeds <mp4 dir> <stream dir>
#include <cstdio>
#include <string>
#include <vector>

#include "mp4_builder.h"
#include "test_support.h"
#include "test_vectors.h"
#include "zm/stream_protocol.h"

namespace {

using namespace zm;

void Write(const std::string& path, const Bytes& bytes) {
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
}

test::SynthTrack Video(int frames, int nal_length = 4) {
  test::SynthTrack t;
  t.config = test::MakeAvcC(test::Hex(test::kH264BaselineSps), test::Hex(test::kH264BaselinePps),
                            nal_length);
  for (int i = 0; i < frames; ++i) {
    const bool key = i % 5 == 0;
    const Bytes nal =
        key ? Bytes{0x65, 0x88, 0x84, std::uint8_t(i)} : Bytes{0x41, 0x9a, std::uint8_t(i)};
    t.samples.push_back({test::LengthPrefixed(nal, nal_length), 3000, i % 3 == 1 ? 6000 : 0, key});
  }
  return t;
}

test::SynthTrack Audio(int frames) {
  test::SynthTrack t;
  t.video = false, t.timescale = 48000, t.config = {0x11, 0x90};
  for (int i = 0; i < frames; ++i)
    t.samples.push_back({Bytes{0x21, std::uint8_t(i)}, 1024, 0, true});
  return t;
}

Bytes Message(std::uint8_t type, std::uint8_t stream, std::uint8_t flags, std::uint32_t seq,
              std::uint64_t pts, const Bytes& payload) {
  Bytes out(proto::kHeaderSize);
  proto::Header h;
  h.length = std::uint32_t(proto::kMinLength + payload.size());
  h.version = proto::kVersion, h.type = type, h.stream = stream, h.flags = flags;
  h.sequence = seq, h.generation = 1, h.pts_us = pts;
  proto::EncodeHeader(h, out.data());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

Bytes Tlv(std::uint8_t tag, const Bytes& v) {
  Bytes out{tag, std::uint8_t(v.size()), std::uint8_t(v.size() >> 8)};
  out.insert(out.end(), v.begin(), v.end());
  return out;
}

Bytes U32(std::uint32_t v) {
  return {std::uint8_t(v), std::uint8_t(v >> 8), std::uint8_t(v >> 16), std::uint8_t(v >> 24)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_seeds <mp4 dir> <stream dir>\n");
    return 2;
  }
  const std::string mp4 = argv[1], stream = argv[2];
  const std::vector<test::SynthTrack> av{Video(12), Audio(18)};
  test::ProgressiveOptions o;
  Write(mp4 + "/moov-first.mp4", test::BuildProgressive(av, o));
  o.moov_first = false;
  Write(mp4 + "/moov-last.mp4", test::BuildProgressive(av, o));
  o.co64 = true, o.largesize_mdat = true, o.stz2 = true, o.samples_per_chunk = 4;
  Write(mp4 + "/co64-largesize-stz2.mp4", test::BuildProgressive(av, o));
  Write(mp4 + "/nal2.mp4", test::BuildProgressive({Video(6, 2)}));
  Write(mp4 + "/fragmented.mp4", test::BuildFragmented(av));
  test::FragmentOptions fo;
  fo.use_defaults = true, fo.explicit_base = true, fo.samples_per_fragment = 5;
  test::SynthTrack same = Video(10);
  for (auto& s : same.samples) s.data = test::LengthPrefixed({0x65, 0x88, 0x84, 1}), s.cto = 0;
  Write(mp4 + "/fragmented-defaults.mp4", test::BuildFragmented({same}, fo));

  const Bytes sps = test::Hex(test::kH264BaselineSps), pps = test::Hex(test::kH264BaselinePps);
  const Bytes key = test::AnnexB({sps, pps, {0x65, 0x88, 0x84, 0x21}});
  const Bytes delta = test::AnnexB({{0x41, 0x9a, 0x02}});
  Bytes s;
  auto add = [&](const Bytes& m) { s.insert(s.end(), m.begin(), m.end()); };
  Bytes hello = Tlv(1, U32(27));
  const Bytes extra = test::AnnexB({sps, pps});
  const Bytes more = Tlv(2, extra);
  hello.insert(hello.end(), more.begin(), more.end());
  for (const Bytes& t : {Tlv(3, U32(640)), Tlv(4, U32(360)), Tlv(5, U32(30)), Tlv(6, U32(1))})
    hello.insert(hello.end(), t.begin(), t.end());
  add(Message(proto::kHello, 0, 0, 0, 0, hello));
  Bytes ahello = Tlv(1, U32(86018));
  for (const Bytes& t : {Tlv(2, {0x11, 0x90}), Tlv(7, U32(48000)), Tlv(8, U32(2))})
    ahello.insert(ahello.end(), t.begin(), t.end());
  add(Message(proto::kHello, 1, 0, 0, 0, ahello));
  Bytes event{0x01, 0x00};
  for (const Bytes& t : {Tlv(6, {'I', 'D', 'L', 'E'}), Tlv(3, U32(1)), Tlv(0x10, {'{', '}'})})
    event.insert(event.end(), t.begin(), t.end());
  add(Message(proto::kEvent, 2, 0, 0, 0, event));
  add(Message(proto::kKeyframe, 0, 1, 0, 1000, key));
  add(Message(proto::kMedia, 0, 1, 1, 33000, key));
  add(Message(proto::kMedia, 1, 0, 0, 34000, {0x21, 0x10, 0x04}));
  add(Message(proto::kMedia, 0, 0, 3, 66000, delta));  // a sequence gap
  Bytes stats(16, 0);
  stats[0] = 9;
  add(Message(proto::kStats, 0, 0, 0, 0, stats));
  add(Message(proto::kBye, 0, 0, 0, 0, {}));
  Bytes seeded{0x00};
  seeded.insert(seeded.end(), s.begin(), s.end());
  Write(stream + "/session.bin", seeded);
  seeded[0] = 0xff;
  Write(stream + "/session-window.bin", seeded);
  return 0;
}
