#include "jpeg_binding.h"

#include <string>
#include <utility>

#include "js_support.h"
#include "promise_worker.h"
#include "zm/jpeg.h"

namespace zm::js {

namespace {

// Runs one JPEG job on the pool. The input typed array is referenced (not copied) until the job
// ends, so JS must not modify it meanwhile (the facade documents this).
class JpegWorker : public PromiseWorker {
 public:
  JpegWorker(Napi::Env env, const char* name, const Napi::Value& input, std::function<Bytes()> job)
      : PromiseWorker(env, name),
        input_(Napi::Persistent(input.As<Napi::Object>())),
        job_(std::move(job)) {}

 private:
  void Run() override { output_ = job_(); }
  Napi::Value Result(Napi::Env env) override { return TakeBuffer(env, std::move(output_)); }

  Napi::ObjectReference input_;
  std::function<Bytes()> job_;
  Bytes output_;
};

Napi::Value Queue(JpegWorker* worker) {
  Napi::Promise p = worker->Promise();
  worker->Queue();
  return p;
}

jpeg::Orientation OrientationArg(const Napi::Value& v) {
  if (!v.IsString()) BadArgument("orientation must be a string");
  const std::string s = v.As<Napi::String>().Utf8Value();
  static const std::pair<const char*, jpeg::Orientation> kNames[] = {
      {"ROTATE_0", jpeg::Orientation::kRotate0},     {"ROTATE_90", jpeg::Orientation::kRotate90},
      {"ROTATE_180", jpeg::Orientation::kRotate180}, {"ROTATE_270", jpeg::Orientation::kRotate270},
      {"FLIP_HORI", jpeg::Orientation::kFlipHori},   {"FLIP_VERT", jpeg::Orientation::kFlipVert},
  };
  for (const auto& [name, o] : kNames) {
    if (s == name) return o;
  }
  BadArgument("unknown orientation " + s);
}

// encodeJpeg({format, width, height, linesize?, data}, quality): Promise<Buffer>
Napi::Value EncodeJpeg(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const Napi::Object o = ObjectArg(info[0], "image");
    jpeg::ImageView img;
    const std::string name = StringOption(o, "format");
    const auto format = PixelFormatFromName(name.c_str());
    if (!format) BadArgument("unknown pixel format " + name);
    img.format = *format;
    img.width = U32Option(o, "width", 0);
    img.height = U32Option(o, "height", 0);
    img.linesize = jpeg::PackedLinesizes(img.format, img.width);
    const Napi::Value ls = o.Get("linesize");
    if (!ls.IsUndefined() && !ls.IsNull()) {
      if (!ls.IsArray()) BadArgument("linesize must be an array");
      const Napi::Array a = ls.As<Napi::Array>();
      if (a.Length() != std::uint32_t(PlaneCount(img.format)))
        BadArgument("linesize needs one entry per plane");
      for (std::uint32_t k = 0; k < a.Length(); ++k)
        img.linesize[k] = std::size_t(NumberArg(a.Get(k), "linesize"));
    }
    const Napi::Value data = o.Get("data");
    img.data = BufferArg(data, "data");
    const double q = info[1].IsUndefined() ? jpeg::kDefaultQuality : NumberArg(info[1], "quality");
    if (!(q >= 1 && q <= 100)) BadArgument("quality must be in 1..100");
    // Checked here, on the JS thread, so a bad size rejects before any work is queued.
    const PlaneLayout planes =
        PlaneLayoutWithStrides(img.format, img.width, img.height, img.linesize);
    if (img.data.size < planes.size) BadArgument("image data is shorter than its planes");
    const int quality = int(q);
    return Queue(new JpegWorker(info.Env(), "zmgate:jpeg-encode", data,
                                [img, quality] { return jpeg::Encode(img, quality); }));
  });
}

// transformJpeg(jpeg, orientation, edges: "trim" | "perfect"): Promise<Buffer>
Napi::Value TransformJpeg(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const ByteView input = BufferArg(info[0], "jpeg");
    const jpeg::Orientation orientation = OrientationArg(info[1]);
    jpeg::EdgeMode edges = jpeg::EdgeMode::kTrim;
    if (info[2].IsString() && info[2].As<Napi::String>().Utf8Value() == "perfect")
      edges = jpeg::EdgeMode::kPerfect;
    return Queue(new JpegWorker(
        info.Env(), "zmgate:jpeg-transform", info[0],
        [input, orientation, edges] { return jpeg::Transform(input, orientation, edges); }));
  });
}

// jpegHeader(jpeg): {width, height, subsampling, mcuWidth, mcuHeight}; throws ERR_ZM_JPEG_DECODE.
Napi::Value JpegHeader(const Napi::CallbackInfo& info) {
  return Guard(info.Env(), [&]() -> Napi::Value {
    const jpeg::Header h = jpeg::ReadHeader(BufferArg(info[0], "jpeg"));
    Napi::Object o = Napi::Object::New(info.Env());
    o.Set("width", h.width);
    o.Set("height", h.height);
    o.Set("subsampling", h.subsampling);
    o.Set("mcuWidth", h.mcu_width);
    o.Set("mcuHeight", h.mcu_height);
    return o;
  });
}

}  // namespace

void RegisterJpegFunctions(Napi::Env env, Napi::Object exports) {
  exports.Set("encodeJpeg", Napi::Function::New(env, EncodeJpeg, "encodeJpeg"));
  exports.Set("transformJpeg", Napi::Function::New(env, TransformJpeg, "transformJpeg"));
  exports.Set("jpegHeader", Napi::Function::New(env, JpegHeader, "jpegHeader"));
}

}  // namespace zm::js
