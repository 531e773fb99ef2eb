// Opus facts for MP4: the OpusHead identification header (RFC 7845 §5.1, the FFmpeg extradata) is
// rewritten as the big-endian 'dOps' box body (Opus-in-ISOBMFF §4.3.2), and packet durations
// come from the TOC byte (RFC 6716 §3.1).
#pragma once

#include <cstdint>

#include "zm/bytes.h"

namespace zm {

struct OpusConfig {
  std::uint8_t channels = 2;
  std::uint16_t pre_skip = 0;
  std::uint32_t input_sample_rate = 48000;
  std::int16_t output_gain = 0;
  std::uint8_t mapping_family = 0;
  Bytes mapping_table;  // stream count, coupled count, channel mapping (family != 0 only)
};

// Parses "OpusHead" extradata; false if absent/malformed (the caller then uses defaults).
bool ParseOpusHead(ByteView extradata, OpusConfig* out);

// Samples at 48 kHz in one Opus packet; 0 when the packet is malformed.
std::uint32_t OpusPacketSamples(ByteView packet);

}  // namespace zm
