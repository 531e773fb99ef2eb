// Consumer-side state of one stream-socket connection series, fed with parsed messages. It turns
// protocol messages into records for JS: decoded HELLO/EVENT/STATS, media with sequence-gap
// counts, generation bumps, and codec details learnt from in-band parameter sets. It also keeps the
// latest video keyframe. Pure logic: no sockets, no threads, no Node-API.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "zm/codec_info.h"
#include "zm/stream_messages.h"
#include "zm/stream_protocol.h"

namespace zm {

enum class StreamKind : std::uint8_t { kVideo = 0, kAudio = 1 };

struct CodecRecord {  // a HELLO, or better details found in-band later
  StreamKind stream = StreamKind::kVideo;
  std::uint32_t generation = 0;
  std::shared_ptr<const CodecInfo> codec;
  bool in_band = false;  // false: from HELLO; true: learnt from a keyframe / ADTS header
};
struct MediaRecord {
  StreamKind stream = StreamKind::kVideo;
  proto::Header header;
  proto::Payload payload;
  std::uint32_t gap = 0;  // messages zmc produced for this stream but dropped before this one
  bool cached = false;    // a KEYFRAME message: zmc's cached keyframe, sent once on connect
};
struct StatsRecord {
  StatsInfo stats;
};
struct ByeRecord {};
struct EventRecord {
  std::uint32_t sequence = 0, generation = 0;
  EventInfo event;
};
struct GenerationRecord {
  std::uint32_t previous = 0, current = 0;
};
struct ConnectedRecord {
  std::uint32_t attempt = 0;
};
struct DisconnectedRecord {
  std::string reason;  // "bye", "eof", "error", "stalled", "closed" (by us), "connect"
  std::string code;    // ERR_ZM_* when abnormal, else empty
  std::string message;
  std::uint32_t retry_ms = 0;  // when the next attempt happens; 0 when not retrying
  std::uint32_t attempt = 0;   // consecutive failed attempts so far
};

using Record = std::variant<CodecRecord, MediaRecord, StatsRecord, ByeRecord, EventRecord,
                            GenerationRecord, ConnectedRecord, DisconnectedRecord>;

std::size_t RecordBytes(const Record& r);  // payload bytes, for back-pressure accounting

struct CachedKeyframe {
  proto::Header header;
  Bytes data;
};

struct SessionCounters {
  std::uint64_t messages = 0, bytes = 0, media = 0, gaps = 0, lost = 0, unknown = 0,
                malformed_events = 0, generations = 0;
};

class StreamSession {
 public:
  // New connection: sequence baselines are forgotten; the generation is remembered so a zmc
  // restart with another epoch is still reported as a bump.
  void OnConnect();
  // Turns one message into zero or more records. Throws zm::Error for a fatal protocol error
  // (e.g. a malformed HELLO); the caller then drops the connection.
  void Process(proto::Message&& message, std::vector<Record>& out);

  // Thread-safe (read from the JS thread while the reader thread writes).
  std::shared_ptr<const CachedKeyframe> LatestKeyframe() const;
  std::shared_ptr<const CodecInfo> Codec(StreamKind stream) const;
  SessionCounters Counters() const;

 private:
  void CheckGeneration(std::uint32_t generation, std::vector<Record>& out);
  void OnHello(const proto::Message& m, std::vector<Record>& out);
  void OnMedia(proto::Message&& m, std::vector<Record>& out);
  void LearnInBand(StreamKind stream, ByteView data, std::vector<Record>& out);

  struct PerStream {
    std::optional<std::uint32_t> expected_seq;  // next live sequence, once a baseline exists
    std::shared_ptr<const CodecInfo> codec;
  };

  mutable std::mutex mutex_;  // guards keyframe_, streams_[i].codec and counters_
  PerStream streams_[2];
  std::optional<std::uint32_t> generation_;
  std::shared_ptr<const CachedKeyframe> keyframe_;
  SessionCounters counters_;
};

}  // namespace zm
