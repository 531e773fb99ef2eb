// MP4 / ISO-BMFF demuxer for recorded events: builds a sample index from the index boxes only
// (moov sample tables, or the moof/traf/trun boxes of a fragmented file), then reads samples by
// offset. Handles moov before or after mdat, 64-bit sizes and offsets (largesize, co64), QuickTime
// sound descriptions (.mov), edit lists, and in-progress files: a fragment whose boxes or sample
// data run past the end of the file is ignored (ZoneMinder 1.39 records fragmented MP4 and
// readers see the file while it grows).
//
// Immutable after construction, so one instance may serve several threads (reads use pread).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "zm/byte_source.h"
#include "zm/bytes.h"
#include "zm/codec.h"
#include "zm/display_matrix.h"

namespace zm {

struct Mp4Sample {
  std::uint64_t offset = 0;
  std::uint32_t size = 0;
  std::uint32_t duration = 0;  // track timescale
  std::int64_t dts = 0;        // track timescale, from the file (before the edit list)
  std::int32_t cto = 0;        // composition offset: pts = dts + cto
  bool sync = false;
};

struct Mp4Track {
  std::uint32_t id = 0;
  std::string handler;       // "vide", "soun", …
  std::string sample_entry;  // "avc1", "hev1", "mp4a", "Opus", …
  Codec codec = Codec::kUnknown;
  std::string codec_string;  // RFC 6381 when the configuration parses
  std::uint32_t timescale = 0;
  std::uint32_t width = 0, height = 0;          // video: from the SPS when it parses
  DisplayMatrix matrix = kIdentityMatrix;       // tkhd (a rotation or flip the player applies)
  std::uint32_t sample_rate = 0, channels = 0;  // audio
  // The decoder configuration in the form Fmp4Muxer accepts: avcC/hvcC (or Annex B parameter
  // sets found in-band for avc3/hev1), AudioSpecificConfig, OpusHead (rewritten from dOps).
  Bytes config;
  std::uint32_t nal_length_size = 4;  // as stored; ReadSample() always returns 4-byte lengths
  // Presentation time = dts + cto + presentation_offset (from the edit list), in ticks.
  std::int64_t presentation_offset = 0;
  std::vector<Mp4Sample> samples;  // decode order

  bool is_video() const { return handler == "vide"; }
  bool is_audio() const { return handler == "soun"; }
  std::int64_t PtsTicks(std::size_t i) const {
    return samples[i].dts + samples[i].cto + presentation_offset;
  }
  std::int64_t DtsTicks(std::size_t i) const { return samples[i].dts + presentation_offset; }
  std::int64_t ToUs(std::int64_t ticks) const;
};

struct Mp4Limits {
  std::uint64_t max_index_box = 512u << 20;  // moov / moof read into memory
  std::uint64_t max_samples = 1u << 25;      // all tracks together
};

class Mp4Demuxer {
 public:
  // Reads the index. Throws zm::Error ERR_ZM_MP4_FORMAT (not ISO-BMFF, or a broken index),
  // ERR_ZM_MP4_NO_MOOV (no movie box: e.g. a progressive file still being written), ERR_ZM_MP4_IO.
  explicit Mp4Demuxer(std::shared_ptr<const ByteSource> source, Mp4Limits limits = {});

  const std::vector<Mp4Track>& tracks() const { return tracks_; }
  const ByteSource& source() const { return *source_; }
  bool fragmented() const { return fragmented_; }
  // Something at the end was ignored: a fragment or box cut short (still recording, or damaged).
  bool truncated() const { return truncated_; }
  std::size_t fragments() const { return fragments_; }
  // The end of the longest track's presentation (µs from 0 on the file's timeline).
  std::int64_t duration_us() const { return duration_us_; }
  std::string major_brand() const { return major_brand_; }

  // One sample's bytes (pread). Video samples come with 4-byte NAL lengths whatever the file uses.
  Bytes ReadSample(std::size_t track, std::size_t index) const;
  // Rewrites [n-byte length][NAL]… as [4-byte length][NAL]… (n = the track's nal_length_size).
  Bytes NormaliseNalLengths(const Mp4Track& track, ByteView sample) const;

  // Every sample of every track, ordered by decode time (ties: track order).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> DecodeOrder() const;

 private:
  struct Trex {
    std::uint32_t track_id = 0, duration = 0, size = 0, flags = 0;
  };
  struct MoofRef {
    std::uint64_t offset = 0, size = 0;
  };

  void Scan();
  void ParseMoov(ByteView moov);
  void ParseTrak(ByteView trak, std::uint32_t movie_timescale);
  void ParseStsd(Mp4Track& t, ByteView stsd);
  bool ParseMoof(const MoofRef& ref);  // false: truncated or broken, stop here
  void ParseInBandParameterSets(Mp4Track& t);
  void Finish();
  Mp4Track* FindTrack(std::uint32_t id);
  std::uint64_t TotalSamples() const;

  std::shared_ptr<const ByteSource> source_;
  Mp4Limits limits_;
  std::vector<Mp4Track> tracks_;
  std::vector<Trex> trex_;
  std::vector<std::int64_t> next_fragment_dts_;  // per track, for fragments without tfdt
  std::vector<MoofRef> moofs_;
  bool have_moov_ = false, fragmented_ = false, truncated_ = false;
  std::size_t fragments_ = 0;
  std::int64_t duration_us_ = 0;
  std::string major_brand_;
};

}  // namespace zm
