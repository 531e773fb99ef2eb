#include "datagram_binding.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <string>

#include "js_support.h"

namespace zm::js {
namespace {

// Synchronous and non-blocking: a full socket buffer fails with EAGAIN instead of stalling the
// event loop; the caller falls back to its log.
Napi::Value SendUnixDatagram(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    if (!info[0].IsString() || !info[1].IsBuffer()) {
      throw zm::Error("ERR_ZM_DGRAM_ARGS", "sendUnixDatagram(path: string, bytes: Buffer)");
    }
    std::string path = info[0].As<Napi::String>().Utf8Value();
    auto bytes = info[1].As<Napi::Buffer<uint8_t>>();
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof(addr.sun_path)) {
      throw zm::Error("ERR_ZM_DGRAM_PATH", "socket path is empty or too long");
    }
    memcpy(addr.sun_path, path.data(), path.size());
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) throw zm::Error("ERR_ZM_DGRAM_SEND", std::string("socket: ") + strerror(errno));
    ssize_t n = sendto(fd, bytes.Data(), bytes.Length(), MSG_NOSIGNAL,
                       reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    int err = errno;
    close(fd);
    if (n < 0) throw zm::Error("ERR_ZM_DGRAM_SEND", std::string("sendto: ") + strerror(err));
    return Napi::Number::New(info.Env(), static_cast<double>(n));
  });
}

}  // namespace

void RegisterDatagramFunctions(Napi::Env env, Napi::Object exports) {
  exports.Set("sendUnixDatagram", Napi::Function::New(env, SendUnixDatagram, "sendUnixDatagram"));
}

}  // namespace zm::js
