// Fragmented-MP4 muxer driven by a packager: push access units per track (with real timestamps),
// get the init segment once codec parameters are known, and cut fragments where the packager
// decides (at a keyframe for a segment; "ready samples only" for a low-latency part).
//
// Timing: video uses a 90 kHz timescale, audio its sample rate (Opus 48 kHz). Timestamps are
// microseconds on the stream's clock, re-based to `origin_us` (default: the first sample pushed).
// Each sample's duration is the gap to the next sample's decode time; the last sample of a cut
// gets end_us − dts (video, when given), its own frame length (AAC/Opus), or the previous gap.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "zm/bytes.h"
#include "zm/codec.h"
#include "zm/dts_reorder.h"
#include "zm/fmp4_init.h"

namespace zm {

struct MuxTrackConfig {
  Codec codec = Codec::kUnknown;
  Bytes extradata;  // video: Annex B/avcC/hvcC; AAC: AudioSpecificConfig; Opus: OpusHead
  std::uint32_t width = 0, height = 0;          // used only when no SPS can be parsed
  DisplayMatrix matrix = kIdentityMatrix;       // video: written to the init segment's tkhd
  std::uint32_t sample_rate = 0, channels = 0;  // audio
  std::uint32_t timescale = 0;                  // 0 = default (90000 video, sample rate audio)
  std::uint32_t fps_num = 0, fps_den = 0;       // only for a lone sample's duration
  int reorder_depth = -1;                       // -1 = from the SPS (or 2 when it does not say)
  bool length_prefixed = false;                 // video samples already [u32 length][NAL]…
};

struct MuxSample {
  std::int64_t pts_us = 0;
  std::optional<std::int64_t> dts_us;  // when the source knows it (e.g. an MP4 demuxer)
  bool keyframe = false;
  ByteView data;  // video: one Annex B access unit (or length-prefixed); audio: one raw frame
};

struct FragmentTrackInfo {
  std::uint32_t track_id = 0;
  std::uint32_t timescale = 0;
  std::uint64_t base_decode_time = 0;  // tfdt
  std::uint64_t duration = 0;          // sum of sample durations
  std::uint32_t sample_count = 0;
  std::int64_t start_us = 0;  // earliest presentation time in the fragment
  std::int64_t end_us = 0;    // start_us + duration
};

struct Fragment {
  Bytes data;  // moof + mdat
  std::uint32_t sequence = 0;
  bool independent = false;  // starts with a video sync sample (or has no video)
  std::vector<FragmentTrackInfo> tracks;
};

enum class CutMode {
  kAll,    // everything pushed so far (segment end: call before pushing the next keyframe)
  kReady,  // only samples whose decode time and duration are final (a low-latency part)
};

struct MuxTrackInfo {
  std::uint32_t track_id = 0;
  Codec codec = Codec::kUnknown;
  std::string codec_string;
  std::uint32_t timescale = 0, width = 0, height = 0, sample_rate = 0, channels = 0;
  bool ready = false;  // the init segment can describe this track
  std::size_t pending = 0;
  std::uint64_t dropped = 0;                // samples before the origin, or empty after conversion
  std::uint64_t parameter_set_changes = 0;  // in-band SPS differing from the init segment's
  int reorder_depth = 0;
};

class Fmp4Muxer {
 public:
  // Throws ERR_ZM_MUX_CODEC_UNSUPPORTED (G.711, AV1, unknown) or ERR_ZM_MUX_CONFIG.
  explicit Fmp4Muxer(std::vector<MuxTrackConfig> tracks,
                     std::optional<std::int64_t> origin_us = std::nullopt);

  void AddSample(std::size_t track, const MuxSample& sample);
  bool InitReady() const;
  Bytes InitSegment() const;  // throws ERR_ZM_MUX_NOT_READY until InitReady()
  // nullopt when no track has a sample to emit. end_us: where the next fragment starts.
  // before_us: take only samples decoded before this time (a packager's part boundary; audio
  // frames after it wait for the next fragment).
  std::optional<Fragment> Cut(CutMode mode, std::optional<std::int64_t> end_us = std::nullopt,
                              std::optional<std::int64_t> before_us = std::nullopt);

  // Pending samples whose decode time is already known (in decode order), for a packager that
  // places part boundaries on the decode timeline. Times are in the track's timescale.
  std::size_t KnownDtsCount(std::size_t track) const;
  // Gives every pending sample of `track` its decode time now (what kAll does), for a packager
  // that splits a segment's tail into parts before the next keyframe arrives.
  void FlushDts(std::size_t track);
  std::int64_t PendingDts(std::size_t track, std::size_t index) const;
  bool PendingSync(std::size_t track, std::size_t index) const;
  std::int64_t TicksToUs(std::size_t track, std::int64_t ticks) const;
  // The mfhd sequence number of the next fragment (VOD segments written out of order).
  void SetNextSequence(std::uint32_t sequence) { sequence_ = sequence - 1; }

  MuxTrackInfo Info(std::size_t track) const;
  std::size_t track_count() const { return tracks_.size(); }
  std::optional<std::int64_t> origin_us() const { return origin_us_; }

 private:
  struct Pending {
    std::int64_t pts = 0;  // ticks relative to the origin
    std::int64_t dts = 0;
    bool sync = false;
    std::uint32_t frame_duration = 0;  // audio: the frame's own length in ticks, if known
    Bytes data;
  };
  struct Track {
    MuxTrackConfig config;
    InitTrack init;
    std::string codec_string;
    std::deque<Pending> pending;
    std::size_t with_dts = 0;  // pending[0 .. with_dts) have their decode time
    DtsReorderer reorder{0};
    std::uint32_t last_duration = 0;
    std::uint64_t dropped = 0, parameter_set_changes = 0;
    std::uint32_t aac_frame_samples = 1024;
  };

  std::int64_t ToTicks(std::int64_t us, std::uint32_t timescale) const;
  std::int64_t ToUs(std::int64_t ticks, std::uint32_t timescale) const;
  void SetupTrack(Track& t, std::size_t index);
  void LearnVideoParameters(Track& t, ByteView access_unit);
  void ConvertSample(Track& t, const MuxSample& in, Pending& out);
  std::uint32_t LastDuration(const Track& t, const Pending& last,
                             std::optional<std::int64_t> end_ticks) const;

  std::vector<Track> tracks_;
  std::optional<std::int64_t> origin_us_;
  std::uint32_t sequence_ = 0;
};

}  // namespace zm
