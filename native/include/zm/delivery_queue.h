// Hand-over of records from the reader thread to the JS thread, with back-pressure. The reader
// pushes; the first push after a drain calls `notify` (which schedules one JS callback), and later
// pushes just join the pending batch, so JS is called at most once per batch however fast
// messages arrive. When more than max_bytes wait, the reader blocks in WaitForRoom() and stops
// reading the socket: zmc then queues, drops (visible as sequence gaps) or disconnects us,
// according to its own per-client limits (FACTS §8).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <vector>

#include "zm/stream_session.h"

namespace zm {

class DeliveryQueue {
 public:
  DeliveryQueue(std::size_t max_bytes, std::function<void()> notify)
      : max_bytes_(max_bytes), notify_(std::move(notify)) {}

  // For owners that must create the queue before the callback (it may refer back to the queue).
  // Call before the reader thread starts.
  void SetNotify(std::function<void()> notify) { notify_ = std::move(notify); }

  void Push(std::vector<Record>&& records);
  std::vector<Record> Drain();  // everything pending, oldest first
  bool WaitForRoom();           // false once Close()d
  void Close();                 // wakes a blocked reader; later pushes are discarded
  std::size_t PendingBytes() const;

 private:
  const std::size_t max_bytes_;
  std::function<void()> notify_;
  mutable std::mutex mutex_;
  std::condition_variable room_;
  std::vector<Record> pending_;
  std::size_t pending_bytes_ = 0;
  bool notified_ = false;
  bool closed_ = false;
};

}  // namespace zm
