// Byte-level helpers shared by the parsers and box writers: a non-owning view, endian-aware
// readers, and an appending writer. Everything here is header-only and allocation-free except
// ByteWriter, which grows a std::vector.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace zm {

using Bytes = std::vector<std::uint8_t>;

// A read-only window into bytes owned elsewhere (C++17 has no std::span).
struct ByteView {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;

  ByteView() = default;
  ByteView(const std::uint8_t* d, std::size_t n) : data(d), size(n) {}
  ByteView(const Bytes& b) : data(b.data()), size(b.size()) {}  // NOLINT: implicit by design

  bool empty() const { return size == 0; }
  const std::uint8_t& operator[](std::size_t i) const { return data[i]; }
  const std::uint8_t* begin() const { return data; }
  const std::uint8_t* end() const { return data + size; }
  // Clamped sub-range: never reads past the end.
  ByteView sub(std::size_t offset, std::size_t length = SIZE_MAX) const {
    if (offset > size) offset = size;
    if (length > size - offset) length = size - offset;
    return {data + offset, length};
  }
  Bytes copy() const { return Bytes(begin(), end()); }
};

inline bool operator==(ByteView a, ByteView b) {
  return a.size == b.size && (a.size == 0 || std::memcmp(a.data, b.data, a.size) == 0);
}

inline std::uint16_t ReadU16Le(const std::uint8_t* p) { return std::uint16_t(p[0] | (p[1] << 8)); }
inline std::uint32_t ReadU32Le(const std::uint8_t* p) {
  return std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) |
         (std::uint32_t(p[3]) << 24);
}
inline std::uint64_t ReadU64Le(const std::uint8_t* p) {
  return std::uint64_t(ReadU32Le(p)) | (std::uint64_t(ReadU32Le(p + 4)) << 32);
}
inline std::uint16_t ReadU16Be(const std::uint8_t* p) { return std::uint16_t((p[0] << 8) | p[1]); }
inline std::uint32_t ReadU24Be(const std::uint8_t* p) {
  return (std::uint32_t(p[0]) << 16) | (std::uint32_t(p[1]) << 8) | p[2];
}
inline std::uint32_t ReadU32Be(const std::uint8_t* p) {
  return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) |
         std::uint32_t(p[3]);
}

// Appends big-endian values (ISO-BMFF is big-endian throughout).
class ByteWriter {
 public:
  explicit ByteWriter(Bytes& out) : out_(out) {}

  std::size_t pos() const { return out_.size(); }
  Bytes& bytes() { return out_; }

  void u8(std::uint32_t v) { out_.push_back(std::uint8_t(v)); }
  void u16(std::uint32_t v) { u8(v >> 8), u8(v); }
  void u24(std::uint32_t v) { u8(v >> 16), u8(v >> 8), u8(v); }
  void u32(std::uint32_t v) { u8(v >> 24), u8(v >> 16), u8(v >> 8), u8(v); }
  void u64(std::uint64_t v) { u32(std::uint32_t(v >> 32)), u32(std::uint32_t(v)); }
  void zeros(std::size_t n) { out_.insert(out_.end(), n, 0); }
  void bytes(ByteView v) { out_.insert(out_.end(), v.begin(), v.end()); }
  void fourcc(std::string_view s) { out_.insert(out_.end(), s.begin(), s.begin() + 4); }

  void PatchU32(std::size_t at, std::uint32_t v) {
    out_[at] = std::uint8_t(v >> 24), out_[at + 1] = std::uint8_t(v >> 16);
    out_[at + 2] = std::uint8_t(v >> 8), out_[at + 3] = std::uint8_t(v);
  }

 private:
  Bytes& out_;
};

}  // namespace zm
