#include "ll_hls_binding.h"

#include <cmath>
#include <string>

#include "fmp4_muxer_binding.h"
#include "js_support.h"

namespace zm::js {

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
  return Napi::Buffer<std::uint8_t>::NewOrCopy(env, data, bytes.size, [keep](Napi::Env, std::uint8_t*) { delete keep; });
}

Napi::Function LlHlsBinding::Define(Napi::Env env) {
  return DefineClass(env, "LlHlsPackager",
                     {
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
    packager_ = std::make_unique<LlHlsPackager>(opts);
  });
}

Napi::Value LlHlsBinding::Configure(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    MuxTrackConfig video = MuxTrackFromJs(ObjectArg(info[0], "video"));
    std::optional<MuxTrackConfig> audio;
    if (info[1].IsObject()) audio = MuxTrackFromJs(info[1].As<Napi::Object>());
    packager_->Configure(std::move(video), std::move(audio));
    return info.Env().Undefined();
  });
}

Napi::Value LlHlsBinding::Discontinuity(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    packager_->Discontinuity();
    return info.Env().Undefined();
  });
}

Napi::Value LlHlsBinding::End(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    packager_->End();
    return info.Env().Undefined();
  });
}

Napi::Value LlHlsBinding::PushVideo(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const unsigned flags = packager_->PushVideo(IntegerArg(info[0], "ptsUs"), info[1].ToBoolean().Value(),
                                                BufferArg(info[2], "data"), info[3].ToBoolean().Value(),
                                                IntegerArg(info[4], "nowUs"));
    return Napi::Number::New(info.Env(), flags);
  });
}

Napi::Value LlHlsBinding::PushAudio(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    return Napi::Number::New(info.Env(), packager_->PushAudio(IntegerArg(info[0], "ptsUs"), BufferArg(info[1], "data")));
  });
}

Napi::Value LlHlsBinding::Get(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    return SharedBuffer(info.Env(), packager_->Get(StringArg(info[0], "name")));
  });
}

Napi::Value LlHlsBinding::Available(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const std::int64_t msn = IntegerArg(info[0], "msn"), part = IntegerArg(info[1], "part");
    if (msn < 0 || part < -1 || part > 1000000) BadArgument("msn/part out of range");
    return Napi::Boolean::New(info.Env(), packager_->Available(std::uint64_t(msn), int(part)));
  });
}

Napi::Value LlHlsBinding::TooFarAhead(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const std::int64_t msn = IntegerArg(info[0], "msn");
    return Napi::Boolean::New(info.Env(), msn >= 0 && packager_->TooFarAhead(std::uint64_t(msn)));
  });
}

Napi::Value LlHlsBinding::Playlist(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    RenderOptions o;
    o.query = StringArg(info[0], "query");
    const std::string text = packager_->RenderMediaPlaylist(o);
    return text.empty() ? info.Env().Null() : Napi::String::New(info.Env(), text);
  });
}

Napi::Value LlHlsBinding::Master(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    MasterOptions o;
    o.query = StringArg(info[0], "query");
    if (info[1].IsString()) o.media_uri = info[1].As<Napi::String>().Utf8Value();
    const std::string text = packager_->RenderMasterPlaylist(o);
    return text.empty() ? info.Env().Null() : Napi::String::New(info.Env(), text);
  });
}

Napi::Value LlHlsBinding::Codecs(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value { return Napi::String::New(info.Env(), packager_->Codecs()); });
}

Napi::Value LlHlsBinding::Stats(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const LlHlsStats s = packager_->Stats();
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
    o.Set("ended", s.ended);
    o.Set("partTargetUs", double(packager_->part_target_us()));
    o.Set("targetDurationS", packager_->target_duration_s());
    return o;
  });
}

}  // namespace zm::js
