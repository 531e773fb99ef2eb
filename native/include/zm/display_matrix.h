// A track's transformation matrix (tkhd): {a, b, u, c, d, v, x, y, w}, a–d/x/y in 16.16 and u/v/w
// in 2.30 fixed point. ZoneMinder's zmc stream-copies the camera and marks a monitor's Orientation
// (ROTATE_90/180/270, flips) only here, so a remux must carry it over or the picture turns
// sideways.
#pragma once

#include <array>
#include <cstdint>

namespace zm {

using DisplayMatrix = std::array<std::int32_t, 9>;

inline constexpr DisplayMatrix kIdentityMatrix{0x00010000, 0, 0, 0,         0x00010000,
                                               0,          0, 0, 0x40000000};

}  // namespace zm
