#include "zm/fmp4_muxer.h"

#include <algorithm>
#include <limits>

#include "zm/aac.h"
#include "zm/codec_info.h"
#include "zm/error.h"
#include "zm/fmp4_fragment.h"
#include "zm/nal.h"
#include "zm/opus.h"

namespace zm {

namespace {

constexpr int kDefaultReorderDepth = 2;  // H.264 without a VUI reorder hint: covers IBBP

// a * mul / div rounded half away from zero (div > 0), in 128 bits and saturated: timestamps from
// a damaged file must not overflow (the samples then merely land at the ends of the timeline).
std::int64_t Scale(__int128 a, std::int64_t mul, std::int64_t div) {
  const __int128 v = a * mul;
  const __int128 q = v >= 0 ? (v + div / 2) / div : -((-v + div / 2) / div);
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max() / 4;  // room for sums
  return std::int64_t(std::clamp<__int128>(q, -kMax, kMax));
}

}  // namespace

Fmp4Muxer::Fmp4Muxer(std::vector<MuxTrackConfig> configs, std::optional<std::int64_t> origin_us)
    : origin_us_(origin_us) {
  if (configs.empty()) throw Error("ERR_ZM_MUX_CONFIG", "a muxer needs at least one track");
  tracks_.resize(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    tracks_[i].config = std::move(configs[i]);
    SetupTrack(tracks_[i], i);
  }
}

void Fmp4Muxer::SetupTrack(Track& t, std::size_t index) {
  const MuxTrackConfig& c = t.config;
  InitTrack& init = t.init;
  init.track_id = std::uint32_t(index + 1);
  init.codec = c.codec;
  switch (c.codec) {
    case Codec::kH264:
    case Codec::kH265: {
      init.timescale = c.timescale ? c.timescale : 90000;
      init.matrix = c.matrix;
      CodecInfo info;
      info.codec = c.codec;
      info.width = c.width, info.height = c.height;
      if (DeriveCodecDetails(info, c.extradata)) init.parameter_sets = info.parameter_sets;
      init.width = info.width, init.height = info.height;
      t.codec_string = info.codec_string;
      const int depth = c.reorder_depth >= 0      ? c.reorder_depth
                        : info.reorder_depth >= 0 ? info.reorder_depth
                                                  : kDefaultReorderDepth;
      t.reorder = DtsReorderer(depth);
      return;
    }
    case Codec::kAAC: {
      init.sample_rate = c.sample_rate, init.channels = c.channels;
      if (!c.extradata.empty()) {
        const AacConfig asc = ParseAudioSpecificConfig(c.extradata);  // throws on garbage
        init.audio_specific_config = c.extradata;
        if (!init.sample_rate) init.sample_rate = asc.sample_rate;
        if (!init.channels) init.channels = asc.channels;
        t.aac_frame_samples = asc.frame_length;
        t.codec_string = AacCodecString(asc);
      }
      init.timescale = c.timescale ? c.timescale : init.sample_rate;
      if (init.timescale == 0) {
        throw Error("ERR_ZM_MUX_CONFIG",
                    "AAC track needs a sample rate (option or AudioSpecificConfig)");
      }
      return;
    }
    case Codec::kOpus:
      if (!ParseOpusHead(c.extradata, &init.opus) && c.channels > 0) {
        init.opus.channels = std::uint8_t(c.channels);
      }
      init.channels = init.opus.channels;
      init.sample_rate = 48000;  // Opus always decodes at 48 kHz
      init.timescale = c.timescale ? c.timescale : 48000;
      t.codec_string = "opus";
      return;
    case Codec::kPCMU:
    case Codec::kPCMA:
      throw Error("ERR_ZM_MUX_CODEC_UNSUPPORTED",
                  "G.711 (PCMU/PCMA) cannot be carried in fMP4 for HLS/MSE: mux the video alone "
                  "(WebRTC carries G.711 natively), or transcode the audio to AAC/Opus");
    default:
      throw Error("ERR_ZM_MUX_CODEC_UNSUPPORTED",
                  std::string("fMP4 muxing of ") + CodecName(c.codec) + " is not supported");
  }
}

std::int64_t Fmp4Muxer::ToTicks(std::int64_t us, std::uint32_t timescale) const {
  return Scale(__int128(us) - *origin_us_, timescale, 1000000);
}

std::int64_t Fmp4Muxer::ToUs(std::int64_t ticks, std::uint32_t timescale) const {
  return std::int64_t(std::clamp<__int128>(__int128(*origin_us_) + Scale(ticks, 1000000, timescale),
                                           INT64_MIN, INT64_MAX));
}

void Fmp4Muxer::LearnVideoParameters(Track& t, ByteView access_unit) {
  CodecInfo info;
  info.codec = t.config.codec;
  if (!DeriveCodecDetails(info, access_unit)) return;
  if (!t.init.parameter_sets.complete(t.config.codec)) {
    t.init.parameter_sets = info.parameter_sets;
    t.init.width = info.width, t.init.height = info.height;
    t.codec_string = info.codec_string;
  } else if (!(ByteView(info.parameter_sets.sps.front()) ==
               ByteView(t.init.parameter_sets.sps.front()))) {
    ++t.parameter_set_changes;  // the packager should start a new init segment
  }
}

void Fmp4Muxer::ConvertSample(Track& t, const MuxSample& in, Pending& out) {
  const Codec codec = t.config.codec;
  if (codec == Codec::kH264 || codec == Codec::kH265) {
    if (t.config.length_prefixed) {
      out.data = in.data.copy();
    } else {
      if (in.keyframe) LearnVideoParameters(t, in.data);
      out.data.reserve(in.data.size + 16);
      AppendLengthPrefixed(codec, in.data, out.data);
    }
    out.sync = in.keyframe;
    return;
  }
  out.sync = true;  // every audio frame is a sync sample
  ByteView frame = in.data;
  if (codec == Codec::kAAC) {
    AdtsHeader adts;
    // Raw AAC is what zmc sends; ADTS (one whole frame per sample) is accepted too.
    if (ParseAdtsHeader(frame, &adts) && adts.frame_size == frame.size) {
      if (t.init.audio_specific_config.empty() && adts.config.object_type <= 4) {
        t.init.audio_specific_config = MakeAudioSpecificConfig(
            adts.config.object_type, adts.config.sample_rate, adts.config.channel_config);
        if (!t.init.channels) t.init.channels = adts.config.channels;
        t.codec_string = AacCodecString(adts.config);
      }
      frame = frame.sub(adts.header_size);
    }
    const std::uint32_t rate = t.init.sample_rate ? t.init.sample_rate : t.init.timescale;
    out.frame_duration =
        std::uint32_t(std::uint64_t(t.aac_frame_samples) * t.init.timescale / rate);
  } else if (codec == Codec::kOpus) {
    out.frame_duration =
        std::uint32_t(std::uint64_t(OpusPacketSamples(frame)) * t.init.timescale / 48000);
  }
  out.data = frame.copy();
}

void Fmp4Muxer::AddSample(std::size_t index, const MuxSample& in) {
  if (index >= tracks_.size()) throw Error("ERR_ZM_MUX_TRACK", "no such track");
  Track& t = tracks_[index];
  if (!origin_us_) origin_us_ = in.dts_us.value_or(in.pts_us);
  Pending p;
  ConvertSample(t, in, p);
  if (p.data.empty()) {  // e.g. an access unit of parameter sets only
    ++t.dropped;
    return;
  }
  const std::uint32_t ts = t.init.timescale;
  p.pts = ToTicks(in.pts_us, ts);
  const bool derive = IsVideo(t.config.codec) && !in.dts_us;
  if (!derive) {
    // Known decode time (audio: dts = pts). Kept strictly increasing against jitter.
    std::int64_t dts = in.dts_us ? ToTicks(*in.dts_us, ts) : p.pts;
    if (!t.pending.empty() && t.with_dts > 0 && dts <= t.pending[t.with_dts - 1].dts) {
      dts = t.pending[t.with_dts - 1].dts + 1;
    }
    p.dts = dts;
    t.pending.push_back(std::move(p));
    ++t.with_dts;
    return;
  }
  t.pending.push_back(std::move(p));
  t.reorder.Push(t.pending.back().pts);
  while (t.reorder.HasDts()) t.pending[t.with_dts++].dts = t.reorder.PopDts();
}

std::uint32_t Fmp4Muxer::LastDuration(const Track& t, const Pending& last,
                                      std::optional<std::int64_t> end_ticks) const {
  std::int64_t d = 0;
  if (IsVideo(t.config.codec) && end_ticks && *end_ticks > last.dts) d = *end_ticks - last.dts;
  if (d == 0 && last.frame_duration > 0) d = last.frame_duration;
  if (d == 0) d = t.last_duration;
  if (d == 0 && t.config.fps_num > 0 && t.config.fps_den > 0) {
    d = std::int64_t(t.init.timescale) * t.config.fps_den / t.config.fps_num;
  }
  if (d == 0) d = IsVideo(t.config.codec) ? t.init.timescale / 30 : 1024;
  return std::uint32_t(std::clamp<std::int64_t>(d, 1, std::numeric_limits<std::uint32_t>::max()));
}

std::optional<Fragment> Fmp4Muxer::Cut(CutMode mode, std::optional<std::int64_t> end_us,
                                       std::optional<std::int64_t> before_us) {
  if (!origin_us_) return std::nullopt;
  std::vector<TrackFragment> runs(tracks_.size());
  std::vector<std::deque<Pending>> taken(tracks_.size());
  Fragment frag;
  bool any = false;
  bool first_video_seen = false;
  frag.independent = true;

  for (std::size_t i = 0; i < tracks_.size(); ++i) {
    Track& t = tracks_[i];
    if (mode == CutMode::kAll) {
      t.reorder.Drain();
      while (t.reorder.HasDts()) t.pending[t.with_dts++].dts = t.reorder.PopDts();
    }
    // kReady: a sample is final once its successor's decode time is known.
    std::size_t n =
        mode == CutMode::kAll ? t.pending.size() : (t.with_dts > 0 ? t.with_dts - 1 : 0);
    const std::uint32_t ts = t.init.timescale;
    if (before_us) {
      const std::int64_t limit = ToTicks(*before_us, ts);
      std::size_t k = 0;
      while (k < n && k < t.with_dts && t.pending[k].dts < limit) ++k;
      n = k;
    }
    const std::optional<std::int64_t> end_ticks =
        end_us ? std::optional<std::int64_t>(ToTicks(*end_us, ts)) : std::nullopt;

    TrackFragment& run = runs[i];
    run.track_id = t.init.track_id;
    FragmentTrackInfo info;
    info.track_id = run.track_id;
    info.timescale = ts;
    std::int64_t min_pts = std::numeric_limits<std::int64_t>::max();
    for (std::size_t j = 0; j < n; ++j) {
      Pending& s = t.pending[j];
      const bool has_next = j + 1 < t.pending.size() && j + 1 < t.with_dts;
      const std::uint32_t duration =
          has_next ? std::uint32_t(std::max<std::int64_t>(1, t.pending[j + 1].dts - s.dts))
                   : LastDuration(t, s, end_ticks);
      t.last_duration = duration;
      if (s.dts < 0) {  // before the origin: no place on a tfdt timeline
        ++t.dropped;
        continue;
      }
      if (run.samples.empty()) run.base_decode_time = std::uint64_t(s.dts);
      const std::int64_t cto = s.pts - s.dts;
      FragmentSample fs;
      fs.duration = duration;
      fs.sync = s.sync;
      fs.composition_offset = std::int32_t(std::clamp<std::int64_t>(cto, INT32_MIN, INT32_MAX));
      run.samples.push_back(fs);
      info.duration += duration;
      min_pts = std::min(min_pts, s.pts);
    }
    // Move the samples out so their bytes stay valid until the fragment is written.
    for (std::size_t j = 0; j < n; ++j) {
      taken[i].push_back(std::move(t.pending.front()));
      t.pending.pop_front();
    }
    t.with_dts -= n;
    if (run.samples.empty()) continue;
    any = true;
    info.sample_count = std::uint32_t(run.samples.size());
    info.base_decode_time = run.base_decode_time;
    info.start_us = ToUs(min_pts, ts);
    info.end_us = ToUs(min_pts + std::int64_t(info.duration), ts);
    frag.tracks.push_back(info);
    if (IsVideo(t.config.codec) && !first_video_seen) {
      first_video_seen = true;
      frag.independent = run.samples.front().sync;
    }
  }
  if (!any) return std::nullopt;

  // Attach the sample bytes (skipping the dropped ones, which have dts < 0).
  for (std::size_t i = 0; i < tracks_.size(); ++i) {
    std::size_t k = 0;
    for (const Pending& s : taken[i]) {
      if (s.dts >= 0) runs[i].samples[k++].data = s.data;
    }
  }
  frag.sequence = ++sequence_;
  frag.data = WriteFragment(frag.sequence, runs);
  return frag;
}

void Fmp4Muxer::FlushDts(std::size_t track) {
  if (track >= tracks_.size()) throw Error("ERR_ZM_MUX_TRACK", "no such track");
  Track& t = tracks_[track];
  t.reorder.Drain();
  while (t.reorder.HasDts()) t.pending[t.with_dts++].dts = t.reorder.PopDts();
}

std::size_t Fmp4Muxer::KnownDtsCount(std::size_t track) const {
  if (track >= tracks_.size()) throw Error("ERR_ZM_MUX_TRACK", "no such track");
  return tracks_[track].with_dts;
}

std::int64_t Fmp4Muxer::PendingDts(std::size_t track, std::size_t index) const {
  if (track >= tracks_.size() || index >= tracks_[track].with_dts)
    throw Error("ERR_ZM_MUX_TRACK", "no such sample");
  return tracks_[track].pending[index].dts;
}

bool Fmp4Muxer::PendingSync(std::size_t track, std::size_t index) const {
  if (track >= tracks_.size() || index >= tracks_[track].pending.size())
    throw Error("ERR_ZM_MUX_TRACK", "no such sample");
  return tracks_[track].pending[index].sync;
}

std::int64_t Fmp4Muxer::TicksToUs(std::size_t track, std::int64_t ticks) const {
  if (track >= tracks_.size() || !origin_us_) throw Error("ERR_ZM_MUX_TRACK", "no such track");
  return ToUs(ticks, tracks_[track].init.timescale);
}

bool Fmp4Muxer::InitReady() const {
  for (const auto& t : tracks_) {
    if (IsVideo(t.config.codec) && !t.init.parameter_sets.complete(t.config.codec)) return false;
    if (t.config.codec == Codec::kAAC && t.init.audio_specific_config.empty()) return false;
  }
  return true;
}

Bytes Fmp4Muxer::InitSegment() const {
  std::vector<InitTrack> init;
  for (const auto& t : tracks_) init.push_back(t.init);
  return WriteInitSegment(init);
}

MuxTrackInfo Fmp4Muxer::Info(std::size_t index) const {
  if (index >= tracks_.size()) throw Error("ERR_ZM_MUX_TRACK", "no such track");
  const Track& t = tracks_[index];
  MuxTrackInfo info;
  info.track_id = t.init.track_id;
  info.codec = t.config.codec;
  info.codec_string = t.codec_string;
  info.timescale = t.init.timescale;
  info.width = t.init.width, info.height = t.init.height;
  info.sample_rate = t.init.sample_rate, info.channels = t.init.channels;
  info.ready = IsVideo(t.config.codec)         ? t.init.parameter_sets.complete(t.config.codec)
               : t.config.codec == Codec::kAAC ? !t.init.audio_specific_config.empty()
                                               : true;
  info.pending = t.pending.size();
  info.dropped = t.dropped;
  info.parameter_set_changes = t.parameter_set_changes;
  info.reorder_depth = t.reorder.depth();
  return info;
}

}  // namespace zm
