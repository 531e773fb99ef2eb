// One fMP4 media fragment: moof (mfhd, then per track traf = tfhd + tfdt + trun) + mdat.
// tfhd uses default-base-is-moof, so each trun's data_offset counts from the start of the moof
// and a fragment is self-contained (it can be served as an HLS part on its own).
#pragma once

#include <cstdint>
#include <vector>

#include "zm/bytes.h"

namespace zm {

struct FragmentSample {
  std::uint32_t duration = 0;  // in the track timescale
  bool sync = false;
  std::int32_t composition_offset = 0;  // pts − dts; negative allowed (trun version 1)
  ByteView data;                        // the sample as stored in mdat
};

struct TrackFragment {
  std::uint32_t track_id = 1;
  std::uint64_t base_decode_time = 0;  // tfdt: decode time of the first sample
  std::vector<FragmentSample> samples;
};

// Sample flags (ISO/IEC 14496-12 §8.8.3.1).
constexpr std::uint32_t kSyncSampleFlags = 0x02000000;     // depends on no other sample
constexpr std::uint32_t kNonSyncSampleFlags = 0x01010000;  // depends on others, non-sync

// Tracks without samples are left out. Throws zm::Error ERR_ZM_MUX_FRAGMENT_SIZE beyond 4 GiB.
Bytes WriteFragment(std::uint32_t sequence, const std::vector<TrackFragment>& tracks);

}  // namespace zm
