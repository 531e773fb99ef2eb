// ISO-BMFF (MP4) box helpers. No Node-API here, so this is testable as plain C++.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace zm {

constexpr std::size_t kBoxHeaderSize = 8;

// An 8-byte box header: big-endian u32 size, then the 4-byte type.
// The TS facade validates first; these checks are defence in depth and throw zm::Error with
// ERR_ZM_BOX_TYPE (type not exactly 4 bytes) or ERR_ZM_BOX_SIZE (size not an integer in 8..2^32-1).
std::array<std::uint8_t, kBoxHeaderSize> BoxHeader(std::string_view type, double size);

}  // namespace zm
