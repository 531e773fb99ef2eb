#include "zm/dts_reorder.h"

namespace zm {

namespace {
constexpr int kMaxDepth = 16;  // the H.264/H.265 DPB limit
}

void DtsReorderer::Push(std::int64_t pts) {
  // A pts below an already-released dts means the stream reorders deeper than assumed: widen the
  // window for what follows (this sample's dts is clamped in Release()).
  if (have_last_ && pts < last_ && depth_ < kMaxDepth) ++depth_, ++violations_;
  heap_.push(pts);
  while (heap_.size() > std::size_t(depth_)) Release();
}

void DtsReorderer::Drain() {
  while (!heap_.empty()) Release();
}

std::int64_t DtsReorderer::PopDts() {
  const std::int64_t v = ready_.front();
  ready_.pop_front();
  return v;
}

void DtsReorderer::Release() {
  std::int64_t v = heap_.top();
  heap_.pop();
  if (have_last_ && v <= last_) v = last_ + 1;  // decode times must strictly increase
  last_ = v;
  have_last_ = true;
  ready_.push_back(v);
}

}  // namespace zm
