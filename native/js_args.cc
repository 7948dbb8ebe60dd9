#include "js_args.h"

#include <cmath>
#include <cstdio>

namespace fusebench::js {

std::string string_arg(const Napi::CallbackInfo& info, size_t i, const char* what) {
  if (info.Length() <= i || !info[i].IsString())
    throw Napi::TypeError::New(info.Env(), std::string("Expected a string for `") + what + "`");
  return info[i].As<Napi::String>().Utf8Value();
}

std::string describe(const Napi::Value& v) {
  if (v.IsString()) return "'" + v.As<Napi::String>().Utf8Value() + "'";
  // Objects' own toString is not called (it is user code, and may throw): their kind is enough here.
  if (v.IsObject()) return v.IsArray() ? "an array" : v.IsTypedArray() ? "a typed array" : "an object";
  if (v.IsSymbol()) return "a symbol";
  if (v.IsBigInt()) return v.ToString().Utf8Value() + "n (a BigInt)";
  return v.ToString().Utf8Value();  // a number, a boolean, null or undefined: no user code runs
}

std::string received(const Napi::CallbackInfo& info, size_t i) {
  return info.Length() <= i ? "nothing" : describe(info[i]);
}

std::vector<double> numbers_arg(const Napi::CallbackInfo& info, size_t i, const char* what) {
  const Napi::Env env = info.Env();
  if (info.Length() <= i || !info[i].IsArray())
    throw Napi::TypeError::New(env, std::string("Expected an array of numbers for `") + what + "`");
  const auto a = info[i].As<Napi::Array>();
  std::vector<double> out;
  for (uint32_t k = 0; k < a.Length(); ++k) {
    const Napi::Value v = a.Get(k);
    if (!v.IsNumber() || !std::isfinite(v.As<Napi::Number>().DoubleValue()))
      throw Napi::TypeError::New(env, std::string("Expected a finite number for `") + what + "[" + std::to_string(k) +
                                          "]` but received " + describe(v));
    out.push_back(v.As<Napi::Number>().DoubleValue());
  }
  return out;
}

std::vector<int64_t> dims_arg(const Napi::CallbackInfo& info, size_t i) {
  std::vector<int64_t> dims;
  const std::vector<double> values = numbers_arg(info, i, "dims");
  for (size_t k = 0; k < values.size(); ++k) {
    const double d = values[k];
    // 2^53: beyond it a double no longer holds every integer (and the cast to int64 is undefined past 2^63).
    if (d != std::floor(d) || d > 9007199254740992.0 || d < -9007199254740992.0) {
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", d);
      throw Napi::TypeError::New(info.Env(), "Expected an integer within ±2^53 for `dims[" + std::to_string(k) +
                                                 "]` but received " + text);
    }
    dims.push_back(static_cast<int64_t>(d));
  }
  return dims;
}

BackendKind backend_arg(const Napi::CallbackInfo& info, size_t i) {
  const std::string backend = string_arg(info, i, "backend");
  if (backend == "cpu") return BackendKind::Cpu;
  if (backend == "cuda") return BackendKind::Cuda;
  throw Napi::TypeError::New(info.Env(), "Expected 'cpu' or 'cuda' for `backend` but received '" + backend + "'");
}

Napi::Array buffer_list(Napi::Env env, const std::vector<BufferSpec>& buffers) {
  auto out = Napi::Array::New(env, buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    auto b = Napi::Object::New(env);
    b.Set("name", buffers[i].name);
    b.Set("count", static_cast<double>(buffers[i].count));
    b.Set("role", buffers[i].role == Role::Input ? "input" : buffers[i].role == Role::Output ? "output" : "scratch");
    b.Set("elem", elem_name(buffers[i].elem));
    b.Set("bytes", static_cast<double>(buffers[i].bytes));
    out.Set(static_cast<uint32_t>(i), b);
  }
  return out;
}

}  // namespace fusebench::js
