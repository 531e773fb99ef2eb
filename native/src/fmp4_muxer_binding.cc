#include "fmp4_muxer_binding.h"

#include <cmath>
#include <string>

#include "js_support.h"

namespace zm::js {

namespace {

std::int64_t IntegerUs(const Napi::Value& v, const char* name) {
  const double d = NumberArg(v, name);
  if (!std::isfinite(d) || std::floor(d) != d || std::fabs(d) > 9007199254740991.0) {
    BadArgument(std::string(name) + " must be a safe integer (microseconds)");
  }
  return static_cast<std::int64_t>(d);
}

Napi::Object TrackInfoToJs(Napi::Env env, const MuxTrackInfo& t) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("trackId", t.track_id);
  o.Set("codec", CodecName(t.codec));
  o.Set("codecString", t.codec_string);
  o.Set("timescale", t.timescale);
  o.Set("width", t.width);
  o.Set("height", t.height);
  o.Set("sampleRate", t.sample_rate);
  o.Set("channels", t.channels);
  o.Set("ready", t.ready);
  o.Set("pending", double(t.pending));
  o.Set("dropped", double(t.dropped));
  o.Set("parameterSetChanges", double(t.parameter_set_changes));
  o.Set("reorderDepth", t.reorder_depth);
  return o;
}

}  // namespace

MuxTrackConfig MuxTrackFromJs(const Napi::Object& o) {
  MuxTrackConfig c;
  const std::string codec = StringOption(o, "codec");
  c.codec = CodecFromName(codec.c_str());
  const Napi::Value extradata = o.Get("extradata");
  if (!extradata.IsUndefined() && !extradata.IsNull())
    c.extradata = BufferArg(extradata, "extradata").copy();
  c.width = U32Option(o, "width", 0);
  c.height = U32Option(o, "height", 0);
  c.sample_rate = U32Option(o, "sampleRate", 0);
  c.channels = U32Option(o, "channels", 0);
  c.timescale = U32Option(o, "timescale", 0);
  c.fps_num = U32Option(o, "fpsNum", 0);
  c.fps_den = U32Option(o, "fpsDen", 0);
  const Napi::Value depth = o.Get("reorderDepth");
  if (!depth.IsUndefined() && !depth.IsNull())
    c.reorder_depth = int(U32Option(o, "reorderDepth", 0));
  c.length_prefixed = o.Get("lengthPrefixed").ToBoolean().Value();
  return c;
}

Napi::Function Fmp4MuxerBinding::Define(Napi::Env env) {
  return DefineClass(env, "Fmp4Muxer",
                     {
                         InstanceMethod("addSample", &Fmp4MuxerBinding::AddSample),
                         InstanceMethod("initReady", &Fmp4MuxerBinding::InitReady),
                         InstanceMethod("initSegment", &Fmp4MuxerBinding::InitSegment),
                         InstanceMethod("cut", &Fmp4MuxerBinding::Cut),
                         InstanceMethod("info", &Fmp4MuxerBinding::Info),
                     });
}

Fmp4MuxerBinding::Fmp4MuxerBinding(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<Fmp4MuxerBinding>(info) {
  Guard(info.Env(), [&] {
    if (!info[0].IsArray()) BadArgument("tracks must be an array");
    const Napi::Array list = info[0].As<Napi::Array>();
    std::vector<MuxTrackConfig> tracks;
    for (std::uint32_t i = 0; i < list.Length(); ++i)
      tracks.push_back(MuxTrackFromJs(ObjectArg(list.Get(i), "track")));
    std::optional<std::int64_t> origin;
    if (!info[1].IsUndefined() && !info[1].IsNull()) origin = IntegerUs(info[1], "originUs");
    muxer_ = std::make_unique<Fmp4Muxer>(std::move(tracks), origin);
  });
}

Napi::Value Fmp4MuxerBinding::AddSample(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const double track = NumberArg(info[0], "track");
    if (!(track >= 0 && track < double(muxer_->track_count())) || std::floor(track) != track) {
      BadArgument("track index out of range");
    }
    MuxSample s;
    s.pts_us = IntegerUs(info[1], "ptsUs");
    if (!info[2].IsUndefined() && !info[2].IsNull()) s.dts_us = IntegerUs(info[2], "dtsUs");
    s.keyframe = info[3].ToBoolean().Value();
    s.data = BufferArg(info[4], "data");
    muxer_->AddSample(std::size_t(track), s);
    return info.Env().Undefined();
  });
}

Napi::Value Fmp4MuxerBinding::InitReady(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    return Napi::Boolean::New(info.Env(), muxer_->InitReady());
  });
}

Napi::Value Fmp4MuxerBinding::InitSegment(const Napi::CallbackInfo& info) {
  return Guard(info.Env(),
               [&]() -> Napi::Value { return TakeBuffer(info.Env(), muxer_->InitSegment()); });
}

Napi::Value Fmp4MuxerBinding::Cut(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    const std::string mode = info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "";
    if (mode != "all" && mode != "ready") BadArgument("mode must be \"all\" or \"ready\"");
    std::optional<std::int64_t> end_us;
    if (!info[1].IsUndefined() && !info[1].IsNull()) end_us = IntegerUs(info[1], "endUs");
    auto frag = muxer_->Cut(mode == "all" ? CutMode::kAll : CutMode::kReady, end_us);
    if (!frag) return env.Null();
    Napi::Object o = Napi::Object::New(env);
    o.Set("sequence", frag->sequence);
    o.Set("independent", frag->independent);
    Napi::Array tracks = Napi::Array::New(env, frag->tracks.size());
    for (std::size_t i = 0; i < frag->tracks.size(); ++i) {
      const FragmentTrackInfo& t = frag->tracks[i];
      Napi::Object to = Napi::Object::New(env);
      to.Set("trackId", t.track_id);
      to.Set("timescale", t.timescale);
      to.Set("baseDecodeTime", double(t.base_decode_time));
      to.Set("duration", double(t.duration));
      to.Set("sampleCount", t.sample_count);
      to.Set("startUs", double(t.start_us));
      to.Set("endUs", double(t.end_us));
      tracks.Set(std::uint32_t(i), to);
    }
    o.Set("tracks", tracks);
    o.Set("data", TakeBuffer(env, std::move(frag->data)));  // no copy: the Buffer owns the bytes
    return o;
  });
}

Napi::Value Fmp4MuxerBinding::Info(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    Napi::Object o = Napi::Object::New(env);
    Napi::Array tracks = Napi::Array::New(env, muxer_->track_count());
    for (std::size_t i = 0; i < muxer_->track_count(); ++i)
      tracks.Set(std::uint32_t(i), TrackInfoToJs(env, muxer_->Info(i)));
    o.Set("tracks", tracks);
    o.Set("initReady", muxer_->InitReady());
    if (auto origin = muxer_->origin_us()) o.Set("originUs", double(*origin));
    return o;
  });
}

}  // namespace zm::js
