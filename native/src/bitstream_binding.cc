#include "bitstream_binding.h"

#include <string>

#include "js_support.h"
#include "stream_records_js.h"
#include "zm/aac.h"
#include "zm/codec_info.h"
#include "zm/nal.h"

namespace zm::js {

namespace {

Codec CodecArg(const Napi::Value& v) {
  if (!v.IsString()) BadArgument("codec must be a string");
  const std::string name = v.As<Napi::String>().Utf8Value();
  const Codec c = CodecFromName(name.c_str());
  if (c == Codec::kUnknown) BadArgument("unknown codec " + name);
  return c;
}

// describeCodec(codec, bitstream): CodecInfo-shaped object, or null when nothing could be
// derived. bitstream: video extradata (Annex B/avcC/hvcC) or an access unit; AAC ASC; OpusHead;
// av1C.
Napi::Value DescribeCodec(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    CodecInfo ci;
    ci.codec = CodecArg(info[0]);
    if (!DeriveCodecDetails(ci, BufferArg(info[1], "bitstream"))) return info.Env().Null();
    return CodecInfoToJs(info.Env(), ci);
  });
}

// parseAdtsHeader(data): {objectType, sampleRate, channels, headerSize, frameSize,
// audioSpecificConfig} | null
Napi::Value ParseAdts(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    AdtsHeader h;
    if (!ParseAdtsHeader(BufferArg(info[0], "data"), &h)) return info.Env().Null();
    Napi::Object o = Napi::Object::New(info.Env());
    o.Set("objectType", h.config.object_type);
    o.Set("sampleRate", h.config.sample_rate);
    o.Set("channels", h.config.channels);
    o.Set("headerSize", h.header_size);
    o.Set("frameSize", h.frame_size);
    if (h.config.object_type <= 4) {
      o.Set(
          "audioSpecificConfig",
          CopyBuffer(info.Env(), MakeAudioSpecificConfig(h.config.object_type, h.config.sample_rate,
                                                         h.config.channel_config)));
    }
    return o;
  });
}

// annexBToLengthPrefixed(codec, accessUnit): Buffer of [u32 length][NAL]… without AUD/parameter
// sets.
Napi::Value AnnexBToLengthPrefixed(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const Codec c = CodecArg(info[0]);
    if (c != Codec::kH264 && c != Codec::kH265) BadArgument("codec must be h264 or h265");
    Bytes out;
    AppendLengthPrefixed(c, BufferArg(info[1], "accessUnit"), out);
    return TakeBuffer(info.Env(), std::move(out));
  });
}

// nalUnitTypes(codec, accessUnit): number[] — the NAL types of an Annex B buffer, in order.
Napi::Value NalUnitTypes(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const Codec c = CodecArg(info[0]);
    const auto nals = SplitAnnexB(BufferArg(info[1], "accessUnit"));
    Napi::Array a = Napi::Array::New(info.Env(), nals.size());
    for (std::size_t i = 0; i < nals.size(); ++i) a.Set(std::uint32_t(i), NalType(c, nals[i]));
    return a;
  });
}

}  // namespace

void RegisterBitstreamFunctions(Napi::Env env, Napi::Object exports) {
  exports.Set("describeCodec", Napi::Function::New(env, DescribeCodec, "describeCodec"));
  exports.Set("parseAdtsHeader", Napi::Function::New(env, ParseAdts, "parseAdtsHeader"));
  exports.Set("annexBToLengthPrefixed",
              Napi::Function::New(env, AnnexBToLengthPrefixed, "annexBToLengthPrefixed"));
  exports.Set("nalUnitTypes", Napi::Function::New(env, NalUnitTypes, "nalUnitTypes"));
}

}  // namespace zm::js
