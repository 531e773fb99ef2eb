// MSB-first bit reader for codec headers (H.264/H.265 SPS, AudioSpecificConfig, ADTS), with the
// exp-Golomb codes of H.264/H.265. Reading past the end throws zm::Error(ERR_ZM_BITSTREAM), so
// parsers never have to check lengths by hand and a truncated header cannot read out of bounds.
#pragma once

#include <cstddef>
#include <cstdint>

#include "zm/bytes.h"

namespace zm {

class BitReader {
 public:
  explicit BitReader(ByteView data) : data_(data) {}

  std::uint32_t Bits(unsigned n);  // n <= 32
  bool Flag() { return Bits(1) != 0; }
  void Skip(std::size_t n);
  std::uint32_t Ue();  // unsigned exp-Golomb
  std::int32_t Se();   // signed exp-Golomb

  std::size_t BitsLeft() const { return data_.size * 8 - pos_; }
  std::size_t BitPos() const { return pos_; }

 private:
  ByteView data_;
  std::size_t pos_ = 0;
};

}  // namespace zm
