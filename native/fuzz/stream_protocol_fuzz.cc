// libFuzzer target: the stream-socket protocol parser and the session that turns messages into
// records (HELLO/EVENT/STATS TLVs, sequence gaps, generations, in-band codec details), fed in
// chunks whose sizes come from the input itself, through both the copying Feed() path and the
// zero-copy PayloadWindow()/Commit() path. A protocol error resets like a reconnect does.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "zm/error.h"
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
  std::size_t pos = 0, step = 0;
  while (pos < size) {
    // Chunk sizes 1..64, cycling through the mode byte's bits.
    const std::size_t chunk = std::min<std::size_t>(size - pos, 1 + ((mode >> (step++ % 8)) & 1 ? 63 : (step * 7) % 13));
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
    for (const Record& r : records) RecordBytes(r);
    records.clear();
    session.LatestKeyframe();
    session.Codec(StreamKind::kVideo);
  }
  return 0;
}
