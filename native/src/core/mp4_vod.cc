#include "zm/mp4_vod.h"

#include <algorithm>
#include <limits>

#include "zm/error.h"

namespace zm {

namespace {

// Samples whose bytes are close together in the file are read with one pread.
constexpr std::uint64_t kMaxGap = 64u << 10;
constexpr std::uint64_t kMaxRun = 32u << 20;

MuxTrackConfig ConfigFor(const Mp4Track& t) {
  MuxTrackConfig c;
  c.codec = t.codec;
  c.extradata = t.config;
  c.width = t.width, c.height = t.height;
  c.matrix = t.matrix;  // zmc's Orientation (rotate tag): the remux must turn the same way
  c.sample_rate = t.sample_rate, c.channels = t.channels;
  // The source timescale survives the µs round trip exactly up to 1 MHz.
  if (t.timescale <= 1000000) c.timescale = t.timescale;
  c.length_prefixed = t.is_video();
  return c;
}

}  // namespace

Mp4Vod::Mp4Vod(std::shared_ptr<const Mp4Demuxer> demuxer) : demuxer_(std::move(demuxer)) {
  const auto& tracks = demuxer_->tracks();
  std::optional<std::size_t> video;
  for (std::size_t i = 0; i < tracks.size(); ++i) {
    const Mp4Track& t = tracks[i];
    if (t.samples.empty()) continue;
    if (!video && t.is_video() && (t.codec == Codec::kH264 || t.codec == Codec::kH265)) video = i;
    if (!audio_track_ && t.is_audio() && (t.codec == Codec::kAAC || t.codec == Codec::kOpus) &&
        !t.config.empty()) {
      audio_track_ = i;
    }
  }
  if (!video) throw Error("ERR_ZM_MP4_NO_VIDEO", "no H.264/H.265 video track with samples");
  video_track_ = *video;
  const Mp4Track& v = tracks[video_track_];
  while (first_video_ < v.samples.size() && !v.samples[first_video_].sync) ++first_video_;
  if (first_video_ == v.samples.size())
    throw Error("ERR_ZM_MP4_NO_VIDEO", "the video track has no keyframe");

  // Video: presentation from the edit list; decode times shifted so that none precedes the first
  // presented frame (the muxer drops samples before its origin).
  const std::size_t n = v.samples.size();
  std::int64_t min_pts = std::numeric_limits<std::int64_t>::max(),
               end = std::numeric_limits<std::int64_t>::min();
  for (std::size_t i = first_video_; i < n; ++i) {
    min_pts = std::min(min_pts, v.PtsTicks(i));
    end = std::max(end, v.PtsTicks(i) + v.samples[i].duration);
  }
  const std::int64_t shift = std::max<std::int64_t>(0, min_pts - v.DtsTicks(first_video_));
  video_.pts_us.resize(n), video_.dts_us.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    video_.pts_us[i] = v.ToUs(v.PtsTicks(i));
    video_.dts_us[i] = v.ToUs(v.DtsTicks(i) + shift);
  }
  origin_us_ = v.ToUs(min_pts);
  end_us_ = v.ToUs(end);
  configs_.push_back(ConfigFor(v));

  if (audio_track_) {
    const Mp4Track& a = tracks[*audio_track_];
    audio_.pts_us.resize(a.samples.size());
    for (std::size_t i = 0; i < a.samples.size(); ++i) {
      // Audio presents in decode order; a damaged file's offsets must not unsort it (the plan
      // binary-searches these times).
      audio_.pts_us[i] = a.ToUs(a.PtsTicks(i));
      if (i > 0) audio_.pts_us[i] = std::max(audio_.pts_us[i], audio_.pts_us[i - 1]);
    }
    audio_.dts_us = audio_.pts_us;
    configs_.push_back(ConfigFor(a));
  }
}

std::vector<VodSegment> Mp4Vod::Plan(std::int64_t target_us) const {
  const Mp4Track& v = demuxer_->tracks()[video_track_];
  const auto n = std::uint32_t(v.samples.size());
  // Keyframes a little early still count: half a frame of tolerance.
  const std::int64_t tolerance =
      n > first_video_ ? (end_us_ - origin_us_) / std::int64_t(n - first_video_) / 2 : 0;
  std::vector<std::uint32_t> starts{first_video_};
  for (std::uint32_t i = first_video_ + 1; i < n; ++i) {
    if (v.samples[i].sync && (target_us <= 0 || video_.pts_us[i] - video_.pts_us[starts.back()] >=
                                                    target_us - tolerance)) {
      starts.push_back(i);
    }
  }
  std::vector<VodSegment> plan(starts.size());
  for (std::size_t k = 0; k < starts.size(); ++k) {
    VodSegment& s = plan[k];
    s.index = std::uint32_t(k);
    s.first_sample = starts[k];
    s.last_sample = k + 1 < starts.size() ? starts[k + 1] - 1 : n - 1;
    std::int64_t start = std::numeric_limits<std::int64_t>::max();
    for (std::uint32_t i = s.first_sample; i <= s.last_sample; ++i)
      start = std::min(start, video_.pts_us[i]);
    s.start_us = k == 0 ? origin_us_ : start;  // absolute for now
  }
  for (std::size_t k = 0; k < plan.size(); ++k) {
    const std::int64_t next = k + 1 < plan.size() ? plan[k + 1].start_us : end_us_;
    plan[k].duration_us = std::max<std::int64_t>(0, next - plan[k].start_us);
    if (audio_track_) {
      const auto& a = audio_.pts_us;
      auto lower = [&](std::int64_t t) {
        return std::uint32_t(std::lower_bound(a.begin(), a.end(), t) - a.begin());
      };
      plan[k].first_audio = k == 0 ? 0 : lower(plan[k].start_us);
      plan[k].end_audio = k + 1 < plan.size() ? lower(next) : std::uint32_t(a.size());
      plan[k].end_audio = std::max(plan[k].end_audio, plan[k].first_audio);
    }
  }
  for (auto& s : plan) s.start_us -= origin_us_;
  return plan;
}

Bytes Mp4Vod::Init() const { return Fmp4Muxer(configs_, origin_us_).InitSegment(); }

std::string Mp4Vod::Codecs() const {
  Fmp4Muxer muxer(configs_, origin_us_);
  std::string out;
  for (std::size_t i = 0; i < muxer.track_count(); ++i) {
    const std::string s = muxer.Info(i).codec_string;
    if (!s.empty()) out += (out.empty() ? "" : ",") + s;
  }
  return out;
}

Bytes Mp4Vod::Segment(const std::vector<VodSegment>& plan, std::size_t index) const {
  if (index >= plan.size()) throw Error("ERR_ZM_MP4_RANGE", "no such segment");
  const VodSegment& seg = plan[index];
  const auto& tracks = demuxer_->tracks();
  const Mp4Track& v = tracks[video_track_];

  // Which samples, in push order: the video, then the audio (the muxer queues per track).
  struct Ref {
    std::size_t track, index, mux_track;
    std::uint64_t offset;
    std::uint32_t size;
    ByteView data;
  };
  std::vector<Ref> refs;
  refs.reserve(seg.last_sample - seg.first_sample + 1 + (seg.end_audio - seg.first_audio));
  for (std::uint32_t i = seg.first_sample; i <= seg.last_sample; ++i) {
    refs.push_back({video_track_, i, 0, v.samples[i].offset, v.samples[i].size, {}});
  }
  if (audio_track_) {
    const Mp4Track& a = tracks[*audio_track_];
    for (std::uint32_t i = seg.first_audio; i < seg.end_audio; ++i) {
      refs.push_back({*audio_track_, i, 1, a.samples[i].offset, a.samples[i].size, {}});
    }
  }

  // Read in runs of nearby bytes (the samples of one segment are usually contiguous).
  std::vector<std::size_t> by_offset(refs.size());
  for (std::size_t i = 0; i < refs.size(); ++i) by_offset[i] = i;
  std::sort(by_offset.begin(), by_offset.end(),
            [&](std::size_t a, std::size_t b) { return refs[a].offset < refs[b].offset; });
  std::vector<Bytes> runs;
  for (std::size_t k = 0; k < by_offset.size();) {
    const std::uint64_t begin = refs[by_offset[k]].offset;
    std::uint64_t end = begin + refs[by_offset[k]].size;
    std::size_t j = k + 1;
    while (j < by_offset.size()) {
      const Ref& r = refs[by_offset[j]];
      if (r.offset > end + kMaxGap || std::max(end, r.offset + r.size) - begin > kMaxRun) break;
      end = std::max(end, r.offset + r.size);
      ++j;
    }
    runs.push_back(demuxer_->source().Read(begin, std::size_t(end - begin)));
    for (std::size_t m = k; m < j; ++m) {
      Ref& r = refs[by_offset[m]];
      r.data = ByteView(runs.back().data() + (r.offset - begin), r.size);
    }
    k = j;
  }

  Fmp4Muxer muxer(configs_, origin_us_);
  muxer.SetNextSequence(std::uint32_t(index + 1));
  std::vector<Bytes> converted;  // video with 1–3 byte NAL lengths, rewritten to 4
  for (const Ref& r : refs) {
    const Mp4Track& t = tracks[r.track];
    MuxSample s;
    s.keyframe = t.samples[r.index].sync;
    s.data = r.data;
    if (r.mux_track == 0) {
      s.pts_us = video_.pts_us[r.index], s.dts_us = video_.dts_us[r.index];
      if (t.nal_length_size != 4) {
        converted.push_back(demuxer_->NormaliseNalLengths(t, r.data));
        s.data = converted.back();
      }
    } else {
      s.pts_us = audio_.pts_us[r.index], s.dts_us = audio_.dts_us[r.index];
    }
    if (!s.data.empty()) muxer.AddSample(r.mux_track, s);
  }
  // The last frame lasts until the next segment's first decode time (or its own duration).
  const std::int64_t end_us =
      index + 1 < plan.size()
          ? video_.dts_us[plan[index + 1].first_sample]
          : video_.dts_us[seg.last_sample] + v.ToUs(v.samples[seg.last_sample].duration);
  auto fragment = muxer.Cut(CutMode::kAll, end_us);
  if (!fragment) throw Error("ERR_ZM_MP4_FORMAT", "segment without samples");
  return std::move(fragment->data);
}

}  // namespace zm
