#include "zm/codec_info.h"

#include "zm/aac.h"
#include "zm/av1_config.h"
#include "zm/error.h"
#include "zm/h264_sps.h"
#include "zm/h265_sps.h"
#include "zm/opus.h"

namespace zm {

namespace {

bool DeriveVideo(CodecInfo& info, ByteView bitstream) {
  ParameterSets sets = ExtractParameterSets(info.codec, bitstream);
  if (sets.sps.empty()) return false;
  try {
    if (info.codec == Codec::kH264) {
      const H264Sps sps = ParseH264Sps(sets.sps.front());
      info.width = sps.width, info.height = sps.height;
      info.profile = sps.profile_idc, info.level = sps.level_idc;
      info.bit_depth = sps.bit_depth_luma;
      info.reorder_depth = sps.max_num_reorder_frames;
      // Baseline and constrained profiles cannot reorder: no B-frames.
      if (info.reorder_depth < 0 && (sps.profile_idc == 66 || (sps.constraint_flags & 0x40) != 0 ||
                                     (sps.constraint_flags & 0x10) != 0)) {
        info.reorder_depth = 0;
      }
      if (sps.time_scale > 0 && sps.num_units_in_tick > 0 && info.fps_num == 0) {
        info.fps_num = sps.time_scale, info.fps_den = 2 * sps.num_units_in_tick;
      }
      info.codec_string = H264CodecString(sps);
    } else {
      const H265Sps sps = ParseH265Sps(sets.sps.front());
      info.width = sps.width, info.height = sps.height;
      info.profile = sps.profile_idc, info.level = sps.level_idc;
      info.bit_depth = sps.bit_depth_luma;
      info.reorder_depth = sps.max_num_reorder_pics;
      info.codec_string = H265CodecString(sps);
    }
  } catch (const Error&) {
    return false;  // unparseable SPS: keep the HELLO values
  }
  info.parameter_sets = std::move(sets);
  info.from_bitstream = true;
  return true;
}

bool DeriveAac(CodecInfo& info, ByteView asc) {
  try {
    const AacConfig c = ParseAudioSpecificConfig(asc);
    info.aac_object_type = c.object_type;
    info.frame_samples = c.frame_length;
    if (info.sample_rate == 0) info.sample_rate = c.sample_rate;
    if (info.channels == 0) info.channels = c.channels;
    info.codec_string = AacCodecString(c);
    info.from_bitstream = true;
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

bool DeriveCodecDetails(CodecInfo& info, ByteView bitstream) {
  switch (info.codec) {
    case Codec::kH264:
    case Codec::kH265:
      return DeriveVideo(info, bitstream);
    case Codec::kAAC:
      if (info.codec_string.empty()) info.codec_string = "mp4a.40.2";  // until an ASC is seen
      return !bitstream.empty() && DeriveAac(info, bitstream);
    case Codec::kOpus: {
      info.codec_string = "opus";
      OpusConfig c;
      if (!ParseOpusHead(bitstream, &c)) return false;
      if (info.channels == 0) info.channels = c.channels;
      return true;
    }
    case Codec::kAV1:
      info.codec_string = Av1CodecString(bitstream);
      return !info.codec_string.empty();
    case Codec::kPCMU:
      info.codec_string = "ulaw";  // QuickTime sample entry names; no MSE support (see README)
      return true;
    case Codec::kPCMA:
      info.codec_string = "alaw";
      return true;
    case Codec::kUnknown:
      break;
  }
  return false;
}

}  // namespace zm
