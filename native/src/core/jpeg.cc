#include "zm/jpeg.h"

#include <turbojpeg.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "zm/error.h"

namespace zm::jpeg {

namespace {

struct HandleDeleter {
  void operator()(void* h) const { tjDestroy(h); }
};
using Handle = std::unique_ptr<void, HandleDeleter>;

struct TjBufferDeleter {
  void operator()(unsigned char* p) const { tjFree(p); }
};
using TjBuffer = std::unique_ptr<unsigned char, TjBufferDeleter>;

Handle NewHandle(tjhandle h, const char* code) {
  if (!h)
    throw Error(code,
                std::string("cannot create a TurboJPEG instance: ") + tjGetErrorStr2(nullptr));
  return Handle(h);
}

int TjPixelFormat(PixelFormat f) {
  switch (f) {
    case PixelFormat::kGray8:
      return TJPF_GRAY;
    case PixelFormat::kRgb24:
      return TJPF_RGB;
    case PixelFormat::kBgr24:
      return TJPF_BGR;
    case PixelFormat::kRgba:
      return TJPF_RGBA;
    case PixelFormat::kBgra:
      return TJPF_BGRA;
    case PixelFormat::kArgb:
      return TJPF_ARGB;
    case PixelFormat::kAbgr:
      return TJPF_ABGR;
    default:
      return TJPF_UNKNOWN;
  }
}

bool IsLimitedRange(PixelFormat f) {
  return f == PixelFormat::kYuv420p || f == PixelFormat::kYuv422p;
}

// Limited → full range (BT.601 levels): Y 16–235 → 0–255, Cb/Cr 16–240 → 0–255 around 128.
struct RangeTables {
  std::uint8_t luma[256], chroma[256];
  RangeTables() {
    for (int v = 0; v < 256; ++v) {
      luma[v] = Clamp8(std::lround((v - 16) * 255.0 / 219.0));
      chroma[v] = Clamp8(std::lround((v - 128) * 255.0 / 224.0) + 128);
    }
  }
  static std::uint8_t Clamp8(long v) { return std::uint8_t(std::clamp(v, 0L, 255L)); }
};
const RangeTables& Ranges() {
  static const RangeTables tables;
  return tables;
}

Bytes Take(unsigned char* buf, unsigned long size) {
  TjBuffer owned(buf);
  return Bytes(buf, buf + size);
}

int TjOperation(Orientation o) {
  switch (o) {
    case Orientation::kRotate90:
      return TJXOP_ROT90;
    case Orientation::kRotate180:
      return TJXOP_ROT180;
    case Orientation::kRotate270:
      return TJXOP_ROT270;
    case Orientation::kFlipHori:
      return TJXOP_HFLIP;
    case Orientation::kFlipVert:
      return TJXOP_VFLIP;
    case Orientation::kRotate0:
      break;
  }
  return TJXOP_NONE;
}

void CheckJpeg(ByteView jpeg) {
  if (jpeg.size < 4 || jpeg[0] != 0xFF || jpeg[1] != 0xD8) {
    throw Error("ERR_ZM_JPEG_DECODE", "not a JPEG (no SOI marker)");
  }
}

}  // namespace

std::array<std::size_t, 3> PackedLinesizes(PixelFormat format, std::uint32_t width) {
  return ComputePlaneLayout(format, width, 1, 1).linesize;
}

Bytes Encode(const ImageView& image, int quality) {
  quality = std::clamp(quality, 1, 100);
  const PlaneLayout planes =
      PlaneLayoutWithStrides(image.format, image.width, image.height, image.linesize);
  if (image.width == 0 || image.height == 0 || image.width > 65535 || image.height > 65535) {
    throw Error("ERR_ZM_JPEG_ENCODE", "JPEG sizes are 1..65535 pixels a side");
  }
  for (int k = 0; k < planes.planes; ++k) {
    if (planes.linesize[k] < planes.width[k])
      throw Error("ERR_ZM_JPEG_ENCODE", "a row stride is shorter than a row");
  }
  if (image.data.size < planes.size) {
    throw Error("ERR_ZM_JPEG_ENCODE", "image data is " + std::to_string(image.data.size) +
                                          " bytes; " + std::to_string(planes.size) + " needed");
  }
  Handle h = NewHandle(tjInitCompress(), "ERR_ZM_JPEG_ENCODE");
  unsigned char* out = nullptr;
  unsigned long out_size = 0;
  int rc;
  if (!IsPlanarYuv(image.format)) {
    const bool gray = image.format == PixelFormat::kGray8;
    rc = tjCompress2(h.get(), image.data.data, int(image.width), int(planes.linesize[0]),
                     int(image.height), TjPixelFormat(image.format), &out, &out_size,
                     gray ? TJSAMP_GRAY : TJSAMP_420, quality, 0);
  } else {
    const int subsampling =
        image.format == PixelFormat::kYuv420p || image.format == PixelFormat::kYuvj420p
            ? TJSAMP_420
            : TJSAMP_422;
    const unsigned char* src[3];
    int strides[3];
    Bytes expanded;  // full-range copy of limited-range input
    if (IsLimitedRange(image.format)) {
      expanded.resize(planes.size);
      const RangeTables& t = Ranges();
      for (int k = 0; k < 3; ++k) {
        const std::uint8_t* table = k == 0 ? t.luma : t.chroma;
        for (std::uint32_t y = 0; y < planes.height[k]; ++y) {
          const std::uint8_t* s = image.data.data + planes.offset[k] + planes.linesize[k] * y;
          std::uint8_t* d = expanded.data() + planes.offset[k] + planes.linesize[k] * y;
          for (std::uint32_t x = 0; x < planes.width[k]; ++x) d[x] = table[s[x]];
        }
      }
    }
    const std::uint8_t* base = expanded.empty() ? image.data.data : expanded.data();
    for (int k = 0; k < 3; ++k) {
      src[k] = base + planes.offset[k];
      strides[k] = int(planes.linesize[k]);
    }
    rc = tjCompressFromYUVPlanes(h.get(), src, int(image.width), strides, int(image.height),
                                 subsampling, &out, &out_size, quality, 0);
  }
  if (rc != 0) {
    TjBuffer drop(out);
    throw Error("ERR_ZM_JPEG_ENCODE",
                std::string("JPEG encoding failed: ") + tjGetErrorStr2(h.get()));
  }
  return Take(out, out_size);
}

Header ReadHeader(ByteView jpeg) {
  CheckJpeg(jpeg);
  Handle h = NewHandle(tjInitDecompress(), "ERR_ZM_JPEG_DECODE");
  Header hd;
  int colorspace = 0;
  if (tjDecompressHeader3(h.get(), jpeg.data, static_cast<unsigned long>(jpeg.size), &hd.width,
                          &hd.height, &hd.subsampling, &colorspace) != 0) {
    throw Error("ERR_ZM_JPEG_DECODE",
                std::string("not a readable JPEG: ") + tjGetErrorStr2(h.get()));
  }
  if (hd.width <= 0 || hd.height <= 0)
    throw Error("ERR_ZM_JPEG_DECODE", "not a readable JPEG: no frame header");
  if (hd.subsampling >= 0 && hd.subsampling < TJ_NUMSAMP) {
    hd.mcu_width = tjMCUWidth[hd.subsampling];
    hd.mcu_height = tjMCUHeight[hd.subsampling];
  }
  return hd;
}

Bytes DecodeRgb(ByteView jpeg, Header* header) {
  const Header hd = ReadHeader(jpeg);
  if (header) *header = hd;
  Handle h = NewHandle(tjInitDecompress(), "ERR_ZM_JPEG_DECODE");
  Bytes rgb(std::size_t(hd.width) * hd.height * 3);
  if (tjDecompress2(h.get(), jpeg.data, static_cast<unsigned long>(jpeg.size), rgb.data(), hd.width,
                    0, hd.height, TJPF_RGB, 0) != 0) {
    throw Error("ERR_ZM_JPEG_DECODE",
                std::string("JPEG decoding failed: ") + tjGetErrorStr2(h.get()));
  }
  return rgb;
}

Bytes Transform(ByteView jpeg, Orientation orientation, EdgeMode edges) {
  CheckJpeg(jpeg);
  if (orientation == Orientation::kRotate0) return jpeg.copy();
  Handle h = NewHandle(tjInitTransform(), "ERR_ZM_JPEG_TRANSFORM");
  tjtransform xf{};
  xf.op = TjOperation(orientation);
  xf.options = edges == EdgeMode::kPerfect ? TJXOPT_PERFECT : TJXOPT_TRIM;
  unsigned char* out = nullptr;
  unsigned long out_size = 0;
  if (tjTransform(h.get(), jpeg.data, static_cast<unsigned long>(jpeg.size), 1, &out, &out_size,
                  &xf, 0) != 0) {
    TjBuffer drop(out);
    const std::string why = tjGetErrorStr2(h.get());
    if (edges == EdgeMode::kPerfect && why.find("perfect") != std::string::npos) {
      throw Error("ERR_ZM_JPEG_NOT_PERFECT",
                  "the JPEG is not a whole number of MCUs, so this transform cannot be lossless "
                  "and complete: " +
                      why);
    }
    throw Error("ERR_ZM_JPEG_DECODE", "lossless JPEG transform failed: " + why);
  }
  return Take(out, out_size);
}

}  // namespace zm::jpeg
