// An AsyncWorker that settles a Promise: Run() on a libuv pool thread (throw zm::Error to reject
// with that code), Result() on the JS thread. Rejections are ZmNativeError with the thrown code.
#pragma once

#include <napi.h>

#include <exception>
#include <string>

#include "js_support.h"
#include "zm/error.h"

namespace zm::js {

class PromiseWorker : public Napi::AsyncWorker {
 public:
  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  PromiseWorker(Napi::Env env, const char* name)
      : Napi::AsyncWorker(env, name), deferred_(Napi::Promise::Deferred::New(env)) {}

  virtual void Run() = 0;                         // worker thread: no Napi calls
  virtual Napi::Value Result(Napi::Env env) = 0;  // JS thread

 private:
  void Execute() final {
    try {
      Run();
    } catch (const zm::Error& e) {
      code_ = e.code();
      SetError(e.what());
    } catch (const std::exception& e) {
      code_ = "ERR_ZM_NATIVE";
      SetError(e.what());
    } catch (...) {
      code_ = "ERR_ZM_NATIVE";
      SetError("unknown native exception");
    }
  }

  void OnOK() final {
    try {
      deferred_.Resolve(Guard(Env(), [&] { return Result(Env()); }));
    } catch (const Napi::Error& e) {
      deferred_.Reject(e.Value());
    }
  }

  void OnError(const Napi::Error& e) final {
    deferred_.Reject(MakeError(Env(), code_, e.Message()).Value());
  }

  Napi::Promise::Deferred deferred_;
  std::string code_ = "ERR_ZM_NATIVE";
};

}  // namespace zm::js
