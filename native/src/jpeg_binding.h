// encodeJpeg / transformJpeg (Promise-returning, libuv pool) and jpegHeader (synchronous).
#pragma once

#include <napi.h>

namespace zm::js {

void RegisterJpegFunctions(Napi::Env env, Napi::Object exports);

}  // namespace zm::js
