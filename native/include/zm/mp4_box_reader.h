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
  std::uint16_t u16() { return Field(2, ReadU16Be); }
  std::uint32_t u24() { return Field(3, ReadU24Be); }
  std::uint32_t u32() { return Field(4, ReadU32Be); }
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
  template <typename T>
  T Field(std::size_t n, T (*read)(const std::uint8_t*)) {
    Need(n);
    const auto v = read(&d_[pos_]);
    pos_ += n;
    return v;
  }

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
