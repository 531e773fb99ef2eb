// JS class LlHlsPackager over zm::LlHlsPackager. Synchronous: a push costs about as much as a
// muxer push (one copy of the access unit), a part cut a few microseconds. Segments, parts and
// init segments reach JS as external Buffers sharing the packager's bytes (no copy per request);
// they must be treated as read-only.
#pragma once

#include <napi.h>

#include <memory>

#include "zm/ll_hls_packager.h"

namespace zm::js {

class LlHlsBinding : public Napi::ObjectWrap<LlHlsBinding> {
 public:
  static Napi::Function Define(Napi::Env env);

  // new LlHlsPackager(options)
  explicit LlHlsBinding(const Napi::CallbackInfo& info);

 private:
  Napi::Value Configure(const Napi::CallbackInfo& info);      // (video, audio|null)
  Napi::Value Discontinuity(const Napi::CallbackInfo& info);
  Napi::Value End(const Napi::CallbackInfo& info);
  Napi::Value PushVideo(const Napi::CallbackInfo& info);      // (ptsUs, keyframe, data, afterGap, nowUs) → flags
  Napi::Value PushAudio(const Napi::CallbackInfo& info);      // (ptsUs, data) → flags
  Napi::Value Get(const Napi::CallbackInfo& info);            // (name) → Buffer | null
  Napi::Value Available(const Napi::CallbackInfo& info);      // (msn, part) → boolean (part -1: segment)
  Napi::Value TooFarAhead(const Napi::CallbackInfo& info);    // (msn) → boolean
  Napi::Value Playlist(const Napi::CallbackInfo& info);       // (query) → string | null
  Napi::Value Master(const Napi::CallbackInfo& info);         // (query, mediaUri) → string | null
  Napi::Value Codecs(const Napi::CallbackInfo& info);
  Napi::Value Stats(const Napi::CallbackInfo& info);

  std::unique_ptr<LlHlsPackager> packager_;
};

// An external Buffer over shared bytes (null when empty); the Buffer keeps them alive.
Napi::Value SharedBuffer(Napi::Env env, const SharedBytes& bytes);

}  // namespace zm::js
