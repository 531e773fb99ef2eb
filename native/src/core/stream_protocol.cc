#include "zm/stream_protocol.h"

namespace zm::proto {

Header DecodeHeader(const std::uint8_t* p) {
  Header h;
  h.length = ReadU32Le(p);
  h.version = p[4];
  h.type = p[5];
  h.stream = p[6];
  h.flags = p[7];
  h.sequence = ReadU32Le(p + 8);
  h.generation = ReadU32Le(p + 12);
  h.pts_us = ReadU64Le(p + 16);
  return h;
}

void EncodeHeader(const Header& h, std::uint8_t* p) {
  auto le32 = [](std::uint8_t* q, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) q[i] = std::uint8_t(v >> (8 * i));
  };
  le32(p, h.length);
  p[4] = h.version, p[5] = h.type, p[6] = h.stream, p[7] = h.flags;
  le32(p + 8, h.sequence);
  le32(p + 12, h.generation);
  le32(p + 16, std::uint32_t(h.pts_us));
  le32(p + 20, std::uint32_t(h.pts_us >> 32));
}

}  // namespace zm::proto
