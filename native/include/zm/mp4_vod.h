// Recorded events as fragmented MP4: an MP4 (progressive, faststart or fragmented) re-cut into
// fMP4 segments that start at keyframes, for HLS VOD (segments near a target duration) and for a
// fragmented remux of the whole file (target 0: one fragment per GOP). Samples are read by offset
// for one segment at a time; the video is copied, never re-encoded.
//
// Timeline: the first video frame (after the edit list) is presentation time 0. Video decode
// times are shifted so none precedes it (composition offsets may then be negative: trun v1), so
// every segment's tfdt continues the previous one's and segments can be fetched in any order.
// Audio (AAC/Opus) rides along; audio before the first frame (e.g. AAC priming) is left out.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "zm/fmp4_muxer.h"
#include "zm/mp4_demuxer.h"

namespace zm {

struct VodSegment {
  std::uint32_t index = 0;
  std::int64_t start_us = 0;     // presentation start, from the first video frame
  std::int64_t duration_us = 0;  // until the next segment's start (the last: the video's end)
  std::uint32_t first_sample = 0, last_sample = 0;  // video samples, decode order, inclusive
  std::uint32_t first_audio = 0, end_audio = 0;     // audio samples [first, end)
};

class Mp4Vod {
 public:
  // Picks the first H.264/H.265 track with samples and the first AAC/Opus track (if any).
  // Throws ERR_ZM_MP4_NO_VIDEO when there is no such video.
  explicit Mp4Vod(std::shared_ptr<const Mp4Demuxer> demuxer);

  // Segments cut at the first keyframe once `target_us` has passed; 0 = at every keyframe.
  std::vector<VodSegment> Plan(std::int64_t target_us) const;
  Bytes Init() const;
  // Segment `index` of `plan` (moof + mdat; mfhd sequence = index + 1). Reads from the file.
  Bytes Segment(const std::vector<VodSegment>& plan, std::size_t index) const;

  std::string Codecs() const;
  std::size_t video_track() const { return video_track_; }
  std::optional<std::size_t> audio_track() const { return audio_track_; }
  std::int64_t duration_us() const { return end_us_ - origin_us_; }
  const Mp4Demuxer& demuxer() const { return *demuxer_; }

 private:
  struct Timeline {
    std::vector<std::int64_t> pts_us, dts_us;  // the muxer's input clock
  };

  std::shared_ptr<const Mp4Demuxer> demuxer_;
  std::size_t video_track_ = 0;
  std::optional<std::size_t> audio_track_;
  std::vector<MuxTrackConfig> configs_;
  Timeline video_, audio_;
  std::uint32_t first_video_ = 0;  // the first sync sample: anything before it cannot be decoded
  std::int64_t origin_us_ = 0, end_us_ = 0;
};

}  // namespace zm
