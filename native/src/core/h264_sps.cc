#include "zm/h264_sps.h"

#include <cstdio>

#include "zm/bit_reader.h"
#include "zm/error.h"
#include "zm/nal.h"

namespace zm {

namespace {

bool HasChromaInfo(unsigned profile) {
  switch (profile) {
    case 100:
    case 110:
    case 122:
    case 244:
    case 44:
    case 83:
    case 86:
    case 118:
    case 128:
    case 138:
    case 139:
    case 134:
    case 135:
      return true;
    default:
      return false;
  }
}

void SkipScalingList(BitReader& r, int size) {
  int last = 8, next = 8;
  for (int j = 0; j < size; ++j) {
    if (next != 0) next = (last + r.Se() + 256) % 256;
    last = next == 0 ? last : next;
  }
}

void SkipHrd(BitReader& r) {
  const std::uint32_t cpb_cnt = r.Ue() + 1;
  if (cpb_cnt > 32) throw Error("ERR_ZM_BITSTREAM", "H.264 HRD cpb_cnt out of range");
  r.Skip(8);  // bit_rate_scale, cpb_size_scale
  for (std::uint32_t i = 0; i < cpb_cnt; ++i) {
    r.Ue(), r.Ue(), r.Skip(1);
  }
  r.Skip(20);  // four 5-bit delay/offset lengths
}

// VUI (Annex E.1.1): only timing and the reorder depth are kept.
void ParseVui(BitReader& r, H264Sps& sps) {
  if (r.Flag()) {                      // aspect_ratio_info_present_flag
    if (r.Bits(8) == 255) r.Skip(32);  // Extended_SAR: sar_width, sar_height
  }
  if (r.Flag()) r.Skip(1);     // overscan_info_present → overscan_appropriate
  if (r.Flag()) {              // video_signal_type_present
    r.Skip(4);                 // video_format, video_full_range
    if (r.Flag()) r.Skip(24);  // colour primaries, transfer, matrix
  }
  if (r.Flag()) r.Ue(), r.Ue();  // chroma_loc_info
  if (r.Flag()) {                // timing_info_present
    sps.num_units_in_tick = r.Bits(32);
    sps.time_scale = r.Bits(32);
    r.Skip(1);  // fixed_frame_rate_flag
  }
  const bool nal_hrd = r.Flag();
  if (nal_hrd) SkipHrd(r);
  const bool vcl_hrd = r.Flag();
  if (vcl_hrd) SkipHrd(r);
  if (nal_hrd || vcl_hrd) r.Skip(1);  // low_delay_hrd_flag
  r.Skip(1);                          // pic_struct_present_flag
  if (r.Flag()) {                     // bitstream_restriction_flag
    r.Skip(1);
    r.Ue(), r.Ue(), r.Ue(), r.Ue();
    sps.max_num_reorder_frames = int(r.Ue());
  }
}

}  // namespace

H264Sps ParseH264Sps(ByteView nal) {
  if (nal.empty() || H264NalType(nal[0]) != h264::kNalSps) {
    throw Error("ERR_ZM_BITSTREAM", "not an H.264 SPS NAL unit");
  }
  const Bytes rbsp = RemoveEmulationPrevention(nal.sub(1));
  BitReader r(rbsp);
  H264Sps sps;
  sps.profile_idc = std::uint8_t(r.Bits(8));
  sps.constraint_flags = std::uint8_t(r.Bits(8));
  sps.level_idc = std::uint8_t(r.Bits(8));
  r.Ue();  // seq_parameter_set_id
  bool separate_colour_plane = false;
  if (HasChromaInfo(sps.profile_idc)) {
    sps.chroma_format_idc = r.Ue();
    if (sps.chroma_format_idc > 3) throw Error("ERR_ZM_BITSTREAM", "H.264 chroma_format_idc > 3");
    if (sps.chroma_format_idc == 3) separate_colour_plane = r.Flag();
    sps.bit_depth_luma = r.Ue() + 8;
    sps.bit_depth_chroma = r.Ue() + 8;
    r.Skip(1);       // qpprime_y_zero_transform_bypass_flag
    if (r.Flag()) {  // seq_scaling_matrix_present_flag
      const int lists = sps.chroma_format_idc != 3 ? 8 : 12;
      for (int i = 0; i < lists; ++i) {
        if (r.Flag()) SkipScalingList(r, i < 6 ? 16 : 64);
      }
    }
  }
  r.Ue();  // log2_max_frame_num_minus4
  const std::uint32_t poc_type = r.Ue();
  if (poc_type == 0) {
    r.Ue();  // log2_max_pic_order_cnt_lsb_minus4
  } else if (poc_type == 1) {
    r.Skip(1);
    r.Se(), r.Se();
    const std::uint32_t cycle = r.Ue();
    if (cycle > 255) throw Error("ERR_ZM_BITSTREAM", "H.264 POC cycle too long");
    for (std::uint32_t i = 0; i < cycle; ++i) r.Se();
  }
  r.Ue();     // max_num_ref_frames
  r.Skip(1);  // gaps_in_frame_num_value_allowed_flag
  const std::uint32_t width_mbs = r.Ue() + 1;
  const std::uint32_t height_map_units = r.Ue() + 1;
  sps.frame_mbs_only = r.Flag();
  if (!sps.frame_mbs_only) r.Skip(1);  // mb_adaptive_frame_field_flag
  r.Skip(1);                           // direct_8x8_inference_flag
  std::uint32_t crop_left = 0, crop_right = 0, crop_top = 0, crop_bottom = 0;
  if (r.Flag()) {
    crop_left = r.Ue(), crop_right = r.Ue(), crop_top = r.Ue(), crop_bottom = r.Ue();
  }
  // Crop units (§7.4.2.1.1): chroma subsampling decides the step, field coding doubles it.
  const std::uint32_t chroma_array_type = separate_colour_plane ? 0 : sps.chroma_format_idc;
  const std::uint32_t sub_w = (chroma_array_type == 1 || chroma_array_type == 2) ? 2 : 1;
  const std::uint32_t sub_h = chroma_array_type == 1 ? 2 : 1;
  const std::uint32_t frame_factor = sps.frame_mbs_only ? 1 : 2;
  const std::uint32_t crop_unit_x = chroma_array_type == 0 ? 1 : sub_w;
  const std::uint32_t crop_unit_y = (chroma_array_type == 0 ? 1 : sub_h) * frame_factor;
  const std::uint64_t full_w = std::uint64_t(width_mbs) * 16;
  const std::uint64_t full_h = std::uint64_t(height_map_units) * 16 * frame_factor;
  const std::uint64_t crop_w = std::uint64_t(crop_unit_x) * (std::uint64_t(crop_left) + crop_right);
  const std::uint64_t crop_h = std::uint64_t(crop_unit_y) * (std::uint64_t(crop_top) + crop_bottom);
  if (full_w > 16384 || full_h > 16384 || crop_w >= full_w || crop_h >= full_h) {
    throw Error("ERR_ZM_BITSTREAM", "H.264 SPS has an impossible picture size");
  }
  sps.width = std::uint32_t(full_w - crop_w);
  sps.height = std::uint32_t(full_h - crop_h);
  if (r.Flag()) {  // vui_parameters_present_flag
    try {
      ParseVui(r, sps);
    } catch (const Error&) {
      // A damaged VUI only costs the optional timing/reorder hints, not the SPS.
    }
  }
  return sps;
}

std::string H264CodecString(const H264Sps& sps) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "avc1.%02x%02x%02x", sps.profile_idc, sps.constraint_flags,
                sps.level_idc);
  return buf;
}

}  // namespace zm
