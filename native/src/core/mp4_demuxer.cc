#include "zm/mp4_demuxer.h"

#include <algorithm>
#include <optional>
#include <queue>

#include "zm/codec_info.h"
#include "zm/error.h"
#include "zm/mp4_box_reader.h"
#include "zm/mp4_sample_tables.h"
#include "zm/nal.h"

namespace zm {

using namespace mp4;

namespace {

// Bounds that keep timestamp arithmetic far from overflow, whatever a file says.
constexpr std::int64_t kMaxTicks = std::int64_t(1) << 52;
constexpr std::int64_t kMaxTimeUs = std::int64_t(1) << 53;

// MPEG-4 descriptor length: up to four 7-bit groups.
std::size_t DescriptorLength(Reader& r) {
  std::size_t len = 0;
  for (int i = 0; i < 4; ++i) {
    const std::uint8_t b = r.u8();
    len = (len << 7) | (b & 0x7f);
    if (!(b & 0x80)) break;
  }
  return len;
}

// esds (after version/flags): ES_Descriptor → DecoderConfigDescriptor → DecoderSpecificInfo.
void ParseEsds(ByteView body, std::uint8_t* object_type, Bytes* asc) {
  Reader r(body);
  r.Skip(4);
  if (r.u8() != 0x03) return;
  Reader es(r.Take(std::min(DescriptorLength(r), r.left())));
  es.Skip(2);  // ES_ID
  const std::uint8_t flags = es.u8();
  if (flags & 0x80) es.Skip(2);
  if (flags & 0x40) es.Skip(es.u8());
  if (flags & 0x20) es.Skip(2);
  while (es.left() >= 2) {
    const std::uint8_t tag = es.u8();
    ByteView payload = es.Take(std::min(DescriptorLength(es), es.left()));
    if (tag != 0x04) continue;
    Reader dcd(payload);
    *object_type = dcd.u8();
    dcd.Skip(12);  // streamType, bufferSizeDB, max/avg bitrate
    while (dcd.left() >= 2) {
      const std::uint8_t t = dcd.u8();
      ByteView info = dcd.Take(std::min(DescriptorLength(dcd), dcd.left()));
      if (t == 0x05) {
        *asc = info.copy();
        return;
      }
    }
    return;
  }
}

// dOps (ISO-BMFF, big-endian) → OpusHead (RFC 7845, little-endian): what Fmp4Muxer takes.
Bytes OpusHeadFromDOps(ByteView dops) {
  Reader r(dops);
  const std::uint8_t version = r.u8();
  if (version != 0) return {};
  const std::uint8_t channels = r.u8();
  const std::uint16_t pre_skip = r.u16();
  const std::uint32_t rate = r.u32();
  const std::uint16_t gain = r.u16();
  const std::uint8_t family = r.u8();
  Bytes out = {'O',
               'p',
               'u',
               's',
               'H',
               'e',
               'a',
               'd',
               1,
               channels,
               std::uint8_t(pre_skip),
               std::uint8_t(pre_skip >> 8),
               std::uint8_t(rate),
               std::uint8_t(rate >> 8),
               std::uint8_t(rate >> 16),
               std::uint8_t(rate >> 24),
               std::uint8_t(gain),
               std::uint8_t(gain >> 8),
               family};
  if (family != 0) {
    const ByteView table = r.Take(2 + std::size_t(channels));
    out.insert(out.end(), table.begin(), table.end());
  }
  return out;
}

bool IsKnownTopLevel(std::uint32_t type) {
  for (std::uint32_t t : {Fourcc("ftyp"), Fourcc("moov"), Fourcc("mdat"), Fourcc("free"),
                          Fourcc("skip"), Fourcc("wide"), Fourcc("styp"), Fourcc("sidx"),
                          Fourcc("moof"), Fourcc("pdin"), Fourcc("uuid"), Fourcc("meta")}) {
    if (type == t) return true;
  }
  return false;
}

// An edit list reduced to what presentation needs: leading empty edits delay the track, the first
// real edit says where in the media the presentation starts.
std::int64_t PresentationOffset(ByteView elst, std::uint32_t movie_timescale,
                                std::uint32_t media_timescale) {
  Reader r(elst);
  const std::uint8_t version = r.u8();
  r.Skip(3);
  const std::uint32_t count = r.u32();
  std::int64_t delay = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t duration = version == 1 ? r.u64() : r.u32();
    const std::int64_t media_time =
        version == 1 ? std::int64_t(r.u64()) : std::int64_t(std::int32_t(r.u32()));
    r.Skip(4);                                                    // rate
    if (media_time < -1 || media_time > kMaxTicks) return delay;  // nonsense: ignore the edit
    if (media_time == -1) {
      if (movie_timescale > 0) {
        const __int128 ticks = __int128(duration) * media_timescale / movie_timescale;
        delay = std::int64_t(std::min<__int128>(delay + ticks, kMaxTicks));
      }
      continue;
    }
    return delay - media_time;
  }
  return delay;
}

}  // namespace

std::int64_t Mp4Track::ToUs(std::int64_t ticks) const {
  if (timescale == 0) return 0;
  const __int128 v = __int128(ticks) * 1000000;
  const __int128 half = timescale / 2;
  const __int128 us = v >= 0 ? (v + half) / timescale : -((-v + half) / timescale);
  return std::int64_t(
      std::clamp<__int128>(us, -kMaxTimeUs, kMaxTimeUs));  // a damaged file, not a crash
}

Mp4Demuxer::Mp4Demuxer(std::shared_ptr<const ByteSource> source, Mp4Limits limits)
    : source_(std::move(source)), limits_(limits) {
  Scan();
  for (const MoofRef& ref : moofs_) {
    if (!ParseMoof(ref)) {
      truncated_ = true;  // the rest (an in-progress or damaged tail) is ignored
      break;
    }
  }
  Finish();
}

Mp4Track* Mp4Demuxer::FindTrack(std::uint32_t id) {
  for (auto& t : tracks_) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

std::uint64_t Mp4Demuxer::TotalSamples() const {
  std::uint64_t n = 0;
  for (const auto& t : tracks_) n += t.samples.size();
  return n;
}

void Mp4Demuxer::Scan() {
  const std::uint64_t size = source_->size();
  std::uint64_t pos = 0;
  while (size - pos >= 8) {
    std::uint8_t h[16];
    const std::size_t have = std::size_t(std::min<std::uint64_t>(16, size - pos));
    source_->Read(pos, h, have);
    std::uint64_t box_size = ReadU32Be(h);
    const std::uint32_t type = ReadU32Be(h + 4);
    std::uint64_t header = 8;
    if (pos == 0 && !IsKnownTopLevel(type))
      Broken("not an MP4/ISO-BMFF file (first box " + FourccName(type) + ")");
    if (box_size == 1) {
      if (have < 16) {
        truncated_ = true;
        break;
      }
      box_size = (std::uint64_t(ReadU32Be(h + 8)) << 32) | ReadU32Be(h + 12);
      header = 16;
    } else if (box_size == 0) {
      box_size = size - pos;  // to the end of the file
    }
    if (box_size < header) {
      if (pos == 0) Broken("invalid first box size");
      truncated_ = true;  // garbage after the last box
      break;
    }
    if (box_size > size - pos) {
      truncated_ = true;  // still being written (or cut short): what came before is usable
      break;
    }
    if (type == Fourcc("ftyp") && box_size >= 12) {
      major_brand_ = FourccName(ReadU32Be(h + 8));
    } else if (type == Fourcc("moov") && !have_moov_) {
      if (box_size > limits_.max_index_box) Broken("moov box too large");
      const Bytes moov = source_->Read(pos + header, std::size_t(box_size - header));
      ParseMoov(moov);
    } else if (type == Fourcc("moof")) {
      if (box_size > limits_.max_index_box) Broken("moof box too large");
      moofs_.push_back({pos, box_size});
      fragmented_ = true;
    }
    pos += box_size;
  }
  if (pos < size && size - pos < 8) truncated_ = true;
  if (!have_moov_) {
    throw Error("ERR_ZM_MP4_NO_MOOV",
                "no movie box (moov): not an MP4 file, or a progressive MP4 still being recorded");
  }
}

void Mp4Demuxer::ParseMoov(ByteView moov) {
  std::uint32_t movie_timescale = 0;
  const auto children = Children(moov);
  for (const Child& c : children) {
    if (c.type != Fourcc("mvhd")) continue;
    Reader r(c.body);
    const std::uint8_t version = r.u8();
    r.Skip(3 + (version == 1 ? 16 : 8));
    movie_timescale = r.u32();
  }
  for (const Child& c : children) {
    if (c.type == Fourcc("trak")) ParseTrak(c.body, movie_timescale);
    if (c.type == Fourcc("mvex")) {
      for (const Child& m : Children(c.body)) {
        if (m.type != Fourcc("trex")) continue;
        Reader r(m.body);
        r.Skip(4);
        Trex t;
        t.track_id = r.u32();
        r.Skip(4);  // default sample description index
        t.duration = r.u32(), t.size = r.u32(), t.flags = r.u32();
        trex_.push_back(t);
      }
    }
  }
  have_moov_ = true;
}

void Mp4Demuxer::ParseTrak(ByteView trak, std::uint32_t movie_timescale) {
  Mp4Track t;
  std::optional<ByteView> elst, stbl;
  for (const Child& c : Children(trak)) {
    if (c.type == Fourcc("tkhd")) {
      Reader r(c.body);
      const std::uint8_t version = r.u8();
      r.Skip(3 + (version == 1 ? 16 : 8));
      t.id = r.u32();
      // The matrix follows duration, 8 reserved bytes, layer, alternate_group, volume, reserved.
      const std::size_t matrix_at = version == 1 ? 52 : 40;
      if (c.body.size >= matrix_at + 44) {
        for (std::size_t k = 0; k < 9; ++k)
          t.matrix[k] = std::int32_t(ReadU32Be(&c.body[matrix_at + 4 * k]));
      }
      if (c.body.size >= 8) {  // width/height (16.16) end the box
        t.width = ReadU32Be(&c.body[c.body.size - 8]) >> 16;
        t.height = ReadU32Be(&c.body[c.body.size - 4]) >> 16;
      }
    } else if (c.type == Fourcc("edts")) {
      elst = FindChild(c.body, Fourcc("elst"));
    } else if (c.type == Fourcc("mdia")) {
      for (const Child& m : Children(c.body)) {
        if (m.type == Fourcc("mdhd")) {
          Reader r(m.body);
          const std::uint8_t version = r.u8();
          r.Skip(3 + (version == 1 ? 16 : 8));
          t.timescale = r.u32();
        } else if (m.type == Fourcc("hdlr")) {
          Reader r(m.body);
          r.Skip(8);
          t.handler = FourccName(r.u32());
        } else if (m.type == Fourcc("minf")) {
          stbl = FindChild(m.body, Fourcc("stbl"));
        }
      }
    }
  }
  if (t.timescale == 0 || t.id == 0 || FindTrack(t.id) != nullptr)
    return;  // unusable: leave it out
  if (elst) t.presentation_offset = PresentationOffset(*elst, movie_timescale, t.timescale);
  if (stbl) {
    if (auto stsd = FindChild(*stbl, Fourcc("stsd"))) ParseStsd(t, *stsd);
    Mp4SampleTable table =
        ReadSampleTables(*stbl, source_->size(),
                         limits_.max_samples - std::min(limits_.max_samples, TotalSamples()));
    t.samples = std::move(table.samples);
    if (table.truncated) truncated_ = true;
  }
  std::int64_t end = 0;
  if (!t.samples.empty()) end = t.samples.back().dts + t.samples.back().duration;
  next_fragment_dts_.push_back(end);
  tracks_.push_back(std::move(t));
}

void Mp4Demuxer::ParseStsd(Mp4Track& t, ByteView stsd) {
  Reader r(stsd);
  r.Skip(4);
  if (r.u32() == 0) return;
  const auto entries = Children(r.Rest());
  if (entries.empty()) return;
  const Child& e = entries.front();  // further sample descriptions are not supported
  t.sample_entry = FourccName(e.type);
  if (t.is_video()) {
    if (e.body.size < 78) return;
    if (!t.width) t.width = ReadU16Be(&e.body[24]);
    if (!t.height) t.height = ReadU16Be(&e.body[26]);
    for (const Child& c : Children(e.body.sub(78))) {
      if (c.type == Fourcc("avcC") && (e.type == Fourcc("avc1") || e.type == Fourcc("avc3"))) {
        t.codec = Codec::kH264, t.config = c.body.copy();
        if (c.body.size >= 5) t.nal_length_size = (c.body[4] & 3) + 1;
      } else if (c.type == Fourcc("hvcC") &&
                 (e.type == Fourcc("hvc1") || e.type == Fourcc("hev1"))) {
        t.codec = Codec::kH265, t.config = c.body.copy();
        if (c.body.size >= 22) t.nal_length_size = (c.body[21] & 3) + 1;
      } else if (c.type == Fourcc("av1C") && e.type == Fourcc("av01")) {
        t.codec = Codec::kAV1, t.config = c.body.copy();
      }
    }
    return;
  }
  if (!t.is_audio()) return;
  if (e.type == Fourcc("ulaw")) t.codec = Codec::kPCMU;
  if (e.type == Fourcc("alaw")) t.codec = Codec::kPCMA;
  if (e.body.size < 28) return;
  const std::uint16_t qt_version = ReadU16Be(&e.body[8]);  // QuickTime sound description version
  t.channels = ReadU16Be(&e.body[16]);
  t.sample_rate = ReadU32Be(&e.body[24]) >> 16;
  const std::size_t extra = qt_version == 1 ? 16 : qt_version == 2 ? 36 : 0;
  if (e.body.size < 28 + extra) return;
  auto children = Children(e.body.sub(28 + extra));
  if (auto wave = std::find_if(children.begin(), children.end(),
                               [](const Child& c) { return c.type == Fourcc("wave"); });
      wave != children.end()) {
    const auto inner = Children(wave->body);  // QuickTime keeps esds inside 'wave'
    children.insert(children.end(), inner.begin(), inner.end());
  }
  for (const Child& c : children) {
    if (c.type == Fourcc("esds") && e.type == Fourcc("mp4a")) {
      std::uint8_t object_type = 0;
      Bytes asc;
      ParseEsds(c.body, &object_type, &asc);
      // 0x40 MPEG-4 audio; 0x66–0x68 MPEG-2 AAC profiles.
      if (object_type == 0x40 || (object_type >= 0x66 && object_type <= 0x68))
        t.codec = Codec::kAAC, t.config = std::move(asc);
    } else if (c.type == Fourcc("dOps") && e.type == Fourcc("Opus")) {
      t.config = OpusHeadFromDOps(c.body);
      if (!t.config.empty()) t.codec = Codec::kOpus;
    }
  }
}

bool Mp4Demuxer::ParseMoof(const MoofRef& ref) {
  const std::uint64_t file_size = source_->size();
  std::vector<std::vector<Mp4Sample>> added(tracks_.size());
  std::vector<std::int64_t> next_dts = next_fragment_dts_;
  std::uint64_t budget = limits_.max_samples - std::min(limits_.max_samples, TotalSamples());
  try {
    const Bytes moof = source_->Read(ref.offset + 8, std::size_t(ref.size - 8));
    std::uint64_t previous_end = ref.offset;  // implicit base of a traf without one
    bool first_traf = true;
    for (const Child& traf : Children(moof)) {
      if (traf.type != Fourcc("traf")) continue;
      const auto children = Children(traf.body);
      auto tfhd = std::find_if(children.begin(), children.end(),
                               [](const Child& c) { return c.type == Fourcc("tfhd"); });
      if (tfhd == children.end()) return false;
      Reader h(tfhd->body);
      h.Skip(1);
      const std::uint32_t flags = h.u24();
      const std::uint32_t track_id = h.u32();
      std::size_t ti = 0;
      while (ti < tracks_.size() && tracks_[ti].id != track_id) ++ti;
      Trex defaults;
      for (const Trex& t : trex_) {
        if (t.track_id == track_id) defaults = t;
      }
      std::optional<std::uint64_t> base_offset;
      if (flags & 0x000001) base_offset = h.u64();
      if (flags & 0x000002) h.Skip(4);  // sample description index
      if (flags & 0x000008) defaults.duration = h.u32();
      if (flags & 0x000010) defaults.size = h.u32();
      if (flags & 0x000020) defaults.flags = h.u32();
      const std::uint64_t base = base_offset ? *base_offset
                                 : (flags & 0x020000) || first_traf
                                     ? ref.offset  // default-base-is-moof
                                     : previous_end;
      first_traf = false;
      std::uint64_t pos = base;
      bool first_trun = true;
      for (const Child& c : children) {
        if (c.type == Fourcc("tfdt") && ti < tracks_.size()) {
          Reader r(c.body);
          const std::uint8_t version = r.u8();
          r.Skip(3);
          next_dts[ti] =
              std::int64_t(std::min<std::uint64_t>(version == 1 ? r.u64() : r.u32(), kMaxTicks));
        }
        if (c.type != Fourcc("trun")) continue;
        Reader r(c.body);
        r.Skip(1);  // version: 0 and 1 differ only in the sign of composition offsets
        const std::uint32_t tf = r.u24();
        const std::uint32_t count = r.u32();
        std::int64_t data = std::int64_t(first_trun ? base : pos);
        if (tf & 0x000001) data = std::int64_t(base) + std::int32_t(r.u32());
        std::optional<std::uint32_t> first_flags;
        if (tf & 0x000004) first_flags = r.u32();
        const std::size_t entry =
            4 * (((tf >> 8) & 1) + ((tf >> 9) & 1) + ((tf >> 10) & 1) + ((tf >> 11) & 1));
        if (count > file_size || count > budget) return false;  // implausible: treat as the end
        r.Need(std::size_t(count) * entry);
        budget -= count;
        for (std::uint32_t i = 0; i < count; ++i) {
          Mp4Sample s;
          s.duration = (tf & 0x100) ? r.u32() : defaults.duration;
          s.size = (tf & 0x200) ? r.u32() : defaults.size;
          const std::uint32_t sflags = (tf & 0x400)              ? r.u32()
                                       : (i == 0 && first_flags) ? *first_flags
                                                                 : defaults.flags;
          // Signed in version 1; version 0 writers store negative offsets the same way.
          if (tf & 0x800) s.cto = std::int32_t(r.u32());
          s.sync = !(sflags & 0x00010000);  // sample_is_non_sync_sample
          if (data < 0 || std::uint64_t(data) > file_size ||
              s.size > file_size - std::uint64_t(data)) {
            return false;  // sample data past the end: an unfinished fragment
          }
          s.offset = std::uint64_t(data);
          data += s.size;
          if (ti < tracks_.size()) {
            s.dts = next_dts[ti];
            next_dts[ti] += s.duration;
            added[ti].push_back(s);
          }
        }
        pos = std::uint64_t(data);
        first_trun = false;
      }
      previous_end = pos;
    }
  } catch (const Error&) {
    return false;  // a broken fragment ends the usable part of the file
  }
  for (std::size_t i = 0; i < tracks_.size(); ++i) {
    tracks_[i].samples.insert(tracks_[i].samples.end(), added[i].begin(), added[i].end());
  }
  next_fragment_dts_ = std::move(next_dts);
  ++fragments_;
  return true;
}

void Mp4Demuxer::ParseInBandParameterSets(Mp4Track& t) {
  // avc3/hev1 keep parameter sets in the samples: take them from the first sync sample.
  for (std::size_t i = 0; i < t.samples.size() && i < 64; ++i) {
    if (!t.samples[i].sync || t.samples[i].size > (16u << 20)) continue;
    const Bytes sample = source_->Read(t.samples[i].offset, t.samples[i].size);
    const Bytes normal = NormaliseNalLengths(t, sample);
    Bytes annexb;
    for (std::size_t pos = 0; pos + 4 <= normal.size();) {
      const std::uint32_t len = ReadU32Be(&normal[pos]);
      if (len > normal.size() - pos - 4) break;
      annexb.insert(annexb.end(), {0, 0, 0, 1});
      annexb.insert(annexb.end(), normal.begin() + std::ptrdiff_t(pos + 4),
                    normal.begin() + std::ptrdiff_t(pos + 4 + len));
      pos += 4 + len;
    }
    const ParameterSets sets = ExtractParameterSets(t.codec, annexb);
    if (!sets.complete(t.codec)) continue;
    Bytes config;
    for (const auto* list : {&sets.vps, &sets.sps, &sets.pps}) {
      for (const Bytes& nal : *list) {
        config.insert(config.end(), {0, 0, 0, 1});
        config.insert(config.end(), nal.begin(), nal.end());
      }
    }
    t.config = std::move(config);
    return;
  }
}

void Mp4Demuxer::Finish() {
  for (auto& t : tracks_) {
    if (t.codec == Codec::kH264 || t.codec == Codec::kH265) {
      if (ExtractParameterSets(t.codec, t.config).sps.empty()) {
        try {
          ParseInBandParameterSets(t);
        } catch (const Error&) {
        }
      }
    }
    if (t.codec != Codec::kUnknown) {
      CodecInfo info;
      info.codec = t.codec;
      if (t.is_audio()) info.sample_rate = 0, info.channels = 0;
      if (DeriveCodecDetails(info, t.config)) {
        if (t.is_video() && info.width > 0) t.width = info.width, t.height = info.height;
        if (t.is_audio() && info.sample_rate > 0) t.sample_rate = info.sample_rate;
        if (t.is_audio() && info.channels > 0) t.channels = info.channels;
      }
      t.codec_string = info.codec_string;
    }
    if (!t.samples.empty()) {
      std::int64_t end = 0;
      for (std::size_t i = 0; i < t.samples.size(); ++i)
        end = std::max(end, t.PtsTicks(i) + t.samples[i].duration);
      duration_us_ = std::max(duration_us_, t.ToUs(end));
    }
  }
}

Bytes Mp4Demuxer::NormaliseNalLengths(const Mp4Track& t, ByteView sample) const {
  const std::size_t n = t.nal_length_size;
  if (n == 4 || n == 0 || n > 4) return sample.copy();
  Bytes out;
  out.reserve(sample.size + sample.size / 16 + 8);
  ByteWriter w(out);
  for (std::size_t pos = 0; pos < sample.size;) {
    if (sample.size - pos < n) return sample.copy();  // not length-prefixed as announced
    std::uint32_t len = 0;
    for (std::size_t i = 0; i < n; ++i) len = (len << 8) | sample[pos + i];
    pos += n;
    if (len > sample.size - pos) return sample.copy();
    w.u32(len);
    w.bytes(sample.sub(pos, len));
    pos += len;
  }
  return out;
}

Bytes Mp4Demuxer::ReadSample(std::size_t track, std::size_t index) const {
  if (track >= tracks_.size() || index >= tracks_[track].samples.size()) {
    throw Error("ERR_ZM_MP4_RANGE", "no such sample");
  }
  const Mp4Track& t = tracks_[track];
  const Mp4Sample& s = t.samples[index];
  Bytes data = source_->Read(s.offset, s.size);
  if (t.is_video() && t.nal_length_size != 4 &&
      (t.codec == Codec::kH264 || t.codec == Codec::kH265)) {
    return NormaliseNalLengths(t, data);
  }
  return data;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> Mp4Demuxer::DecodeOrder() const {
  using Entry =
      std::pair<std::int64_t, std::pair<std::uint32_t, std::uint32_t>>;  // dts µs, (track, index)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  out.reserve(std::size_t(TotalSamples()));
  for (std::uint32_t t = 0; t < tracks_.size(); ++t) {
    if (!tracks_[t].samples.empty()) heap.push({tracks_[t].ToUs(tracks_[t].DtsTicks(0)), {t, 0}});
  }
  while (!heap.empty()) {
    const auto [t, i] = heap.top().second;
    heap.pop();
    out.emplace_back(t, i);
    if (i + 1 < tracks_[t].samples.size())
      heap.push({tracks_[t].ToUs(tracks_[t].DtsTicks(i + 1)), {t, i + 1}});
  }
  return out;
}

}  // namespace zm
