// Shared Node-API helpers for the binding files: the ZmNativeError factory, the exception guard
// every entry point runs in, and defensive option readers (the TS facade validates first; these
// only stop a raw-binding caller from crashing the process).
#pragma once

#include <napi.h>

#include <cstdint>
#include <exception>
#include <string>

#include "zm/bytes.h"
#include "zm/error.h"

namespace zm::js {

// new ZmNativeError(message, code) once initialize() registered the class, else an Error with
// .code.
Napi::Error MakeError(Napi::Env env, const std::string& code, const std::string& message);

// Runs an entry point's body. node-addon-api converts only Napi::Error into a JS exception; any
// other exception escaping into Node would terminate the process, so translate here.
template <typename Body>
auto Guard(Napi::Env env, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const Napi::Error&) {
    throw;  // already a JS exception
  } catch (const zm::Error& e) {
    throw MakeError(env, e.code(), e.what());
  } catch (const std::exception& e) {
    throw MakeError(env, "ERR_ZM_NATIVE", e.what());
  } catch (...) {
    throw MakeError(env, "ERR_ZM_NATIVE", "unknown native exception");
  }
}

[[noreturn]] inline void BadArgument(const std::string& what) {
  throw zm::Error("ERR_ZM_ARG", what);
}

inline Napi::Object ObjectArg(const Napi::Value& v, const char* name) {
  if (!v.IsObject()) BadArgument(std::string(name) + " must be an object");
  return v.As<Napi::Object>();
}

inline ByteView BufferArg(const Napi::Value& v, const char* name) {
  if (!v.IsTypedArray()) BadArgument(std::string(name) + " must be a Buffer/Uint8Array");
  auto a = v.As<Napi::TypedArray>();
  if (a.TypedArrayType() != napi_uint8_array)
    BadArgument(std::string(name) + " must be a Uint8Array");
  auto u8 = v.As<Napi::Uint8Array>();
  return {u8.Data(), u8.ByteLength()};
}

inline double NumberArg(const Napi::Value& v, const char* name) {
  if (!v.IsNumber()) BadArgument(std::string(name) + " must be a number");
  return v.As<Napi::Number>().DoubleValue();
}

// An optional non-negative integer property; `fallback` when undefined.
inline std::uint32_t U32Option(const Napi::Object& o, const char* key, std::uint32_t fallback) {
  const Napi::Value v = o.Get(key);
  if (v.IsUndefined() || v.IsNull()) return fallback;
  const double d = NumberArg(v, key);
  if (!(d >= 0 && d <= 4294967295.0) || d != static_cast<double>(static_cast<std::uint64_t>(d))) {
    BadArgument(std::string(key) + " must be an integer in 0..2^32-1");
  }
  return static_cast<std::uint32_t>(d);
}

inline std::string StringOption(const Napi::Object& o, const char* key) {
  const Napi::Value v = o.Get(key);
  if (!v.IsString()) BadArgument(std::string(key) + " must be a string");
  return v.As<Napi::String>().Utf8Value();
}

inline Napi::Buffer<std::uint8_t> CopyBuffer(Napi::Env env, ByteView v) {
  return Napi::Buffer<std::uint8_t>::Copy(env, v.data, v.size);
}

// Hands a std::vector's bytes to JS without copying (the Buffer's finalizer frees them). Falls
// back to a copy where external buffers are not allowed.
inline Napi::Buffer<std::uint8_t> TakeBuffer(Napi::Env env, Bytes&& bytes) {
  if (bytes.empty()) return Napi::Buffer<std::uint8_t>::New(env, 0);
  auto* owned = new Bytes(std::move(bytes));
  return Napi::Buffer<std::uint8_t>::NewOrCopy(env, owned->data(), owned->size(),
                                               [owned](Napi::Env, std::uint8_t*) { delete owned; });
}

}  // namespace zm::js
