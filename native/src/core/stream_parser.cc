#include "zm/stream_parser.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "zm/error.h"

namespace zm {

void StreamParser::Feed(const std::uint8_t* data, std::size_t size,
                        std::vector<proto::Message>& out) {
  if (failed_)
    throw Error("ERR_ZM_STREAM_PROTOCOL_STATE", "stream parser used after a protocol error");
  while (size > 0) {
    if (!in_payload_) {
      const std::size_t n = std::min(size, proto::kHeaderSize - header_fill_);
      std::memcpy(header_ + header_fill_, data, n);
      header_fill_ += n, data += n, size -= n;
      CheckHeaderPrefix();
      if (header_fill_ == proto::kHeaderSize) StartPayload(out);
      continue;
    }
    const std::size_t n = std::min(size, current_.payload.size - payload_fill_);
    std::memcpy(current_.payload.data.get() + payload_fill_, data, n);
    payload_fill_ += n, data += n, size -= n;
    if (payload_fill_ == current_.payload.size) FinishMessage(out);
  }
}

std::uint8_t* StreamParser::PayloadWindow(std::size_t* size) {
  if (failed_ || !in_payload_) return nullptr;
  *size = current_.payload.size - payload_fill_;
  return current_.payload.data.get() + payload_fill_;
}

void StreamParser::Commit(std::size_t n, std::vector<proto::Message>& out) {
  payload_fill_ += n;
  if (payload_fill_ == current_.payload.size) FinishMessage(out);
}

void StreamParser::Reset() {
  header_fill_ = 0;
  payload_fill_ = 0;
  in_payload_ = false;
  failed_ = false;
  current_ = proto::Message{};
}

// Validates as soon as the bytes are present, so a bad stream is rejected without waiting for
// (or allocating) a payload it announces.
void StreamParser::CheckHeaderPrefix() {
  if (header_fill_ >= 4) {
    const std::uint32_t length = ReadU32Le(header_);
    if (length < proto::kMinLength || length > max_length_) {
      failed_ = true;
      throw Error("ERR_ZM_STREAM_PROTOCOL_LENGTH",
                  "stream socket protocol violation: message length " + std::to_string(length) +
                      " outside " + std::to_string(proto::kMinLength) + ".." +
                      std::to_string(max_length_));
    }
  }
  if (header_fill_ >= 5 && header_[4] != proto::kVersion) {
    failed_ = true;
    throw Error("ERR_ZM_STREAM_PROTOCOL_VERSION", "stream socket protocol violation: version " +
                                                      std::to_string(header_[4]) +
                                                      ", this client speaks version 1");
  }
}

void StreamParser::StartPayload(std::vector<proto::Message>& out) {
  current_.header = proto::DecodeHeader(header_);
  current_.payload = proto::Payload::Allocate(current_.header.payload_size());
  payload_fill_ = 0;
  header_fill_ = 0;
  in_payload_ = true;
  if (current_.payload.size == 0) FinishMessage(out);
}

void StreamParser::FinishMessage(std::vector<proto::Message>& out) {
  out.push_back(std::move(current_));
  current_ = proto::Message{};
  in_payload_ = false;
  payload_fill_ = 0;
}

}  // namespace zm
