// Incremental parser for the stream-socket byte stream: bytes in (in any fragmentation), whole
// messages out. No I/O, no clocks, no allocation beyond one buffer per payload, so it can be fed
// from a socket, a test vector or a fuzzer alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "zm/stream_protocol.h"

namespace zm {

class StreamParser {
 public:
  explicit StreamParser(std::uint32_t max_length = proto::kMaxLength) : max_length_(max_length) {}

  // Consumes all of `data`, appending each completed message to `out`. A protocol violation
  // throws zm::Error (ERR_ZM_STREAM_PROTOCOL_LENGTH / _VERSION) as soon as the offending header
  // byte arrives; the parser then refuses further input until Reset(), since the stream cannot
  // be re-synchronised (the protocol has no sync marker).
  void Feed(const std::uint8_t* data, std::size_t size, std::vector<proto::Message>& out);

  // Zero-copy path for big payloads: while a payload is being filled, the rest of it can be read
  // straight into this window, then Commit()ted. Returns nullptr between payloads.
  std::uint8_t* PayloadWindow(std::size_t* size);
  void Commit(std::size_t n, std::vector<proto::Message>& out);

  void Reset();
  // True between messages (no partial header or payload buffered): a clean place for EOF.
  bool AtBoundary() const { return header_fill_ == 0 && !in_payload_; }

 private:
  void CheckHeaderPrefix();
  void StartPayload(std::vector<proto::Message>& out);
  void FinishMessage(std::vector<proto::Message>& out);

  std::uint32_t max_length_;
  std::uint8_t header_[proto::kHeaderSize] = {};
  std::size_t header_fill_ = 0;
  bool in_payload_ = false;
  bool failed_ = false;
  proto::Message current_;
  std::size_t payload_fill_ = 0;
};

}  // namespace zm
