#include "ll_hls_binding.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <string>

#include "fmp4_muxer_binding.h"
#include "js_support.h"
#include "stream_client_binding.h"
#include "zm/delivery_queue.h"
#include "zm/ll_hls_feed.h"

namespace zm::js {

struct LlHlsBinding::Shared : RecordTap, std::enable_shared_from_this<LlHlsBinding::Shared> {
  explicit Shared(const LlHlsOptions& options) : packager(options), feed(packager) {}

  // Reader thread: package, then wake JS once for however many changes pile up before it runs.
  void OnRecords(const std::vector<Record>& records) override {
    const std::int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
    unsigned flags = 0;
    {
      std::lock_guard<std::mutex> lock(mutex);
      for (const Record& r : records) flags |= feed.Feed(r, now);
      if (flags != 0 && tsfn_live && wake_enabled && !wake_pending) {
        wake_pending = true;
        tsfn.NonBlockingCall([weak = weak_from_this()](Napi::Env env, Napi::Function callback) {
          auto self = weak.lock();
          if (!self) return;
          {
            std::lock_guard<std::mutex> lock(self->mutex);
            self->wake_pending = false;
          }
          if (env == nullptr) return;
          try {
            callback.Call({});
          } catch (...) {  // a throwing listener must not escape into a TSFN callback
          }
        });
      }
    }
  }

  void ReleaseTsfn() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!tsfn_live) return;
    tsfn_live = false;
    tsfn.Release();
  }

  std::mutex mutex;  // guards everything below
  LlHlsPackager packager;
  LlHlsRecordFeed feed;
  Napi::ThreadSafeFunction tsfn;
  bool tsfn_live = false;
  bool wake_pending = false;
  bool wake_enabled = false;  // only while JS has blocking requests waiting: no viewer, no wake-up
};

namespace {

std::int64_t IntegerArg(const Napi::Value& v, const char* name) {
  const double d = NumberArg(v, name);
  if (!std::isfinite(d) || std::floor(d) != d || std::fabs(d) > 9007199254740991.0) {
    BadArgument(std::string(name) + " must be a safe integer");
  }
  return static_cast<std::int64_t>(d);
}

std::string StringArg(const Napi::Value& v, const char* name) {
  if (v.IsUndefined() || v.IsNull()) return {};
  if (!v.IsString()) BadArgument(std::string(name) + " must be a string");
  return v.As<Napi::String>().Utf8Value();
}

}  // namespace

Napi::Value SharedBuffer(Napi::Env env, const SharedBytes& bytes) {
  if (!bytes || bytes.size == 0) return env.Null();
  auto* keep = new std::shared_ptr<const Bytes>(bytes.owner);
  // The data is never written through this Buffer (documented read-only in the facade).
  auto* data = const_cast<std::uint8_t*>(bytes.data());
  return Napi::Buffer<std::uint8_t>::NewOrCopy(env, data, bytes.size,
                                               [keep](Napi::Env, std::uint8_t*) { delete keep; });
}

Napi::Function LlHlsBinding::Define(Napi::Env env) {
  return DefineClass(env, "LlHlsPackager",
                     {
                         InstanceMethod("attach", &LlHlsBinding::Attach),
                         InstanceMethod("detach", &LlHlsBinding::Detach),
                         InstanceMethod("setWake", &LlHlsBinding::SetWake),
                         InstanceMethod("configure", &LlHlsBinding::Configure),
                         InstanceMethod("discontinuity", &LlHlsBinding::Discontinuity),
                         InstanceMethod("end", &LlHlsBinding::End),
                         InstanceMethod("pushVideo", &LlHlsBinding::PushVideo),
                         InstanceMethod("pushAudio", &LlHlsBinding::PushAudio),
                         InstanceMethod("get", &LlHlsBinding::Get),
                         InstanceMethod("available", &LlHlsBinding::Available),
                         InstanceMethod("tooFarAhead", &LlHlsBinding::TooFarAhead),
                         InstanceMethod("playlist", &LlHlsBinding::Playlist),
                         InstanceMethod("master", &LlHlsBinding::Master),
                         InstanceMethod("codecs", &LlHlsBinding::Codecs),
                         InstanceMethod("stats", &LlHlsBinding::Stats),
                     });
}

LlHlsBinding::LlHlsBinding(const Napi::CallbackInfo& info) : Napi::ObjectWrap<LlHlsBinding>(info) {
  Guard(info.Env(), [&] {
    const Napi::Object o = ObjectArg(info[0], "options");
    LlHlsOptions opts;
    opts.part_target_us = U32Option(o, "partTargetUs", std::uint32_t(opts.part_target_us));
    opts.segment_target_us = U32Option(o, "segmentTargetUs", std::uint32_t(opts.segment_target_us));
    opts.window_segments = U32Option(o, "windowSegments", std::uint32_t(opts.window_segments));
    opts.max_bytes = U32Option(o, "maxBytes", std::uint32_t(opts.max_bytes));
    opts.program_date_time = o.Get("programDateTime").ToBoolean().Value();
    shared_ = std::make_shared<Shared>(opts);
  });
}

LlHlsBinding::~LlHlsBinding() { DetachNow(); }

void LlHlsBinding::DetachNow() {
  if (!shared_) return;
  if (auto queue = queue_.lock()) queue->RemoveTap(shared_);
  queue_.reset();
  shared_->ReleaseTsfn();  // after this the reader thread can no longer call into JS
}

// attach(rawStreamClient, onChange): feeds this packager from the client's reader thread.
Napi::Value LlHlsBinding::Attach(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    const Napi::Object client_object = ObjectArg(info[0], "client");
    if (!info[1].IsFunction()) BadArgument("onChange must be a function");
    auto* client = Napi::ObjectWrap<StreamClientBinding>::Unwrap(client_object);
    if (client == nullptr) BadArgument("client must be a native StreamClient");
    DetachNow();
    {
      std::lock_guard<std::mutex> lock(shared_->mutex);
      shared_->tsfn =
          Napi::ThreadSafeFunction::New(env, info[1].As<Napi::Function>(), "zmgate:ll-hls", 0, 1);
      shared_->tsfn.Unref(env);  // a packager alone does not keep the process alive
      shared_->tsfn_live = true;
      shared_->wake_pending = false;
      // HELLOs that arrived before attaching.
      if (auto v = client->CurrentCodec(StreamKind::kVideo))
        shared_->feed.OnCodec(StreamKind::kVideo, *v);
      if (auto a = client->CurrentCodec(StreamKind::kAudio))
        shared_->feed.OnCodec(StreamKind::kAudio, *a);
    }
    // Registered after the TSFN, so it runs before Node's own TSFN teardown (hooks run in reverse).
    cleanup_hook_.Register(env);
    queue_ = client->delivery_queue();
    client->delivery_queue()->AddTap(shared_);
    return env.Undefined();
  });
}

Napi::Value LlHlsBinding::Detach(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    DetachNow();
    return info.Env().Undefined();
  });
}

Napi::Value LlHlsBinding::SetWake(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->wake_enabled = info[0].ToBoolean().Value();
    return info.Env().Undefined();
  });
}

Napi::Value LlHlsBinding::Configure(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    MuxTrackConfig video = MuxTrackFromJs(ObjectArg(info[0], "video"));
    std::optional<MuxTrackConfig> audio;
    if (info[1].IsObject()) audio = MuxTrackFromJs(info[1].As<Napi::Object>());
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->packager.Configure(std::move(video), std::move(audio));
    return info.Env().Undefined();
  });
}

Napi::Value LlHlsBinding::Discontinuity(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->packager.Discontinuity();
    return info.Env().Undefined();
  });
}

Napi::Value LlHlsBinding::End(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    DetachNow();
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->packager.End();
    return info.Env().Undefined();
  });
}

Napi::Value LlHlsBinding::PushVideo(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const std::int64_t pts = IntegerArg(info[0], "ptsUs"), now = IntegerArg(info[4], "nowUs");
    const bool keyframe = info[1].ToBoolean().Value(), after_gap = info[3].ToBoolean().Value();
    const ByteView data = BufferArg(info[2], "data");
    std::lock_guard<std::mutex> lock(shared_->mutex);
    return Napi::Number::New(info.Env(),
                             shared_->packager.PushVideo(pts, keyframe, data, after_gap, now));
  });
}

Napi::Value LlHlsBinding::PushAudio(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const std::int64_t pts = IntegerArg(info[0], "ptsUs");
    const ByteView data = BufferArg(info[1], "data");
    std::lock_guard<std::mutex> lock(shared_->mutex);
    return Napi::Number::New(info.Env(), shared_->packager.PushAudio(pts, data));
  });
}

Napi::Value LlHlsBinding::Get(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const std::string name = StringArg(info[0], "name");
    SharedBytes bytes;
    {
      std::lock_guard<std::mutex> lock(shared_->mutex);
      bytes = shared_->packager.Get(name);
    }
    return SharedBuffer(info.Env(), bytes);
  });
}

Napi::Value LlHlsBinding::Available(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const std::int64_t msn = IntegerArg(info[0], "msn"), part = IntegerArg(info[1], "part");
    if (msn < 0 || part < -1 || part > 1000000) BadArgument("msn/part out of range");
    std::lock_guard<std::mutex> lock(shared_->mutex);
    return Napi::Boolean::New(info.Env(),
                              shared_->packager.Available(std::uint64_t(msn), int(part)));
  });
}

Napi::Value LlHlsBinding::TooFarAhead(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const std::int64_t msn = IntegerArg(info[0], "msn");
    std::lock_guard<std::mutex> lock(shared_->mutex);
    return Napi::Boolean::New(info.Env(),
                              msn >= 0 && shared_->packager.TooFarAhead(std::uint64_t(msn)));
  });
}

Napi::Value LlHlsBinding::Playlist(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    RenderOptions o;
    o.query = StringArg(info[0], "query");
    if (info[1].IsBoolean()) o.low_latency = info[1].As<Napi::Boolean>().Value();
    std::string text;
    {
      std::lock_guard<std::mutex> lock(shared_->mutex);
      text = shared_->packager.RenderMediaPlaylist(o);
    }
    return text.empty() ? info.Env().Null() : Napi::String::New(info.Env(), text);
  });
}

Napi::Value LlHlsBinding::Master(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    MasterOptions o;
    o.query = StringArg(info[0], "query");
    if (info[1].IsString()) o.media_uri = info[1].As<Napi::String>().Utf8Value();
    std::string text;
    {
      std::lock_guard<std::mutex> lock(shared_->mutex);
      text = shared_->packager.RenderMasterPlaylist(o);
    }
    return text.empty() ? info.Env().Null() : Napi::String::New(info.Env(), text);
  });
}

Napi::Value LlHlsBinding::Codecs(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    return Napi::String::New(info.Env(), shared_->packager.Codecs());
  });
}

Napi::Value LlHlsBinding::Stats(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    LlHlsStats s;
    std::int64_t part_target = 0;
    std::uint32_t target_duration = 0;
    bool unsupported = false;
    {
      std::lock_guard<std::mutex> lock(shared_->mutex);
      s = shared_->packager.Stats();
      part_target = shared_->packager.part_target_us();
      target_duration = shared_->packager.target_duration_s();
      unsupported = shared_->feed.unsupported();
    }
    Napi::Object o = Napi::Object::New(info.Env());
    o.Set("firstMsn", double(s.first_msn));
    o.Set("nextMsn", double(s.next_msn));
    o.Set("segments", double(s.segments));
    o.Set("parts", double(s.parts));
    o.Set("bytes", double(s.bytes));
    o.Set("initId", s.init_id);
    o.Set("discontinuities", double(s.discontinuities));
    o.Set("evictedSegments", double(s.evicted_segments));
    o.Set("droppedSamples", double(s.dropped_samples));
    o.Set("skippedUntilKeyframe", double(s.skipped_until_keyframe));
    o.Set("stalls", double(s.stalls));
    o.Set("epochs", double(s.epochs));
    o.Set("forcedCuts", double(s.forced_cuts));
    o.Set("ended", s.ended);
    o.Set("partTargetUs", double(part_target));
    o.Set("targetDurationS", target_duration);
    o.Set("unsupported", unsupported);
    return o;
  });
}

}  // namespace zm::js
