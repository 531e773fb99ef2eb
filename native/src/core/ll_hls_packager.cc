#include "zm/ll_hls_packager.h"

#include <algorithm>
#include <cmath>

#include "zm/codec_info.h"
#include "zm/error.h"
#include "zm/ll_hls_playlist.h"
#include "zm/nal.h"

namespace zm {

namespace {

constexpr std::int64_t kJumpBackUs = 1000000;  // further back than B-frame reordering can explain
constexpr std::int64_t kMinJumpAheadUs = 5000000;  // a stall this long is a new timeline
// Timestamps beyond ±2^60 µs (36 000 years) come from a damaged stream; dropping them keeps all
// the arithmetic below far from overflow (a fuzzer finding).
constexpr std::int64_t kMaxPtsUs = std::int64_t(1) << 60;
// Slack between a frame interval in µs and its length after 90 kHz tick rounding (≤ ~12 µs).
constexpr std::int64_t kTickSlackUs = 50;

Bytes AnnexBOf(const ParameterSets& sets) {
  Bytes out;
  for (const auto* list : {&sets.vps, &sets.sps, &sets.pps}) {
    for (const Bytes& nal : *list) {
      out.insert(out.end(), {0, 0, 0, 1});
      out.insert(out.end(), nal.begin(), nal.end());
    }
  }
  return out;
}

// Parses a decimal u64 that is the whole of [begin, end): no sign, no leading zeros but "0".
bool ParseU64(const std::string& s, std::size_t begin, std::size_t end, std::uint64_t* out) {
  if (begin >= end || end - begin > 19 || (s[begin] == '0' && end - begin > 1)) return false;
  std::uint64_t v = 0;
  for (std::size_t i = begin; i < end; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + std::uint64_t(s[i] - '0');
  }
  *out = v;
  return true;
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

LlHlsPackager::LlHlsPackager(LlHlsOptions options) : options_(options) {
  if (options_.part_target_us < 10000 || options_.part_target_us > 5000000) {
    throw Error("ERR_ZM_HLS_CONFIG", "part target must be 10 ms .. 5 s");
  }
  if (options_.segment_target_us < options_.part_target_us ||
      options_.segment_target_us > 60000000) {
    throw Error("ERR_ZM_HLS_CONFIG",
                "segment target must be at least the part target and at most 60 s");
  }
  if (options_.window_segments < 2)
    throw Error("ERR_ZM_HLS_CONFIG", "the window needs at least 2 segments");
}

void LlHlsPackager::FixTargets(std::int64_t frame_ticks, std::uint32_t ts) {
  // Cut target: a whole number of frames, as close to the configured target as the frame rate
  // allows. PART-TARGET adds half a frame of headroom, so a frame arriving a little late still
  // fits; TARGETDURATION leaves 1 s above the segment target (a GOP up to that long needs no
  // forced cut) and room for two parts. All three stay fixed for the epoch (RFC 8216bis §4.4.3).
  const std::int64_t frames = std::max<std::int64_t>(
      1, std::llround(double(options_.part_target_us) * ts / 1e6 / double(frame_ticks)));
  const std::int64_t frame_us = frame_ticks * 1000000 / ts;
  part_target_us_ = (frames * frame_ticks * 1000000 + ts - 1) / ts;
  advertised_part_us_ =
      (part_target_us_ + frame_us / 2 + 9) / 10 * 10;  // printed exactly (5 decimals)
  epoch_frame_us_ = frame_us;
  const auto configured = std::uint32_t((options_.segment_target_us + 999999) / 1000000) + 1;
  const auto two_parts = std::uint32_t((2 * advertised_part_us_ + 999999) / 1000000);
  target_duration_s_ = std::max(configured, two_parts);
}

void LlHlsPackager::NewEpoch() {
  // The new generation's frames do not fit the advertised PART-TARGET: what clients see is a fresh
  // playlist (new targets, only this generation's segments) whose media sequence and
  // discontinuity sequence carry on, so their positions (and blocking reloads) stay meaningful.
  ++counters_.epochs;
  while (!segments_.empty() && segments_.front().complete) {
    if (segments_.front().discontinuity) ++discontinuity_sequence_;
    segments_.pop_front();
    ++counters_.evicted_segments;
  }
  if (!segments_.empty() && segments_.front().discontinuity) {
    segments_.front().discontinuity = false;  // it lies before the first listed segment now
    ++discontinuity_sequence_;
  }
  while (generations_.size() > 1 && !segments_.empty() &&
         generations_.front().id < segments_.front().init_id) {
    generations_.pop_front();
  }
}

std::int64_t LlHlsPackager::NominalFrameUs() const {
  std::int64_t f = frame_us_ > 0 ? frame_us_ : epoch_frame_us_ > 0 ? epoch_frame_us_ : 33333;
  return part_target_us_ > 0 ? std::min(f, part_target_us_) : f;
}

void LlHlsPackager::Configure(MuxTrackConfig video, std::optional<MuxTrackConfig> audio) {
  if (video.codec != Codec::kH264 && video.codec != Codec::kH265) {
    throw Error("ERR_ZM_HLS_CODEC",
                std::string("LL-HLS needs H.264 or H.265 video, not ") + CodecName(video.codec));
  }
  // G.711 and anything else fMP4 cannot carry: the stream goes out video-only.
  if (audio && audio->codec != Codec::kAAC && audio->codec != Codec::kOpus) audio.reset();
  video_config_ = std::move(video);
  audio_config_ = std::move(audio);
}

void LlHlsPackager::Discontinuity() {
  CloseSegment(std::nullopt);
  need_generation_ = true;
  skip_to_keyframe_ = false;
}

void LlHlsPackager::End() {
  if (ended_) return;
  CloseSegment(std::nullopt);
  ended_ = true;
  muxer_.reset();
}

HlsSegment* LlHlsPackager::OpenSegment() {
  return !segments_.empty() && !segments_.back().complete ? &segments_.back() : nullptr;
}

const HlsSegment* LlHlsPackager::FindSegment(std::uint64_t msn) const {
  if (segments_.empty() || msn < segments_.front().msn) return nullptr;
  const std::uint64_t i = msn - segments_.front().msn;
  return i < segments_.size() ? &segments_[std::size_t(i)] : nullptr;
}

const LlHlsPackager::Generation* LlHlsPackager::FindGeneration(std::uint32_t id) const {
  for (const auto& g : generations_) {
    if (g.id == id) return &g;
  }
  return nullptr;
}

bool LlHlsPackager::SpsChanged(ByteView keyframe) const {
  if (current_sps_.empty()) return false;
  const ParameterSets sets = ExtractParameterSets(video_config_->codec, keyframe);
  return !sets.sps.empty() && !(ByteView(sets.sps.front()) == ByteView(current_sps_));
}

void LlHlsPackager::StartGeneration(std::int64_t keyframe_pts_us, ByteView keyframe,
                                    std::int64_t now_us) {
  std::vector<MuxTrackConfig> tracks{*video_config_};
  // In-band parameter sets are the truth (a camera may change them without a new HELLO).
  CodecInfo in_band;
  in_band.codec = tracks[0].codec;
  if (DeriveCodecDetails(in_band, keyframe)) tracks[0].extradata = AnnexBOf(in_band.parameter_sets);
  if (audio_config_) tracks.push_back(*audio_config_);

  std::unique_ptr<Fmp4Muxer> muxer;
  try {
    muxer = std::make_unique<Fmp4Muxer>(tracks, keyframe_pts_us);
  } catch (const Error&) {
    if (tracks.size() < 2) throw;
    tracks.pop_back();  // unusable audio config: go video-only rather than not at all
    muxer = std::make_unique<Fmp4Muxer>(tracks, keyframe_pts_us);
  }
  if (!muxer->Info(0).ready) return;  // no SPS/PPS yet: wait for a keyframe that carries them
  if (tracks.size() > 1 && !muxer->Info(1).ready) {
    tracks.pop_back();
    muxer = std::make_unique<Fmp4Muxer>(tracks, keyframe_pts_us);
  }

  Generation g;
  g.id = next_init_id_++;
  Bytes init = muxer->InitSegment();
  g.init.size = init.size();
  g.init.owner = std::make_shared<const Bytes>(std::move(init));
  for (std::size_t i = 0; i < muxer->track_count(); ++i) {
    const MuxTrackInfo info = muxer->Info(i);
    if (!info.codec_string.empty()) g.codecs += (g.codecs.empty() ? "" : ",") + info.codec_string;
    if (i == 0) g.width = info.width, g.height = info.height;
  }
  generations_.push_back(std::move(g));

  const ParameterSets sets = ExtractParameterSets(tracks[0].codec, tracks[0].extradata);
  current_sps_ = sets.sps.empty() ? Bytes() : sets.sps.front();
  audio_in_muxer_ = tracks.size() > 1;
  reorder_depth_ = std::max(0, muxer->Info(0).reorder_depth);
  muxer_ = std::move(muxer);
  need_generation_ = false;
  skip_to_keyframe_ = false;
  pending_discontinuity_ = next_msn_ > 0;
  if (pending_discontinuity_) ++counters_.discontinuities;
  frame_us_ = 0;  // measured afresh: a restarted zmc may run at another frame rate
  first_pts_us_ = keyframe_pts_us;
  last_video_pts_us_ = max_video_pts_us_ = keyframe_pts_us;
  wall_anchor_us_ = now_us;
}

void LlHlsPackager::StartSegment(std::int64_t start_us, bool independent) {
  HlsSegment s;
  s.msn = next_msn_++;
  s.init_id = generations_.back().id;
  s.independent = independent;
  s.discontinuity = pending_discontinuity_;
  s.start_us = start_us;
  s.wall_us = wall_anchor_us_ + (start_us - first_pts_us_);
  pending_discontinuity_ = false;
  segments_.push_back(std::move(s));
}

unsigned LlHlsPackager::PushVideo(std::int64_t pts_us, bool keyframe, ByteView access_unit,
                                  bool after_gap, std::int64_t now_us) {
  if (ended_ || !video_config_ || access_unit.empty() || pts_us < -kMaxPtsUs ||
      pts_us > kMaxPtsUs) {
    ++counters_.dropped_samples;
    return 0;
  }
  unsigned flags = 0;
  if (muxer_ && !need_generation_) {
    const std::int64_t ahead = std::max(kMinJumpAheadUs, 4 * options_.segment_target_us);
    if (pts_us < max_video_pts_us_ - kJumpBackUs || pts_us > max_video_pts_us_ + ahead) {
      Discontinuity();  // the clock jumped: a new timeline from the next keyframe
      flags |= kNewSegment | kNewPart;
    } else if (keyframe && SpsChanged(access_unit)) {
      Discontinuity();  // new picture parameters need a new init segment
      flags |= kNewSegment | kNewPart;
    }
  }
  if (need_generation_) {
    if (!keyframe) {
      ++counters_.skipped_until_keyframe;
      return flags;
    }
    StartGeneration(pts_us, access_unit, now_us);
    if (need_generation_) {
      ++counters_.skipped_until_keyframe;
      return flags;
    }
    flags |= kNewInit;
  }
  if (after_gap) skip_to_keyframe_ = true;  // later frames reference what was lost
  if (skip_to_keyframe_) {
    if (!keyframe) {
      ++counters_.skipped_until_keyframe;
      return flags;
    }
    skip_to_keyframe_ = false;
  }

  if (advertised_part_us_ > 0 && frame_us_ > 0 && OpenSegment()) {
    // A stall: the previous frame would last longer than PART-TARGET allows. It ends at its
    // nominal length instead; the timeline resumes after a discontinuity at a keyframe (a
    // decoder drops what follows a timestamp jump until one anyway). B-frame reordering can
    // put a frame's pts up to `depth` frames ahead of its decode time. Not for a generation's
    // second frame: that one measures the frame rate, which may call for a new epoch (CutParts).
    if (pts_us - max_video_pts_us_ >
        advertised_part_us_ - kTickSlackUs + reorder_depth_ * NominalFrameUs()) {
      flags |= CloseSegment(max_video_pts_us_ + NominalFrameUs());
      pending_discontinuity_ = true;
      ++counters_.stalls;
      ++counters_.discontinuities;
      if (!keyframe) {
        skip_to_keyframe_ = true;
        ++counters_.skipped_until_keyframe;
        return flags;
      }
    }
  }

  const HlsSegment* open = OpenSegment();
  if (keyframe && open && pts_us - open->start_us >= options_.segment_target_us - frame_us_ / 2) {
    flags |= CloseSegment(pts_us);
  }
  if (!OpenSegment()) StartSegment(pts_us, keyframe);

  MuxSample s;
  s.pts_us = pts_us;
  s.keyframe = keyframe;
  s.data = access_unit;
  muxer_->AddSample(0, s);
  ++segments_.back().video_samples;
  last_video_pts_us_ = pts_us;
  max_video_pts_us_ = std::max(max_video_pts_us_, pts_us);
  return flags | CutParts();
}

unsigned LlHlsPackager::PushAudio(std::int64_t pts_us, ByteView frame) {
  if (ended_ || need_generation_ || !audio_in_muxer_ || !OpenSegment() || frame.empty() ||
      pts_us < -kMaxPtsUs || pts_us > kMaxPtsUs) {
    ++counters_.dropped_samples;
    return 0;
  }
  MuxSample s;
  s.pts_us = pts_us;
  s.keyframe = true;
  s.data = frame;
  muxer_->AddSample(1, s);
  return 0;  // parts are cut on the video timeline
}

unsigned LlHlsPackager::CutParts() {
  unsigned flags = 0;
  const std::uint32_t ts = muxer_->Info(0).timescale;
  for (;;) {
    const std::size_t n = muxer_->KnownDtsCount(0);
    if (n < 2) break;
    const std::int64_t start = muxer_->PendingDts(0, 0);
    const std::int64_t frame = muxer_->PendingDts(0, 1) - start;
    if (frame_us_ == 0) {  // the first two frames of a generation
      frame_us_ = frame * 1000000 / ts;
      if (part_target_us_ == 0) {
        FixTargets(frame, ts);
      } else if (frame_us_ > advertised_part_us_ - kTickSlackUs) {
        NewEpoch();  // every frame would be a stall under the advertised PART-TARGET
        FixTargets(frame, ts);
      }
    }
    const std::int64_t limit = part_target_us_ * ts / 1000000;
    const std::int64_t tolerance = frame / 2;  // a further frame cannot fit once this close
    std::size_t boundary = 0;
    bool decided = false;
    for (std::size_t i = 1; i < n; ++i) {
      const std::int64_t d = muxer_->PendingDts(0, i) - start;
      if (d <= limit) {
        boundary = i;
        if (d > limit - tolerance) {
          decided = true;
          break;
        }
      } else {
        decided = true;
        if (boundary == 0) boundary = i;  // one frame longer than the target: a part on its own
        break;
      }
    }
    if (!decided) break;
    const std::int64_t before_us = muxer_->TicksToUs(0, muxer_->PendingDts(0, boundary));
    auto fragment = muxer_->Cut(CutMode::kReady, std::nullopt, before_us);
    if (!fragment) break;
    AddPart(std::move(*fragment));
    flags |= kNewPart | AfterPart(before_us);
  }
  return flags;
}

unsigned LlHlsPackager::AfterPart(std::int64_t next_start_us) {
  // One more part could take the segment past TARGETDURATION: it ends here, and the next one
  // starts mid-GOP (not independent).
  const HlsSegment& seg = segments_.back();
  if (seg.duration_us + advertised_part_us_ <= std::int64_t(target_duration_s_) * 1000000) return 0;
  ++counters_.forced_cuts;
  const unsigned flags = SealSegment();
  StartSegment(next_start_us, false);
  return flags;
}

unsigned LlHlsPackager::PreCut(std::int64_t end_us) {
  // The segment's tail runs to end_us: cut it into parts of at most the cut target (the last
  // frame's length is only known now, so CutParts may have left more than one part's worth).
  unsigned flags = 0;
  muxer_->FlushDts(0);  // nothing decodes before the segment's end any more (B-frames included)
  for (;;) {
    const std::size_t n = muxer_->KnownDtsCount(0);
    if (n < 2) break;
    const std::int64_t start = muxer_->TicksToUs(0, muxer_->PendingDts(0, 0));
    if (end_us - start <= part_target_us_) break;
    std::size_t boundary = 1;  // a frame on its own if even one is longer than the cut target
    for (std::size_t i = 2;
         i < n && muxer_->TicksToUs(0, muxer_->PendingDts(0, i)) - start <= part_target_us_; ++i) {
      boundary = i;
    }
    const std::int64_t before_us = muxer_->TicksToUs(0, muxer_->PendingDts(0, boundary));
    auto fragment = muxer_->Cut(CutMode::kReady, std::nullopt, before_us);
    if (!fragment) break;
    AddPart(std::move(*fragment));
    flags |= kNewPart | AfterPart(before_us);
  }
  return flags;
}

void LlHlsPackager::AddPart(Fragment&& fragment) {
  HlsSegment& seg = segments_.back();
  HlsPart part;
  part.independent = fragment.independent;
  // The part lasts as long as its video (audio frames straddle part boundaries).
  const FragmentTrackInfo* timing = nullptr;
  for (const auto& t : fragment.tracks) {
    if (t.track_id == 1) timing = &t;
  }
  if (timing == nullptr && !fragment.tracks.empty()) timing = &fragment.tracks.front();
  if (timing != nullptr && timing->timescale > 0) {
    part.duration_us =
        std::int64_t((timing->duration * 1000000 + timing->timescale / 2) / timing->timescale);
  }
  part.bytes.size = fragment.data.size();
  part.bytes.owner = std::make_shared<const Bytes>(std::move(fragment.data));
  if (seg.parts.empty()) seg.independent = part.independent;
  seg.duration_us += part.duration_us;
  seg.parts.push_back(std::move(part));
}

unsigned LlHlsPackager::CloseSegment(std::optional<std::int64_t> end_us) {
  if (OpenSegment() == nullptr) return 0;
  unsigned flags = 0;
  if (muxer_ && !need_generation_) {
    // Without a next keyframe (discontinuity, end) the last frame gets its nominal length.
    const std::int64_t end = end_us ? *end_us : max_video_pts_us_ + NominalFrameUs();
    if (part_target_us_ > 0) flags |= PreCut(end);
    // Audio decoded after the next segment's start waits for that segment (same muxer).
    auto fragment = muxer_->Cut(CutMode::kAll, end, end_us);
    if (fragment) {
      AddPart(std::move(*fragment));
      flags |= kNewPart;
    }
  }
  return flags | SealSegment();
}

unsigned LlHlsPackager::SealSegment() {
  HlsSegment* seg = OpenSegment();
  if (seg == nullptr) return 0;
  unsigned flags = 0;
  if (seg->parts.empty()) {  // nothing was ever cut: forget it, its msn is reused
    pending_discontinuity_ = pending_discontinuity_ || seg->discontinuity;
    segments_.pop_back();
    --next_msn_;
    return flags;
  }
  // The segment is its parts back to back; the parts become slices of it (one copy, once).
  auto joined = std::make_shared<Bytes>();
  std::size_t total = 0;
  for (const auto& p : seg->parts) total += p.bytes.size;
  joined->reserve(total);
  for (auto& p : seg->parts) {
    const std::size_t at = joined->size();
    joined->insert(joined->end(), p.bytes.data(), p.bytes.data() + p.bytes.size);
    p.bytes.offset = at;
  }
  std::shared_ptr<const Bytes> owner = std::move(joined);
  for (auto& p : seg->parts) p.bytes.owner = owner;
  seg->bytes = {owner, 0, total};
  seg->complete = true;
  Evict();
  return flags | kNewSegment;
}

std::size_t LlHlsPackager::HeldBytes() const {
  std::size_t n = 0;
  for (const auto& g : generations_) n += g.init.size;
  for (const auto& s : segments_) {
    if (s.complete) {
      n += s.bytes.size;
    } else {
      for (const auto& p : s.parts) n += p.bytes.size;
    }
  }
  return n;
}

void LlHlsPackager::Evict() {
  auto complete = [&] { return segments_.size() - (OpenSegment() ? 1 : 0); };
  while (complete() > options_.window_segments ||
         (complete() > 1 && HeldBytes() > options_.max_bytes)) {
    if (segments_.front().discontinuity) ++discontinuity_sequence_;
    segments_.pop_front();
    ++counters_.evicted_segments;
  }
  // Init segments no listed segment refers to (the current one always stays).
  while (generations_.size() > 1 && generations_.front().id < segments_.front().init_id)
    generations_.pop_front();
}

SharedBytes LlHlsPackager::Init(std::uint32_t id) const {
  const Generation* g = FindGeneration(id);
  return g ? g->init : SharedBytes{};
}

SharedBytes LlHlsPackager::Segment(std::uint64_t msn) const {
  const HlsSegment* s = FindSegment(msn);
  return s && s->complete ? s->bytes : SharedBytes{};
}

SharedBytes LlHlsPackager::Part(std::uint64_t msn, std::size_t index) const {
  const HlsSegment* s = FindSegment(msn);
  return s && index < s->parts.size() ? s->parts[index].bytes : SharedBytes{};
}

SharedBytes LlHlsPackager::Get(const std::string& name) const {
  std::uint64_t a = 0, b = 0;
  if (StartsWith(name, "init-") && EndsWith(name, ".mp4")) {
    if (ParseU64(name, 5, name.size() - 4, &a) && a <= 0xffffffffu) return Init(std::uint32_t(a));
  } else if (StartsWith(name, "seg-") && EndsWith(name, ".m4s")) {
    if (ParseU64(name, 4, name.size() - 4, &a)) return Segment(a);
  } else if (StartsWith(name, "part-") && EndsWith(name, ".m4s")) {
    const std::size_t dot = name.find('.', 5);
    if (dot != std::string::npos && ParseU64(name, 5, dot, &a) &&
        ParseU64(name, dot + 1, name.size() - 4, &b)) {
      return Part(a, std::size_t(b));
    }
  }
  return {};
}

bool LlHlsPackager::Available(std::uint64_t msn, int part) const {
  if (ended_) return true;  // nothing more will come: answer with what there is
  if (segments_.empty()) return false;
  if (msn < segments_.front().msn) return true;
  const HlsSegment* s = FindSegment(msn);
  if (s == nullptr) return false;
  if (part < 0) return s->complete;
  if (std::size_t(part) < s->parts.size()) return true;
  return s->complete && Available(msn + 1, 0);
}

bool LlHlsPackager::TooFarAhead(std::uint64_t msn) const { return msn > next_msn_ + 1; }

std::string LlHlsPackager::RenderMediaPlaylist(const RenderOptions& o) const {
  return RenderLlHlsMediaPlaylist({segments_, advertised_part_us_, target_duration_s_,
                                   discontinuity_sequence_, ended_, options_.program_date_time},
                                  o);
}

std::string LlHlsPackager::RenderMasterPlaylist(const MasterOptions& o) const {
  if (generations_.empty()) return {};
  const Generation& g = generations_.back();
  return RenderLlHlsMasterPlaylist(segments_, {g.codecs, g.width, g.height, frame_us_}, o);
}

std::string LlHlsPackager::Codecs() const {
  return generations_.empty() ? std::string() : generations_.back().codecs;
}

LlHlsStats LlHlsPackager::Stats() const {
  LlHlsStats s = counters_;
  s.first_msn = segments_.empty() ? next_msn_ : segments_.front().msn;
  s.next_msn = next_msn_;
  s.segments = segments_.size();
  for (const auto& seg : segments_) s.parts += seg.parts.size();
  s.bytes = HeldBytes();
  s.init_id = generations_.empty() ? 0 : generations_.back().id;
  s.ended = ended_;
  return s;
}

}  // namespace zm
