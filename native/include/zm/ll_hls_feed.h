// Routes stream-session records into an LlHlsPackager, as the reader thread's tap does (the TS
// facade's push() mirrors this for records fed from JS): HELLOs configure the tracks of the next
// generation, media is pushed (zmc's cached KEYFRAME skipped: the live frames after it do not
// follow from it), a generation bump or a reconnect starts a new init segment (timestamps re-base).
#pragma once

#include <cstdint>
#include <optional>

#include "zm/codec_info.h"
#include "zm/fmp4_muxer.h"
#include "zm/ll_hls_packager.h"
#include "zm/stream_session.h"

namespace zm {

// The muxer track for a stream's codec details; nullopt when fMP4 cannot carry it (G.711, AV1).
std::optional<MuxTrackConfig> MuxTrackFromCodec(const CodecInfo& info);

class LlHlsRecordFeed {
 public:
  explicit LlHlsRecordFeed(LlHlsPackager& packager) : packager_(packager) {}

  // Returns the packager's change flags (LlHlsPackager::kNewPart …).
  unsigned Feed(const Record& record, std::int64_t now_us);
  void OnCodec(StreamKind stream, const CodecInfo& info);
  // The video codec cannot be packaged (e.g. AV1 or MJPEG): nothing will come out.
  bool unsupported() const { return unsupported_; }

 private:
  void Configure();

  LlHlsPackager& packager_;
  std::optional<MuxTrackConfig> video_, audio_;
  bool unsupported_ = false;
};

}  // namespace zm
