#include "zm/av1_config.h"

#include <cstdio>

namespace zm {

std::string Av1CodecString(ByteView c) {
  // Byte 0: marker(1)=1, version(7)=1. Byte 1: seq_profile(3), seq_level_idx_0(5).
  // Byte 2: seq_tier_0, high_bitdepth, twelve_bit, monochrome, subsampling x/y, position(2).
  if (c.size < 4 || c[0] != 0x81) return "";
  const unsigned profile = c[1] >> 5, level = c[1] & 0x1f;
  const bool tier = c[2] & 0x80, high = c[2] & 0x40, twelve = c[2] & 0x20;
  const unsigned depth = high ? (twelve ? 12 : 10) : 8;
  char buf[32];
  std::snprintf(buf, sizeof buf, "av01.%u.%02u%c.%02u", profile, level, tier ? 'H' : 'M', depth);
  return buf;
}

}  // namespace zm
