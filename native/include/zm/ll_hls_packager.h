// Low-latency HLS packager: access units in (decode order, as the stream socket delivers them),
// a rolling window of fMP4 segments and partial segments out, plus the media and master
// playlists over that window.
//
// - Segments start at a video keyframe: the first keyframe once the open segment has lasted the
//   segment target. TARGETDURATION is fixed (ceil(segment target) + 1 s, at least 2 × PART-TARGET);
//   a segment that would outgrow it (a long GOP) is closed at a part boundary instead, and the next
//   one starts without a keyframe (EXT-X-INDEPENDENT-SEGMENTS is then left out).
// - Parts are cut on the video decode timeline, a whole number of frames, at most the cut target
//   (the configured part target rounded to frames). PART-TARGET advertises the cut target plus half
//   a frame of headroom; a frame arriving later than that (a stall) closes the segment with the
//   last frame at its nominal length and resumes at the next keyframe after EXT-X-DISCONTINUITY,
//   so no part ever exceeds PART-TARGET. A part starting with a keyframe is INDEPENDENT.
// - PART-TARGET and TARGETDURATION are fixed per epoch. A new generation whose frames are too long
//   for the advertised PART-TARGET starts a new epoch: the window is emptied (media sequence and
//   discontinuity sequence carry on) and the targets are derived afresh.
// - A discontinuity (generation bump, reconnect, new SPS, timestamp jump) closes the open segment;
//   the next keyframe starts a new init segment (init-<n>.mp4) after EXT-X-DISCONTINUITY.
// - The window keeps `window_segments` complete segments plus the open one, and drops the oldest
//   segments beyond `max_bytes`. Bytes are shared (refcounted) with whoever fetched them, so
//   eviction never invalidates a response in flight.
//
// Not thread-safe: one owner (the JS thread) pushes and reads.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "zm/bytes.h"
#include "zm/fmp4_muxer.h"

namespace zm {

struct LlHlsOptions {
  std::int64_t part_target_us = 200000;
  std::int64_t segment_target_us = 1000000;
  std::size_t window_segments = 6;
  std::size_t max_bytes = 64u << 20;
  bool program_date_time = false;
};

// Bytes shared with consumers: a view into a refcounted buffer (a part of a finished segment is a
// slice of the segment's buffer).
struct SharedBytes {
  std::shared_ptr<const Bytes> owner;
  std::size_t offset = 0, size = 0;

  const std::uint8_t* data() const { return owner ? owner->data() + offset : nullptr; }
  explicit operator bool() const { return owner != nullptr; }
};

struct HlsPart {
  std::int64_t duration_us = 0;  // exact: from the video decode timeline
  bool independent = false;
  SharedBytes bytes;
};

struct HlsSegment {
  std::uint64_t msn = 0;
  std::uint32_t init_id = 0;
  bool discontinuity = false;  // first segment after a new init or a stall (not the very first one)
  bool complete = false;
  bool independent = true;       // starts with a keyframe (false: cut short by TARGETDURATION)
  std::int64_t start_us = 0;     // presentation time of the first keyframe (source clock)
  std::int64_t duration_us = 0;  // sum of the parts
  std::int64_t wall_us = 0;      // PROGRAM-DATE-TIME (µs since the Unix epoch), when enabled
  std::uint32_t video_samples = 0;
  std::vector<HlsPart> parts;
  SharedBytes bytes;  // once complete
};

struct LlHlsStats {
  std::uint64_t first_msn = 0, next_msn = 0;  // window [first, next); next is the open segment
  std::size_t segments = 0, parts = 0;        // in the window (parts: of every listed segment)
  std::size_t bytes = 0;                      // media + init bytes held
  std::uint32_t init_id = 0;                  // current init segment number
  std::uint64_t discontinuities = 0, evicted_segments = 0, dropped_samples = 0,
                skipped_until_keyframe = 0;
  std::uint64_t stalls = 0, epochs = 0, forced_cuts = 0;  // see the header comment
  bool ended = false;
};

struct RenderOptions {
  std::string query;  // appended to every URI, e.g. "?token=…" (validated by the caller)
  // false: a plain live playlist (RFC 8216): no part tags, and the open segment is left out
  // entirely (its DISCONTINUITY/MAP/PROGRAM-DATE-TIME too), so the last line is a URI.
  bool low_latency = true;
};

struct MasterOptions {
  std::string query;
  std::string media_uri = "live.m3u8";
};

class LlHlsPackager {
 public:
  explicit LlHlsPackager(LlHlsOptions options = {});

  // Track configuration used from the next generation on (the first, or after Discontinuity()).
  // Video is required; audio is optional (and left out when its codec cannot be muxed).
  void Configure(MuxTrackConfig video, std::optional<MuxTrackConfig> audio);
  // Closes the open segment; the next keyframe starts a new init segment + EXT-X-DISCONTINUITY.
  void Discontinuity();
  // Closes the open segment and marks the playlist ended (EXT-X-ENDLIST, no preload hint).
  void End();

  // Change flags returned by the pushes.
  static constexpr unsigned kNewPart = 1, kNewSegment = 2, kNewInit = 4;

  // One video access unit (Annex B) in decode order. after_gap: frames were lost just before it
  // (sequence gap): video is skipped until the next keyframe. now_us: wall clock for PDT.
  unsigned PushVideo(std::int64_t pts_us, bool keyframe, ByteView access_unit,
                     bool after_gap = false, std::int64_t now_us = 0);
  unsigned PushAudio(std::int64_t pts_us, ByteView frame);

  // Lookups by name: "init-<n>.mp4", "seg-<msn>.m4s", "part-<msn>.<i>.m4s". Empty when unknown or
  // evicted. Also the typed forms.
  SharedBytes Get(const std::string& name) const;
  SharedBytes Init(std::uint32_t id) const;
  SharedBytes Segment(std::uint64_t msn) const;
  SharedBytes Part(std::uint64_t msn, std::size_t index) const;

  // Whether the playlist already holds part `part` of segment `msn` (part < 0: the whole segment).
  // A part index past the end of a finished segment means part 0 of the next one (RFC 8216bis
  // §6.2.5.2). Anything older than the window counts as available.
  bool Available(std::uint64_t msn, int part) const;
  // A blocking request further ahead than this may be refused (RFC 8216bis: msn > last + 2).
  bool TooFarAhead(std::uint64_t msn) const;

  // Media playlist (text: ll_hls_playlist.h); empty until the first part exists.
  std::string RenderMediaPlaylist(const RenderOptions& options = {}) const;
  // Master playlist (one variant); empty until the first segment's init exists.
  std::string RenderMasterPlaylist(const MasterOptions& options = {}) const;

  std::string Codecs() const;  // RFC 6381 list of the current init, e.g. "avc1.64001f,mp4a.40.2"
  LlHlsStats Stats() const;
  const std::deque<HlsSegment>& segments() const { return segments_; }
  // The advertised PART-TARGET (µs, a multiple of 10) and TARGETDURATION; 0 before the first parts.
  std::int64_t part_target_us() const { return advertised_part_us_; }
  std::int64_t cut_target_us() const { return part_target_us_; }  // parts are cut at most this long
  std::uint32_t target_duration_s() const { return target_duration_s_; }

 private:
  struct Generation {
    std::uint32_t id = 0;
    SharedBytes init;
    std::string codecs;
    std::uint32_t width = 0, height = 0;
  };

  void StartGeneration(std::int64_t keyframe_pts_us, ByteView keyframe, std::int64_t now_us);
  void StartSegment(std::int64_t start_us, bool independent);
  unsigned CutParts();
  unsigned CloseSegment(std::optional<std::int64_t> end_us);
  unsigned SealSegment();
  unsigned AfterPart(std::int64_t next_start_us);
  unsigned PreCut(std::int64_t end_us);
  std::int64_t NominalFrameUs() const;
  void FixTargets(std::int64_t frame_ticks, std::uint32_t timescale);
  void NewEpoch();
  void AddPart(Fragment&& fragment);
  void Evict();
  std::size_t HeldBytes() const;
  bool SpsChanged(ByteView keyframe) const;
  const Generation* FindGeneration(std::uint32_t id) const;
  HlsSegment* OpenSegment();
  const HlsSegment* FindSegment(std::uint64_t msn) const;

  LlHlsOptions options_;
  std::optional<MuxTrackConfig> video_config_, audio_config_;
  std::unique_ptr<Fmp4Muxer> muxer_;
  bool audio_in_muxer_ = false;
  int reorder_depth_ = 0;        // B-frame reordering of the current generation's video
  bool need_generation_ = true;  // the next keyframe starts a new init
  bool skip_to_keyframe_ = false;
  bool ended_ = false;
  Bytes current_sps_;

  std::deque<Generation> generations_;  // those referenced by the window, plus the current one
  std::uint32_t next_init_id_ = 0;
  std::deque<HlsSegment> segments_;  // the window; the last one may be open
  std::uint64_t next_msn_ = 0;
  bool pending_discontinuity_ = false;
  std::uint64_t discontinuity_sequence_ = 0;  // discontinuities evicted from the window

  // Timing of the current generation.
  std::int64_t first_pts_us_ = 0, wall_anchor_us_ = 0;
  std::int64_t last_video_pts_us_ = 0, max_video_pts_us_ = 0;
  std::int64_t frame_us_ = 0;  // estimated video frame duration (of this generation)

  // Fixed per epoch (from the first generation's frame duration, see the header comment).
  std::int64_t part_target_us_ = 0;      // cut target: frames-rounded configured part target
  std::int64_t advertised_part_us_ = 0;  // PART-TARGET
  std::int64_t epoch_frame_us_ = 0;      // the frame duration the targets were derived from
  std::uint32_t target_duration_s_ = 0;

  LlHlsStats counters_;
};

}  // namespace zm
