// The stream-socket client's native thread: connects to stream_<id>.sock, reconnects with
// exponential back-off, reads with poll() (so Stop() interrupts it at once), parses, and pushes
// records into a DeliveryQueue. It never touches Node-API; the binding drains the queue on the JS
// thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "zm/delivery_queue.h"
#include "zm/stream_parser.h"
#include "zm/stream_session.h"

namespace zm {

struct ReaderOptions {
  std::string path;
  std::uint32_t initial_delay_ms = 500;
  std::uint32_t max_delay_ms = 5000;
  std::uint32_t stall_timeout_ms = 30000;  // no bytes for this long → reconnect; 0 = never
  std::uint32_t max_message_length = proto::kMaxLength;
};

struct ConnectFailure {
  std::string code;
  std::string message;
};

// errno of a failed connect() → stable code + an actionable message. Public for unit tests (as
// root, EACCES cannot always be provoked for real).
ConnectFailure ClassifyConnectError(int err, const std::string& path);

// Delay before attempt `failures` + 1: initial × 2^(failures−1), capped at max.
std::uint32_t BackoffDelayMs(std::uint32_t failures, std::uint32_t initial_ms,
                             std::uint32_t max_ms);

struct ReaderCounters {
  std::uint64_t attempts = 0, connects = 0;
};

class StreamReader {
 public:
  StreamReader(ReaderOptions options, std::shared_ptr<DeliveryQueue> queue);
  ~StreamReader();  // Stop() + Join()
  StreamReader(const StreamReader&) = delete;
  StreamReader& operator=(const StreamReader&) = delete;

  void Start();
  void Stop();  // asynchronous; safe from any thread, any number of times
  void Join();  // blocks until the thread has exited; idempotent and thread-safe

  const StreamSession& session() const { return session_; }
  ReaderCounters counters() const { return {attempts_.load(), connects_.load()}; }

 private:
  struct Outcome {
    std::string reason, code, message;
    bool saw_hello = false;
  };

  void Run();
  Outcome ReadConnection(int fd);
  bool Sleep(std::uint32_t ms);  // false when woken by Stop()

  const ReaderOptions options_;
  const std::shared_ptr<DeliveryQueue> queue_;
  StreamSession session_;
  StreamParser parser_;
  int wake_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> attempts_{0}, connects_{0};
  std::mutex join_mutex_;
  std::thread thread_;
};

}  // namespace zm
