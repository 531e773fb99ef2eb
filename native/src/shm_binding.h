// JS class SharedMemory over zm::shm::ShmReader. read() and trigger() are synchronous (a few
// loads/stores and at most one stat()); newestImage() copies the slot on a worker thread, which
// holds the mapping until it is done, so close() never pulls pages from under a copy.
#pragma once

#include <napi.h>

#include <memory>

#include "env_cleanup_hook.h"
#include "zm/shm_reader.h"

namespace zm::js {

class SharedMemoryBinding : public Napi::ObjectWrap<SharedMemoryBinding> {
 public:
  static Napi::Function Define(Napi::Env env);

  // new SharedMemory({path, width?, height?, imageBufferCount?, zoneCount?, maxAttempts?})
  // Opens at once: throws ERR_ZM_SHM_MISSING/PERMISSION/LAYOUT/INVALID.
  explicit SharedMemoryBinding(const Napi::CallbackInfo& info);

 private:
  Napi::Value Read(const Napi::CallbackInfo& info);         // → raw state record
  Napi::Value NewestImage(const Napi::CallbackInfo& info);  // → Promise<raw image | null>
  Napi::Value Trigger(const Napi::CallbackInfo& info);  // ({state, score, cause, text, showText})
  Napi::Value Info(const Napi::CallbackInfo& info);     // → {path, layout, geometry, …}
  Napi::Value Close(const Napi::CallbackInfo& info);

  void OnEnvCleanup();

  std::unique_ptr<shm::ShmReader> reader_;
  int max_attempts_ = 5;
  EnvCleanupHook cleanup_hook_{[this] { OnEnvCleanup(); }};
};

// shmLayoutTable(): the reader's SharedData offset table, for tests to check against
// docs/zoneminder/shared-memory.md.
void RegisterSharedMemoryFunctions(Napi::Env env, Napi::Object exports);

}  // namespace zm::js
