#include "zm/nal.h"

namespace zm {

namespace {

// Index of the next 00 00 01 at or after `from`, or `size`. When the third byte is above 1 no
// start code can begin at any of the three positions, so the scan skips ahead by three.
std::size_t FindStartCode(const std::uint8_t* p, std::size_t size, std::size_t from) {
  std::size_t i = from;
  while (i + 3 <= size) {
    if (p[i + 2] > 1) {
      i += 3;
    } else if (p[i + 2] == 1 && p[i + 1] == 0 && p[i] == 0) {
      return i;
    } else {
      ++i;
    }
  }
  return size;
}

bool IsParameterSetOrAud(Codec codec, int type) {
  if (codec == Codec::kH264) {
    return type == h264::kNalSps || type == h264::kNalPps || type == h264::kNalAud;
  }
  return type == h265::kNalVps || type == h265::kNalSps || type == h265::kNalPps ||
         type == h265::kNalAud;
}

void AddUnique(std::vector<Bytes>& list, ByteView nal) {
  for (const auto& have : list) {
    if (ByteView(have) == nal) return;
  }
  list.push_back(nal.copy());
}

void Collect(Codec codec, ByteView nal, ParameterSets& out) {
  const int type = NalType(codec, nal);
  if (codec == Codec::kH264) {
    if (type == h264::kNalSps) AddUnique(out.sps, nal);
    if (type == h264::kNalPps) AddUnique(out.pps, nal);
  } else if (codec == Codec::kH265) {
    if (type == h265::kNalVps) AddUnique(out.vps, nal);
    if (type == h265::kNalSps) AddUnique(out.sps, nal);
    if (type == h265::kNalPps) AddUnique(out.pps, nal);
  }
}

// avcC: version, profile, compat, level, 0xFC|lengthSizeMinusOne, 0xE0|numSPS, {u16 len, SPS},
// numPPS, {u16 len, PPS}. Truncation ends the walk with what was read so far.
void ParseAvcC(ByteView d, ParameterSets& out) {
  std::size_t pos = 5;
  for (int list = 0; list < 2 && pos < d.size; ++list) {
    const unsigned count = list == 0 ? (d[pos] & 0x1f) : d[pos];
    ++pos;
    for (unsigned i = 0; i < count && pos + 2 <= d.size; ++i) {
      const std::size_t len = ReadU16Be(&d[pos]);
      pos += 2;
      if (pos + len > d.size) return;
      Collect(Codec::kH264, d.sub(pos, len), out);
      pos += len;
    }
  }
}

// hvcC: 22 fixed bytes, numOfArrays, then per array: type byte, u16 count, {u16 len, NAL}.
void ParseHvcC(ByteView d, ParameterSets& out) {
  if (d.size < 23) return;
  std::size_t pos = 23;
  for (unsigned a = 0, arrays = d[22]; a < arrays && pos + 3 <= d.size; ++a) {
    const unsigned count = ReadU16Be(&d[pos + 1]);
    pos += 3;
    for (unsigned i = 0; i < count && pos + 2 <= d.size; ++i) {
      const std::size_t len = ReadU16Be(&d[pos]);
      pos += 2;
      if (pos + len > d.size) return;
      Collect(Codec::kH265, d.sub(pos, len), out);
      pos += len;
    }
  }
}

}  // namespace

int NalType(Codec codec, ByteView nal) {
  if (nal.empty()) return -1;
  if (codec == Codec::kH264) return H264NalType(nal[0]);
  if (codec == Codec::kH265) return H265NalType(nal[0]);
  return -1;
}

bool IsAnnexB(ByteView d) {
  return (d.size >= 3 && d[0] == 0 && d[1] == 0 && d[2] == 1) ||
         (d.size >= 4 && d[0] == 0 && d[1] == 0 && d[2] == 0 && d[3] == 1);
}

std::vector<ByteView> SplitAnnexB(ByteView data) {
  std::vector<ByteView> nals;
  std::size_t start = FindStartCode(data.data, data.size, 0);
  while (start < data.size) {
    const std::size_t begin = start + 3;
    const std::size_t next = FindStartCode(data.data, data.size, begin);
    std::size_t end = next;
    // Zero bytes before a start code are trailing_zero_8bits (or the 4-byte form's leading 0).
    while (end > begin && data[end - 1] == 0) --end;
    if (end > begin) nals.push_back(data.sub(begin, end - begin));
    start = next;
  }
  return nals;
}

Bytes RemoveEmulationPrevention(ByteView nal) {
  Bytes out;
  out.reserve(nal.size);
  unsigned zeros = 0;
  for (std::uint8_t b : nal) {
    if (zeros >= 2 && b == 3) {
      zeros = 0;
      continue;
    }
    zeros = b == 0 ? zeros + 1 : 0;
    out.push_back(b);
  }
  return out;
}

ParameterSets ExtractParameterSets(Codec codec, ByteView data) {
  ParameterSets out;
  if (codec != Codec::kH264 && codec != Codec::kH265) return out;
  if (IsAnnexB(data)) {
    for (ByteView nal : SplitAnnexB(data)) Collect(codec, nal, out);
  } else if (!data.empty() && data[0] == 1) {
    if (codec == Codec::kH264)
      ParseAvcC(data, out);
    else
      ParseHvcC(data, out);
  }
  return out;
}

bool HasKeyframeNal(Codec codec, ByteView access_unit) {
  for (ByteView nal : SplitAnnexB(access_unit)) {
    const int type = NalType(codec, nal);
    if (codec == Codec::kH264 && type == h264::kNalIdr) return true;
    if (codec == Codec::kH265 && type >= h265::kNalIrapFirst && type <= h265::kNalIrapLast)
      return true;
  }
  return false;
}

std::size_t AppendLengthPrefixed(Codec codec, ByteView access_unit, Bytes& out) {
  const std::size_t before = out.size();
  ByteWriter w(out);
  for (ByteView nal : SplitAnnexB(access_unit)) {
    if (IsParameterSetOrAud(codec, NalType(codec, nal))) continue;
    w.u32(std::uint32_t(nal.size));
    w.bytes(nal);
  }
  return out.size() - before;
}

}  // namespace zm
