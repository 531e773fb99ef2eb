// The fMP4 initialization segment: ftyp + moov (mvhd, one trak per track with empty sample tables,
// mvex/trex). Sample entries: avc1+avcC, hvc1+hvcC, mp4a+esds, Opus+dOps.
//
// G.711 (PCMU/PCMA) is deliberately not supported: MP4 registers no G.711 sample entry ('ulaw' and
// 'alaw' are QuickTime-only), and no browser's MSE accepts them, so a stream muxed for HLS/MSE
// carries video only. G.711 audio belongs on the WebRTC path (RTP payload types 0 and 8) or needs
// transcoding to AAC/Opus. Fmp4Muxer reports ERR_ZM_MUX_CODEC_UNSUPPORTED for such tracks.
#pragma once

#include <cstdint>
#include <vector>

#include "zm/bytes.h"
#include "zm/codec.h"
#include "zm/display_matrix.h"
#include "zm/nal.h"
#include "zm/opus.h"

namespace zm {

struct InitTrack {
  std::uint32_t track_id = 1;
  Codec codec = Codec::kUnknown;
  std::uint32_t timescale = 90000;
  std::uint32_t width = 0, height = 0;          // video
  DisplayMatrix matrix = kIdentityMatrix;       // video tkhd; mvhd and audio stay identity
  ParameterSets parameter_sets;                 // video
  std::uint32_t sample_rate = 0, channels = 0;  // audio
  Bytes audio_specific_config;                  // AAC
  OpusConfig opus;                              // Opus
};

// Throws zm::Error ERR_ZM_MUX_CODEC_UNSUPPORTED / ERR_ZM_MUX_NOT_READY (missing parameter sets).
Bytes WriteInitSegment(const std::vector<InitTrack>& tracks);

}  // namespace zm
