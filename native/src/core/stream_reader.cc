#include "zm/stream_reader.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "zm/error.h"

namespace zm {

namespace {

constexpr std::size_t kReadChunk = 64 * 1024;
// Payload remainders at least this big are read straight into the payload buffer.
constexpr std::size_t kDirectReadMin = 16 * 1024;

// Non-blocking connect; returns 0 or an errno. AF_UNIX connects complete (or fail) at once.
int ConnectUnix(const std::string& path, int* out_fd) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) return ENAMETOOLONG;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return errno;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    const int err = errno;
    ::close(fd);
    return err;
  }
  *out_fd = fd;
  return 0;
}

}  // namespace

ConnectFailure ClassifyConnectError(int err, const std::string& path) {
  const std::string sys = std::strerror(err);
  switch (err) {
    case EACCES:
    case EPERM:
      return {"ERR_ZM_STREAM_SOCKET_PERMISSION",
              "permission denied opening stream socket " + path + " (uid " +
                  std::to_string(::geteuid()) +
                  "): the service user must be in the recording system's stream socket group "
                  "(ZM_STREAM_SOCKET_GROUP, by default the web server group, e.g. www-data): "
                  "add it (usermod -aG <group> <user>) and restart the service"};
    case ENOENT:
    case ENOTDIR:
      return {"ERR_ZM_STREAM_SOCKET_MISSING",
              "stream socket " + path +
                  " does not exist: zmc is not running for this monitor, "
                  "or this ZoneMinder has no stream-socket support"};
    case ECONNREFUSED:
      return {
          "ERR_ZM_STREAM_SOCKET_REFUSED",
          "stream socket " + path +
              " refused the connection: nothing listens on it (stale socket file; zmc stopped?)"};
    case ENAMETOOLONG:
      return {"ERR_ZM_STREAM_SOCKET_PATH",
              "stream socket path is too long for a unix socket: " + path};
    default:
      return {"ERR_ZM_STREAM_CONNECT", "cannot connect to stream socket " + path + ": " + sys};
  }
}

std::uint32_t BackoffDelayMs(std::uint32_t failures, std::uint32_t initial_ms,
                             std::uint32_t max_ms) {
  std::uint64_t delay = initial_ms;
  for (std::uint32_t i = 1; i < failures && delay < max_ms; ++i) delay *= 2;
  return std::uint32_t(delay < max_ms ? delay : max_ms);
}

StreamReader::StreamReader(ReaderOptions options, std::shared_ptr<DeliveryQueue> queue)
    : options_(std::move(options)), queue_(std::move(queue)), parser_(options_.max_message_length) {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) throw Error("ERR_ZM_NATIVE", std::string("eventfd: ") + std::strerror(errno));
}

StreamReader::~StreamReader() {
  Stop();
  Join();
  ::close(wake_fd_);
}

void StreamReader::Start() {
  thread_ = std::thread([this] { Run(); });
}

void StreamReader::Stop() {
  if (stopping_.exchange(true)) return;
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_fd_, &one, sizeof one);
  queue_->Close();  // a reader blocked on back-pressure wakes up too
}

void StreamReader::Join() {
  std::lock_guard<std::mutex> lock(join_mutex_);
  if (thread_.joinable()) thread_.join();
}

bool StreamReader::Sleep(std::uint32_t ms) {
  pollfd p{wake_fd_, POLLIN, 0};
  while (!stopping_) {
    const int r = ::poll(&p, 1, int(ms));
    if (r >= 0) break;
    if (errno != EINTR) break;
  }
  return !stopping_;
}

void StreamReader::Run() {
  std::uint32_t failures = 0;
  std::uint32_t attempt = 0;
  while (!stopping_) {
    ++attempt;
    ++attempts_;
    int fd = -1;
    if (const int err = ConnectUnix(options_.path, &fd); err != 0) {
      ++failures;
      ConnectFailure f = ClassifyConnectError(err, options_.path);
      const std::uint32_t delay =
          BackoffDelayMs(failures, options_.initial_delay_ms, options_.max_delay_ms);
      std::vector<Record> batch;
      batch.push_back(DisconnectedRecord{"connect", f.code, f.message, delay, failures});
      queue_->Push(std::move(batch));
      if (!Sleep(delay)) break;
      continue;
    }
    ++connects_;
    {
      std::vector<Record> batch;
      batch.push_back(ConnectedRecord{attempt});
      queue_->Push(std::move(batch));
    }
    session_.OnConnect();
    parser_.Reset();
    Outcome o = ReadConnection(fd);
    ::close(fd);
    if (stopping_) break;
    // A session that got as far as HELLO and ended cleanly resets the back-off.
    const bool clean = o.saw_hello && o.code.empty();
    failures = clean ? 0 : failures + 1;
    const std::uint32_t delay = BackoffDelayMs(failures == 0 ? 1 : failures,
                                               options_.initial_delay_ms, options_.max_delay_ms);
    std::vector<Record> batch;
    batch.push_back(DisconnectedRecord{o.reason, o.code, o.message, delay, failures});
    queue_->Push(std::move(batch));
    if (!Sleep(delay)) break;
    attempt = 0;
  }
}

StreamReader::Outcome StreamReader::ReadConnection(int fd) {
  Outcome o;
  std::unique_ptr<std::uint8_t[]> chunk(new std::uint8_t[kReadChunk]);
  std::vector<proto::Message> messages;
  std::vector<Record> records;
  pollfd fds[2] = {{fd, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  const int timeout = options_.stall_timeout_ms > 0 ? int(options_.stall_timeout_ms) : -1;

  while (!stopping_) {
    const int ready = ::poll(fds, 2, timeout);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return {"error", "ERR_ZM_STREAM_IO", std::string("poll: ") + std::strerror(errno),
              o.saw_hello};
    }
    if (stopping_) break;
    if (ready == 0) {
      return {"stalled", "ERR_ZM_STREAM_STALLED",
              "no data from stream socket " + options_.path + " for " +
                  std::to_string(options_.stall_timeout_ms) + " ms (zmc sends STATS every 5 s)",
              o.saw_hello};
    }
    // Drain what is readable now; each read's messages are handed over straight away.
    for (;;) {
      std::size_t window_size = 0;
      std::uint8_t* window = parser_.PayloadWindow(&window_size);
      const bool direct = window != nullptr && window_size >= kDirectReadMin;
      const ssize_t n =
          direct ? ::read(fd, window, window_size) : ::read(fd, chunk.get(), kReadChunk);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        return {"error", "ERR_ZM_STREAM_IO",
                "reading stream socket " + options_.path + ": " + std::strerror(errno),
                o.saw_hello};
      }
      if (n == 0) {
        if (!parser_.AtBoundary()) {
          return {"eof", "ERR_ZM_STREAM_TRUNCATED",
                  "stream socket " + options_.path + " closed in the middle of a message",
                  o.saw_hello};
        }
        if (!o.saw_hello) {
          return {"eof", "ERR_ZM_STREAM_CLOSED",
                  "stream socket " + options_.path +
                      " closed before HELLO: zmc refused this client (ZM_STREAM_SOCKET_MAX_CLIENTS "
                      "reached, or the uid is not in ZM_STREAM_SOCKET_ALLOWED_UIDS)",
                  false};
        }
        return {"eof", "", "stream socket closed by zmc", true};
      }
      // A violation still lets the messages completed before it through, then drops the link.
      std::optional<Error> violation;
      try {
        if (direct)
          parser_.Commit(std::size_t(n), messages);
        else
          parser_.Feed(chunk.get(), std::size_t(n), messages);
      } catch (const Error& e) {
        violation = e;
      }
      try {
        for (auto& m : messages) {
          const bool bye = m.header.type == proto::kBye;
          session_.Process(std::move(m), records);
          if (bye) o.reason = "bye";
        }
      } catch (const Error& e) {
        if (!violation) violation = e;
      }
      if (violation) {
        queue_->Push(std::move(records));
        return {"error", violation->code(), violation->what(), o.saw_hello};
      }
      messages.clear();
      for (const auto& r : records) {
        if (std::holds_alternative<CodecRecord>(r)) o.saw_hello = true;
      }
      queue_->Push(std::move(records));
      records.clear();
      if (!queue_->WaitForRoom()) break;  // Stop() while blocked on back-pressure
      if (o.reason == "bye") return {"bye", "", "zmc said BYE", o.saw_hello};
      if (std::size_t(n) < (direct ? window_size : kReadChunk)) break;  // likely drained
    }
  }
  return {"closed", "", "closed by the client", o.saw_hello};
}

}  // namespace zm
