#include "zm/aac.h"

#include "zm/bit_reader.h"
#include "zm/error.h"

namespace zm {

namespace {

constexpr std::uint32_t kSampleRates[13] = {96000, 88200, 64000, 48000, 44100, 32000, 24000,
                                            22050, 16000, 12000, 11025, 8000,  7350};

std::uint32_t ReadObjectType(BitReader& r) {
  const std::uint32_t t = r.Bits(5);
  return t == 31 ? 32 + r.Bits(6) : t;
}

std::uint32_t ReadSampleRate(BitReader& r) {
  const std::uint32_t index = r.Bits(4);
  if (index == 15) return r.Bits(24);
  if (index >= 13) throw Error("ERR_ZM_BITSTREAM", "AAC sampling frequency index is reserved");
  return kSampleRates[index];
}

std::uint32_t ChannelsFromConfig(std::uint32_t config) { return config == 7 ? 8 : config; }

}  // namespace

AacConfig ParseAudioSpecificConfig(ByteView asc) {
  BitReader r(asc);
  AacConfig c;
  c.object_type = ReadObjectType(r);
  c.sample_rate = ReadSampleRate(r);
  c.channel_config = r.Bits(4);
  c.channels = ChannelsFromConfig(c.channel_config);
  if (c.object_type == 5 || c.object_type == 29) {
    // Explicit hierarchical SBR/PS signalling: the output rate, then the core object type.
    c.extension_sample_rate = ReadSampleRate(r);
    const std::uint32_t core = ReadObjectType(r);
    if (core == 22) r.Skip(4);  // extensionChannelConfiguration (ER BSAC)
  }
  // GASpecificConfig starts with frameLengthFlag for the GA object types (1–4, 6, 7, 17, 19–23).
  const std::uint32_t t = c.object_type == 5 || c.object_type == 29 ? 2 : c.object_type;
  if ((t >= 1 && t <= 4) || t == 6 || t == 7 || t == 17 || (t >= 19 && t <= 23)) {
    if (r.BitsLeft() >= 1 && r.Flag()) c.frame_length = 960;
  }
  return c;
}

bool ParseAdtsHeader(ByteView d, AdtsHeader* out) {
  if (d.size < 7 || d[0] != 0xff || (d[1] & 0xf6) != 0xf0) return false;  // sync + layer 0
  const bool protection_absent = d[1] & 1;
  const std::uint32_t profile = d[2] >> 6;
  const std::uint32_t rate_index = (d[2] >> 2) & 0x0f;
  const std::uint32_t channel_config = ((d[2] & 1) << 2) | (d[3] >> 6);
  const std::uint32_t frame_size = ((d[3] & 3u) << 11) | (std::uint32_t(d[4]) << 3) | (d[5] >> 5);
  const std::uint32_t header_size = protection_absent ? 7 : 9;
  if (rate_index >= 13 || frame_size < header_size) return false;
  out->config = AacConfig{};
  out->config.object_type = profile + 1;
  out->config.sample_rate = kSampleRates[rate_index];
  out->config.channel_config = channel_config;
  out->config.channels = ChannelsFromConfig(channel_config);
  out->header_size = header_size;
  out->frame_size = frame_size;
  return true;
}

Bytes MakeAudioSpecificConfig(std::uint32_t object_type, std::uint32_t sample_rate,
                              std::uint32_t channel_config) {
  std::uint32_t index = 15;
  for (std::uint32_t i = 0; i < 13; ++i) {
    if (kSampleRates[i] == sample_rate) index = i;
  }
  if (object_type < 1 || object_type > 4 || index == 15 || channel_config > 7) {
    throw Error("ERR_ZM_BITSTREAM", "cannot express this AAC configuration in 2 bytes");
  }
  const std::uint32_t v = (object_type << 11) | (index << 7) | (channel_config << 3);
  return {std::uint8_t(v >> 8), std::uint8_t(v)};
}

std::string AacCodecString(const AacConfig& config) {
  return "mp4a.40." + std::to_string(config.object_type);
}

}  // namespace zm
