// H.264/H.265 NAL unit plumbing: Annex B start-code splitting, emulation-prevention removal,
// parameter-set extraction (from Annex B or from avcC/hvcC extradata) and conversion of an
// Annex B access unit to the 4-byte length-prefixed form MP4 samples use.
#pragma once

#include <cstdint>
#include <vector>

#include "zm/bytes.h"
#include "zm/codec.h"

namespace zm {

// NAL unit types this code acts on.
namespace h264 {
constexpr int kNalIdr = 5, kNalSei = 6, kNalSps = 7, kNalPps = 8, kNalAud = 9;
}
namespace h265 {
constexpr int kNalIrapFirst = 16, kNalIrapLast = 21, kNalVps = 32, kNalSps = 33, kNalPps = 34,
              kNalAud = 35;
}

inline int H264NalType(std::uint8_t first) { return first & 0x1f; }
inline int H265NalType(std::uint8_t first) { return (first >> 1) & 0x3f; }
int NalType(Codec codec, ByteView nal);  // -1 for an empty NAL or a non-NAL codec

// True when the data starts with a 00 00 01 or 00 00 00 01 start code.
bool IsAnnexB(ByteView data);

// The NAL units of an Annex B buffer, start codes and trailing zero bytes removed. Bytes before
// the first start code are ignored. Views point into `data`.
std::vector<ByteView> SplitAnnexB(ByteView data);

// NAL payload → RBSP: drops each 0x03 of a 00 00 03 sequence.
Bytes RemoveEmulationPrevention(ByteView nal);

struct ParameterSets {
  std::vector<Bytes> vps, sps, pps;  // whole NAL units (with the NAL header), no start codes
  bool complete(Codec codec) const {
    return !sps.empty() && !pps.empty() && (codec != Codec::kH265 || !vps.empty());
  }
};

// Parameter sets found in an Annex B buffer (extradata or an access unit) or in avcC/hvcC
// extradata (detected by its leading version byte 1). Unparseable input yields empty lists.
ParameterSets ExtractParameterSets(Codec codec, ByteView data);

// True if the Annex B access unit holds an IDR (H.264 type 5) or IRAP (H.265 types 16–21) NAL.
bool HasKeyframeNal(Codec codec, ByteView access_unit);

// Appends the NALs of an Annex B access unit as [u32 big-endian length][NAL] to `out`, leaving
// out access unit delimiters and parameter sets (those live in the sample entry; avc1/hvc1).
// Returns the number of bytes appended.
std::size_t AppendLengthPrefixed(Codec codec, ByteView access_unit, Bytes& out);

}  // namespace zm
