// Record → JS object conversion for the stream client (runs on the JS thread).
#pragma once

#include <napi.h>

#include <vector>

#include "zm/codec_info.h"
#include "zm/stream_session.h"

namespace zm::js {

Napi::Object CodecInfoToJs(Napi::Env env, const CodecInfo& info);
// Media payloads are handed over without a copy (external Buffers owning the payload).
Napi::Array RecordsToJs(Napi::Env env, std::vector<Record>&& records);

}  // namespace zm::js
