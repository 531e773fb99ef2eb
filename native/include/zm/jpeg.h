// JPEG encoding of raw pictures and lossless rotation/flipping of JPEG stills, over libjpeg-turbo's
// TurboJPEG API (linked statically; see native/cmake/libjpeg-turbo.cmake). Thread-safe: every
// call uses its own TurboJPEG handle, so the addon runs them on worker threads freely.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "zm/bytes.h"
#include "zm/image.h"

namespace zm::jpeg {

constexpr int kDefaultQuality = 80;

// A picture in memory: planes back to back with the given row strides (linesize[k] ≥ the
// plane's visible bytes per row). `data` must hold PlaneLayoutWithStrides(...).size bytes.
struct ImageView {
  PixelFormat format = PixelFormat::kRgb24;
  std::uint32_t width = 0, height = 0;
  std::array<std::size_t, 3> linesize{};
  ByteView data;
};

// Packed strides (no row padding) for `format`.
std::array<std::size_t, 3> PackedLinesizes(PixelFormat format, std::uint32_t width);

// Baseline JPEG. RGB-family and grey input: 4:2:0 / greyscale; planar YUV keeps its subsampling.
// yuv420p/yuv422p are limited range (16–235) and are expanded to JPEG's full range first;
// the yuvj formats are copied as they are. Throws ERR_ZM_JPEG_ENCODE.
Bytes Encode(const ImageView& image, int quality = kDefaultQuality);

// ZoneMinder's Monitors.Orientation.
enum class Orientation : std::uint8_t {
  kRotate0,
  kRotate90,
  kRotate180,
  kRotate270,
  kFlipHori,
  kFlipVert
};

// What to do with the partial MCU blocks (8 or 16 px) at the right/bottom edges, which cannot be
// moved losslessly: drop them (the picture loses < 1 MCU at those edges), or refuse.
enum class EdgeMode : std::uint8_t { kTrim, kPerfect };

// Lossless transform in the DCT domain (tjTransform); markers (EXIF, ICC) are copied. kRotate0
// returns a copy of the input. Throws ERR_ZM_JPEG_DECODE for data that is not a JPEG and
// ERR_ZM_JPEG_NOT_PERFECT (kPerfect) when the size is not a whole number of MCUs.
Bytes Transform(ByteView jpeg, Orientation orientation, EdgeMode edges = EdgeMode::kTrim);

struct Header {
  int width = 0, height = 0;
  int subsampling = 0;  // TJSAMP_* (0 4:4:4, 1 4:2:2, 2 4:2:0, 3 grey, …)
  int mcu_width = 0, mcu_height = 0;
};
// Throws ERR_ZM_JPEG_DECODE.
Header ReadHeader(ByteView jpeg);

// Decodes to packed RGB24 (tests and tools).
Bytes DecodeRgb(ByteView jpeg, Header* header = nullptr);

}  // namespace zm::jpeg
