// Payload decoders for the stream-socket control messages: HELLO (codec parameters), EVENT and
// STATS. MEDIA/KEYFRAME payloads are opaque access units and need no decoding here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "zm/bytes.h"
#include "zm/codec_info.h"

namespace zm {

// HELLO TLVs (u8 tag, u16 LE length, value); unknown tags skipped. Throws zm::Error
// ERR_ZM_STREAM_PROTOCOL_HELLO when a TLV overruns the payload or codec_id (required) is missing,
// since without it the stream cannot be interpreted. Derived details are filled in too.
CodecInfo DecodeHello(ByteView payload);

struct EventInfo {
  std::uint16_t code = 0;
  std::optional<std::uint64_t> wall_clock_us;
  std::optional<std::string> message;
  std::optional<std::uint32_t> state_id, prev_state_id, detail;
  std::optional<std::string> state_name;
  std::optional<std::uint16_t> health_code;
  std::optional<std::string> json_detail;
};

// EVENT payload: u16 LE code + TLVs. Returns nullopt when malformed (the protocol says to skip
// such EVENTs rather than drop the connection).
std::optional<EventInfo> DecodeEvent(ByteView payload);

// "snapshot", "connection_failed", … per docs/zoneminder/stream-socket.md; "unknown" otherwise.
const char* EventCodeName(std::uint16_t code);

struct StatsInfo {
  std::uint64_t messages_sent = 0;
  std::uint64_t messages_dropped = 0;
};

std::optional<StatsInfo> DecodeStats(ByteView payload);

}  // namespace zm
