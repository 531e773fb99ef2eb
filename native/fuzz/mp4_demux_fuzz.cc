// libFuzzer target: the MP4 demuxer on arbitrary bytes, then everything a request can do with what
// it indexed (sample reads, decode order, VOD plan, init and segments through the fMP4 muxer).
// zm::Error is the expected way to refuse input; anything else (a crash, a sanitizer report, an
// escaping std::exception, a huge allocation) is a finding.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "zm/byte_source.h"
#include "zm/error.h"
#include "zm/mp4_demuxer.h"
#include "zm/mp4_vod.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace zm;
  auto source = std::make_shared<const MemorySource>(Bytes(data, data + size));
  Mp4Limits limits;
  limits.max_index_box = 1u << 20;
  limits.max_samples = 1u << 16;
  std::shared_ptr<const Mp4Demuxer> demuxer;
  try {
    demuxer = std::make_shared<const Mp4Demuxer>(source, limits);
  } catch (const Error&) {
    return 0;
  }
  for (std::size_t t = 0; t < demuxer->tracks().size(); ++t) {
    const std::size_t n = demuxer->tracks()[t].samples.size();
    for (std::size_t i = 0; i < n && i < 32; ++i) {
      try {
        demuxer->ReadSample(t, i);
      } catch (const Error&) {
      }
    }
  }
  demuxer->DecodeOrder();
  try {
    Mp4Vod vod(demuxer);
    vod.Codecs();
    for (std::int64_t target : {0, 1000000}) {
      const auto plan = vod.Plan(target);
      for (std::size_t i = 0; i < plan.size() && i < 4; ++i) {
        try {
          vod.Segment(plan, i);
        } catch (const Error&) {
        }
      }
    }
    vod.Init();
  } catch (const Error&) {
  }
  return 0;
}
