// sendUnixDatagram(path, bytes): one datagram to a unix SOCK_DGRAM socket (the systemd
// journal's native protocol needs it; Node's dgram module has no unix datagrams).
#pragma once

#include <napi.h>

namespace zm::js {

void RegisterDatagramFunctions(Napi::Env env, Napi::Object exports);

}  // namespace zm::js
