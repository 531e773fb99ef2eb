// JS class Mp4File over zm::Mp4Demuxer + zm::Mp4Vod. Everything that touches the disk (open =
// reading the index, sample reads, VOD/remux segments) runs in an AsyncWorker on the libuv pool,
// so the event loop never waits on I/O. The index is immutable once open, so concurrent requests
// on one file run in parallel (pread); each worker holds its own reference, so close() during a
// request is safe.
#pragma once

#include <napi.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "zm/mp4_demuxer.h"
#include "zm/mp4_vod.h"

namespace zm::js {

class Mp4FileBinding : public Napi::ObjectWrap<Mp4FileBinding> {
 public:
  static Napi::Function Define(Napi::Env env);

  // new Mp4File(); then open(path)
  explicit Mp4FileBinding(const Napi::CallbackInfo& info);

 private:
  Napi::Value Open(const Napi::CallbackInfo& info);         // (path) → Promise<void>
  Napi::Value Info(const Napi::CallbackInfo& info);         // tracks, flags, vod summary
  Napi::Value SampleTable(const Napi::CallbackInfo& info);  // typed arrays, decode order
  Napi::Value ReadSample(const Napi::CallbackInfo& info);   // (track, index) → Promise<Buffer>
  Napi::Value VodPlan(const Napi::CallbackInfo& info);      // (targetUs) → segments
  Napi::Value VodInit(const Napi::CallbackInfo& info);      // → Buffer
  Napi::Value VodSegment(const Napi::CallbackInfo& info);   // (targetUs, index) → Promise<Buffer>
  Napi::Value Close(const Napi::CallbackInfo& info);

  const Mp4Demuxer& demuxer() const;
  const Mp4Vod& vod() const;
  std::shared_ptr<const std::vector<zm::VodSegment>> Plan(std::int64_t target_us);

  std::shared_ptr<const Mp4Demuxer> demuxer_;
  std::shared_ptr<const Mp4Vod> vod_;
  std::string vod_error_code_, vod_error_;
  std::map<std::int64_t, std::shared_ptr<const std::vector<zm::VodSegment>>>
      plans_;  // a few targets
  bool opening_ = false;
};

}  // namespace zm::js
