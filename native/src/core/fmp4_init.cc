#include "zm/fmp4_init.h"

#include <string>

#include "zm/box_writer.h"
#include "zm/error.h"
#include "zm/h264_sps.h"
#include "zm/h265_sps.h"

namespace zm {

namespace {

// The transformation matrix (16.16 / 2.30 fixed point): identity in mvhd and audio tkhd, the
// source's own (a rotation) in the video tkhd. Always 36 bytes: box sizes do not depend on it.
void WriteMatrix(ByteWriter& w, const DisplayMatrix& m = kIdentityMatrix) {
  for (std::int32_t v : m) w.u32(std::uint32_t(v));
}

void WriteFtyp(ByteWriter& w) {
  Box ftyp(w, "ftyp");
  w.fourcc("iso6");  // iso6: signed composition offsets (trun version 1) may occur
  w.u32(0);
  for (const char* brand : {"iso6", "isom", "iso5", "mp41"}) w.fourcc(brand);
}

void WriteMvhd(ByteWriter& w, std::uint32_t next_track_id) {
  Box mvhd(w, "mvhd", 0, 0);
  w.u32(0), w.u32(0);  // creation/modification time
  w.u32(1000);         // timescale (the movie has no duration: everything is in fragments)
  w.u32(0);            // duration
  w.u32(0x00010000);   // rate 1.0
  w.u16(0x0100);       // volume 1.0
  w.zeros(10);
  WriteMatrix(w);
  w.zeros(24);  // pre_defined
  w.u32(next_track_id);
}

void WriteTkhd(ByteWriter& w, const InitTrack& t, bool video) {
  Box tkhd(w, "tkhd", 0, 0x000003);  // enabled, in movie
  w.u32(0), w.u32(0);
  w.u32(t.track_id);
  w.u32(0);  // reserved
  w.u32(0);  // duration
  w.zeros(8);
  w.u16(0);                   // layer
  w.u16(0);                   // alternate_group
  w.u16(video ? 0 : 0x0100);  // volume
  w.u16(0);
  WriteMatrix(w, video ? t.matrix : kIdentityMatrix);
  // width/height stay the coded (unrotated) size: the player applies the matrix to them.
  w.u32(video ? t.width << 16 : 0);
  w.u32(video ? t.height << 16 : 0);
}

void WriteMdhd(ByteWriter& w, std::uint32_t timescale) {
  Box mdhd(w, "mdhd", 0, 0);
  w.u32(0), w.u32(0);
  w.u32(timescale);
  w.u32(0);
  w.u16(0x55c4);  // language "und" (packed ISO-639-2/T)
  w.u16(0);
}

void WriteHdlr(ByteWriter& w, bool video) {
  Box hdlr(w, "hdlr", 0, 0);
  w.u32(0);
  w.fourcc(video ? "vide" : "soun");
  w.zeros(12);
  const std::string name = video ? "VideoHandler" : "SoundHandler";
  w.bytes(ByteView(reinterpret_cast<const std::uint8_t*>(name.c_str()), name.size() + 1));
}

void WriteDinf(ByteWriter& w) {
  Box dinf(w, "dinf");
  Box dref(w, "dref", 0, 0);
  w.u32(1);
  Box url(w, "url ", 0, 1);  // flag 1: media data is in this file
}

void WriteAvcC(ByteWriter& w, const InitTrack& t) {
  const H264Sps sps = ParseH264Sps(t.parameter_sets.sps.front());
  Box avcc(w, "avcC");
  w.u8(1);
  w.u8(sps.profile_idc);
  w.u8(sps.constraint_flags);
  w.u8(sps.level_idc);
  w.u8(0xfc | 3);  // 4-byte NAL lengths
  w.u8(0xe0 | std::uint32_t(t.parameter_sets.sps.size()));
  for (const auto& s : t.parameter_sets.sps) w.u16(std::uint32_t(s.size())), w.bytes(s);
  w.u8(std::uint32_t(t.parameter_sets.pps.size()));
  for (const auto& p : t.parameter_sets.pps) w.u16(std::uint32_t(p.size())), w.bytes(p);
  if (sps.profile_idc == 100 || sps.profile_idc == 110 || sps.profile_idc == 122 ||
      sps.profile_idc == 144) {
    w.u8(0xfc | sps.chroma_format_idc);
    w.u8(0xf8 | (sps.bit_depth_luma - 8));
    w.u8(0xf8 | (sps.bit_depth_chroma - 8));
    w.u8(0);  // numOfSequenceParameterSetExt
  }
}

void WriteHvcC(ByteWriter& w, const InitTrack& t) {
  const H265Sps sps = ParseH265Sps(t.parameter_sets.sps.front());
  Box hvcc(w, "hvcC");
  w.u8(1);
  w.u8((sps.profile_space << 6) | (sps.tier_flag ? 0x20 : 0) | sps.profile_idc);
  w.u32(sps.profile_compatibility_flags);
  for (std::uint8_t b : sps.constraint_flags) w.u8(b);
  w.u8(sps.level_idc);
  w.u16(0xf000);  // min_spatial_segmentation_idc 0 (unknown)
  w.u8(0xfc);     // parallelismType 0 (unknown)
  w.u8(0xfc | sps.chroma_format_idc);
  w.u8(0xf8 | (sps.bit_depth_luma - 8));
  w.u8(0xf8 | (sps.bit_depth_chroma - 8));
  w.u16(0);  // avgFrameRate unknown
  // constantFrameRate 0, numTemporalLayers, temporalIdNested, lengthSizeMinusOne 3.
  w.u8((sps.max_sub_layers << 3) | (sps.temporal_id_nesting ? 0x04 : 0) | 3);
  w.u8(3);
  const std::pair<int, const std::vector<Bytes>*> arrays[] = {
      {h265::kNalVps, &t.parameter_sets.vps},
      {h265::kNalSps, &t.parameter_sets.sps},
      {h265::kNalPps, &t.parameter_sets.pps}};
  for (const auto& [type, list] : arrays) {
    w.u8(0x80 | type);  // array_completeness: all parameter sets are in the sample entry
    w.u16(std::uint32_t(list->size()));
    for (const auto& nal : *list) w.u16(std::uint32_t(nal.size())), w.bytes(nal);
  }
}

void WriteVisualSampleEntry(ByteWriter& w, const InitTrack& t) {
  const bool h264 = t.codec == Codec::kH264;
  Box entry(w, h264 ? "avc1" : "hvc1");
  w.zeros(6);
  w.u16(1);  // data_reference_index
  w.zeros(16);
  w.u16(t.width);
  w.u16(t.height);
  w.u32(0x00480000), w.u32(0x00480000);  // 72 dpi
  w.u32(0);
  w.u16(1);       // frame_count
  w.zeros(32);    // compressorname
  w.u16(0x0018);  // depth
  w.u16(0xffff);  // pre_defined = -1
  if (h264)
    WriteAvcC(w, t);
  else
    WriteHvcC(w, t);
}

// An MPEG-4 descriptor header with a 4-byte length, which every reader accepts.
void Descriptor(ByteWriter& w, std::uint8_t tag, std::uint32_t size) {
  w.u8(tag);
  w.u8(0x80 | ((size >> 21) & 0x7f)), w.u8(0x80 | ((size >> 14) & 0x7f));
  w.u8(0x80 | ((size >> 7) & 0x7f)), w.u8(size & 0x7f);
}

void WriteEsds(ByteWriter& w, const InitTrack& t) {
  // Sizes of whole descriptors (5-byte header included).
  const auto asc_size = std::uint32_t(t.audio_specific_config.size());
  const std::uint32_t dsi_total = 5 + asc_size;
  const std::uint32_t dcd_total = 5 + 13 + dsi_total;
  const std::uint32_t sl_total = 5 + 1;
  Box esds(w, "esds", 0, 0);
  Descriptor(w, 0x03, 3 + dcd_total + sl_total);  // ES_Descriptor
  w.u16(t.track_id);
  w.u8(0);
  Descriptor(w, 0x04, dcd_total - 5);  // DecoderConfigDescriptor
  w.u8(0x40);                          // Audio ISO/IEC 14496-3
  w.u8(0x15);                          // streamType audio (5) << 2 | reserved 1
  w.u24(0);                            // bufferSizeDB
  w.u32(0), w.u32(0);                  // max/avg bitrate unknown
  Descriptor(w, 0x05, asc_size);       // DecoderSpecificInfo = AudioSpecificConfig
  w.bytes(t.audio_specific_config);
  Descriptor(w, 0x06, 1);  // SLConfigDescriptor, predefined MP4
  w.u8(0x02);
}

void WriteDOps(ByteWriter& w, const InitTrack& t) {
  Box dops(w, "dOps");
  w.u8(0);  // version
  w.u8(t.opus.channels);
  w.u16(t.opus.pre_skip);
  w.u32(t.opus.input_sample_rate);
  w.u16(std::uint16_t(t.opus.output_gain));
  w.u8(t.opus.mapping_family);
  if (t.opus.mapping_family != 0) w.bytes(t.opus.mapping_table);
}

void WriteAudioSampleEntry(ByteWriter& w, const InitTrack& t) {
  const bool aac = t.codec == Codec::kAAC;
  Box entry(w, aac ? "mp4a" : "Opus");
  w.zeros(6);
  w.u16(1);
  w.zeros(8);
  w.u16(aac ? t.channels : t.opus.channels);
  w.u16(16);  // samplesize
  w.u32(0);   // pre_defined, reserved
  // 16.16 rate; rates above 65535 Hz do not fit and are carried by the decoder config instead.
  const std::uint32_t rate = aac ? t.sample_rate : 48000;
  w.u32(rate <= 0xffff ? rate << 16 : 0);
  if (aac)
    WriteEsds(w, t);
  else
    WriteDOps(w, t);
}

void WriteStbl(ByteWriter& w, const InitTrack& t) {
  Box stbl(w, "stbl");
  {
    Box stsd(w, "stsd", 0, 0);
    w.u32(1);
    if (IsVideo(t.codec))
      WriteVisualSampleEntry(w, t);
    else
      WriteAudioSampleEntry(w, t);
  }
  // Empty tables: all samples live in movie fragments.
  for (const char* type : {"stts", "stsc", "stco"}) {
    Box empty(w, type, 0, 0);
    w.u32(0);
  }
  Box stsz(w, "stsz", 0, 0);
  w.u32(0), w.u32(0);
}

void WriteTrak(ByteWriter& w, const InitTrack& t) {
  const bool video = IsVideo(t.codec);
  Box trak(w, "trak");
  WriteTkhd(w, t, video);
  Box mdia(w, "mdia");
  WriteMdhd(w, t.timescale);
  WriteHdlr(w, video);
  Box minf(w, "minf");
  if (video) {
    Box vmhd(w, "vmhd", 0, 1);
    w.zeros(8);
  } else {
    Box smhd(w, "smhd", 0, 0);
    w.zeros(4);
  }
  WriteDinf(w);
  WriteStbl(w, t);
}

void CheckTrack(const InitTrack& t) {
  switch (t.codec) {
    case Codec::kH264:
    case Codec::kH265:
      if (!t.parameter_sets.complete(t.codec)) {
        throw Error("ERR_ZM_MUX_NOT_READY",
                    std::string("no ") + CodecName(t.codec) +
                        " parameter sets yet (from extradata or a keyframe)");
      }
      return;
    case Codec::kAAC:
      if (t.audio_specific_config.empty()) {
        throw Error("ERR_ZM_MUX_NOT_READY",
                    "no AAC AudioSpecificConfig yet (from extradata or an ADTS header)");
      }
      return;
    case Codec::kOpus:
      return;
    default:
      throw Error("ERR_ZM_MUX_CODEC_UNSUPPORTED",
                  std::string("cannot mux ") + CodecName(t.codec) + " into fMP4");
  }
}

}  // namespace

Bytes WriteInitSegment(const std::vector<InitTrack>& tracks) {
  std::uint32_t next_id = 1;
  for (const auto& t : tracks) {
    CheckTrack(t);
    if (t.track_id >= next_id) next_id = t.track_id + 1;
  }
  Bytes out;
  ByteWriter w(out);
  WriteFtyp(w);
  {  // scoped: the boxes patch their sizes before `out` is returned
    Box moov(w, "moov");
    WriteMvhd(w, next_id);
    for (const auto& t : tracks) WriteTrak(w, t);
    Box mvex(w, "mvex");
    for (const auto& t : tracks) {
      Box trex(w, "trex", 0, 0);
      w.u32(t.track_id);
      w.u32(1);  // default_sample_description_index
      w.u32(0), w.u32(0), w.u32(0);
    }
  }
  return out;
}

}  // namespace zm
