// JS class Fmp4Muxer over zm::Fmp4Muxer. Synchronous by design: a push or a cut costs
// microseconds (one copy of the access unit), less than a thread hop would.
#pragma once

#include <napi.h>

#include <memory>

#include "zm/fmp4_muxer.h"

namespace zm::js {

// A track description as RawMuxTrack (src/native/binding.ts) has it; shared with the HLS packager.
MuxTrackConfig MuxTrackFromJs(const Napi::Object& o);

class Fmp4MuxerBinding : public Napi::ObjectWrap<Fmp4MuxerBinding> {
 public:
  static Napi::Function Define(Napi::Env env);

  // new Fmp4Muxer(tracks, originUs?)
  explicit Fmp4MuxerBinding(const Napi::CallbackInfo& info);

 private:
  Napi::Value AddSample(
      const Napi::CallbackInfo& info);  // (track, ptsUs, dtsUs|null, keyframe, data)
  Napi::Value InitReady(const Napi::CallbackInfo& info);
  Napi::Value InitSegment(const Napi::CallbackInfo& info);
  Napi::Value Cut(
      const Napi::CallbackInfo& info);  // (mode: "all"|"ready", endUs?) → fragment | null
  Napi::Value Info(const Napi::CallbackInfo& info);

  std::unique_ptr<Fmp4Muxer> muxer_;
};

}  // namespace zm::js
