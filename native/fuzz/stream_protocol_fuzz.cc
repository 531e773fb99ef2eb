// libFuzzer target: the stream-socket protocol parser and the session that turns messages into
// records (HELLO/EVENT/STATS TLVs, sequence gaps, generations, in-band codec details), fed in
// chunks whose sizes come from the input itself, through both the copying Feed() path and the
// zero-copy PayloadWindow()/Commit() path. A protocol error resets like a reconnect does. The
// records then go where the reader thread's tap sends them: the LL-HLS feed and packager (so
// arbitrary access units, timestamps and codec configs reach the muxer), with the playlists
// rendered and names looked up now and then.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "zm/error.h"
#include "zm/ll_hls_feed.h"
#include "zm/stream_parser.h"
#include "zm/stream_session.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace zm;
  if (size < 1) return 0;
  const std::uint8_t mode = data[0];
  data += 1, size -= 1;
  StreamParser parser(1u << 20);
  StreamSession session;
  session.OnConnect();
  std::vector<proto::Message> messages;
  std::vector<Record> records;
  LlHlsOptions options;
  options.window_segments = 3;
  options.max_bytes = 1u << 20;
  LlHlsPackager packager(options);
  LlHlsRecordFeed feed(packager);
  std::int64_t now = 1'700'000'000'000'000;
  std::size_t pos = 0, step = 0;
  while (pos < size) {
    // Chunk sizes 1..64, cycling through the mode byte's bits.
    const std::size_t chunk =
        std::min<std::size_t>(size - pos, 1 + ((mode >> (step++ % 8)) & 1 ? 63 : (step * 7) % 13));
    try {
      std::size_t window = 0;
      std::uint8_t* dst = (mode & 0x80) ? parser.PayloadWindow(&window) : nullptr;
      if (dst != nullptr && window > 0) {
        const std::size_t n = std::min(window, chunk);
        std::memcpy(dst, data + pos, n);
        parser.Commit(n, messages);
        pos += n;
      } else {
        parser.Feed(data + pos, chunk, messages);
        pos += chunk;
      }
      for (auto& m : messages) session.Process(std::move(m), records);
    } catch (const Error&) {
      parser.Reset();  // what the reader does: drop the connection, reconnect
      session.OnConnect();
      pos += chunk;
    }
    messages.clear();
    for (const Record& r : records) {
      RecordBytes(r);
      try {
        feed.Feed(r, now += 1000);
      } catch (const Error&) {
      }
    }
    if (!records.empty() && (step % 16) == 0) {
      packager.RenderMediaPlaylist({"?t=1"});
      packager.RenderMasterPlaylist();
      const auto st = packager.Stats();
      packager.Get("part-" + std::to_string(st.first_msn) + ".0.m4s");
      packager.Available(st.next_msn, 0);
    }
    records.clear();
    session.LatestKeyframe();
    session.Codec(StreamKind::kVideo);
  }
  return 0;
}
