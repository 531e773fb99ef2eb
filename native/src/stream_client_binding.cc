#include "stream_client_binding.h"

#include <string>

#include "js_support.h"
#include "stream_records_js.h"

namespace zm::js {

namespace {

// Joins the reader thread off the JS thread, then finishes the close on the JS thread.
class JoinWorker : public Napi::AsyncWorker {
 public:
  JoinWorker(const Napi::Object& owner, std::shared_ptr<StreamReader> reader,
             std::function<void()> after)
      : Napi::AsyncWorker(owner.Env(), "zmgate:stream-client-close"),
        owner_(Napi::Persistent(owner)),  // the binding must outlive the join
        reader_(std::move(reader)),
        after_(std::move(after)),
        deferred_(Napi::Promise::Deferred::New(owner.Env())) {}

  Napi::Promise Promise() const { return deferred_.Promise(); }

  void Execute() override { reader_->Join(); }
  void OnOK() override {
    after_();
    deferred_.Resolve(Env().Undefined());
  }
  void OnError(const Napi::Error& e) override {
    after_();
    deferred_.Reject(e.Value());
  }

 private:
  Napi::ObjectReference owner_;
  std::shared_ptr<StreamReader> reader_;
  std::function<void()> after_;
  Napi::Promise::Deferred deferred_;
};

// The TSFN callback: drains everything pending into one JS call. Nothing may throw out of here:
// node-addon-api would rethrow it and, while the environment is being torn down (a worker
// terminating), that second throw escapes and aborts the process.
void DeliverBatch(Napi::Env env, Napi::Function callback, const std::weak_ptr<DeliveryQueue>& weak,
                  const std::shared_ptr<std::atomic<bool>>& closed) {
  if (env == nullptr) return;  // environment teardown: nothing to deliver to
  auto queue = weak.lock();
  if (!queue) return;
  std::vector<Record> records = queue->Drain();
  if (records.empty() || closed->load()) return;
  Napi::Value batch;
  try {
    batch = RecordsToJs(env, std::move(records));
  } catch (...) {
    return;  // JS cannot run any more (termination) or out of memory: drop the batch
  }
  try {
    callback.Call({batch});
  } catch (const Napi::Error& e) {
    // A throwing listener surfaces as an uncaught exception, as from any event handler. napi_throw
    // directly: ThrowAsJavaScriptException() throws again when JS can no longer run.
    napi_value error = nullptr;
    try {
      error = e.Value();
    } catch (...) {
    }
    if (error != nullptr) napi_throw(env, error);
  } catch (...) {
  }
}

}  // namespace

Napi::Function StreamClientBinding::Define(Napi::Env env) {
  return DefineClass(env, "StreamClient",
                     {
                         InstanceMethod("close", &StreamClientBinding::Close),
                         InstanceMethod("stats", &StreamClientBinding::Stats),
                         InstanceMethod("latestKeyframe", &StreamClientBinding::LatestKeyframe),
                         InstanceMethod("codecs", &StreamClientBinding::Codecs),
                         InstanceMethod("ref", &StreamClientBinding::Ref),
                         InstanceMethod("unref", &StreamClientBinding::Unref),
                         InstanceMethod("setMediaToJs", &StreamClientBinding::SetMediaToJs),
                     });
}

StreamClientBinding::StreamClientBinding(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<StreamClientBinding>(info) {
  // A constructor is not an entry point Guard can wrap with a return value, so catch here.
  Guard(info.Env(), [&] {
    const Napi::Object options = ObjectArg(info[0], "options");
    if (!info[1].IsFunction()) BadArgument("onRecords must be a function");
    Start(info.Env(), options, info[1].As<Napi::Function>());
  });
}

void StreamClientBinding::Start(Napi::Env env, const Napi::Object& options,
                                const Napi::Function& on_records) {
  ReaderOptions ro;
  ro.path = StringOption(options, "path");
  ro.initial_delay_ms = U32Option(options, "initialDelayMs", ro.initial_delay_ms);
  ro.max_delay_ms = U32Option(options, "maxDelayMs", ro.max_delay_ms);
  ro.stall_timeout_ms = U32Option(options, "stallTimeoutMs", ro.stall_timeout_ms);
  ro.max_message_length = U32Option(options, "maxMessageLength", ro.max_message_length);
  const std::size_t max_pending = U32Option(options, "maxPendingBytes", 64u << 20);

  tsfn_ = Napi::ThreadSafeFunction::New(env, on_records, "zmgate:stream-client", 0, 1);
  tsfn_live_ = true;
  queue_ = std::make_shared<DeliveryQueue>(max_pending, nullptr);
  std::weak_ptr<DeliveryQueue> weak = queue_;
  queue_->SetNotify([tsfn = tsfn_, weak, closed = closed_]() mutable {
    // napi_closing after Release() is expected during close; nothing to do then.
    tsfn.NonBlockingCall(
        [weak, closed](Napi::Env e, Napi::Function cb) { DeliverBatch(e, cb, weak, closed); });
  });
  reader_ = std::make_shared<StreamReader>(ro, queue_);
  // Registered after the TSFN, so it runs before Node's own TSFN teardown (hooks run in reverse).
  cleanup_hook_.Register(env);
  reader_->Start();
}

StreamClientBinding::~StreamClientBinding() { ShutdownNow(); }

void StreamClientBinding::ShutdownNow() {
  closed_->store(true);
  if (reader_) {
    reader_->Stop();
    reader_->Join();
  }
  ReleaseTsfn();
}

void StreamClientBinding::ReleaseTsfn() {
  if (!tsfn_live_) return;
  tsfn_live_ = false;
  tsfn_.Release();
}

// close(): Promise<void>. Idempotent: later calls return the same promise.
Napi::Value StreamClientBinding::Close(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    if (!close_promise_.IsEmpty()) return close_promise_.Value();
    closed_->store(true);  // nothing more reaches JS, even batches already queued
    reader_->Stop();
    auto* worker = new JoinWorker(Value(), reader_, [this] { ReleaseTsfn(); });
    Napi::Promise promise = worker->Promise();
    close_promise_ = Napi::Persistent(promise.As<Napi::Object>());
    worker->Queue();
    return promise;
  });
}

Napi::Value StreamClientBinding::Stats(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const SessionCounters s = reader_->session().Counters();
    const ReaderCounters r = reader_->counters();
    Napi::Object o = Napi::Object::New(info.Env());
    o.Set("attempts", double(r.attempts));
    o.Set("connects", double(r.connects));
    o.Set("messages", double(s.messages));
    o.Set("bytes", double(s.bytes));
    o.Set("media", double(s.media));
    o.Set("gaps", double(s.gaps));
    o.Set("lost", double(s.lost));
    o.Set("skipped", double(s.unknown));
    o.Set("malformedEvents", double(s.malformed_events));
    o.Set("generations", double(s.generations));
    o.Set("pendingBytes", double(queue_->PendingBytes()));
    return o;
  });
}

Napi::Value StreamClientBinding::LatestKeyframe(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    auto k = reader_->session().LatestKeyframe();
    if (!k) return info.Env().Null();
    Napi::Object o = Napi::Object::New(info.Env());
    o.Set("sequence", k->header.sequence);
    o.Set("generation", k->header.generation);
    o.Set("ptsUs", double(k->header.pts_us));
    o.Set("data", CopyBuffer(info.Env(), k->data));  // the cache stays private to C++
    return o;
  });
}

Napi::Value StreamClientBinding::Codecs(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    Napi::Object o = Napi::Object::New(info.Env());
    if (auto v = reader_->session().Codec(StreamKind::kVideo))
      o.Set("video", CodecInfoToJs(info.Env(), *v));
    if (auto a = reader_->session().Codec(StreamKind::kAudio))
      o.Set("audio", CodecInfoToJs(info.Env(), *a));
    return o;
  });
}

Napi::Value StreamClientBinding::Ref(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    if (tsfn_live_) tsfn_.Ref(info.Env());
    return info.Env().Undefined();
  });
}

Napi::Value StreamClientBinding::Unref(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    if (tsfn_live_) tsfn_.Unref(info.Env());
    return info.Env().Undefined();
  });
}

Napi::Value StreamClientBinding::SetMediaToJs(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    queue_->SetMediaToJs(info[0].ToBoolean().Value());
    return info.Env().Undefined();
  });
}

}  // namespace zm::js
