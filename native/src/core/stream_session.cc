#include "zm/stream_session.h"

#include "zm/aac.h"

namespace zm {

std::size_t RecordBytes(const Record& r) {
  if (auto* m = std::get_if<MediaRecord>(&r)) return m->payload.size + sizeof(MediaRecord);
  return sizeof(Record);
}

void StreamSession::OnConnect() {
  for (auto& s : streams_) s.expected_seq.reset();
}

void StreamSession::CheckGeneration(std::uint32_t generation, std::vector<Record>& out) {
  if (generation_ && *generation_ != generation) {
    out.push_back(GenerationRecord{*generation_, generation});
    // A parameter change: everything learnt about the old epoch is void
    // (docs/zoneminder/stream-socket.md).
    std::lock_guard<std::mutex> lock(mutex_);
    ++counters_.generations;
    keyframe_.reset();
    for (auto& s : streams_) s.expected_seq.reset(), s.codec.reset();
  }
  generation_ = generation;
}

void StreamSession::Process(proto::Message&& m, std::vector<Record>& out) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++counters_.messages;
    counters_.bytes += proto::kHeaderSize + m.payload.size;
  }
  const auto& h = m.header;
  switch (h.type) {
    case proto::kHello:
      if (h.stream > proto::kAudio) break;
      CheckGeneration(h.generation, out);
      OnHello(m, out);
      return;
    case proto::kMedia:
    case proto::kKeyframe:
      if (h.stream > proto::kAudio) break;
      CheckGeneration(h.generation, out);
      OnMedia(std::move(m), out);
      return;
    case proto::kStats:
      if (auto s = DecodeStats(m.payload.view())) out.push_back(StatsRecord{*s});
      return;
    case proto::kBye:
      out.push_back(ByeRecord{});
      return;
    case proto::kEvent:
      if (auto e = DecodeEvent(m.payload.view())) {
        out.push_back(EventRecord{h.sequence, h.generation, std::move(*e)});
      } else {
        std::lock_guard<std::mutex> lock(mutex_);
        ++counters_.malformed_events;
      }
      return;
    default:
      break;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++counters_.unknown;  // unknown types and control-extension messages are skipped
}

void StreamSession::OnHello(const proto::Message& m, std::vector<Record>& out) {
  const auto stream = StreamKind(m.header.stream);
  auto info = std::make_shared<const CodecInfo>(DecodeHello(m.payload.view()));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    streams_[m.header.stream].codec = info;
    // Sequences restart with a HELLO; the first live MEDIA after it sets the new baseline.
    streams_[m.header.stream].expected_seq.reset();
  }
  out.push_back(CodecRecord{stream, m.header.generation, std::move(info), false});
}

void StreamSession::OnMedia(proto::Message&& m, std::vector<Record>& out) {
  const auto& h = m.header;
  const auto stream = StreamKind(h.stream);
  PerStream& s = streams_[h.stream];
  const bool cached = h.type == proto::kKeyframe;
  std::uint32_t gap = 0;
  // KEYFRAME carries an old sequence number, so only live MEDIA moves the baseline.
  if (!cached) {
    if (s.expected_seq && h.sequence > *s.expected_seq) gap = h.sequence - *s.expected_seq;
    s.expected_seq = h.sequence + 1;
  }
  if (stream == StreamKind::kAudio || h.keyframe() || cached)
    LearnInBand(stream, m.payload.view(), out);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++counters_.media;
    if (gap > 0) ++counters_.gaps, counters_.lost += gap;
    if (stream == StreamKind::kVideo && (h.keyframe() || cached)) {
      // Its own copy: the delivered payload goes to JS, which may modify or keep it.
      keyframe_ =
          std::make_shared<const CachedKeyframe>(CachedKeyframe{h, m.payload.view().copy()});
    }
  }
  out.push_back(MediaRecord{stream, h, std::move(m.payload), gap, cached});
}

// Without usable extradata the codec details come from the stream itself: in-band SPS/PPS of a
// video keyframe, or the ADTS header of an AAC frame. Reported once, as an in-band CodecRecord.
void StreamSession::LearnInBand(StreamKind stream, ByteView data, std::vector<Record>& out) {
  std::shared_ptr<const CodecInfo> current;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    current = streams_[int(stream)].codec;
  }
  if (!current || current->from_bitstream) return;
  CodecInfo updated = *current;
  bool learnt = false;
  if (updated.codec == Codec::kH264 || updated.codec == Codec::kH265) {
    learnt = DeriveCodecDetails(updated, data);
  } else if (updated.codec == Codec::kAAC) {
    AdtsHeader adts;
    if (ParseAdtsHeader(data, &adts) && adts.config.object_type <= 4) {
      updated.extradata = MakeAudioSpecificConfig(adts.config.object_type, adts.config.sample_rate,
                                                  adts.config.channel_config);
      learnt = DeriveCodecDetails(updated, updated.extradata);
    }
  }
  if (!learnt) return;
  auto info = std::make_shared<const CodecInfo>(std::move(updated));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    streams_[int(stream)].codec = info;
  }
  out.push_back(CodecRecord{stream, generation_.value_or(0), std::move(info), true});
}

std::shared_ptr<const CachedKeyframe> StreamSession::LatestKeyframe() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return keyframe_;
}

std::shared_ptr<const CodecInfo> StreamSession::Codec(StreamKind stream) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return streams_[int(stream)].codec;
}

SessionCounters StreamSession::Counters() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counters_;
}

}  // namespace zm
