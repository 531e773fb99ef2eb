#include "zm/h265_sps.h"

#include <cstdio>

#include "zm/bit_reader.h"
#include "zm/error.h"
#include "zm/nal.h"

namespace zm {

namespace {

// profile_tier_level(1, max_sub_layers_minus1), §7.3.3: general part kept, sub-layers skipped.
void ParseProfileTierLevel(BitReader& r, H265Sps& sps) {
  sps.profile_space = std::uint8_t(r.Bits(2));
  sps.tier_flag = r.Flag();
  sps.profile_idc = std::uint8_t(r.Bits(5));
  sps.profile_compatibility_flags = r.Bits(32);
  for (auto& b : sps.constraint_flags) b = std::uint8_t(r.Bits(8));
  sps.level_idc = std::uint8_t(r.Bits(8));
  const std::uint32_t sub_layers = sps.max_sub_layers - 1;
  bool profile_present[8] = {}, level_present[8] = {};
  for (std::uint32_t i = 0; i < sub_layers; ++i) {
    profile_present[i] = r.Flag();
    level_present[i] = r.Flag();
  }
  if (sub_layers > 0) r.Skip(2 * (8 - sub_layers));  // reserved_zero_2bits
  for (std::uint32_t i = 0; i < sub_layers; ++i) {
    if (profile_present[i]) r.Skip(88);
    if (level_present[i]) r.Skip(8);
  }
}

}  // namespace

H265Sps ParseH265Sps(ByteView nal) {
  if (nal.size < 2 || H265NalType(nal[0]) != h265::kNalSps) {
    throw Error("ERR_ZM_BITSTREAM", "not an H.265 SPS NAL unit");
  }
  const Bytes rbsp = RemoveEmulationPrevention(nal.sub(2));
  BitReader r(rbsp);
  H265Sps sps;
  r.Skip(4);  // sps_video_parameter_set_id
  sps.max_sub_layers = r.Bits(3) + 1;
  if (sps.max_sub_layers > 7) throw Error("ERR_ZM_BITSTREAM", "H.265 sps_max_sub_layers > 7");
  sps.temporal_id_nesting = r.Flag();
  ParseProfileTierLevel(r, sps);
  r.Ue();  // sps_seq_parameter_set_id
  sps.chroma_format_idc = r.Ue();
  if (sps.chroma_format_idc > 3) throw Error("ERR_ZM_BITSTREAM", "H.265 chroma_format_idc > 3");
  bool separate_colour_plane = false;
  if (sps.chroma_format_idc == 3) separate_colour_plane = r.Flag();
  const std::uint32_t w = r.Ue(), h = r.Ue();
  std::uint32_t left = 0, right = 0, top = 0, bottom = 0;
  if (r.Flag()) left = r.Ue(), right = r.Ue(), top = r.Ue(), bottom = r.Ue();
  sps.bit_depth_luma = r.Ue() + 8;
  sps.bit_depth_chroma = r.Ue() + 8;
  // Conformance window offsets are in chroma sample units (Table 6-1).
  const std::uint32_t chroma = separate_colour_plane ? 0 : sps.chroma_format_idc;
  const std::uint64_t sub_w = (chroma == 1 || chroma == 2) ? 2 : 1;
  const std::uint64_t sub_h = chroma == 1 ? 2 : 1;
  const std::uint64_t crop_w = sub_w * (std::uint64_t(left) + right);
  const std::uint64_t crop_h = sub_h * (std::uint64_t(top) + bottom);
  if (w == 0 || h == 0 || w > 16888 || h > 16888 || crop_w >= w || crop_h >= h) {
    throw Error("ERR_ZM_BITSTREAM", "H.265 SPS has an impossible picture size");
  }
  sps.width = std::uint32_t(w - crop_w);
  sps.height = std::uint32_t(h - crop_h);
  try {
    r.Ue();                            // log2_max_pic_order_cnt_lsb_minus4
    const bool all_layers = r.Flag();  // sps_sub_layer_ordering_info_present_flag
    for (std::uint32_t i = all_layers ? 0 : sps.max_sub_layers - 1; i < sps.max_sub_layers; ++i) {
      r.Ue();  // sps_max_dec_pic_buffering_minus1
      sps.max_num_reorder_pics = int(r.Ue());
      r.Ue();  // sps_max_latency_increase_plus1
    }
  } catch (const Error&) {
    sps.max_num_reorder_pics = -1;  // optional hint only
  }
  return sps;
}

std::string H265CodecString(const H265Sps& sps) {
  // The compatibility flags are printed with their bit order reversed (flag 0 becomes bit 0).
  std::uint32_t reversed = 0;
  for (int i = 0; i < 32; ++i) {
    if (sps.profile_compatibility_flags & (1u << i)) reversed |= 1u << (31 - i);
  }
  static const char* const kSpace[] = {"", "A", "B", "C"};
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "hvc1.%s%u.%X.%c%u", kSpace[sps.profile_space & 3],
                        sps.profile_idc, reversed, sps.tier_flag ? 'H' : 'L', sps.level_idc);
  // Constraint bytes follow, each in hex; trailing zero bytes are omitted.
  int last = 5;
  while (last >= 0 && sps.constraint_flags[last] == 0) --last;
  for (int i = 0; i <= last && n > 0 && std::size_t(n) < sizeof buf; ++i) {
    n += std::snprintf(buf + n, sizeof buf - n, ".%X", sps.constraint_flags[i]);
  }
  return buf;
}

}  // namespace zm
