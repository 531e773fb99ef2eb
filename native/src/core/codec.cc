#include "zm/codec.h"

#include <cstring>
#include <initializer_list>

namespace zm {

Codec CodecFromAvCodecId(std::uint32_t id) {
  switch (id) {
    case avcodec::kH264:
      return Codec::kH264;
    case avcodec::kHEVC:
      return Codec::kH265;
    case avcodec::kAV1:
      return Codec::kAV1;
    case avcodec::kAAC:
      return Codec::kAAC;
    case avcodec::kOpus:
      return Codec::kOpus;
    case avcodec::kPcmMulaw:
      return Codec::kPCMU;
    case avcodec::kPcmAlaw:
      return Codec::kPCMA;
    default:
      return Codec::kUnknown;
  }
}

const char* CodecName(Codec codec) {
  switch (codec) {
    case Codec::kH264:
      return "h264";
    case Codec::kH265:
      return "h265";
    case Codec::kAV1:
      return "av1";
    case Codec::kAAC:
      return "aac";
    case Codec::kOpus:
      return "opus";
    case Codec::kPCMU:
      return "pcmu";
    case Codec::kPCMA:
      return "pcma";
    case Codec::kUnknown:
      break;
  }
  return "unknown";
}

Codec CodecFromName(const char* name) {
  for (Codec c : {Codec::kH264, Codec::kH265, Codec::kAV1, Codec::kAAC, Codec::kOpus, Codec::kPCMU,
                  Codec::kPCMA}) {
    if (std::strcmp(name, CodecName(c)) == 0) return c;
  }
  return Codec::kUnknown;
}

bool IsVideo(Codec codec) {
  return codec == Codec::kH264 || codec == Codec::kH265 || codec == Codec::kAV1;
}

}  // namespace zm
