// JS class LlHlsPackager over zm::LlHlsPackager. Two ways in:
// - attach(client, onChange): a tap on a StreamClient's delivery queue feeds the packager on the
//   client's reader thread (LlHlsRecordFeed), so media never crosses into JS; JS is called back
//   (one ThreadSafeFunction call, coalesced) when a part, segment or init appears, and only
//   while setWake(true) says blocking requests are waiting.
// - configure()/pushVideo()/pushAudio()/discontinuity() from JS, for other sources and tests.
// Either way one mutex guards the packager. Segments, parts and init segments reach JS as
// external Buffers sharing the packager's bytes (no copy per request); treat them as read-only.
#pragma once

#include <napi.h>

#include <memory>

#include "env_cleanup_hook.h"
#include "zm/delivery_queue.h"
#include "zm/ll_hls_packager.h"

namespace zm::js {

class LlHlsBinding : public Napi::ObjectWrap<LlHlsBinding> {
 public:
  static Napi::Function Define(Napi::Env env);

  // new LlHlsPackager(options)
  explicit LlHlsBinding(const Napi::CallbackInfo& info);
  ~LlHlsBinding() override;

  struct Shared;  // the packager, its feed and the wake-up, shared with the reader thread

 private:
  Napi::Value Attach(const Napi::CallbackInfo& info);  // (rawStreamClient, onChange)
  Napi::Value Detach(const Napi::CallbackInfo& info);
  Napi::Value SetWake(const Napi::CallbackInfo& info);    // (on): call onChange at all?
  Napi::Value Configure(const Napi::CallbackInfo& info);  // (video, audio|null)
  Napi::Value Discontinuity(const Napi::CallbackInfo& info);
  Napi::Value End(const Napi::CallbackInfo& info);
  Napi::Value PushVideo(
      const Napi::CallbackInfo& info);  // (ptsUs, keyframe, data, afterGap, nowUs) → flags
  Napi::Value PushAudio(const Napi::CallbackInfo& info);  // (ptsUs, data) → flags
  Napi::Value Get(const Napi::CallbackInfo& info);        // (name) → Buffer | null
  Napi::Value Available(
      const Napi::CallbackInfo& info);  // (msn, part) → boolean (part -1: segment)
  Napi::Value TooFarAhead(const Napi::CallbackInfo& info);  // (msn) → boolean
  Napi::Value Playlist(const Napi::CallbackInfo& info);     // (query) → string | null
  Napi::Value Master(const Napi::CallbackInfo& info);       // (query, mediaUri) → string | null
  Napi::Value Codecs(const Napi::CallbackInfo& info);
  Napi::Value Stats(const Napi::CallbackInfo& info);

  void DetachNow();

  std::shared_ptr<Shared> shared_;
  std::weak_ptr<DeliveryQueue> queue_;  // of the attached StreamClient
  EnvCleanupHook cleanup_hook_{[this] { DetachNow(); }};
};

// An external Buffer over shared bytes (null when empty); the Buffer keeps them alive.
Napi::Value SharedBuffer(Napi::Env env, const SharedBytes& bytes);

}  // namespace zm::js
