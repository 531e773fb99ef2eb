// AAC configuration: AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1), which a stream-socket HELLO
// carries as extradata and esds needs, and the 7/9-byte ADTS header, from which an ASC can be
// rebuilt when a source only sends ADTS.
#pragma once

#include <cstdint>
#include <string>

#include "zm/bytes.h"

namespace zm {

struct AacConfig {
  std::uint32_t object_type = 0;  // 2 = AAC-LC, 5 = SBR (HE-AAC), 29 = PS (HE-AACv2)
  std::uint32_t sample_rate = 0;  // core sampling rate
  std::uint32_t channels = 0;     // from channelConfiguration (7 means 8 channels)
  std::uint32_t channel_config = 0;
  std::uint32_t frame_length = 1024;  // samples per frame at the core rate (960 if frameLengthFlag)
  std::uint32_t extension_sample_rate = 0;  // SBR output rate when explicitly signalled
};

// Throws zm::Error ERR_ZM_BITSTREAM when truncated or using a reserved sampling index.
AacConfig ParseAudioSpecificConfig(ByteView asc);

struct AdtsHeader {
  AacConfig config;
  std::uint32_t header_size = 7;  // 9 with CRC
  std::uint32_t frame_size = 0;   // header + payload
};

// Parses an ADTS header at the start of `data`; false when there is none (no 0xFFF sync, layer
// not 0, reserved sampling index, or a frame length shorter than the header).
bool ParseAdtsHeader(ByteView data, AdtsHeader* out);

// A 2-byte AudioSpecificConfig for AAC object types 1–4 (what ADTS can express).
Bytes MakeAudioSpecificConfig(std::uint32_t object_type, std::uint32_t sample_rate,
                              std::uint32_t channel_config);

// RFC 6381 "mp4a.40.<object type>".
std::string AacCodecString(const AacConfig& config);

}  // namespace zm
