// JS class StreamClient: one native reader thread per instance (zm::StreamReader), whose records
// reach JS through one ThreadSafeFunction, one call per batch.
//
// Life cycle: close() stops the thread and joins it on the libuv pool (AsyncWorker), so the event
// loop never waits on it; the returned promise settles once the thread is gone and the TSFN is
// released. If close() is never called, the object's finalizer (after GC) or the environment's
// cleanup hook (worker/process teardown) stops and joins it synchronously, which is prompt because
// the thread only ever blocks in poll() on the socket and a wake-up eventfd.
#pragma once

#include <napi.h>

#include <atomic>
#include <memory>

#include "env_cleanup_hook.h"
#include "zm/delivery_queue.h"
#include "zm/stream_reader.h"

namespace zm::js {

class StreamClientBinding : public Napi::ObjectWrap<StreamClientBinding> {
 public:
  static Napi::Function Define(Napi::Env env);

  // new StreamClient(options, onRecords)
  explicit StreamClientBinding(const Napi::CallbackInfo& info);
  ~StreamClientBinding() override;

  // For native consumers fed on the reader thread (the LL-HLS packager): taps on the delivery
  // queue, and the codec details already known when one attaches.
  std::shared_ptr<DeliveryQueue> delivery_queue() const { return queue_; }
  std::shared_ptr<const CodecInfo> CurrentCodec(StreamKind stream) const {
    return reader_->session().Codec(stream);
  }

 private:
  Napi::Value Close(const Napi::CallbackInfo& info);
  Napi::Value Stats(const Napi::CallbackInfo& info);
  Napi::Value LatestKeyframe(const Napi::CallbackInfo& info);
  Napi::Value Codecs(const Napi::CallbackInfo& info);
  Napi::Value Ref(const Napi::CallbackInfo& info);
  Napi::Value Unref(const Napi::CallbackInfo& info);
  Napi::Value SetMediaToJs(const Napi::CallbackInfo& info);  // (on: boolean)

  void Start(Napi::Env env, const Napi::Object& options, const Napi::Function& on_records);
  void ShutdownNow();  // synchronous: finalizer and environment teardown only
  void ReleaseTsfn();

  std::shared_ptr<DeliveryQueue> queue_;
  std::shared_ptr<StreamReader> reader_;
  Napi::ThreadSafeFunction tsfn_;
  bool tsfn_live_ = false;
  std::shared_ptr<std::atomic<bool>> closed_ = std::make_shared<std::atomic<bool>>(false);
  Napi::ObjectReference close_promise_;
  EnvCleanupHook cleanup_hook_{[this] { ShutdownNow(); }};
};

}  // namespace zm::js
