// Hand-over of records from the reader thread to the JS thread, with back-pressure. The reader
// pushes; the first push after a drain calls `notify` (which schedules one JS callback), and later
// pushes just join the pending batch, so JS is called at most once per batch however fast
// messages arrive. When more than max_bytes wait, the reader blocks in WaitForRoom() and stops
// reading the socket: zmc then queues, drops (visible as sequence gaps) or disconnects us,
// according to its own per-client limits (docs/zoneminder/stream-socket.md).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "zm/stream_session.h"

namespace zm {

// A native consumer of a stream's records (e.g. the LL-HLS packager). OnRecords runs on the
// reader thread, before the records are queued for JS, so media never has to cross into JS for
// it; it must be quick and do its own locking.
class RecordTap {
 public:
  virtual ~RecordTap() = default;
  virtual void OnRecords(const std::vector<Record>& records) = 0;
};

class DeliveryQueue {
 public:
  DeliveryQueue(std::size_t max_bytes, std::function<void()> notify)
      : max_bytes_(max_bytes), notify_(std::move(notify)) {}

  // For owners that must create the queue before the callback (it may refer back to the queue).
  // Call before the reader thread starts.
  void SetNotify(std::function<void()> notify) { notify_ = std::move(notify); }

  void Push(std::vector<Record>&& records);
  // Taps see every pushed record first. Safe from any thread; a removed tap may still see the
  // batch being pushed at that moment.
  void AddTap(std::shared_ptr<RecordTap> tap);
  void RemoveTap(const std::shared_ptr<RecordTap>& tap);
  // Whether media records are queued for JS at all (false when nothing in JS consumes them:
  // each JS wake-up costs more than a native tap's whole work on the record).
  void SetMediaToJs(bool on) { media_to_js_ = on; }
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
  std::vector<std::shared_ptr<RecordTap>> taps_;  // guarded by mutex_
  std::atomic<bool> media_to_js_{true};
};

}  // namespace zm
