// H.265 sequence parameter set (ITU-T H.265 §7.3.2.2): picture size after the conformance window,
// the profile_tier_level fields hvcC and the codec string need, and the reorder depth.
#pragma once

#include <cstdint>
#include <string>

#include "zm/bytes.h"

namespace zm {

struct H265Sps {
  std::uint8_t profile_space = 0;
  bool tier_flag = false;
  std::uint8_t profile_idc = 0;
  std::uint32_t profile_compatibility_flags = 0;  // flag j is bit (31 - j)
  std::uint8_t constraint_flags[6] = {};          // progressive_source_flag .. 48 bits, as bytes
  std::uint8_t level_idc = 0;
  std::uint32_t max_sub_layers = 1;
  bool temporal_id_nesting = false;
  std::uint32_t chroma_format_idc = 1;
  std::uint32_t bit_depth_luma = 8;
  std::uint32_t bit_depth_chroma = 8;
  std::uint32_t width = 0;        // after the conformance window
  std::uint32_t height = 0;       // after the conformance window
  int max_num_reorder_pics = -1;  // for the highest sub-layer
};

// Parses an SPS NAL unit (2-byte NAL header included, emulation prevention in place).
// Throws zm::Error ERR_ZM_BITSTREAM when it is not an SPS or is truncated/invalid.
H265Sps ParseH265Sps(ByteView nal);

// ISO/IEC 14496-15 Annex E: "hvc1.<space><profile>.<compat reversed hex>.<L|H><level>[.<constraint
// bytes>]".
std::string H265CodecString(const H265Sps& sps);

}  // namespace zm
