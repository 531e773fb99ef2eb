#include "zm/mp4_sample_tables.h"

#include <optional>
#include <utility>

#include "zm/mp4_box_reader.h"

namespace zm {

namespace {

using namespace mp4;

struct Tables {
  std::optional<ByteView> stsz, stz2, stts, ctts, stss, stsc, stco, co64;
};

Tables FindTables(ByteView stbl) {
  Tables b;
  for (const Child& c : Children(stbl)) {
    if (c.type == Fourcc("stsz")) b.stsz = c.body;
    if (c.type == Fourcc("stz2")) b.stz2 = c.body;
    if (c.type == Fourcc("stts")) b.stts = c.body;
    if (c.type == Fourcc("ctts")) b.ctts = c.body;
    if (c.type == Fourcc("stss")) b.stss = c.body;
    if (c.type == Fourcc("stsc")) b.stsc = c.body;
    if (c.type == Fourcc("stco")) b.stco = c.body;
    if (c.type == Fourcc("co64")) b.co64 = c.body;
  }
  return b;
}

void CheckCount(std::uint32_t count, std::uint64_t file_size, std::uint64_t max_samples) {
  if (count > file_size || count > max_samples) Broken("implausible sample count");
}

// Sizes from stsz (one constant or one entry a sample), else from the compact stz2.
std::vector<std::uint32_t> Sizes(const Tables& b, std::uint64_t file_size,
                                 std::uint64_t max_samples) {
  std::vector<std::uint32_t> sizes;
  if (b.stsz) {
    Reader r(*b.stsz);
    r.Skip(4);
    const std::uint32_t constant = r.u32();
    const std::uint32_t count = r.u32();
    CheckCount(count, file_size, max_samples);
    if (constant != 0) {
      sizes.assign(count, constant);
    } else {
      r.Need(std::size_t(count) * 4);
      sizes.resize(count);
      for (auto& s : sizes) s = r.u32();
    }
    return sizes;
  }
  Reader r(*b.stz2);
  r.Skip(4 + 3);
  const std::uint8_t field = r.u8();
  const std::uint32_t count = r.u32();
  if (field != 4 && field != 8 && field != 16) Broken("stz2 field size");
  CheckCount(count, file_size, max_samples);
  const ByteView packed = r.Take((std::size_t(count) * field + 7) / 8);
  sizes.resize(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    if (field == 16)
      sizes[i] = ReadU16Be(&packed[2 * i]);
    else if (field == 8)
      sizes[i] = packed[i];
    else
      sizes[i] = i % 2 == 0 ? packed[i / 2] >> 4 : packed[i / 2] & 0x0f;  // two 4-bit sizes a byte
  }
  return sizes;
}

// Chunk offsets: stco, or co64 for files past 4 GiB.
std::vector<std::uint64_t> ChunkOffsets(const Tables& b) {
  std::vector<std::uint64_t> chunks;
  if (!b.stco && !b.co64) return chunks;
  Reader r(b.co64 ? *b.co64 : *b.stco);
  r.Skip(4);
  const std::uint32_t count = r.u32();
  r.Need(std::size_t(count) * (b.co64 ? 8 : 4));
  chunks.resize(count);
  for (auto& c : chunks) c = b.co64 ? r.u64() : r.u32();
  return chunks;
}

// Sample offsets through sample-to-chunk: each run of chunks holds so many samples a chunk, back
// to back. Returns how many samples found a chunk.
std::size_t PlaceSamples(ByteView stsc, const std::vector<std::uint64_t>& chunks,
                         const std::vector<std::uint32_t>& sizes,
                         std::vector<std::uint64_t>& offsets) {
  const std::size_t n = sizes.size();
  std::size_t placed = 0;
  Reader r(stsc);
  r.Skip(4);
  const std::uint32_t count = r.u32();
  r.Need(std::size_t(count) * 12);
  std::vector<std::pair<std::uint32_t, std::uint32_t>>
      runs;  // first chunk (1-based), samples per chunk
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t first = r.u32(), per_chunk = r.u32();
    r.Skip(4);
    if (first == 0 || (!runs.empty() && first <= runs.back().first))
      Broken("stsc chunks out of order");
    runs.emplace_back(first, per_chunk);
  }
  for (std::size_t k = 0; k < runs.size() && placed < n; ++k) {
    const std::uint64_t end = k + 1 < runs.size() ? runs[k + 1].first : chunks.size() + 1;
    for (std::uint64_t c = runs[k].first; c < end && c <= chunks.size() && placed < n; ++c) {
      std::uint64_t at = chunks[std::size_t(c - 1)];
      for (std::uint32_t j = 0; j < runs[k].second && placed < n; ++j) {
        offsets[placed] = at;
        at += sizes[placed++];
      }
    }
  }
  return placed;
}

// Decode times and durations; samples past the table repeat its last delta.
void DecodeTimes(const std::optional<ByteView>& stts, std::vector<Mp4Sample>& samples) {
  const std::size_t n = samples.size();
  std::int64_t dts = 0;
  std::uint32_t delta = 0;
  std::size_t s = 0;
  if (stts) {
    Reader r(*stts);
    r.Skip(4);
    const std::uint32_t count = r.u32();
    for (std::uint32_t i = 0; i < count && s < n; ++i) {
      const std::uint32_t run = r.u32();
      delta = r.u32();
      for (std::uint32_t j = 0; j < run && s < n; ++j, ++s) {
        samples[s].dts = dts, samples[s].duration = delta;
        dts += delta;
      }
    }
  }
  for (; s < n; ++s) samples[s].dts = dts, samples[s].duration = delta, dts += delta;
}

void CompositionOffsets(ByteView ctts, std::vector<Mp4Sample>& samples) {
  const std::size_t n = samples.size();
  Reader r(ctts);
  r.Skip(4);
  const std::uint32_t count = r.u32();
  std::size_t s = 0;
  for (std::uint32_t i = 0; i < count && s < n; ++i) {
    const std::uint32_t run = r.u32();
    // Signed in version 1; version 0 writers also store negative offsets this way.
    const auto offset = std::int32_t(r.u32());
    for (std::uint32_t j = 0; j < run && s < n; ++j) samples[s++].cto = offset;
  }
}

void SyncSamples(const std::optional<ByteView>& stss, std::vector<Mp4Sample>& samples) {
  if (!stss) {
    for (auto& sample : samples) sample.sync = true;  // no table: every sample is a sync sample
    return;
  }
  Reader r(*stss);
  r.Skip(4);
  const std::uint32_t count = r.u32();
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t number = r.u32();
    if (number >= 1 && number <= samples.size()) samples[number - 1].sync = true;
  }
}

}  // namespace

Mp4SampleTable ReadSampleTables(ByteView stbl, std::uint64_t file_size, std::uint64_t max_samples) {
  Mp4SampleTable out;
  const Tables b = FindTables(stbl);
  if (!b.stsz && !b.stz2) return out;
  const std::vector<std::uint32_t> sizes = Sizes(b, file_size, max_samples);
  if (sizes.empty()) return out;

  const std::vector<std::uint64_t> chunks = ChunkOffsets(b);
  std::vector<std::uint64_t> offsets(sizes.size(), 0);
  // Samples without a chunk have no data to read.
  const std::size_t n =
      b.stsc && !chunks.empty() ? PlaceSamples(*b.stsc, chunks, sizes, offsets) : 0;

  std::vector<Mp4Sample>& samples = out.samples;
  samples.resize(n);
  DecodeTimes(b.stts, samples);
  if (b.ctts) CompositionOffsets(*b.ctts, samples);
  SyncSamples(b.stss, samples);
  for (std::size_t i = 0; i < n; ++i) {
    samples[i].offset = offsets[i], samples[i].size = sizes[i];
    if (offsets[i] > file_size || sizes[i] > file_size - offsets[i]) {
      samples.resize(i);  // the file ends early (cut short): keep what is there
      out.truncated = true;
      break;
    }
  }
  return out;
}

}  // namespace zm
