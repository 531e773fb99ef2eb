// H.264 sequence parameter set (ITU-T H.264 §7.3.2.1.1): what a muxer and a player need to know.
#pragma once

#include <cstdint>
#include <string>

#include "zm/bytes.h"

namespace zm {

struct H264Sps {
  std::uint8_t profile_idc = 0;
  std::uint8_t constraint_flags = 0;  // the byte after profile_idc (constraint_set0..5 + reserved)
  std::uint8_t level_idc = 0;
  std::uint32_t chroma_format_idc = 1;
  std::uint32_t bit_depth_luma = 8;
  std::uint32_t bit_depth_chroma = 8;
  std::uint32_t width = 0;   // after frame cropping
  std::uint32_t height = 0;  // after frame cropping
  bool frame_mbs_only = true;
  // VUI timing: fps = time_scale / (2 * num_units_in_tick); 0 when absent.
  std::uint32_t num_units_in_tick = 0;
  std::uint32_t time_scale = 0;
  // VUI bitstream_restriction max_num_reorder_frames; -1 when the SPS does not say.
  int max_num_reorder_frames = -1;
};

// Parses an SPS NAL unit (with its 1-byte NAL header, emulation prevention still in place).
// Throws zm::Error ERR_ZM_BITSTREAM when it is not an SPS or is truncated/invalid.
H264Sps ParseH264Sps(ByteView nal);

// RFC 6381 "avc1.PPCCLL" (lower-case hex of profile_idc, constraint byte, level_idc).
std::string H264CodecString(const H264Sps& sps);

}  // namespace zm
