#include "zm/fmp4_fragment.h"

#include "zm/box_writer.h"
#include "zm/error.h"

namespace zm {

namespace {

// trun flags
constexpr std::uint32_t kDataOffset = 0x000001;
constexpr std::uint32_t kDuration = 0x000100;
constexpr std::uint32_t kSize = 0x000200;
constexpr std::uint32_t kFlags = 0x000400;
constexpr std::uint32_t kCompositionOffset = 0x000800;
// tfhd flags
constexpr std::uint32_t kDefaultBaseIsMoof = 0x020000;

// Writes one traf; returns the offset of its trun data_offset field for patching.
std::size_t WriteTraf(ByteWriter& w, const TrackFragment& t) {
  Box traf(w, "traf");
  {
    Box tfhd(w, "tfhd", 0, kDefaultBaseIsMoof);
    w.u32(t.track_id);
  }
  {
    Box tfdt(w, "tfdt", 1, 0);
    w.u64(t.base_decode_time);
  }
  bool offsets = false;
  for (const auto& s : t.samples) offsets = offsets || s.composition_offset != 0;
  // Version 1 makes composition offsets signed, so B-frames need no shifted decode timeline.
  Box trun(w, "trun", offsets ? 1 : 0,
           kDataOffset | kDuration | kSize | kFlags | (offsets ? kCompositionOffset : 0));
  w.u32(std::uint32_t(t.samples.size()));
  const std::size_t data_offset_at = w.pos();
  w.u32(0);
  for (const auto& s : t.samples) {
    w.u32(s.duration);
    w.u32(std::uint32_t(s.data.size));
    w.u32(s.sync ? kSyncSampleFlags : kNonSyncSampleFlags);
    if (offsets) w.u32(std::uint32_t(s.composition_offset));
  }
  return data_offset_at;
}

}  // namespace

Bytes WriteFragment(std::uint32_t sequence, const std::vector<TrackFragment>& tracks) {
  std::uint64_t data_size = 0;
  for (const auto& t : tracks) {
    for (const auto& s : t.samples) data_size += s.data.size;
  }
  if (data_size + 8 > 0xffffffffu)
    throw Error("ERR_ZM_MUX_FRAGMENT_SIZE", "fragment media data exceeds 4 GiB");

  Bytes out;
  out.reserve(std::size_t(data_size) + 256 + 16 * tracks.size());
  ByteWriter w(out);
  std::vector<std::size_t> patch_at;
  {
    Box moof(w, "moof");
    {
      Box mfhd(w, "mfhd", 0, 0);
      w.u32(sequence);
    }
    for (const auto& t : tracks) {
      if (!t.samples.empty()) patch_at.push_back(WriteTraf(w, t));
    }
  }
  // Each track's samples sit contiguously in mdat, in traf order.
  std::uint64_t offset = out.size() + 8;
  std::size_t i = 0;
  for (const auto& t : tracks) {
    if (t.samples.empty()) continue;
    w.PatchU32(patch_at[i++], std::uint32_t(offset));
    for (const auto& s : t.samples) offset += s.data.size;
  }
  w.u32(std::uint32_t(data_size + 8));
  w.fourcc("mdat");
  for (const auto& t : tracks) {
    for (const auto& s : t.samples) w.bytes(s.data);
  }
  return out;
}

}  // namespace zm
