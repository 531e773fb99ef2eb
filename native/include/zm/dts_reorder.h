// Decode timestamps for a stream that only carries presentation timestamps (the stream socket
// sends pts only). Access units arrive in decode order; with B-frames their pts are not monotonic.
// The k-th decode timestamp is the k-th smallest pts, which becomes known once `depth` further
// units have arrived (depth = the SPS reorder depth). Composition offsets (pts − dts) may then be
// negative, which trun version 1 allows, and a keyframe that opens a closed GOP gets dts == pts,
// so fragments cut at keyframes start exactly at their presentation time.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <vector>

namespace zm {

class DtsReorderer {
 public:
  explicit DtsReorderer(int depth) : depth_(depth < 0 ? 0 : depth) {}

  void Push(std::int64_t pts);
  // Makes every pending value available (the caller knows no earlier pts can follow, e.g. at a
  // keyframe cut).
  void Drain();
  bool HasDts() const { return !ready_.empty(); }
  std::int64_t PopDts();
  int depth() const { return depth_; }
  std::uint64_t violations() const { return violations_; }

 private:
  void Release();

  std::priority_queue<std::int64_t, std::vector<std::int64_t>, std::greater<std::int64_t>> heap_;
  std::deque<std::int64_t> ready_;
  int depth_;
  bool have_last_ = false;
  std::int64_t last_ = 0;  // last released dts
  std::uint64_t violations_ = 0;
};

}  // namespace zm
