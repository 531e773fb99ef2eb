#include "zm/image.h"

#include <cstring>

namespace zm {

namespace {

struct FormatInfo {
  PixelFormat format;
  const char* name;
  int bytes_per_pixel;  // packed; 1 for the planar luma plane
  int chroma_shift_h;   // log2 horizontal chroma subsampling (planar only)
  int chroma_shift_v;   // log2 vertical chroma subsampling (planar only)
  bool planar;
};

constexpr FormatInfo kFormats[] = {
    {PixelFormat::kGray8, "gray8", 1, 0, 0, false},
    {PixelFormat::kRgb24, "rgb24", 3, 0, 0, false},
    {PixelFormat::kBgr24, "bgr24", 3, 0, 0, false},
    {PixelFormat::kRgba, "rgba", 4, 0, 0, false},
    {PixelFormat::kBgra, "bgra", 4, 0, 0, false},
    {PixelFormat::kArgb, "argb", 4, 0, 0, false},
    {PixelFormat::kAbgr, "abgr", 4, 0, 0, false},
    {PixelFormat::kYuv420p, "yuv420p", 1, 1, 1, true},
    {PixelFormat::kYuvj420p, "yuvj420p", 1, 1, 1, true},
    {PixelFormat::kYuv422p, "yuv422p", 1, 1, 0, true},
    {PixelFormat::kYuvj422p, "yuvj422p", 1, 1, 0, true},
};

const FormatInfo& Info(PixelFormat f) { return kFormats[static_cast<int>(f)]; }

std::size_t AlignUp(std::size_t v, std::size_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

// -((-v) >> s): FFmpeg's AV_CEIL_RSHIFT, the chroma size of an odd dimension rounds up.
std::uint32_t CeilShift(std::uint32_t v, int s) { return (v + (1u << s) - 1) >> s; }

}  // namespace

const char* PixelFormatName(PixelFormat f) { return Info(f).name; }

std::optional<PixelFormat> PixelFormatFromName(const char* name) {
  for (const auto& i : kFormats) {
    if (std::strcmp(i.name, name) == 0) return i.format;
  }
  return std::nullopt;
}

std::optional<PixelFormat> FromAvPixelFormat(std::int32_t av) {
  switch (av) {
    case 0:
      return PixelFormat::kYuv420p;
    case 2:
      return PixelFormat::kRgb24;
    case 3:
      return PixelFormat::kBgr24;
    case 4:
      return PixelFormat::kYuv422p;
    case 8:
      return PixelFormat::kGray8;
    case 12:
      return PixelFormat::kYuvj420p;
    case 13:
      return PixelFormat::kYuvj422p;
    case 25:
      return PixelFormat::kArgb;
    case 26:
      return PixelFormat::kRgba;
    case 27:
      return PixelFormat::kAbgr;
    case 28:
      return PixelFormat::kBgra;
    default:
      return std::nullopt;
  }
}

std::optional<PixelFormat> FromSubpixelOrder(std::uint32_t order, std::uint32_t colours) {
  // ZM_SUBPIX_ORDER_*: 2 NONE, 5 BGR, 6 RGB, 7 BGRA, 8 RGBA, 9 ABGR, 10 ARGB, 11-14 YUV.
  switch (order) {
    case 2:
      return colours == 1 ? std::optional(PixelFormat::kGray8) : std::nullopt;
    case 5:
      return colours == 3 ? std::optional(PixelFormat::kBgr24) : std::nullopt;
    case 6:
      return colours == 3 ? std::optional(PixelFormat::kRgb24) : std::nullopt;
    case 7:
      return colours == 4 ? std::optional(PixelFormat::kBgra) : std::nullopt;
    case 8:
      return colours == 4 ? std::optional(PixelFormat::kRgba) : std::nullopt;
    case 9:
      return colours == 4 ? std::optional(PixelFormat::kAbgr) : std::nullopt;
    case 10:
      return colours == 4 ? std::optional(PixelFormat::kArgb) : std::nullopt;
    case 11:
      return PixelFormat::kYuv420p;
    case 12:
      return PixelFormat::kYuvj420p;
    case 13:
      return PixelFormat::kYuv422p;
    case 14:
      return PixelFormat::kYuvj422p;
    default:
      return std::nullopt;
  }
}

bool IsPlanarYuv(PixelFormat f) { return Info(f).planar; }
int PlaneCount(PixelFormat f) { return Info(f).planar ? 3 : 1; }
int BytesPerPixel(PixelFormat f) { return Info(f).bytes_per_pixel; }

PlaneLayout PlaneLayoutWithStrides(PixelFormat f, std::uint32_t width, std::uint32_t height,
                                   const std::array<std::size_t, 3>& linesize) {
  const FormatInfo& i = Info(f);
  PlaneLayout p;
  p.planes = i.planar ? 3 : 1;
  p.width[0] = width * std::uint32_t(i.bytes_per_pixel);
  p.height[0] = height;
  for (int k = 1; k < p.planes; ++k) {
    p.width[k] = CeilShift(width, i.chroma_shift_h);
    p.height[k] = CeilShift(height, i.chroma_shift_v);
  }
  std::size_t at = 0;
  for (int k = 0; k < p.planes; ++k) {
    p.offset[k] = at;
    p.linesize[k] = linesize[k];
    at += linesize[k] * p.height[k];
  }
  p.size = at;
  return p;
}

PlaneLayout ComputePlaneLayout(PixelFormat f, std::uint32_t width, std::uint32_t height,
                               std::uint32_t align) {
  const FormatInfo& i = Info(f);
  std::array<std::size_t, 3> ls{};
  ls[0] = AlignUp(std::size_t(width) * std::size_t(i.bytes_per_pixel), align);
  if (i.planar) ls[1] = ls[2] = AlignUp(CeilShift(width, i.chroma_shift_h), align);
  return PlaneLayoutWithStrides(f, width, height, ls);
}

}  // namespace zm
