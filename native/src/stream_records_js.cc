#include "stream_records_js.h"

#include <string>
#include <type_traits>

#include "js_support.h"
#include "zm/stream_messages.h"

namespace zm::js {

namespace {

const char* StreamName(StreamKind s) { return s == StreamKind::kVideo ? "video" : "audio"; }

Napi::Array BufferList(Napi::Env env, const std::vector<Bytes>& list) {
  Napi::Array a = Napi::Array::New(env, list.size());
  for (std::size_t i = 0; i < list.size(); ++i) a.Set(std::uint32_t(i), CopyBuffer(env, list[i]));
  return a;
}

Napi::Object ToJs(Napi::Env env, CodecRecord& r) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("type", "codec");
  o.Set("stream", StreamName(r.stream));
  o.Set("generation", r.generation);
  o.Set("inBand", r.in_band);
  o.Set("codec", CodecInfoToJs(env, *r.codec));
  return o;
}

Napi::Object ToJs(Napi::Env env, MediaRecord& r) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("type", "media");
  o.Set("stream", StreamName(r.stream));
  o.Set("sequence", r.header.sequence);
  o.Set("generation", r.header.generation);
  // Microseconds stay exact in a double up to 2^53 µs (285 years).
  o.Set("ptsUs", double(r.header.pts_us));
  o.Set("keyframe", r.header.keyframe() || r.cached);
  o.Set("cached", r.cached);
  o.Set("gap", r.gap);
  std::uint8_t* data = r.payload.data.release();
  const std::size_t size = r.payload.size;
  if (size == 0) {
    delete[] data;
    o.Set("data", Napi::Buffer<std::uint8_t>::New(env, 0));
  } else {
    o.Set("data", Napi::Buffer<std::uint8_t>::NewOrCopy(
                      env, data, size, [](Napi::Env, std::uint8_t* p) { delete[] p; }));
  }
  return o;
}

Napi::Object ToJs(Napi::Env env, StatsRecord& r) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("type", "stats");
  o.Set("messagesSent", double(r.stats.messages_sent));
  o.Set("messagesDropped", double(r.stats.messages_dropped));
  return o;
}

Napi::Object ToJs(Napi::Env env, ByeRecord&) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("type", "bye");
  return o;
}

Napi::Object ToJs(Napi::Env env, EventRecord& r) {
  const EventInfo& e = r.event;
  Napi::Object o = Napi::Object::New(env);
  o.Set("type", "event");
  o.Set("sequence", r.sequence);
  o.Set("generation", r.generation);
  o.Set("code", e.code);
  o.Set("name", EventCodeName(e.code));
  if (e.wall_clock_us) o.Set("wallClockUs", double(*e.wall_clock_us));
  if (e.message) o.Set("message", *e.message);
  if (e.state_id) o.Set("stateId", *e.state_id);
  if (e.prev_state_id) o.Set("prevStateId", *e.prev_state_id);
  if (e.detail) o.Set("detail", *e.detail);
  if (e.state_name) o.Set("stateName", *e.state_name);
  if (e.health_code) o.Set("healthCode", std::uint32_t(*e.health_code));
  if (e.json_detail) o.Set("jsonDetail", *e.json_detail);
  return o;
}

Napi::Object ToJs(Napi::Env env, GenerationRecord& r) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("type", "generation");
  o.Set("previous", r.previous);
  o.Set("current", r.current);
  return o;
}

Napi::Object ToJs(Napi::Env env, ConnectedRecord& r) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("type", "connected");
  o.Set("attempt", r.attempt);
  return o;
}

Napi::Object ToJs(Napi::Env env, DisconnectedRecord& r) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("type", "disconnected");
  o.Set("reason", r.reason);
  if (!r.code.empty()) o.Set("code", r.code);
  o.Set("message", r.message);
  o.Set("retryMs", r.retry_ms);
  o.Set("attempt", r.attempt);
  return o;
}

}  // namespace

Napi::Object CodecInfoToJs(Napi::Env env, const CodecInfo& info) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("codecId", info.codec_id);
  o.Set("codec", CodecName(info.codec));
  o.Set("codecString", info.codec_string);
  o.Set("width", info.width);
  o.Set("height", info.height);
  o.Set("fpsNum", info.fps_num);
  o.Set("fpsDen", info.fps_den);
  o.Set("sampleRate", info.sample_rate);
  o.Set("channels", info.channels);
  o.Set("profile", double(info.profile));
  o.Set("level", double(info.level));
  o.Set("bitDepth", info.bit_depth);
  o.Set("reorderDepth", info.reorder_depth);
  o.Set("fromBitstream", info.from_bitstream);
  o.Set("extradata", CopyBuffer(env, info.extradata));
  Napi::Object sets = Napi::Object::New(env);
  sets.Set("vps", BufferList(env, info.parameter_sets.vps));
  sets.Set("sps", BufferList(env, info.parameter_sets.sps));
  sets.Set("pps", BufferList(env, info.parameter_sets.pps));
  o.Set("parameterSets", sets);
  return o;
}

Napi::Array RecordsToJs(Napi::Env env, std::vector<Record>&& records) {
  Napi::Array out = Napi::Array::New(env, records.size());
  std::uint32_t i = 0;
  for (Record& r : records) {
    out.Set(i++, std::visit([&](auto& rec) { return ToJs(env, rec); }, r));
  }
  return out;
}

}  // namespace zm::js
