// Reading ISO-BMFF boxes held in memory, for the MP4 demuxer and its sample tables: four-character
// codes, bounds-checked big-endian fields and the child boxes of a container. Anything that runs
// past its box is a broken file: zm::Error ERR_ZM_MP4_FORMAT.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "zm/bytes.h"

namespace zm::mp4 {

constexpr std::uint32_t Fourcc(const char (&s)[5]) {
  return (std::uint32_t(std::uint8_t(s[0])) << 24) | (std::uint32_t(std::uint8_t(s[1])) << 16) |
         (std::uint32_t(std::uint8_t(s[2])) << 8) | std::uint32_t(std::uint8_t(s[3]));
}

// The code as text for messages; bytes outside printable ASCII become '?'.
std::string FourccName(std::uint32_t v);

// Throws ERR_ZM_MP4_FORMAT.
[[noreturn]] void Broken(const std::string& what);

// Bounds-checked big-endian reads over one box body; any overrun is a format error.
class Reader {
 public:
  explicit Reader(ByteView d) : d_(d) {}
  std::size_t left() const { return d_.size - pos_; }
  std::size_t pos() const { return pos_; }
  void Need(std::size_t n) const {
    if (n > left()) Broken("a box is shorter than its fields");
  }
  std::uint8_t u8() { return Need(1), d_[pos_++]; }
  std::uint16_t u16() {
    Need(2);
    const auto v = ReadU16Be(&d_[pos_]);
    pos_ += 2;
    return v;
  }
  std::uint32_t u24() {
    Need(3);
    const auto v = ReadU24Be(&d_[pos_]);
    pos_ += 3;
    return v;
  }
  std::uint32_t u32() {
    Need(4);
    const auto v = ReadU32Be(&d_[pos_]);
    pos_ += 4;
    return v;
  }
  std::uint64_t u64() {
    const std::uint64_t hi = u32();
    return (hi << 32) | u32();
  }
  void Skip(std::size_t n) { Need(n), pos_ += n; }
  ByteView Take(std::size_t n) {
    Need(n);
    const ByteView v = d_.sub(pos_, n);
    pos_ += n;
    return v;
  }
  ByteView Rest() const { return d_.sub(pos_); }

 private:
  ByteView d_;
  std::size_t pos_ = 0;
};

struct Child {
  std::uint32_t type = 0;
  ByteView body;
};

// The child boxes of a container body. A child running past its parent is a format error; a few
// bytes of trailing padding are tolerated.
std::vector<Child> Children(ByteView body);

// The body of the first child of that type.
std::optional<ByteView> FindChild(ByteView body, std::uint32_t type);

}  // namespace zm::mp4
