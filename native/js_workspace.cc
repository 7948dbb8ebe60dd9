// The JS face of Workspace: `new Workspace(backend, caseName, dtype, dims, params, options)`.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "js_api.h"
#include "js_args.h"
#include "workspace.h"

namespace fusebench::js {
namespace {

// The longest injected spin: 2^40 cycles or nanoseconds (minutes), far past any kernel's time.
constexpr int64_t kMaxSpin = int64_t{1} << 40;

class JsWorkspace : public Napi::ObjectWrap<JsWorkspace> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Workspace",
                       {InstanceMethod("buffers", &JsWorkspace::Buffers), InstanceMethod("upload", &JsWorkspace::Upload),
                        InstanceMethod("download", &JsWorkspace::Download),
                        InstanceMethod("poison", &JsWorkspace::Poison), InstanceMethod("run", &JsWorkspace::Run),
                        InstanceMethod("time", &JsWorkspace::Time), InstanceMethod("timeBatch", &JsWorkspace::TimeBatch),
                        InstanceMethod("timeGraph", &JsWorkspace::TimeGraph),
                        InstanceMethod("graphFacts", &JsWorkspace::GraphFactsOf),
                        InstanceMethod("setSpin", &JsWorkspace::SetSpin),
                        InstanceMethod("dispose", &JsWorkspace::Dispose)});
  }

  explicit JsWorkspace(const Napi::CallbackInfo& info) : Napi::ObjectWrap<JsWorkspace>(info) {
    const Napi::Env env = info.Env();
    if (info.Length() < 6 || !info[0].IsString() || !info[1].IsString() || !info[2].IsString() || !info[3].IsArray() ||
        !info[4].IsArray() || !info[5].IsObject())
      throw Napi::TypeError::New(env, "Expected (backend: string, caseName: string, dtype: string, dims: number[], "
                                      "params: number[], options: {variant: number, passes: number, spin: number, "
                                      "maxBlocks: number})");
    const BackendKind kind = backend_arg(info, 0);
    const std::vector<int64_t> dims = dims_arg(info, 3);
    const std::vector<double> params = numbers_arg(info, 4, "params");
    const auto opts = info[5].As<Napi::Object>();
    // Whole numbers within [lo, hi]; TypeScript checks the meaning, this only refuses what a C++ int cannot hold.
    auto int_field = [&](const char* name, int64_t lo, int64_t hi) {
      const Napi::Value v = opts.Get(name);
      const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
      if (!(d >= static_cast<double>(lo) && d <= static_cast<double>(hi)) || d != std::floor(d))
        throw Napi::TypeError::New(env, std::string("Expected an integer from ") + std::to_string(lo) + " to " +
                                            std::to_string(hi) + " for `" + name + "` but received " +
                                            describe(v));
      return static_cast<int64_t>(d);
    };
    Injection inject;
    inject.variant = static_cast<int>(int_field("variant", -1, 1 << 20));
    inject.passes = static_cast<int>(int_field("passes", 0, 1 << 20));
    inject.spin = static_cast<uint64_t>(int_field("spin", 0, kMaxSpin));
    WorkspaceOptions options;
    options.max_blocks = static_cast<size_t>(int_field("maxBlocks", 0, int64_t{1} << 31));
    const CaseSpec& spec = find_case(info[1].As<Napi::String>().Utf8Value(), info[2].As<Napi::String>().Utf8Value());
    ws_ = std::make_unique<Workspace>(get_backend(kind), spec, dims, params, inject, options);
  }

 private:
  Workspace& ws(const Napi::Env& env) {
    if (!ws_) throw Napi::Error::New(env, "this Workspace was disposed");
    return *ws_;
  }
  static std::string name_arg(const Napi::CallbackInfo& info) {
    if (info.Length() < 1 || !info[0].IsString())
      throw Napi::TypeError::New(info.Env(), "Expected a buffer name (a string) but received " + received(info, 0));
    return info[0].As<Napi::String>().Utf8Value();
  }
  static int variant_arg(const Napi::CallbackInfo& info) {
    const double v = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().DoubleValue() : -1;
    // Checked here, not coerced: Int32Value made 2^32, NaN and 1.5 variant 0 (the workspace checks the count).
    if (!(v >= 0 && v < 1 << 30) || v != std::floor(v))
      throw Napi::TypeError::New(info.Env(), "Expected a variant index (an integer from 0) but received " + received(info, 0));
    return static_cast<int>(v);
  }

  Napi::Value Buffers(const Napi::CallbackInfo& info) { return buffer_list(info.Env(), ws(info.Env()).buffers()); }
  Napi::Value Upload(const Napi::CallbackInfo& info) {
    const std::string name = name_arg(info);
    if (info.Length() < 2 || !info[1].IsTypedArray() ||
        info[1].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array)
      throw Napi::TypeError::New(info.Env(), "Expected a Float32Array for buffer '" + name + "'");
    auto data = info[1].As<Napi::Float32Array>();
    ws(info.Env()).upload(name, data.Data(), data.ElementLength());
    return info.Env().Undefined();
  }
  // download(name, out): into the caller's Float32Array of the buffer's length. JS allocates it (a failure is a
  // RangeError there, and V8 frees it as it frees any array), so nothing the addon hands back waits for a
  // finalizer that Node runs only once the event loop turns.
  Napi::Value Download(const Napi::CallbackInfo& info) {
    const std::string name = name_arg(info);
    Workspace& w = ws(info.Env());
    if (info.Length() < 2 || !info[1].IsTypedArray() ||
        info[1].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array)
      throw Napi::TypeError::New(info.Env(), "Expected a Float32Array to download buffer '" + name + "' into");
    auto out = info[1].As<Napi::Float32Array>();
    w.download(name, out.Data(), out.ElementLength());
    return info.Env().Undefined();
  }
  Napi::Value Poison(const Napi::CallbackInfo& info) {
    ws(info.Env()).poison(name_arg(info));
    return info.Env().Undefined();
  }
  Napi::Value Run(const Napi::CallbackInfo& info) {
    const std::string kernel = ws(info.Env()).run(variant_arg(info));
    return kernel.empty() ? info.Env().Undefined() : Napi::String::New(info.Env(), kernel);
  }
  Napi::Value Time(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), ws(info.Env()).time(variant_arg(info)));
  }
  Napi::Value TimeBatch(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), ws(info.Env()).time_batch(variant_arg(info), calls_arg(info)));
  }
  Napi::Value TimeGraph(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), ws(info.Env()).time_graph(variant_arg(info), calls_arg(info)));
  }
  // {pdl, kernelNodes, programmaticEdges?, noPdlReason?} of the graph timeGraph recorded (GraphFacts).
  Napi::Value GraphFactsOf(const Napi::CallbackInfo& info) {
    const Napi::Env env = info.Env();
    const GraphFacts& f = ws(env).graph_facts(variant_arg(info), calls_arg(info));
    Napi::Object out = Napi::Object::New(env);
    out.Set("pdl", Napi::Boolean::New(env, f.pdl));
    out.Set("kernelNodes", Napi::Number::New(env, f.kernel_nodes));
    if (f.programmatic_edges >= 0) out.Set("programmaticEdges", Napi::Number::New(env, f.programmatic_edges));
    if (!f.no_pdl_reason.empty()) out.Set("noPdlReason", Napi::String::New(env, f.no_pdl_reason));
    return out;
  }
  static int calls_arg(const Napi::CallbackInfo& info) {
    const double calls = info.Length() > 1 && info[1].IsNumber() ? info[1].As<Napi::Number>().DoubleValue() : -1;
    if (!(calls >= 1 && calls <= 1 << 20) || calls != std::floor(calls))
      throw Napi::TypeError::New(info.Env(),
                                 "Expected an integer from 1 to 1048576 for `calls` but received " + received(info, 1));
    return static_cast<int>(calls);
  }
  Napi::Value SetSpin(const Napi::CallbackInfo& info) {
    const double spin = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().DoubleValue() : -1;
    if (!(spin >= 0 && spin <= static_cast<double>(kMaxSpin)) || spin != std::floor(spin))
      throw Napi::TypeError::New(info.Env(), "Expected an integer from 0 to 2^40 for `spin` but received " + received(info, 0));
    ws(info.Env()).set_spin(static_cast<uint64_t>(spin));
    return info.Env().Undefined();
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
