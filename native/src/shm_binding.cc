#include "shm_binding.h"

#include <string>
#include <utility>

#include "js_support.h"
#include "promise_worker.h"

namespace zm::js {

namespace {

using shm::Field;

template <typename T>
Napi::Value OptionalNumber(Napi::Env env, const std::optional<T>& v) {
  if (!v) return env.Null();
  return Napi::Number::New(env, double(*v));
}

Napi::Object GeometryToJs(Napi::Env env, const shm::Geometry& g) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("variant", g.variant);
  o.Set("scheme", g.scheme == shm::SlotScheme::kAvFrame ? "avframe" : "packed");
  o.Set("width", g.width);
  o.Set("height", g.height);
  o.Set("colours", g.colours);
  o.Set("imageBufferCount", g.image_count);
  o.Set("zoneCount", g.zone_count);
  o.Set("slotSize", double(g.slot_size));
  o.Set("timestampsOffset", double(g.timestamps));
  o.Set("imagesOffset", double(g.images));
  o.Set("formatsOffset",
        g.formats ? Napi::Value(Napi::Number::New(env, double(g.formats))) : env.Null());
  return o;
}

Napi::Object StateToJs(Napi::Env env, const shm::SharedState& s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("size", s.size);
  o.Set("lastWriteIndex", s.last_write_index);
  o.Set("lastReadIndex", s.last_read_index);
  o.Set("imageCount", OptionalNumber(env, s.image_count));
  o.Set("state", s.state);
  o.Set("captureFps", s.capture_fps);
  o.Set("analysisFps", s.analysis_fps);
  o.Set("latitude", OptionalNumber(env, s.latitude));
  o.Set("longitude", OptionalNumber(env, s.longitude));
  o.Set("lastEventId", double(s.last_event_id));
  o.Set("action", s.action);
  o.Set("brightness", s.brightness);
  o.Set("hue", s.hue);
  o.Set("colour", s.colour);
  o.Set("contrast", s.contrast);
  o.Set("alarmX", s.alarm_x);
  o.Set("alarmY", s.alarm_y);
  o.Set("valid", s.valid);
  o.Set("capturing", s.capturing);
  o.Set("analysing", OptionalNumber(env, s.analysing));
  o.Set("recording", OptionalNumber(env, s.recording));
  o.Set("signal", s.signal);
  o.Set("format", s.format);
  o.Set("imageSize", s.image_size);
  o.Set("lastFrameScore", s.last_frame_score);
  o.Set("audioFrequency", s.audio_frequency);
  o.Set("audioChannels", s.audio_channels);
  o.Set("startupTime", double(s.startup_time));
  o.Set("heartbeatTime", double(s.heartbeat_time));
  o.Set("lastWriteTime", double(s.last_write_time));
  o.Set("lastReadTime", double(s.last_read_time));
  o.Set("lastViewedTime", OptionalNumber(env, s.last_viewed_time));
  o.Set("lastAnalysisViewedTime", OptionalNumber(env, s.last_analysis_viewed_time));
  o.Set("alarmCause", s.alarm_cause);
  o.Set("lastAnalysisIndex", OptionalNumber(env, s.last_analysis_index));
  o.Set("analysisImageCount", OptionalNumber(env, s.analysis_image_count));
  Napi::Object t = Napi::Object::New(env);
  t.Set("state", s.trigger.state);
  t.Set("score", s.trigger.score);
  t.Set("cause", s.trigger.cause);
  t.Set("text", s.trigger.text);
  t.Set("showText", s.trigger.show_text);
  o.Set("trigger", t);
  return o;
}

// Hands the copied slot to JS without another copy; the Buffer's finalizer frees it.
Napi::Buffer<std::uint8_t> ImageBuffer(Napi::Env env, shm::ImageCopy& img) {
  std::uint8_t* raw = img.data.release();
  return Napi::Buffer<std::uint8_t>::NewOrCopy(env, raw, img.planes.size,
                                               [](Napi::Env, std::uint8_t* p) { delete[] p; });
}

class NewestImageWorker : public PromiseWorker {
 public:
  NewestImageWorker(Napi::Env env, shm::ShmReader::ImageSource source, int max_attempts)
      : PromiseWorker(env, "zmgate:shm-newest-image"), source_(std::move(source)) {
    options_.max_attempts = max_attempts;
  }

 private:
  void Run() override {
    image_ =
        shm::CopyNewestImage(source_.mapping->bytes(), source_.layout, source_.geometry, options_);
    source_.mapping.reset();  // unmap as soon as possible if the reader moved on
  }

  Napi::Value Result(Napi::Env env) override {
    if (!image_) return env.Null();
    Napi::Object o = Napi::Object::New(env);
    o.Set("width", image_->width);
    o.Set("height", image_->height);
    o.Set("format", PixelFormatName(image_->format));
    Napi::Array linesize = Napi::Array::New(env, std::size_t(image_->planes.planes));
    for (int k = 0; k < image_->planes.planes; ++k)
      linesize.Set(std::uint32_t(k), double(image_->planes.linesize[k]));
    o.Set("linesize", linesize);
    o.Set("timestampUs", double(image_->timestamp_us));
    o.Set("index", image_->index);
    o.Set("attempts", image_->attempts);
    o.Set("data", ImageBuffer(env, *image_));
    return o;
  }

  shm::ShmReader::ImageSource source_;
  shm::CopyOptions options_;
  std::optional<shm::ImageCopy> image_;
};

Napi::Value LayoutTable(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    static const char* const kTypes[] = {"u8", "i32", "u32", "u64", "i64", "f64", "chars"};
    const auto& fields = shm::SharedDataFields();
    Napi::Array out = Napi::Array::New(env, fields.size());
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const auto& f = fields[i];
      Napi::Object o = Napi::Object::New(env);
      o.Set("name", f.name);
      o.Set("type", kTypes[static_cast<int>(f.type)]);
      o.Set("length", f.length);
      Napi::Object offsets = Napi::Object::New(env);
      for (int l = 0; l < shm::kLayoutCount; ++l) {
        offsets.Set(
            std::to_string(shm::kLayoutSizes[l]),
            f.offset[l] < 0 ? env.Null() : Napi::Value(Napi::Number::New(env, f.offset[l])));
      }
      o.Set("offsets", offsets);
      out.Set(std::uint32_t(i), o);
    }
    return out;
  });
}

}  // namespace

Napi::Function SharedMemoryBinding::Define(Napi::Env env) {
  return DefineClass(env, "SharedMemory",
                     {
                         InstanceMethod("read", &SharedMemoryBinding::Read),
                         InstanceMethod("newestImage", &SharedMemoryBinding::NewestImage),
                         InstanceMethod("trigger", &SharedMemoryBinding::Trigger),
                         InstanceMethod("info", &SharedMemoryBinding::Info),
                         InstanceMethod("close", &SharedMemoryBinding::Close),
                     });
}

SharedMemoryBinding::SharedMemoryBinding(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<SharedMemoryBinding>(info) {
  Guard(info.Env(), [&] {
    const Napi::Object o = ObjectArg(info[0], "options");
    shm::GeometryHint hint;
    hint.width = U32Option(o, "width", 0);
    hint.height = U32Option(o, "height", 0);
    if (o.Has("imageBufferCount") && !o.Get("imageBufferCount").IsUndefined()) {
      hint.image_count = U32Option(o, "imageBufferCount", 0);
    }
    if (o.Has("zoneCount") && !o.Get("zoneCount").IsUndefined())
      hint.zone_count = U32Option(o, "zoneCount", 0);
    max_attempts_ = int(
        std::max<std::uint32_t>(1, std::min<std::uint32_t>(U32Option(o, "maxAttempts", 5), 1000)));
    reader_ = std::make_unique<shm::ShmReader>(StringOption(o, "path"), hint);
    reader_->Refresh();
    cleanup_hook_.Register(info.Env());
  });
}

void SharedMemoryBinding::OnEnvCleanup() {
  if (reader_) reader_->Close();  // unmap now: a terminating worker thread never runs finalizers
}

Napi::Value SharedMemoryBinding::Read(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const shm::SharedState s = reader_->ReadState();
    Napi::Object o = StateToJs(info.Env(), s);
    o.Set("info", Info(info));
    return o;
  });
}

Napi::Value SharedMemoryBinding::NewestImage(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    auto* worker = new NewestImageWorker(info.Env(), reader_->Source(), max_attempts_);
    Napi::Promise p = worker->Promise();
    worker->Queue();
    return p;
  });
}

Napi::Value SharedMemoryBinding::Trigger(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const Napi::Object o = ObjectArg(info[0], "trigger");
    shm::TriggerRequest r;
    r.state = U32Option(o, "state", shm::trigger::kCancel);
    if (r.state > shm::trigger::kOff)
      BadArgument("trigger state must be 0 (cancel), 1 (on) or 2 (off)");
    r.score = U32Option(o, "score", 0);
    const std::pair<const char*, std::string*> strings[] = {
        {"cause", &r.cause}, {"text", &r.text}, {"showText", &r.show_text}};
    for (const auto& [key, field] : strings) {
      if (!o.Get(key).IsUndefined()) *field = StringOption(o, key);
    }
    reader_->Trigger(r);
    return info.Env().Undefined();
  });
}

Napi::Value SharedMemoryBinding::Info(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    Napi::Object o = Napi::Object::New(env);
    o.Set("path", reader_->path());
    o.Set("closed", reader_->closed());
    o.Set("opens", double(reader_->stats().opens));
    const auto& l = reader_->layout();
    o.Set("layout", l ? Napi::Value(Napi::Number::New(env, l->shared_size)) : env.Null());
    o.Set("versions", l ? Napi::Value(Napi::String::New(env, l->versions)) : env.Null());
    const auto& g = reader_->geometry();
    o.Set("geometry", g ? Napi::Value(GeometryToJs(env, *g)) : env.Null());
    o.Set("geometryError", reader_->geometry_error().empty()
                               ? env.Null()
                               : Napi::Value(Napi::String::New(env, reader_->geometry_error())));
    return o;
  });
}

Napi::Value SharedMemoryBinding::Close(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    reader_->Close();
    return info.Env().Undefined();
  });
}

void RegisterSharedMemoryFunctions(Napi::Env env, Napi::Object exports) {
  exports.Set("SharedMemory", SharedMemoryBinding::Define(env));
  exports.Set("shmLayoutTable", Napi::Function::New(env, LayoutTable, "shmLayoutTable"));
}

}  // namespace zm::js
