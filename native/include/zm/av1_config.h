// AV1 is recognised (HELLO codec id 226) but not yet muxed: its codec string is derived from
// the AV1CodecConfigurationRecord ('av1C', the FFmpeg extradata) when one is present.
#pragma once

#include <string>

#include "zm/bytes.h"

namespace zm {

// "av01.<profile>.<level><M|H>.<bit depth>" (AV1-ISOBMFF §5), or "" without a valid av1C.
std::string Av1CodecString(ByteView av1c);

}  // namespace zm
