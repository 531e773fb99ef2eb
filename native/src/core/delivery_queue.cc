#include "zm/delivery_queue.h"

#include <algorithm>

namespace zm {

void DeliveryQueue::AddTap(std::shared_ptr<RecordTap> tap) {
  std::lock_guard<std::mutex> lock(mutex_);
  taps_.push_back(std::move(tap));
}

void DeliveryQueue::RemoveTap(const std::shared_ptr<RecordTap>& tap) {
  std::lock_guard<std::mutex> lock(mutex_);
  taps_.erase(std::remove(taps_.begin(), taps_.end(), tap), taps_.end());
}

void DeliveryQueue::Push(std::vector<Record>&& records) {
  if (records.empty()) return;
  std::vector<std::shared_ptr<RecordTap>> taps;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    taps = taps_;
  }
  for (const auto& tap : taps) tap->OnRecords(records);  // outside the lock: JS may be draining
  if (!media_to_js_) {
    records.erase(
        std::remove_if(records.begin(), records.end(),
                       [](const Record& r) { return std::holds_alternative<MediaRecord>(r); }),
        records.end());
    if (records.empty()) return;
  }
  bool notify = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_) return;
    for (auto& r : records) {
      pending_bytes_ += RecordBytes(r);
      pending_.push_back(std::move(r));
    }
    notify = !notified_;
    notified_ = true;
  }
  records.clear();
  if (notify) notify_();  // outside the lock: it may call into Node-API
}

std::vector<Record> DeliveryQueue::Drain() {
  std::vector<Record> out;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    out.swap(pending_);
    pending_bytes_ = 0;
    notified_ = false;
  }
  room_.notify_all();
  return out;
}

bool DeliveryQueue::WaitForRoom() {
  std::unique_lock<std::mutex> lock(mutex_);
  room_.wait(lock, [&] { return closed_ || pending_bytes_ <= max_bytes_; });
  return !closed_;
}

void DeliveryQueue::Close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  room_.notify_all();
}

std::size_t DeliveryQueue::PendingBytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return pending_bytes_;
}

}  // namespace zm
