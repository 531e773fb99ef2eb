#include "zm/box.h"

#include <cmath>

#include "zm/error.h"

namespace zm {

std::array<std::uint8_t, kBoxHeaderSize> BoxHeader(std::string_view type, double size) {
  if (type.size() != 4) {
    throw Error("ERR_ZM_BOX_TYPE", "box type must be exactly 4 bytes");
  }
  // Written so NaN fails too; a silent wrap-around would corrupt the file.
  if (!(size >= kBoxHeaderSize && size <= 4294967295.0 && std::floor(size) == size)) {
    throw Error("ERR_ZM_BOX_SIZE", "box size must be an integer in 8..4294967295");
  }
  const auto n = static_cast<std::uint32_t>(size);
  return {static_cast<std::uint8_t>(n >> 24), static_cast<std::uint8_t>(n >> 16),
          static_cast<std::uint8_t>(n >> 8),  static_cast<std::uint8_t>(n),
          static_cast<std::uint8_t>(type[0]), static_cast<std::uint8_t>(type[1]),
          static_cast<std::uint8_t>(type[2]), static_cast<std::uint8_t>(type[3])};
}

}  // namespace zm
