// Builds small synthetic MP4 files for the demuxer tests and the fuzzer's seed corpus: progressive
// (moov before or after mdat, stco or co64, stsz or stz2, a largesize mdat header, edit lists,
// any NAL length size) and fragmented (per-sample fields or trex/tfhd defaults).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "zm/box_writer.h"
#include "zm/bytes.h"

namespace zm::test {

struct SynthSample {
  Bytes data;
  std::uint32_t duration = 0;
  std::int32_t cto = 0;
  bool sync = true;
};

struct SynthTrack {
  bool video = true;
  std::uint32_t timescale = 90000;
  Bytes config;  // avcC body (video) or AudioSpecificConfig (audio)
  std::uint16_t width = 640, height = 360;
  // tkhd transformation matrix (zmc's Orientation); version 1 tkhd has 64-bit times before it.
  std::array<std::uint32_t, 9> matrix{0x00010000u, 0u, 0u, 0u,         0x00010000u,
                                      0u,          0u, 0u, 0x40000000u};
  bool tkhd_v1 = false;
  std::optional<std::int64_t> edit_media_time;  // an elst entry starting the presentation here
  std::vector<SynthSample> samples;
};

struct ProgressiveOptions {
  bool moov_first = true;
  bool co64 = false;
  bool largesize_mdat = false;
  bool stz2 = false;
  std::uint32_t samples_per_chunk = 3;
};

// avcC with 1-byte..4-byte NAL lengths around one SPS and one PPS.
inline Bytes MakeAvcC(const Bytes& sps, const Bytes& pps, int nal_length_size = 4) {
  Bytes out{1, sps[1], sps[2], sps[3], std::uint8_t(0xfc | (nal_length_size - 1)), 0xe1};
  ByteWriter w(out);
  w.u16(std::uint32_t(sps.size()));
  w.bytes(sps);
  w.u8(1);
  w.u16(std::uint32_t(pps.size()));
  w.bytes(pps);
  return out;
}

// One NAL unit as a sample with an n-byte length prefix.
inline Bytes LengthPrefixed(const Bytes& nal, int n = 4) {
  Bytes out;
  for (int i = n - 1; i >= 0; --i) out.push_back(std::uint8_t(nal.size() >> (8 * i)));
  out.insert(out.end(), nal.begin(), nal.end());
  return out;
}

namespace detail {

inline void Ftyp(ByteWriter& w, const char* major) {
  Box ftyp(w, "ftyp");
  w.fourcc(major);
  w.u32(0x200);
  w.fourcc("isom");
  w.fourcc("iso6");
}

inline void SampleEntry(ByteWriter& w, const SynthTrack& t) {
  Box stsd(w, "stsd", 0, 0);
  w.u32(1);
  if (t.video) {
    Box avc1(w, "avc1");
    w.zeros(6), w.u16(1), w.zeros(16);
    w.u16(t.width), w.u16(t.height);
    w.u32(0x00480000), w.u32(0x00480000), w.u32(0), w.u16(1), w.zeros(32), w.u16(0x18),
        w.u16(0xffff);
    Box avcc(w, "avcC");
    w.bytes(t.config);
  } else {
    Box mp4a(w, "mp4a");
    w.zeros(6), w.u16(1), w.zeros(8);
    w.u16(2), w.u16(16), w.u32(0), w.u32(t.timescale << 16);
    Box esds(w, "esds", 0, 0);
    const auto asc = std::uint32_t(t.config.size());
    w.u8(3), w.u8(3 + 2 + 13 + 2 + asc + 3);  // 1-byte descriptor lengths
    w.u16(1), w.u8(0);
    w.u8(4), w.u8(13 + 2 + asc);
    w.u8(0x40), w.u8(0x15), w.u24(0), w.u32(0), w.u32(0);
    w.u8(5), w.u8(asc);
    w.bytes(t.config);
    w.u8(6), w.u8(1), w.u8(2);
  }
}

inline void Trak(ByteWriter& w, const SynthTrack& t, std::uint32_t id,
                 const std::vector<std::uint64_t>& chunk_offsets, const ProgressiveOptions& o,
                 bool fragmented) {
  Box trak(w, "trak");
  {
    Box tkhd(w, "tkhd", t.tkhd_v1 ? 1 : 0, 3);
    if (t.tkhd_v1) {
      w.u64(0), w.u64(0), w.u32(id), w.u32(0), w.u64(0);
    } else {
      w.u32(0), w.u32(0), w.u32(id), w.u32(0), w.u32(0);
    }
    w.zeros(8), w.u16(0), w.u16(0), w.u16(0), w.u16(0);
    for (std::uint32_t v : t.matrix) w.u32(v);
    w.u32(std::uint32_t(t.width) << 16), w.u32(std::uint32_t(t.height) << 16);
  }
  if (t.edit_media_time) {
    Box edts(w, "edts");
    Box elst(w, "elst", 1, 0);
    w.u32(1);
    w.u64(0), w.u64(std::uint64_t(*t.edit_media_time)), w.u32(0x00010000);
  }
  Box mdia(w, "mdia");
  {
    Box mdhd(w, "mdhd", 0, 0);
    w.u32(0), w.u32(0), w.u32(t.timescale), w.u32(0), w.u16(0x55c4), w.u16(0);
  }
  {
    Box hdlr(w, "hdlr", 0, 0);
    w.u32(0), w.fourcc(t.video ? "vide" : "soun"), w.zeros(12), w.u8(0);
  }
  Box minf(w, "minf");
  Box stbl(w, "stbl");
  SampleEntry(w, t);
  const auto& s = fragmented ? std::vector<SynthSample>{} : t.samples;
  {
    Box stts(w, "stts", 0, 0);
    w.u32(std::uint32_t(s.size()));
    for (const auto& x : s) w.u32(1), w.u32(x.duration);
  }
  bool any_cto = false, all_sync = true;
  for (const auto& x : s) any_cto = any_cto || x.cto != 0, all_sync = all_sync && x.sync;
  if (any_cto) {
    Box ctts(w, "ctts", 1, 0);
    w.u32(std::uint32_t(s.size()));
    for (const auto& x : s) w.u32(1), w.u32(std::uint32_t(x.cto));
  }
  if (!all_sync) {
    Box stss(w, "stss", 0, 0);
    std::vector<std::uint32_t> sync;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i].sync) sync.push_back(std::uint32_t(i + 1));
    }
    w.u32(std::uint32_t(sync.size()));
    for (auto n : sync) w.u32(n);
  }
  if (o.stz2) {
    Box stz2(w, "stz2", 0, 0);
    w.u24(0), w.u8(16), w.u32(std::uint32_t(s.size()));
    for (const auto& x : s) w.u16(std::uint32_t(x.data.size()));
  } else {
    Box stsz(w, "stsz", 0, 0);
    w.u32(0), w.u32(std::uint32_t(s.size()));
    for (const auto& x : s) w.u32(std::uint32_t(x.data.size()));
  }
  {
    // One entry for the full chunks; a second when the last chunk is shorter.
    Box stsc(w, "stsc", 0, 0);
    const std::size_t chunks = chunk_offsets.size();
    const std::size_t last = s.size() - (chunks == 0 ? 0 : (chunks - 1) * o.samples_per_chunk);
    const bool two = chunks > 1 && last != o.samples_per_chunk;
    w.u32(chunks == 0 ? 0 : two ? 2 : 1);
    if (chunks > 0)
      w.u32(1), w.u32(chunks == 1 ? std::uint32_t(s.size()) : o.samples_per_chunk), w.u32(1);
    if (two) w.u32(std::uint32_t(chunks)), w.u32(std::uint32_t(last)), w.u32(1);
  }
  if (o.co64) {
    Box co64(w, "co64", 0, 0);
    w.u32(std::uint32_t(chunk_offsets.size()));
    for (auto c : chunk_offsets) w.u64(c);
  } else {
    Box stco(w, "stco", 0, 0);
    w.u32(std::uint32_t(chunk_offsets.size()));
    for (auto c : chunk_offsets) w.u32(std::uint32_t(c));
  }
}

inline Bytes Moov(const std::vector<SynthTrack>& tracks,
                  const std::vector<std::vector<std::uint64_t>>& chunks,
                  const ProgressiveOptions& o, bool fragmented) {
  Bytes out;
  ByteWriter w(out);
  {
    Box moov(w, "moov");
    {
      Box mvhd(w, "mvhd", 0, 0);
      w.u32(0), w.u32(0), w.u32(1000), w.u32(0), w.u32(0x00010000), w.u16(0x0100), w.zeros(10);
      for (std::uint32_t v : {0x00010000u, 0u, 0u, 0u, 0x00010000u, 0u, 0u, 0u, 0x40000000u})
        w.u32(v);
      w.zeros(24), w.u32(std::uint32_t(tracks.size() + 1));
    }
    for (std::size_t i = 0; i < tracks.size(); ++i)
      Trak(w, tracks[i], std::uint32_t(i + 1), chunks[i], o, fragmented);
    if (fragmented) {
      Box mvex(w, "mvex");
      for (std::size_t i = 0; i < tracks.size(); ++i) {
        // trex defaults a fragment may rely on: duration of the first sample, its size, non-sync.
        Box trex(w, "trex", 0, 0);
        const auto& s = tracks[i].samples;
        w.u32(std::uint32_t(i + 1)), w.u32(1);
        w.u32(s.empty() ? 0 : s[0].duration),
            w.u32(s.empty() ? 0 : std::uint32_t(s[0].data.size())), w.u32(0x01010000);
      }
    }
  }
  return out;
}

}  // namespace detail

inline Bytes BuildProgressive(const std::vector<SynthTrack>& tracks,
                              const ProgressiveOptions& o = {}) {
  // mdat payload: chunks of samples_per_chunk samples, the tracks' chunks interleaved.
  Bytes payload;
  std::vector<std::vector<std::uint64_t>> rel(tracks.size());
  for (std::size_t c = 0;; ++c) {
    bool any = false;
    for (std::size_t t = 0; t < tracks.size(); ++t) {
      const auto& s = tracks[t].samples;
      const std::size_t begin = c * o.samples_per_chunk;
      if (begin >= s.size()) continue;
      any = true;
      rel[t].push_back(payload.size());
      for (std::size_t i = begin; i < std::min(s.size(), begin + o.samples_per_chunk); ++i) {
        payload.insert(payload.end(), s[i].data.begin(), s[i].data.end());
      }
    }
    if (!any) break;
  }
  Bytes ftyp;
  {
    ByteWriter w(ftyp);
    detail::Ftyp(w, "isom");
  }
  const std::size_t mdat_header = o.largesize_mdat ? 16 : 8;
  auto offsets = [&](std::uint64_t base) {
    auto abs = rel;
    for (auto& t : abs) {
      for (auto& c : t) c += base;
    }
    return abs;
  };
  // The moov size does not depend on the offset values (fixed-width fields).
  const std::size_t moov_size = detail::Moov(tracks, offsets(0), o, false).size();
  const std::uint64_t base = ftyp.size() + (o.moov_first ? moov_size : 0) + mdat_header;
  const Bytes moov = detail::Moov(tracks, offsets(base), o, false);
  Bytes out = ftyp;
  if (o.moov_first) out.insert(out.end(), moov.begin(), moov.end());
  ByteWriter w(out);
  if (o.largesize_mdat) {
    w.u32(1), w.fourcc("mdat"), w.u64(16 + payload.size());
  } else {
    w.u32(std::uint32_t(8 + payload.size())), w.fourcc("mdat");
  }
  w.bytes(payload);
  if (!o.moov_first) out.insert(out.end(), moov.begin(), moov.end());
  return out;
}

struct FragmentOptions {
  std::size_t samples_per_fragment = 4;
  bool use_defaults = false;   // sizes/durations from trex/tfhd, sync via first-sample-flags
  bool explicit_base = false;  // tfhd base_data_offset instead of default-base-is-moof
};

// init (moov with empty tables + mvex) then moof+mdat per group of samples, one traf per track.
inline Bytes BuildFragmented(const std::vector<SynthTrack>& tracks,
                             const FragmentOptions& fo = {}) {
  Bytes out;
  {
    ByteWriter w(out);
    detail::Ftyp(w, "iso6");
  }
  const Bytes moov =
      detail::Moov(tracks, std::vector<std::vector<std::uint64_t>>(tracks.size()), {}, true);
  out.insert(out.end(), moov.begin(), moov.end());
  std::vector<std::uint64_t> dts(tracks.size(), 0);
  for (std::size_t f = 0;; ++f) {
    const std::size_t begin = f * fo.samples_per_fragment;
    bool any = false;
    for (const auto& t : tracks) any = any || begin < t.samples.size();
    if (!any) break;
    const std::size_t moof_at = out.size();
    ByteWriter w(out);
    std::vector<std::size_t> patch;
    {
      Box moof(w, "moof");
      {
        Box mfhd(w, "mfhd", 0, 0);
        w.u32(std::uint32_t(f + 1));
      }
      for (std::size_t t = 0; t < tracks.size(); ++t) {
        const auto& s = tracks[t].samples;
        if (begin >= s.size()) continue;
        const std::size_t end = std::min(s.size(), begin + fo.samples_per_fragment);
        Box traf(w, "traf");
        {
          const std::uint32_t flags =
              (fo.explicit_base ? 0x01 : 0x020000) | (fo.use_defaults ? 0x08 | 0x10 : 0);
          Box tfhd(w, "tfhd", 0, flags);
          w.u32(std::uint32_t(t + 1));
          if (fo.explicit_base) patch.push_back(w.pos()), w.u64(0);
          if (fo.use_defaults) w.u32(s[begin].duration), w.u32(std::uint32_t(s[begin].data.size()));
        }
        {
          Box tfdt(w, "tfdt", 1, 0);
          w.u64(dts[t]);
        }
        const std::uint32_t tr = 0x01 | (fo.use_defaults ? 0x04 : 0x100 | 0x200 | 0x400 | 0x800);
        Box trun(w, "trun", 1, tr);
        w.u32(std::uint32_t(end - begin));
        if (!fo.explicit_base) patch.push_back(w.pos());
        w.u32(0);  // data offset, patched below
        if (fo.use_defaults) w.u32(s[begin].sync ? 0x02000000 : 0x01010000);
        for (std::size_t i = begin; i < end; ++i) {
          dts[t] += s[i].duration;
          if (fo.use_defaults) continue;
          w.u32(s[i].duration), w.u32(std::uint32_t(s[i].data.size())),
              w.u32(s[i].sync ? 0x02000000 : 0x01010000);
          w.u32(std::uint32_t(s[i].cto));
        }
      }
    }
    // mdat: each track's samples in traf order; offsets from the moof start (or absolute).
    std::size_t mdat_size = 8;
    for (const auto& t : tracks) {
      for (std::size_t i = begin; i < std::min(t.samples.size(), begin + fo.samples_per_fragment);
           ++i)
        mdat_size += t.samples[i].data.size();
    }
    std::uint64_t data_at = out.size() + 8;
    std::size_t k = 0;
    for (const auto& t : tracks) {
      if (begin >= t.samples.size()) continue;
      if (fo.explicit_base) {
        const std::uint64_t v = data_at;
        for (int b = 0; b < 8; ++b)
          out[patch[k] + std::size_t(b)] = std::uint8_t(v >> (56 - 8 * b));
      } else {
        w.PatchU32(patch[k], std::uint32_t(data_at - moof_at));
      }
      ++k;
      for (std::size_t i = begin; i < std::min(t.samples.size(), begin + fo.samples_per_fragment);
           ++i)
        data_at += t.samples[i].data.size();
    }
    w.u32(std::uint32_t(mdat_size)), w.fourcc("mdat");
    for (const auto& t : tracks) {
      for (std::size_t i = begin; i < std::min(t.samples.size(), begin + fo.samples_per_fragment);
           ++i)
        w.bytes(t.samples[i].data);
    }
  }
  return out;
}

}  // namespace zm::test
