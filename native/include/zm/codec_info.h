// What a consumer knows about one elementary stream: the HELLO fields as sent, plus details
// derived from the bitstream (picture size after cropping, profile/level, RFC 6381 codec string).
#pragma once

#include <cstdint>
#include <string>

#include "zm/bytes.h"
#include "zm/codec.h"
#include "zm/nal.h"

namespace zm {

struct CodecInfo {
  std::uint32_t codec_id = 0;  // FFmpeg AVCodecID as sent
  Codec codec = Codec::kUnknown;
  Bytes extradata;
  // HELLO TLVs; 0 (or -1 for profile/level) when not sent.
  std::uint32_t width = 0, height = 0, fps_num = 0, fps_den = 0, sample_rate = 0, channels = 0;
  std::int64_t profile = -1, level = -1;

  // Derived.
  std::string codec_string;  // e.g. "avc1.640028", "hvc1.1.6.L93.B0", "mp4a.40.2", "opus"
  ParameterSets parameter_sets;
  std::uint32_t bit_depth = 0;
  int reorder_depth = -1;       // frames of B-frame reordering (from the SPS), -1 unknown
  bool from_bitstream = false;  // width/height/codec_string come from an SPS or ASC
  std::uint32_t aac_object_type = 0;
  std::uint32_t frame_samples = 0;  // AAC samples per frame (1024/960)
};

// Fills the derived fields from `bitstream`: extradata (Annex B, avcC, hvcC, ASC, OpusHead, av1C)
// or, for video, an access unit that carries in-band parameter sets. Returns true if the video
// parameter sets were found (audio: if the config parsed). Never throws on bad input.
bool DeriveCodecDetails(CodecInfo& info, ByteView bitstream);

}  // namespace zm
