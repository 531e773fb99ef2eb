// Writes nested ISO-BMFF boxes into one buffer. A Box opens on construction (size placeholder +
// type [+ version/flags]) and patches its size when it goes out of scope, so the nesting in the
// writer code mirrors the nesting in the file:
//   { Box moov(w, "moov"); { Box mvhd(w, "mvhd", 0, 0); ... } }
#pragma once

#include <cstdint>
#include <string_view>

#include "zm/bytes.h"
#include "zm/error.h"

namespace zm {

class Box {
 public:
  Box(ByteWriter& w, std::string_view type) : w_(w), start_(w.pos()) {
    w_.u32(0);
    w_.fourcc(type);
  }
  // A "full box": version and 24-bit flags follow the type.
  Box(ByteWriter& w, std::string_view type, std::uint8_t version, std::uint32_t flags)
      : Box(w, type) {
    w_.u8(version);
    w_.u24(flags);
  }
  ~Box() { w_.PatchU32(start_, std::uint32_t(w_.pos() - start_)); }
  Box(const Box&) = delete;
  Box& operator=(const Box&) = delete;

  std::size_t start() const { return start_; }

 private:
  ByteWriter& w_;
  std::size_t start_;
};

}  // namespace zm
