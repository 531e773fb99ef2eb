#include "zm/opus.h"

#include <cstring>

namespace zm {

bool ParseOpusHead(ByteView d, OpusConfig* out) {
  if (d.size < 19 || std::memcmp(d.data, "OpusHead", 8) != 0) return false;
  OpusConfig c;
  c.channels = d[9];
  c.pre_skip = ReadU16Le(&d[10]);
  c.input_sample_rate = ReadU32Le(&d[12]);
  c.output_gain = std::int16_t(ReadU16Le(&d[16]));
  c.mapping_family = d[18];
  if (c.mapping_family != 0) {
    if (d.size < 21u + c.channels) return false;
    c.mapping_table = d.sub(19, 2 + c.channels).copy();
  }
  *out = c;
  return true;
}

std::uint32_t OpusPacketSamples(ByteView p) {
  if (p.empty()) return 0;
  const unsigned config = p[0] >> 3;
  // Frame size by configuration (RFC 6716 Table 2), in 48 kHz samples.
  std::uint32_t frame;
  if (config < 12) {  // SILK: 10, 20, 40, 60 ms
    static const std::uint32_t kSilk[4] = {480, 960, 1920, 2880};
    frame = kSilk[config & 3];
  } else if (config < 16) {  // Hybrid: 10, 20 ms
    frame = (config & 1) ? 960 : 480;
  } else {  // CELT: 2.5, 5, 10, 20 ms
    static const std::uint32_t kCelt[4] = {120, 240, 480, 960};
    frame = kCelt[config & 3];
  }
  std::uint32_t frames;
  switch (p[0] & 3) {
    case 0:
      frames = 1;
      break;
    case 1:
    case 2:
      frames = 2;
      break;
    default:
      if (p.size < 2) return 0;
      frames = p[1] & 0x3f;
  }
  const std::uint32_t samples = frame * frames;
  return samples > 5760 ? 0 : samples;  // 120 ms is the format's maximum
}

}  // namespace zm
