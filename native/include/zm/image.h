// Raw picture formats as they appear in ZoneMinder's shared-memory slots, and the plane layout of
// each (FFmpeg's av_image_fill_arrays rules: planes back to back, each row padded to `align`).
// Shared by the shared-memory reader (what a slot holds) and the JPEG encoder (what it accepts).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace zm {

enum class PixelFormat : std::uint8_t {
  kGray8,
  kRgb24,
  kBgr24,
  kRgba,
  kBgra,
  kArgb,
  kAbgr,
  kYuv420p,   // limited ("TV") range
  kYuvj420p,  // full ("JPEG") range
  kYuv422p,
  kYuvj422p,
};

// The names the JS facade uses ("gray8", "rgb24", "yuvj420p" …).
const char* PixelFormatName(PixelFormat f);
std::optional<PixelFormat> PixelFormatFromName(const char* name);

// FFmpeg AVPixelFormat numbers stored per slot by zmc ≥ 1.39.5 (docs/zoneminder/shared-memory.md);
// nullopt for others.
std::optional<PixelFormat> FromAvPixelFormat(std::int32_t av);
// ZoneMinder subpixel order (SharedData.format) + Colours, for 1.36/1.38 slots.
std::optional<PixelFormat> FromSubpixelOrder(std::uint32_t order, std::uint32_t colours);

bool IsPlanarYuv(PixelFormat f);
int PlaneCount(PixelFormat f);     // 1 packed, 3 planar
int BytesPerPixel(PixelFormat f);  // packed formats; 1 for planar (luma)

// Where each plane starts and how long its rows are. Planes are contiguous; rows are `linesize`
// bytes apart (≥ the bytes of visible pixels).
struct PlaneLayout {
  int planes = 1;
  std::array<std::size_t, 3> offset{};
  std::array<std::size_t, 3> linesize{};
  std::array<std::uint32_t, 3> width{};   // bytes of visible pixels per row
  std::array<std::uint32_t, 3> height{};  // rows
  std::size_t size = 0;                   // all planes
};

// av_image_fill_arrays(fmt, w, h, align): align 1 = packed rows (1.36/1.38), 32 = zmc ≥ 1.39.
PlaneLayout ComputePlaneLayout(PixelFormat f, std::uint32_t width, std::uint32_t height,
                               std::uint32_t align);

// The same planes with caller-chosen row strides (linesize[i] ≥ width[i]); planes back to back.
PlaneLayout PlaneLayoutWithStrides(PixelFormat f, std::uint32_t width, std::uint32_t height,
                                   const std::array<std::size_t, 3>& linesize);

}  // namespace zm
