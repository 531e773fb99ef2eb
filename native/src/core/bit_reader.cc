#include "zm/bit_reader.h"

#include "zm/error.h"

namespace zm {

namespace {
[[noreturn]] void Truncated() {
  throw Error("ERR_ZM_BITSTREAM", "bitstream ends inside a header field");
}
}  // namespace

std::uint32_t BitReader::Bits(unsigned n) {
  if (n > BitsLeft()) Truncated();
  std::uint32_t v = 0;
  for (unsigned i = 0; i < n; ++i, ++pos_) {
    v = (v << 1) | ((data_.data[pos_ >> 3] >> (7 - (pos_ & 7))) & 1u);
  }
  return v;
}

void BitReader::Skip(std::size_t n) {
  if (n > BitsLeft()) Truncated();
  pos_ += n;
}

std::uint32_t BitReader::Ue() {
  unsigned zeros = 0;
  while (!Flag()) {
    // 31 leading zeros would already overflow u32; real headers stay far below.
    if (++zeros > 31) throw Error("ERR_ZM_BITSTREAM", "exp-Golomb code longer than 32 bits");
  }
  if (zeros == 0) return 0;
  return ((1u << zeros) - 1) + Bits(zeros);
}

std::int32_t BitReader::Se() {
  const std::uint32_t k = Ue();
  // 1, 2, 3, 4 ... map to +1, -1, +2, -2 ...
  return (k & 1) ? std::int32_t((k + 1) / 2) : -std::int32_t(k / 2);
}

}  // namespace zm
