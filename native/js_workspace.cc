// The JS face of Workspace: `new Workspace(backend, caseName, dims, params, inject)`.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "js_api.h"
#include "workspace.h"

namespace fusebench::js {
namespace {

class JsWorkspace : public Napi::ObjectWrap<JsWorkspace> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Workspace",
                       {InstanceMethod("buffers", &JsWorkspace::Buffers), InstanceMethod("upload", &JsWorkspace::Upload),
                        InstanceMethod("download", &JsWorkspace::Download),
                        InstanceMethod("poison", &JsWorkspace::Poison), InstanceMethod("run", &JsWorkspace::Run),
                        InstanceMethod("time", &JsWorkspace::Time), InstanceMethod("dispose", &JsWorkspace::Dispose)});
  }

  explicit JsWorkspace(const Napi::CallbackInfo& info) : Napi::ObjectWrap<JsWorkspace>(info) {
    const Napi::Env env = info.Env();
    if (info.Length() < 5 || !info[0].IsString() || !info[1].IsString() || !info[2].IsArray() || !info[3].IsArray() ||
        !info[4].IsObject())
      throw Napi::TypeError::New(env, "Expected (backend: string, caseName: string, dims: number[], params: number[], "
                                      "options: {variant: number, passes: number, maxBlocks: number})");
    const std::string backend = info[0].As<Napi::String>().Utf8Value();
    BackendKind kind;
    if (backend == "cpu") kind = BackendKind::Cpu;
    else if (backend == "cuda") kind = BackendKind::Cuda;
    else throw Napi::TypeError::New(env, "Expected 'cpu' or 'cuda' for `backend` but received '" + backend + "'");
    auto numbers = [&](Napi::Array a, const char* what) {
      std::vector<double> out;
      for (uint32_t i = 0; i < a.Length(); ++i) {
        const Napi::Value v = a.Get(i);
        if (!v.IsNumber() || !std::isfinite(v.As<Napi::Number>().DoubleValue()))
          throw Napi::TypeError::New(env, std::string("Expected a finite number for `") + what + "[" +
                                              std::to_string(i) + "]` but received " + v.ToString().Utf8Value());
        out.push_back(v.As<Napi::Number>().DoubleValue());
      }
      return out;
    };
    std::vector<int64_t> dims;
    for (double d : numbers(info[2].As<Napi::Array>(), "dims")) {
      // 2^53: beyond it a double no longer holds every integer (and the cast to int64 is undefined past 2^63).
      if (d != std::floor(d) || d > 9007199254740992.0 || d < -9007199254740992.0)
        throw Napi::TypeError::New(env, "Expected integer dims but received " + std::to_string(d));
      dims.push_back(static_cast<int64_t>(d));
    }
    const std::vector<double> params = numbers(info[3].As<Napi::Array>(), "params");
    const auto opts = info[4].As<Napi::Object>();
    auto int_field = [&](const char* name) {
      const Napi::Value v = opts.Get(name);
      if (!v.IsNumber()) throw Napi::TypeError::New(env, std::string("Expected a number for `") + name + "`");
      return v.As<Napi::Number>().Int64Value();
    };
    Injection inject;
    inject.variant = static_cast<int>(int_field("variant"));
    inject.passes = static_cast<int>(int_field("passes"));
    WorkspaceOptions options;
    options.max_blocks = static_cast<size_t>(int_field("maxBlocks"));
    ws_ = std::make_unique<Workspace>(get_backend(kind), find_case(info[1].As<Napi::String>().Utf8Value()),
                                      std::move(dims), params, inject, options);
  }

 private:
  Workspace& ws(const Napi::Env& env) {
    if (!ws_) throw Napi::Error::New(env, "this Workspace was disposed");
    return *ws_;
  }
  static std::string name_arg(const Napi::CallbackInfo& info) {
    if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(info.Env(), "Expected a buffer name");
    return info[0].As<Napi::String>().Utf8Value();
  }
  static int variant_arg(const Napi::CallbackInfo& info) {
    if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(info.Env(), "Expected a variant index");
    return info[0].As<Napi::Number>().Int32Value();
  }

  Napi::Value Buffers(const Napi::CallbackInfo& info) {
    const auto& specs = ws(info.Env()).buffers();
    auto out = Napi::Array::New(info.Env(), specs.size());
    for (size_t i = 0; i < specs.size(); ++i) {
      auto b = Napi::Object::New(info.Env());
      b.Set("name", specs[i].name);
      b.Set("count", static_cast<double>(specs[i].count));
      b.Set("role", specs[i].role == Role::Input ? "input" : specs[i].role == Role::Output ? "output" : "scratch");
      out.Set(static_cast<uint32_t>(i), b);
    }
    return out;
  }
  Napi::Value Upload(const Napi::CallbackInfo& info) {
    const std::string name = name_arg(info);
    if (info.Length() < 2 || !info[1].IsTypedArray() ||
        info[1].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array)
      throw Napi::TypeError::New(info.Env(), "Expected a Float32Array for buffer '" + name + "'");
    auto data = info[1].As<Napi::Float32Array>();
    ws(info.Env()).upload(name, data.Data(), data.ElementLength());
    return info.Env().Undefined();
  }
  Napi::Value Download(const Napi::CallbackInfo& info) {
    const std::string name = name_arg(info);
    Workspace& w = ws(info.Env());
    size_t count = 0;
    for (const auto& b : w.buffers())
      if (b.name == name) count = b.count;
    auto out = Napi::Float32Array::New(info.Env(), count);
    w.download(name, out.Data(), count);
    return out;
  }
  Napi::Value Poison(const Napi::CallbackInfo& info) {
    ws(info.Env()).poison(name_arg(info));
    return info.Env().Undefined();
  }
  Napi::Value Run(const Napi::CallbackInfo& info) {
    ws(info.Env()).run(variant_arg(info));
    return info.Env().Undefined();
  }
  Napi::Value Time(const Napi::CallbackInfo& info) {
    const bool flush = info.Length() < 2 || info[1].ToBoolean().Value();
    return Napi::Number::New(info.Env(), ws(info.Env()).time(variant_arg(info), flush));
  }
  Napi::Value Dispose(const Napi::CallbackInfo& info) {
    ws_.reset();
    return info.Env().Undefined();
  }

  std::unique_ptr<Workspace> ws_;
};

}  // namespace

Napi::Function workspace_class(Napi::Env env) { return JsWorkspace::Define(env); }

}  // namespace fusebench::js
