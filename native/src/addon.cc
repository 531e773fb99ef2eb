// Module entry: registers the exports and owns the per-environment state (the JS error class).
// Each exported area lives in its own *_binding.cc; all of them build errors through
// js::MakeError and run their bodies in js::Guard, so no C++ exception reaches Node.
// Argument validation belongs to the TS facade (src/native/); checks here are a backstop.

#include <napi.h>

#include <string>

#include "bitstream_binding.h"
#include "datagram_binding.h"
#include "fmp4_muxer_binding.h"
#include "jpeg_binding.h"
#include "js_support.h"
#include "ll_hls_binding.h"
#include "mp4_file_binding.h"
#include "shm_binding.h"
#include "stream_client_binding.h"
#include "zm/box.h"
#include "zm/version.h"

namespace {

// Napi::Addon keeps per-environment state (one instance per Node env / worker thread), so the
// stored error class is never shared across threads the way a static would be.
class ZmAddon : public Napi::Addon<ZmAddon> {
 public:
  ZmAddon(Napi::Env env, Napi::Object exports) {
    DefineAddon(exports, {
                             InstanceMethod("version", &ZmAddon::Version),
                             InstanceMethod("napiVersion", &ZmAddon::NapiVersion),
                             InstanceMethod("initialize", &ZmAddon::Initialize),
                             InstanceMethod("boxHeader", &ZmAddon::BoxHeader),
                         });
    exports.Set("StreamClient", zm::js::StreamClientBinding::Define(env));
    exports.Set("Fmp4Muxer", zm::js::Fmp4MuxerBinding::Define(env));
    exports.Set("LlHlsPackager", zm::js::LlHlsBinding::Define(env));
    exports.Set("Mp4File", zm::js::Mp4FileBinding::Define(env));
    zm::js::RegisterBitstreamFunctions(env, exports);
    zm::js::RegisterSharedMemoryFunctions(env, exports);
    zm::js::RegisterJpegFunctions(env, exports);
    zm::js::RegisterDatagramFunctions(env, exports);
  }

  Napi::Error MakeError(Napi::Env env, const std::string& code, const std::string& message) {
    if (!error_class_.IsEmpty()) {
      Napi::Object err =
          error_class_.New({Napi::String::New(env, message), Napi::String::New(env, code)});
      return Napi::Error(env, err);
    }
    Napi::Error err = Napi::Error::New(env, message);
    err.Set("code", Napi::String::New(env, code));
    return err;
  }

 private:
  // initialize(ErrorClass): remember the JS class used for native errors. Idempotent.
  Napi::Value Initialize(const Napi::CallbackInfo& info) {
    return zm::js::Guard(info.Env(), [&]() -> Napi::Value {
      if (!info[0].IsFunction()) {
        throw zm::Error("ERR_ZM_NATIVE_INIT", "initialize(ErrorClass) expects a constructor");
      }
      error_class_ = Napi::Persistent(info[0].As<Napi::Function>());
      return info.Env().Undefined();
    });
  }

  Napi::Value Version(const Napi::CallbackInfo& info) {
    return zm::js::Guard(
        info.Env(), [&]() -> Napi::Value { return Napi::String::New(info.Env(), zm::Version()); });
  }

  Napi::Value NapiVersion(const Napi::CallbackInfo& info) {
    return zm::js::Guard(info.Env(), [&]() -> Napi::Value {
      return Napi::Number::New(info.Env(), zm::NapiVersion());
    });
  }

  // boxHeader(type: string, size: number): Buffer (8 bytes).
  Napi::Value BoxHeader(const Napi::CallbackInfo& info) {
    return zm::js::Guard(info.Env(), [&]() -> Napi::Value {
      if (!info[0].IsString()) throw zm::Error("ERR_ZM_BOX_TYPE", "box type must be a string");
      if (!info[1].IsNumber()) throw zm::Error("ERR_ZM_BOX_SIZE", "box size must be a number");
      // Utf8Value: a non-ASCII type becomes more than 4 bytes and is rejected by zm::BoxHeader.
      const std::string type = info[0].As<Napi::String>().Utf8Value();
      const auto header = zm::BoxHeader(type, info[1].As<Napi::Number>().DoubleValue());
      return Napi::Buffer<std::uint8_t>::Copy(info.Env(), header.data(), header.size());
    });
  }

  Napi::FunctionReference error_class_;
};

}  // namespace

Napi::Error zm::js::MakeError(Napi::Env env, const std::string& code, const std::string& message) {
  if (auto* addon = env.GetInstanceData<ZmAddon>()) return addon->MakeError(env, code, message);
  Napi::Error err = Napi::Error::New(env, message);
  err.Set("code", Napi::String::New(env, code));
  return err;
}

NODE_API_ADDON(ZmAddon)
