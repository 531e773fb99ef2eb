// The sample tables of a progressive MP4 track (its stbl box) flattened into one Mp4Sample per
// sample, in decode order: sizes (stsz/stz2), file offsets (stco/co64 through stsc), decode times
// (stts), composition offsets (ctts) and sync samples (stss). Fragmented files describe their
// samples in moof boxes instead (Mp4Demuxer).
#pragma once

#include <cstdint>
#include <vector>

#include "zm/bytes.h"
#include "zm/mp4_demuxer.h"

namespace zm {

struct Mp4SampleTable {
  std::vector<Mp4Sample> samples;  // decode times from 0, before the edit list
  // A sample's data runs past the end of the file (cut short): the samples end before it.
  bool truncated = false;
};

// file_size: the file the offsets point into; a sample count beyond it, or beyond max_samples
// (what the demuxer's limit leaves for this track), is ERR_ZM_MP4_FORMAT, as is a table shorter
// than its fields. No size table: no samples. Samples without a chunk are left out.
Mp4SampleTable ReadSampleTables(ByteView stbl, std::uint64_t file_size, std::uint64_t max_samples);

}  // namespace zm
