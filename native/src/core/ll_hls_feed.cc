#include "zm/ll_hls_feed.h"

#include <type_traits>

#include "zm/error.h"

namespace zm {

std::optional<MuxTrackConfig> MuxTrackFromCodec(const CodecInfo& info) {
  switch (info.codec) {
    case Codec::kH264:
    case Codec::kH265:
    case Codec::kAAC:
    case Codec::kOpus:
      break;
    default:
      return std::nullopt;
  }
  MuxTrackConfig c;
  c.codec = info.codec;
  c.extradata = info.extradata;
  c.width = info.width, c.height = info.height;
  c.sample_rate = info.sample_rate;
  c.channels = info.channels <= 255 ? info.channels : 0;
  c.fps_num = info.fps_num, c.fps_den = info.fps_den;
  if (c.codec == Codec::kAAC && c.extradata.empty() && c.sample_rate == 0) return std::nullopt;
  return c;
}

void LlHlsRecordFeed::OnCodec(StreamKind stream, const CodecInfo& info) {
  auto track = MuxTrackFromCodec(info);
  if (stream == StreamKind::kVideo) {
    unsupported_ = !track || (track->codec != Codec::kH264 && track->codec != Codec::kH265);
    video_ = unsupported_ ? std::nullopt : track;
  } else {
    audio_ = track && (track->codec == Codec::kAAC || track->codec == Codec::kOpus) ? track
                                                                                    : std::nullopt;
  }
  Configure();
}

void LlHlsRecordFeed::Configure() {
  if (!video_) return;
  try {
    packager_.Configure(*video_, audio_);
  } catch (const Error&) {
    unsupported_ = true;
  }
}

unsigned LlHlsRecordFeed::Feed(const Record& record, std::int64_t now_us) {
  return std::visit(
      [&](const auto& r) -> unsigned {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, CodecRecord>) {
          if (!r.in_band && r.codec) OnCodec(r.stream, *r.codec);
          return 0;
        } else if constexpr (std::is_same_v<T, MediaRecord>) {
          if (r.cached) return 0;
          try {
            if (r.stream == StreamKind::kVideo) {
              return packager_.PushVideo(std::int64_t(r.header.pts_us), r.header.keyframe(),
                                         r.payload.view(), r.gap > 0, now_us);
            }
            return packager_.PushAudio(std::int64_t(r.header.pts_us), r.payload.view());
          } catch (const Error&) {
            packager_.Discontinuity();  // an unusable access unit: start over at the next keyframe
            return 0;
          }
        } else if constexpr (std::is_same_v<T, GenerationRecord> ||
                             std::is_same_v<T, ConnectedRecord>) {
          audio_.reset();  // the HELLOs that follow say what the new generation carries
          packager_.Discontinuity();
          return LlHlsPackager::kNewSegment;
        } else {
          return 0;
        }
      },
      record);
}

}  // namespace zm
