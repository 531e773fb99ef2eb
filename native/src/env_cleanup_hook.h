// An environment cleanup hook owned by a binding object. A terminating worker thread (or the
// process exiting) never runs ObjectWrap finalizers, so a binding holding a thread, a TSFN or a
// mapping stops it from this hook instead; if the object is finalized first, the hook goes with it.
#pragma once

#include <node_api.h>

#include <functional>
#include <utility>

namespace zm::js {

class EnvCleanupHook {
 public:
  explicit EnvCleanupHook(std::function<void()> on_cleanup) : on_cleanup_(std::move(on_cleanup)) {}
  ~EnvCleanupHook() {
    if (env_ != nullptr) napi_remove_env_cleanup_hook(env_, &EnvCleanupHook::Run, this);
  }
  EnvCleanupHook(const EnvCleanupHook&) = delete;
  EnvCleanupHook& operator=(const EnvCleanupHook&) = delete;

  // Adds the hook unless it is already registered. Hooks run in reverse order of registration:
  // register after a TSFN the callback releases, so it runs before Node's own TSFN teardown.
  void Register(napi_env env) {
    if (env_ == nullptr && napi_add_env_cleanup_hook(env, &EnvCleanupHook::Run, this) == napi_ok)
      env_ = env;
  }

 private:
  static void Run(void* self) {
    auto* hook = static_cast<EnvCleanupHook*>(self);
    hook->env_ = nullptr;  // Node has dropped it: nothing to remove later
    hook->on_cleanup_();
  }

  std::function<void()> on_cleanup_;
  napi_env env_ = nullptr;  // set while registered
};

}  // namespace zm::js
