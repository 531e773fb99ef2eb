// Module entry: the only file that touches Node-API. It registers the exports, converts
// arguments, and turns every C++ exception into a JS error (a ZmNativeError with `code`).
// Argument validation belongs to the TS facade (src/native/index.ts); checks here are a backstop.

#include <napi.h>

#include <exception>
#include <string>

#include "zm/box.h"
#include "zm/error.h"
#include "zm/version.h"

namespace {

// Napi::Addon keeps per-environment state (one instance per Node env / worker thread), so the
// stored error class is never shared across threads the way a static would be.
class ZmAddon : public Napi::Addon<ZmAddon> {
 public:
  ZmAddon(Napi::Env /*env*/, Napi::Object exports) {
    DefineAddon(exports, {
                             InstanceMethod("version", &ZmAddon::Version),
                             InstanceMethod("napiVersion", &ZmAddon::NapiVersion),
                             InstanceMethod("initialize", &ZmAddon::Initialize),
                             InstanceMethod("boxHeader", &ZmAddon::BoxHeader),
                         });
  }

 private:
  // Runs an entry point's body. node-addon-api converts only Napi::Error into a JS exception;
  // any other exception escaping into Node would terminate the process, so translate here.
  template <typename Body>
  Napi::Value Guard(Napi::Env env, Body&& body) {
    try {
      return body();
    } catch (const Napi::Error&) {
      throw;  // already a JS exception
    } catch (const zm::Error& e) {
      throw MakeError(env, e.code(), e.what());
    } catch (const std::exception& e) {
      throw MakeError(env, "ERR_ZM_NATIVE", e.what());
    } catch (...) {
      throw MakeError(env, "ERR_ZM_NATIVE", "unknown native exception");
    }
  }

  // A ZmNativeError(message, code) once initialize() registered the class; before that (raw
  // binding use) a plain Error, still with `code`, so callers can always switch on it.
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

  // initialize(ErrorClass): remember the JS class used for native errors. Idempotent.
  Napi::Value Initialize(const Napi::CallbackInfo& info) {
    return Guard(info.Env(), [&]() -> Napi::Value {
      if (!info[0].IsFunction()) {
        throw zm::Error("ERR_ZM_NATIVE_INIT", "initialize(ErrorClass) expects a constructor");
      }
      error_class_ = Napi::Persistent(info[0].As<Napi::Function>());
      return info.Env().Undefined();
    });
  }

  Napi::Value Version(const Napi::CallbackInfo& info) {
    return Guard(info.Env(), [&]() -> Napi::Value {
      return Napi::String::New(info.Env(), zm::Version());
    });
  }

  Napi::Value NapiVersion(const Napi::CallbackInfo& info) {
    return Guard(info.Env(), [&]() -> Napi::Value {
      return Napi::Number::New(info.Env(), zm::NapiVersion());
    });
  }

  // boxHeader(type: string, size: number): Buffer (8 bytes).
  Napi::Value BoxHeader(const Napi::CallbackInfo& info) {
    return Guard(info.Env(), [&]() -> Napi::Value {
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

NODE_API_ADDON(ZmAddon)
