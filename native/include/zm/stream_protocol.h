// Stream-socket wire protocol v1 (docs/zoneminder/stream-socket.md): zmc → consumer messages on
// stream_<id>.sock. Each message is a 24-byte little-endian header followed by the payload.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "zm/bytes.h"

namespace zm::proto {

constexpr std::size_t kHeaderSize = 24;
constexpr std::uint32_t kMinLength = 20;  // `length` counts the 20 bytes after itself
constexpr std::uint32_t kMaxLength = 32u * 1024 * 1024;  // + payload; zmc's maximum message
constexpr std::uint8_t kVersion = 1;

enum Type : std::uint8_t {
  kHello = 0x01,
  kMedia = 0x02,
  kKeyframe = 0x03,
  kStats = 0x04,
  kBye = 0x05,
  kEvent = 0x06,
  // 0x10–0x13: client→server control extension; consumers skip them like any unknown type.
};

enum Stream : std::uint8_t { kVideo = 0, kAudio = 1, kMonitor = 2 };

constexpr std::uint8_t kFlagKeyframe = 0x01;

struct Header {
  std::uint32_t length = 0;  // 20 + payload size
  std::uint8_t version = 0;
  std::uint8_t type = 0;
  std::uint8_t stream = 0;
  std::uint8_t flags = 0;
  std::uint32_t sequence = 0;    // per stream (EVENT: the monitor's event counter)
  std::uint32_t generation = 0;  // media epoch; bumps on a parameter change
  std::uint64_t pts_us = 0;      // one microsecond clock for audio and video

  std::uint32_t payload_size() const { return length - kMinLength; }
  bool keyframe() const { return (flags & kFlagKeyframe) != 0; }
};

Header DecodeHeader(const std::uint8_t* p);           // p: 24 bytes; no validation
void EncodeHeader(const Header& h, std::uint8_t* p);  // for tests and tools

// A payload buffer allocated without zero-filling (it is overwritten by the socket read), owned
// uniquely so it can be handed to JS as an external Buffer without a copy.
struct Payload {
  std::unique_ptr<std::uint8_t[]> data;
  std::size_t size = 0;

  static Payload Allocate(std::size_t n) {
    return {std::unique_ptr<std::uint8_t[]>(new std::uint8_t[n]), n};
  }
  ByteView view() const { return {data.get(), size}; }
};

struct Message {
  Header header;
  Payload payload;
};

}  // namespace zm::proto
