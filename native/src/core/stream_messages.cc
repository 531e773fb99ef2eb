#include "zm/stream_messages.h"

#include "zm/error.h"

namespace zm {

namespace {

// Walks TLVs; returns false if one overruns the buffer.
template <typename Visit>
bool ForEachTlv(ByteView d, Visit&& visit) {
  std::size_t pos = 0;
  while (pos < d.size) {
    if (pos + 3 > d.size) return false;
    const std::uint8_t tag = d[pos];
    const std::size_t len = ReadU16Le(&d[pos + 1]);
    pos += 3;
    if (pos + len > d.size) return false;
    visit(tag, d.sub(pos, len));
    pos += len;
  }
  return true;
}

std::optional<std::uint32_t> U32(ByteView v) {
  if (v.size != 4) return std::nullopt;
  return ReadU32Le(v.data);
}

}  // namespace

CodecInfo DecodeHello(ByteView payload) {
  CodecInfo info;
  bool have_codec = false;
  const bool ok = ForEachTlv(payload, [&](std::uint8_t tag, ByteView v) {
    if (tag == 0x02) {
      info.extradata = v.copy();
      return;
    }
    const auto n = U32(v);
    if (!n) return;  // wrong-sized integer: ignore the field rather than guess
    switch (tag) {
      case 0x01:
        info.codec_id = *n, have_codec = true;
        break;
      case 0x03:
        info.width = *n;
        break;
      case 0x04:
        info.height = *n;
        break;
      case 0x05:
        info.fps_num = *n;
        break;
      case 0x06:
        info.fps_den = *n;
        break;
      case 0x07:
        info.sample_rate = *n;
        break;
      case 0x08:
        info.channels = *n;
        break;
      case 0x09:
        info.profile = std::int32_t(*n);
        break;  // FFmpeg profile, may be negative
      case 0x0A:
        info.level = std::int32_t(*n);
        break;
      default:
        break;
    }
  });
  if (!ok)
    throw Error("ERR_ZM_STREAM_PROTOCOL_HELLO",
                "stream socket protocol violation: HELLO TLV overruns its payload");
  if (!have_codec)
    throw Error("ERR_ZM_STREAM_PROTOCOL_HELLO",
                "stream socket protocol violation: HELLO without codec_id");
  info.codec = CodecFromAvCodecId(info.codec_id);
  DeriveCodecDetails(info, info.extradata);
  return info;
}

std::optional<EventInfo> DecodeEvent(ByteView payload) {
  if (payload.size < 2) return std::nullopt;
  EventInfo e;
  e.code = ReadU16Le(payload.data);
  bool sizes_ok = true;
  const bool ok = ForEachTlv(payload.sub(2), [&](std::uint8_t tag, ByteView v) {
    auto text = [&] { return std::string(reinterpret_cast<const char*>(v.data), v.size); };
    switch (tag) {
      case 0x01:
        if (v.size == 8)
          e.wall_clock_us = ReadU64Le(v.data);
        else
          sizes_ok = false;
        break;
      case 0x02:
        e.message = text();
        break;
      case 0x03:
        if (auto n = U32(v))
          e.state_id = *n;
        else
          sizes_ok = false;
        break;
      case 0x04:
        if (auto n = U32(v))
          e.prev_state_id = *n;
        else
          sizes_ok = false;
        break;
      case 0x05:
        if (auto n = U32(v))
          e.detail = *n;
        else
          sizes_ok = false;
        break;
      case 0x06:
        e.state_name = text();
        break;
      case 0x07:
        if (v.size == 2)
          e.health_code = ReadU16Le(v.data);
        else
          sizes_ok = false;
        break;
      case 0x10:
        e.json_detail = text();
        break;
      default:
        break;
    }
  });
  if (!ok || !sizes_ok) return std::nullopt;
  return e;
}

const char* EventCodeName(std::uint16_t code) {
  switch (code) {
    case 0x0001:
      return "snapshot";
    case 0x0101:
      return "connection_failed";
    case 0x0102:
      return "connection_restored";
    case 0x0103:
      return "prime_capture_failed";
    case 0x0104:
      return "prime_capture_restored";
    case 0x0105:
      return "capture_failed";
    case 0x0106:
      return "capture_resumed";
    case 0x0201:
      return "state_changed";
    case 0x0301:
      return "detection";
    case 0x0302:
      return "description";
    case 0x0303:
      return "recording_saved";
    case 0x0304:
      return "recording_opening";
    case 0x0306:
      return "review_assets";
    default:
      return "unknown";
  }
}

std::optional<StatsInfo> DecodeStats(ByteView payload) {
  if (payload.size < 16) return std::nullopt;
  return StatsInfo{ReadU64Le(payload.data), ReadU64Le(payload.data + 8)};
}

}  // namespace zm
