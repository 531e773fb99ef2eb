// JPEG encoding of every pixel format and lossless transforms, decoded back with libjpeg-turbo.

#include "zm/jpeg.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>

#include "zm/error.h"

namespace zm::jpeg {
namespace {

std::string CodeOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return "no error";
}

// A w×h picture of one colour in `format` (RGB given; YUV planes computed by the caller).
Bytes Solid(PixelFormat format, std::uint32_t w, std::uint32_t h,
            std::array<std::uint8_t, 3> rgb_or_yuv) {
  const PlaneLayout p = ComputePlaneLayout(format, w, h, 1);
  Bytes b(p.size, 0);
  if (IsPlanarYuv(format)) {
    for (int k = 0; k < 3; ++k)
      std::fill(b.begin() + p.offset[k], b.begin() + p.offset[k] + p.linesize[k] * p.height[k],
                rgb_or_yuv[k]);
    return b;
  }
  const int bpp = BytesPerPixel(format);
  for (std::size_t px = 0; px < std::size_t(w) * h; ++px) {
    std::uint8_t* d = b.data() + px * bpp;
    const auto [r, g, bl] = rgb_or_yuv;
    switch (format) {
      case PixelFormat::kGray8:
        d[0] = r;
        break;
      case PixelFormat::kRgb24:
        d[0] = r, d[1] = g, d[2] = bl;
        break;
      case PixelFormat::kBgr24:
        d[0] = bl, d[1] = g, d[2] = r;
        break;
      case PixelFormat::kRgba:
        d[0] = r, d[1] = g, d[2] = bl, d[3] = 255;
        break;
      case PixelFormat::kBgra:
        d[0] = bl, d[1] = g, d[2] = r, d[3] = 255;
        break;
      case PixelFormat::kArgb:
        d[0] = 255, d[1] = r, d[2] = g, d[3] = bl;
        break;
      case PixelFormat::kAbgr:
        d[0] = 255, d[1] = bl, d[2] = g, d[3] = r;
        break;
      default:
        break;
    }
  }
  return b;
}

Bytes EncodeSolid(PixelFormat f, std::uint32_t w, std::uint32_t h, std::array<std::uint8_t, 3> c,
                  int q = 90) {
  const Bytes data = Solid(f, w, h, c);
  ImageView v;
  v.format = f;
  v.width = w;
  v.height = h;
  v.linesize = PackedLinesizes(f, w);
  v.data = data;
  return Encode(v, q);
}

void ExpectNear(const Bytes& rgb, std::array<int, 3> want, int tolerance) {
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(rgb[k], want[k], tolerance) << "channel " << k;
}

TEST(Jpeg, EncodesEveryRgbFamilyFormat) {
  for (PixelFormat f : {PixelFormat::kRgb24, PixelFormat::kBgr24, PixelFormat::kRgba,
                        PixelFormat::kBgra, PixelFormat::kArgb, PixelFormat::kAbgr}) {
    const Bytes jpg = EncodeSolid(f, 40, 24, {200, 40, 20});
    Header h;
    const Bytes rgb = DecodeRgb(jpg, &h);
    EXPECT_EQ(h.width, 40);
    EXPECT_EQ(h.height, 24);
    EXPECT_EQ(h.subsampling, 2) << PixelFormatName(f);  // 4:2:0
    ExpectNear(rgb, {200, 40, 20}, 6);
  }
}

TEST(Jpeg, EncodesGreyAndPlanarYuv) {
  Header h;
  ExpectNear(DecodeRgb(EncodeSolid(PixelFormat::kGray8, 17, 9, {90, 0, 0}), &h), {90, 90, 90}, 2);
  EXPECT_EQ(h.subsampling, 3);
  // Full-range yuvj: Y 128, neutral chroma = mid grey. Limited yuv: Y 16 = black, 235 = white.
  ExpectNear(DecodeRgb(EncodeSolid(PixelFormat::kYuvj420p, 33, 17, {128, 128, 128}), &h),
             {128, 128, 128}, 2);
  EXPECT_EQ(h.width, 33);
  EXPECT_EQ(h.subsampling, 2);
  ExpectNear(DecodeRgb(EncodeSolid(PixelFormat::kYuv420p, 32, 16, {16, 128, 128})), {0, 0, 0}, 2);
  ExpectNear(DecodeRgb(EncodeSolid(PixelFormat::kYuv420p, 32, 16, {235, 128, 128})),
             {255, 255, 255}, 2);
  ExpectNear(DecodeRgb(EncodeSolid(PixelFormat::kYuv422p, 32, 16, {235, 128, 128}), &h),
             {255, 255, 255}, 2);
  EXPECT_EQ(h.subsampling, 1);
}

TEST(Jpeg, HonoursRowStridesAndRejectsShortData) {
  // 3×2 RGB with 16-byte rows; padding bytes must not leak into the picture.
  Bytes data(32, 0xFF);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x)
      data[y * 16 + x * 3] = 10, data[y * 16 + x * 3 + 1] = 200, data[y * 16 + x * 3 + 2] = 10;
  ImageView v;
  v.format = PixelFormat::kRgb24;
  v.width = 3;
  v.height = 2;
  v.linesize = {16, 0, 0};
  v.data = data;
  ExpectNear(DecodeRgb(Encode(v, 95)), {10, 200, 10}, 12);
  v.data = ByteView(data.data(), 20);
  EXPECT_EQ(CodeOf([&] { Encode(v); }), "ERR_ZM_JPEG_ENCODE");
}

TEST(Jpeg, LosslessRotationSwapsSidesAndKeepsPixels) {
  // 32×16, MCU-aligned for 4:2:0: left half red, right half blue.
  Bytes data = Solid(PixelFormat::kRgb24, 32, 16, {220, 20, 20});
  for (int y = 0; y < 16; ++y)
    for (int x = 16; x < 32; ++x) data[(y * 32 + x) * 3] = 20, data[(y * 32 + x) * 3 + 2] = 220;
  ImageView v;
  v.format = PixelFormat::kRgb24;
  v.width = 32;
  v.height = 16;
  v.linesize = PackedLinesizes(v.format, 32);
  v.data = data;
  const Bytes jpg = Encode(v, 95);

  Header h;
  const Bytes r90 = DecodeRgb(Transform(jpg, Orientation::kRotate90), &h);
  EXPECT_EQ(h.width, 16);
  EXPECT_EQ(h.height, 32);
  ExpectNear(Bytes(r90.begin() + (2 * 16 + 8) * 3, r90.end()), {220, 20, 20}, 12);  // top: was left
  const Bytes hflip = DecodeRgb(Transform(jpg, Orientation::kFlipHori), &h);
  EXPECT_EQ(h.width, 32);
  ExpectNear(Bytes(hflip.begin() + (8 * 32 + 2) * 3, hflip.end()), {20, 20, 220},
             12);  // left: was right
  EXPECT_EQ(Transform(jpg, Orientation::kRotate0), jpg);
}

TEST(Jpeg, PartialMcusAreTrimmedOrRefused) {
  const Bytes jpg = EncodeSolid(PixelFormat::kRgb24, 40, 24, {100, 100, 100});  // 4:2:0: MCU 16×16
  const Header r90 = ReadHeader(Transform(jpg, Orientation::kRotate90, EdgeMode::kTrim));
  EXPECT_EQ(r90.width, 16);  // bottom partial MCU row (24 = 16 + 8) dropped, then rotated
  EXPECT_EQ(r90.height, 40);
  EXPECT_EQ(CodeOf([&] { Transform(jpg, Orientation::kRotate90, EdgeMode::kPerfect); }),
            "ERR_ZM_JPEG_NOT_PERFECT");
  const Bytes aligned = EncodeSolid(PixelFormat::kRgb24, 32, 16, {100, 100, 100});
  EXPECT_EQ(ReadHeader(Transform(aligned, Orientation::kRotate270, EdgeMode::kPerfect)).width, 16);
}

TEST(Jpeg, RejectsDataThatIsNotAJpeg) {
  const Bytes junk = {0xFF, 0xD8, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05};
  EXPECT_EQ(CodeOf([&] { Transform(junk, Orientation::kRotate90); }), "ERR_ZM_JPEG_DECODE");
  EXPECT_EQ(CodeOf([&] { ReadHeader(Bytes{1, 2, 3, 4}); }), "ERR_ZM_JPEG_DECODE");
}

}  // namespace
}  // namespace zm::jpeg
