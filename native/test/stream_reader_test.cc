// The socket thread against a real unix listener: delivery, back-off, protocol errors, and the
// errno classification (EACCES cannot be provoked as root, so it is tested directly).
#include "zm/stream_reader.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <string>
#include <thread>

namespace zm {
namespace {

Bytes Message(std::uint8_t type, std::uint32_t seq, const Bytes& payload,
              std::uint8_t version = 1) {
  proto::Header h;
  h.length = std::uint32_t(20 + payload.size());
  h.version = version, h.type = type, h.sequence = seq, h.generation = 1, h.pts_us = seq * 1000;
  Bytes out(proto::kHeaderSize);
  proto::EncodeHeader(h, out.data());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

const Bytes kHello = {0x01, 4, 0, 27, 0, 0, 0};

class Listener {
 public:
  Listener() {
    char tmpl[] = "/tmp/zmreader-XXXXXX";
    dir_ = mkdtemp(tmpl);
    path_ = dir_ + "/stream_1.sock";
    fd_ = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path_.c_str());
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(listen(fd_, 4), 0);
  }
  ~Listener() {
    close(fd_);
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }
  int Accept() { return accept(fd_, nullptr, nullptr); }
  const std::string& path() const { return path_; }

 private:
  std::string dir_, path_;
  int fd_ = -1;
};

// Collects records pushed by the reader; waits for a predicate with a timeout.
struct Collector {
  std::mutex m;
  std::condition_variable cv;
  std::vector<Record> records;
  std::shared_ptr<DeliveryQueue> queue = std::make_shared<DeliveryQueue>(1 << 20, [this] {
    std::lock_guard<std::mutex> l(m);
    cv.notify_all();
  });

  template <typename Pred>
  bool WaitFor(Pred pred, int ms = 3000) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    for (;;) {
      {
        auto batch = queue->Drain();
        std::lock_guard<std::mutex> l(m);
        for (auto& r : batch) records.push_back(std::move(r));
        if (pred(records)) return true;
      }
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
};

template <typename T>
std::size_t Count(const std::vector<Record>& rs) {
  std::size_t n = 0;
  for (const auto& r : rs) n += std::holds_alternative<T>(r);
  return n;
}

const DisconnectedRecord* LastDisconnect(const std::vector<Record>& rs) {
  const DisconnectedRecord* d = nullptr;
  for (const auto& r : rs) {
    if (auto* x = std::get_if<DisconnectedRecord>(&r)) d = x;
  }
  return d;
}

TEST(StreamReader, DeliversMessagesAndReconnectsAfterEof) {
  Listener l;
  Collector c;
  ReaderOptions o;
  o.path = l.path();
  o.initial_delay_ms = 20;
  StreamReader reader(o, c.queue);
  reader.Start();
  for (int round = 0; round < 2; ++round) {
    const int fd = l.Accept();
    ASSERT_GE(fd, 0);
    Bytes stream = Message(proto::kHello, 0, kHello);
    for (std::uint32_t i = 1; i <= 3; ++i) {
      const Bytes m =
          Message(proto::kMedia, i, Bytes(70000, std::uint8_t(i)));  // exercises direct reads
      stream.insert(stream.end(), m.begin(), m.end());
    }
    ASSERT_EQ(write(fd, stream.data(), stream.size()), ssize_t(stream.size()));
    close(fd);
  }
  ASSERT_TRUE(c.WaitFor(
      [](auto& rs) { return Count<MediaRecord>(rs) == 6 && Count<DisconnectedRecord>(rs) == 2; }));
  const auto* d = LastDisconnect(c.records);
  EXPECT_EQ(d->reason, "eof");
  EXPECT_EQ(d->code, "");
  EXPECT_EQ(d->retry_ms, 20u);  // clean session: back-off reset
  EXPECT_EQ(Count<ConnectedRecord>(c.records), 2u);
  for (const auto& r : c.records) {
    if (auto* m = std::get_if<MediaRecord>(&r)) {
      EXPECT_EQ(m->payload.size, 70000u);
      EXPECT_EQ(m->payload.data[69999], std::uint8_t(m->header.sequence));
    }
  }
}

TEST(StreamReader, ProtocolViolationDisconnectsWithCode) {
  Listener l;
  Collector c;
  ReaderOptions o;
  o.path = l.path();
  o.initial_delay_ms = 50;
  StreamReader reader(o, c.queue);
  reader.Start();
  const int fd = l.Accept();
  Bytes stream = Message(proto::kHello, 0, kHello);
  const Bytes bad = Message(proto::kMedia, 1, {1, 2, 3}, 9);
  stream.insert(stream.end(), bad.begin(), bad.end());
  ASSERT_EQ(write(fd, stream.data(), stream.size()), ssize_t(stream.size()));
  ASSERT_TRUE(c.WaitFor([](auto& rs) { return Count<DisconnectedRecord>(rs) == 1; }));
  const auto* d = LastDisconnect(c.records);
  EXPECT_EQ(d->reason, "error");
  EXPECT_EQ(d->code, "ERR_ZM_STREAM_PROTOCOL_VERSION");
  EXPECT_EQ(Count<CodecRecord>(c.records), 1u);  // what came before still arrived
  char b;
  EXPECT_EQ(read(fd, &b, 1), 0);  // the client closed its end
  close(fd);
}

TEST(StreamReader, MissingSocketBacksOffExponentially) {
  Collector c;
  ReaderOptions o;
  o.path = "/tmp/zm-no-such-dir/stream_9.sock";
  o.initial_delay_ms = 10;
  o.max_delay_ms = 40;
  StreamReader reader(o, c.queue);
  reader.Start();
  ASSERT_TRUE(c.WaitFor([](auto& rs) { return Count<DisconnectedRecord>(rs) >= 4; }));
  reader.Stop();
  reader.Join();
  std::vector<std::uint32_t> delays;
  for (const auto& r : c.records) {
    const auto& d = std::get<DisconnectedRecord>(r);
    EXPECT_EQ(d.code, "ERR_ZM_STREAM_SOCKET_MISSING");
    delays.push_back(d.retry_ms);
  }
  EXPECT_EQ(delays[0], 10u);
  EXPECT_EQ(delays[1], 20u);
  EXPECT_EQ(delays[2], 40u);
  EXPECT_EQ(delays[3], 40u);
}

TEST(StreamReader, StopInterruptsABlockedReadPromptly) {
  Listener l;
  Collector c;
  ReaderOptions o;
  o.path = l.path();
  StreamReader reader(o, c.queue);
  reader.Start();
  const int fd = l.Accept();  // connected, silent
  ASSERT_TRUE(c.WaitFor([](auto& rs) { return Count<ConnectedRecord>(rs) == 1; }));
  const auto t0 = std::chrono::steady_clock::now();
  reader.Stop();
  reader.Join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(200));
  close(fd);
}

TEST(StreamReader, StallTimeoutReconnects) {
  Listener l;
  Collector c;
  ReaderOptions o;
  o.path = l.path();
  o.stall_timeout_ms = 50;
  StreamReader reader(o, c.queue);
  reader.Start();
  const int fd = l.Accept();
  ASSERT_TRUE(c.WaitFor([](auto& rs) { return Count<DisconnectedRecord>(rs) == 1; }));
  EXPECT_EQ(LastDisconnect(c.records)->code, "ERR_ZM_STREAM_STALLED");
  close(fd);
}

TEST(StreamReader, ClosedBeforeHelloExplainsWhy) {
  Listener l;
  Collector c;
  ReaderOptions o;
  o.path = l.path();
  StreamReader reader(o, c.queue);
  reader.Start();
  close(l.Accept());
  ASSERT_TRUE(c.WaitFor([](auto& rs) { return Count<DisconnectedRecord>(rs) == 1; }));
  const auto* d = LastDisconnect(c.records);
  EXPECT_EQ(d->code, "ERR_ZM_STREAM_CLOSED");
  EXPECT_NE(d->message.find("MAX_CLIENTS"), std::string::npos);
}

TEST(ConnectErrors, Classification) {
  const auto denied = ClassifyConnectError(EACCES, "/run/zm/stream_1.sock");
  EXPECT_EQ(denied.code, "ERR_ZM_STREAM_SOCKET_PERMISSION");
  EXPECT_NE(denied.message.find("permission denied opening stream socket /run/zm/stream_1.sock"),
            std::string::npos);
  EXPECT_NE(denied.message.find("stream socket group"), std::string::npos);
  EXPECT_EQ(ClassifyConnectError(EPERM, "x").code, "ERR_ZM_STREAM_SOCKET_PERMISSION");
  EXPECT_EQ(ClassifyConnectError(ENOENT, "x").code, "ERR_ZM_STREAM_SOCKET_MISSING");
  EXPECT_EQ(ClassifyConnectError(ECONNREFUSED, "x").code, "ERR_ZM_STREAM_SOCKET_REFUSED");
  EXPECT_EQ(ClassifyConnectError(EAGAIN, "x").code, "ERR_ZM_STREAM_CONNECT");
  EXPECT_EQ(BackoffDelayMs(1, 500, 5000), 500u);
  EXPECT_EQ(BackoffDelayMs(4, 500, 5000), 4000u);
  EXPECT_EQ(BackoffDelayMs(50, 500, 5000), 5000u);
}

TEST(DeliveryQueue, NotifiesOncePerBatchAndAppliesBackPressure) {
  int notifications = 0;
  auto q = std::make_shared<DeliveryQueue>(100, [&] { ++notifications; });
  auto media = [](std::size_t n) {
    std::vector<Record> v;
    MediaRecord m;
    m.payload = proto::Payload::Allocate(n);
    v.push_back(std::move(m));
    return v;
  };
  q->Push(media(10));
  q->Push(media(10));
  EXPECT_EQ(notifications, 1);
  EXPECT_EQ(q->Drain().size(), 2u);
  q->Push(media(1000));
  EXPECT_EQ(notifications, 2);
  std::atomic<bool> done{false};
  std::thread t([&] {
    q->WaitForRoom();  // blocks: over the limit
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(done);
  q->Drain();
  t.join();
  EXPECT_TRUE(done);
  q->Close();
  EXPECT_FALSE(q->WaitForRoom());
}

}  // namespace
}  // namespace zm
