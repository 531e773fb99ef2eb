// Codec identities: FFmpeg AVCodecID numbers as sent in a stream-socket HELLO
// (docs/zoneminder/stream-socket.md) mapped to the codecs zmgate knows. The numbers are stable
// across FFmpeg 4–7.
#pragma once

#include <cstdint>

namespace zm {

enum class Codec { kUnknown, kH264, kH265, kAV1, kAAC, kOpus, kPCMU, kPCMA };

namespace avcodec {
constexpr std::uint32_t kH264 = 27;
constexpr std::uint32_t kHEVC = 173;
constexpr std::uint32_t kAV1 = 226;
constexpr std::uint32_t kPcmMulaw = 65542;
constexpr std::uint32_t kPcmAlaw = 65543;
constexpr std::uint32_t kAAC = 86018;
constexpr std::uint32_t kOpus = 86076;
}  // namespace avcodec

Codec CodecFromAvCodecId(std::uint32_t id);
// Short stable names used in JS: "h264", "h265", "av1", "aac", "opus", "pcmu", "pcma", "unknown".
const char* CodecName(Codec codec);
// Inverse of CodecName; kUnknown for anything else.
Codec CodecFromName(const char* name);
bool IsVideo(Codec codec);

}  // namespace zm
