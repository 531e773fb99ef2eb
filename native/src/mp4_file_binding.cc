#include "mp4_file_binding.h"

#include <cmath>
#include <functional>
#include <optional>

#include "js_support.h"

namespace zm::js {

namespace {

constexpr std::size_t kMaxCachedPlans = 4;

// Runs `work` on the libuv pool and settles a promise with `done(result)` on the JS thread.
// zm::Error codes survive the trip (the promise rejects with a ZmNativeError carrying them).
template <typename Result>
class PromiseWorker : public Napi::AsyncWorker {
 public:
  PromiseWorker(const Napi::Object& receiver, const char* name, std::function<Result()> work,
                std::function<Napi::Value(Napi::Env, Result&)> done)
      : Napi::AsyncWorker(receiver.Env(), name),
        receiver_(Napi::Persistent(receiver)),  // the binding must outlive the work
        work_(std::move(work)),
        done_(std::move(done)),
        deferred_(Napi::Promise::Deferred::New(receiver.Env())) {}

  Napi::Promise Promise() const { return deferred_.Promise(); }

  void Execute() override {
    try {
      result_.emplace(work_());
    } catch (const Error& e) {
      code_ = e.code();
      SetError(e.what());
    } catch (const std::exception& e) {
      code_ = "ERR_ZM_NATIVE";
      SetError(e.what());
    }
  }
  void OnOK() override {
    try {
      deferred_.Resolve(done_(Env(), *result_));
    } catch (const Napi::Error& e) {
      deferred_.Reject(e.Value());
    } catch (const Error& e) {
      deferred_.Reject(MakeError(Env(), e.code(), e.what()).Value());
    }
  }
  void OnError(const Napi::Error& e) override {
    deferred_.Reject(MakeError(Env(), code_, e.Message()).Value());
  }

 private:
  Napi::ObjectReference receiver_;
  std::function<Result()> work_;
  std::function<Napi::Value(Napi::Env, Result&)> done_;
  Napi::Promise::Deferred deferred_;
  std::optional<Result> result_;
  std::string code_ = "ERR_ZM_NATIVE";
};

std::int64_t SafeInteger(const Napi::Value& v, const char* name) {
  const double d = NumberArg(v, name);
  if (!std::isfinite(d) || std::floor(d) != d || std::fabs(d) > 9007199254740991.0) {
    BadArgument(std::string(name) + " must be a safe integer");
  }
  return static_cast<std::int64_t>(d);
}

const char* Kind(const Mp4Track& t) {
  return t.is_video() ? "video" : t.is_audio() ? "audio" : "other";
}

struct Opened {
  std::shared_ptr<const Mp4Demuxer> demuxer;
  std::shared_ptr<const Mp4Vod> vod;
  std::string vod_code, vod_error;
};

}  // namespace

Napi::Function Mp4FileBinding::Define(Napi::Env env) {
  return DefineClass(env, "Mp4File",
                     {
                         InstanceMethod("open", &Mp4FileBinding::Open),
                         InstanceMethod("info", &Mp4FileBinding::Info),
                         InstanceMethod("sampleTable", &Mp4FileBinding::SampleTable),
                         InstanceMethod("readSample", &Mp4FileBinding::ReadSample),
                         InstanceMethod("vodPlan", &Mp4FileBinding::VodPlan),
                         InstanceMethod("vodInit", &Mp4FileBinding::VodInit),
                         InstanceMethod("vodSegment", &Mp4FileBinding::VodSegment),
                         InstanceMethod("close", &Mp4FileBinding::Close),
                     });
}

Mp4FileBinding::Mp4FileBinding(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<Mp4FileBinding>(info) {}

const Mp4Demuxer& Mp4FileBinding::demuxer() const {
  if (!demuxer_) throw Error("ERR_ZM_MP4_CLOSED", "the file is not open");
  return *demuxer_;
}

const Mp4Vod& Mp4FileBinding::vod() const {
  demuxer();
  if (!vod_) throw Error(vod_error_code_, vod_error_);
  return *vod_;
}

Napi::Value Mp4FileBinding::Open(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    if (!info[0].IsString()) BadArgument("path must be a string");
    if (demuxer_ || opening_) throw Error("ERR_ZM_MP4_ARG", "open() was already called");
    opening_ = true;
    const std::string path = info[0].As<Napi::String>().Utf8Value();
    auto* worker = new PromiseWorker<Opened>(
        Value(), "zmgate:mp4-open",
        [path] {
          Opened o;
          o.demuxer = std::make_shared<const Mp4Demuxer>(std::make_shared<const FileSource>(path));
          try {
            o.vod = std::make_shared<const Mp4Vod>(o.demuxer);
          } catch (const Error& e) {  // no video to segment: the file still opens
            o.vod_code = e.code(), o.vod_error = e.what();
          }
          return o;
        },
        [this](Napi::Env env, Opened& o) -> Napi::Value {
          opening_ = false;
          demuxer_ = std::move(o.demuxer);
          vod_ = std::move(o.vod);
          vod_error_code_ = o.vod_code, vod_error_ = o.vod_error;
          return env.Undefined();
        });
    Napi::Promise p = worker->Promise();
    worker->Queue();
    return p;
  });
}

Napi::Value Mp4FileBinding::Info(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    const Mp4Demuxer& d = demuxer();
    Napi::Object o = Napi::Object::New(env);
    o.Set("size", double(d.source().size()));
    o.Set("fragmented", d.fragmented());
    o.Set("truncated", d.truncated());
    o.Set("fragments", double(d.fragments()));
    o.Set("durationUs", double(d.duration_us()));
    o.Set("majorBrand", d.major_brand());
    Napi::Array tracks = Napi::Array::New(env, d.tracks().size());
    for (std::size_t i = 0; i < d.tracks().size(); ++i) {
      const Mp4Track& t = d.tracks()[i];
      Napi::Object to = Napi::Object::New(env);
      to.Set("id", t.id);
      to.Set("kind", Kind(t));
      to.Set("handler", t.handler);
      to.Set("sampleEntry", t.sample_entry);
      to.Set("codec", CodecName(t.codec));
      to.Set("codecString", t.codec_string);
      to.Set("timescale", t.timescale);
      to.Set("width", t.width);
      to.Set("height", t.height);
      Napi::Array matrix = Napi::Array::New(env, t.matrix.size());
      for (std::uint32_t k = 0; k < t.matrix.size(); ++k) matrix.Set(k, t.matrix[k]);
      to.Set("matrix", matrix);
      to.Set("sampleRate", t.sample_rate);
      to.Set("channels", t.channels);
      to.Set("nalLengthSize", t.nal_length_size);
      to.Set("sampleCount", double(t.samples.size()));
      std::int64_t end = 0, start = 0;
      for (std::size_t k = 0; k < t.samples.size(); ++k) {
        if (k == 0 || t.PtsTicks(k) < start) start = t.PtsTicks(k);
        end = std::max(end, t.PtsTicks(k) + t.samples[k].duration);
      }
      to.Set("durationUs", double(t.samples.empty() ? 0 : t.ToUs(end - start)));
      to.Set("config", CopyBuffer(env, t.config));
      tracks.Set(std::uint32_t(i), to);
    }
    o.Set("tracks", tracks);
    if (vod_) {
      Napi::Object v = Napi::Object::New(env);
      v.Set("codecs", vod_->Codecs());
      v.Set("durationUs", double(vod_->duration_us()));
      v.Set("videoTrack", double(vod_->video_track()));
      if (vod_->audio_track()) v.Set("audioTrack", double(*vod_->audio_track()));
      o.Set("vod", v);
    } else {
      o.Set("vod", env.Null());
      o.Set("vodErrorCode", vod_error_code_);
      o.Set("vodError", vod_error_);
    }
    return o;
  });
}

Napi::Value Mp4FileBinding::SampleTable(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    const Mp4Demuxer& d = demuxer();
    const auto order = d.DecodeOrder();
    const std::size_t n = order.size();
    // One crossing for the whole index: columns as typed arrays.
    auto track = Napi::Uint8Array::New(env, n);
    auto index = Napi::Uint32Array::New(env, n);
    auto pts = Napi::Float64Array::New(env, n);
    auto dts = Napi::Float64Array::New(env, n);
    auto duration = Napi::Float64Array::New(env, n);
    auto size = Napi::Uint32Array::New(env, n);
    auto offset = Napi::Float64Array::New(env, n);
    auto keyframe = Napi::Uint8Array::New(env, n);
    for (std::size_t k = 0; k < n; ++k) {
      const auto [ti, si] = order[k];
      const Mp4Track& t = d.tracks()[ti];
      const Mp4Sample& s = t.samples[si];
      track[k] = std::uint8_t(std::min<std::uint32_t>(ti, 255));
      index[k] = si;
      pts[k] = double(t.ToUs(t.PtsTicks(si)));
      dts[k] = double(t.ToUs(t.DtsTicks(si)));
      duration[k] = double(t.ToUs(s.duration));
      size[k] = s.size;
      offset[k] = double(s.offset);
      keyframe[k] = s.sync ? 1 : 0;
    }
    Napi::Object o = Napi::Object::New(env);
    o.Set("track", track);
    o.Set("index", index);
    o.Set("ptsUs", pts);
    o.Set("dtsUs", dts);
    o.Set("durationUs", duration);
    o.Set("size", size);
    o.Set("offset", offset);
    o.Set("keyframe", keyframe);
    return o;
  });
}

Napi::Value Mp4FileBinding::ReadSample(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const std::int64_t track = SafeInteger(info[0], "track"), index = SafeInteger(info[1], "index");
    const Mp4Demuxer& d = demuxer();
    if (track < 0 || std::size_t(track) >= d.tracks().size() || index < 0 ||
        std::size_t(index) >= d.tracks()[std::size_t(track)].samples.size()) {
      throw Error("ERR_ZM_MP4_RANGE", "no such sample");
    }
    auto* worker = new PromiseWorker<Bytes>(
        Value(), "zmgate:mp4-read",
        [demuxer = demuxer_, track, index] {
          return demuxer->ReadSample(std::size_t(track), std::size_t(index));
        },
        [](Napi::Env env, Bytes& b) -> Napi::Value { return TakeBuffer(env, std::move(b)); });
    Napi::Promise p = worker->Promise();
    worker->Queue();
    return p;
  });
}

std::shared_ptr<const std::vector<zm::VodSegment>> Mp4FileBinding::Plan(std::int64_t target_us) {
  auto it = plans_.find(target_us);
  if (it != plans_.end()) return it->second;
  if (plans_.size() >= kMaxCachedPlans) plans_.erase(plans_.begin());
  auto plan = std::make_shared<const std::vector<zm::VodSegment>>(vod().Plan(target_us));
  plans_[target_us] = plan;
  return plan;
}

Napi::Value Mp4FileBinding::VodPlan(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    const auto plan = Plan(SafeInteger(info[0], "targetUs"));
    Napi::Array out = Napi::Array::New(env, plan->size());
    for (std::size_t i = 0; i < plan->size(); ++i) {
      const zm::VodSegment& s = (*plan)[i];
      Napi::Object o = Napi::Object::New(env);
      o.Set("index", s.index);
      o.Set("startUs", double(s.start_us));
      o.Set("durationUs", double(s.duration_us));
      o.Set("firstSample", s.first_sample);
      o.Set("lastSample", s.last_sample);
      out.Set(std::uint32_t(i), o);
    }
    return out;
  });
}

Napi::Value Mp4FileBinding::VodInit(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value { return TakeBuffer(info.Env(), vod().Init()); });
}

Napi::Value Mp4FileBinding::VodSegment(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const auto plan = Plan(SafeInteger(info[0], "targetUs"));
    const std::int64_t index = SafeInteger(info[1], "index");
    if (index < 0 || std::size_t(index) >= plan->size())
      throw Error("ERR_ZM_MP4_RANGE", "no such segment");
    auto* worker = new PromiseWorker<Bytes>(
        Value(), "zmgate:mp4-segment",
        [vod = vod_, plan, index] { return vod->Segment(*plan, std::size_t(index)); },
        [](Napi::Env env, Bytes& b) -> Napi::Value { return TakeBuffer(env, std::move(b)); });
    Napi::Promise p = worker->Promise();
    worker->Queue();
    return p;
  });
}

Napi::Value Mp4FileBinding::Close(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    // Workers in flight keep their own references; the file descriptor closes after the last.
    demuxer_.reset();
    vod_.reset();
    plans_.clear();
    return info.Env().Undefined();
  });
}

}  // namespace zm::js
