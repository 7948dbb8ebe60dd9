#include <cmath>
#include <string>

#include "backend.h"
#include "case_registry.h"
#include "common/constants.h"
#include "copy_probe.h"
#include "matmul_probe.h"
#include "cpu_info.h"
#include "js_api.h"
#include "js_args.h"
#include "nvml.h"
#ifdef FUSEBENCH_WITH_CUDA
#include <cuda_runtime.h>

#include "cuda_device.h"
#endif

namespace fusebench::js {
Napi::Value build_info(const Napi::CallbackInfo& info) {
  auto out = Napi::Object::New(info.Env());
  out.Set("cuda", cuda_built());
#ifdef FUSEBENCH_WITH_CUDA
  out.Set("cudaCompileVersion", CUDART_VERSION);
#ifdef FUSEBENCH_CUDA_ARCHS
  out.Set("cudaArchitectures", FUSEBENCH_CUDA_ARCHS);
#endif
#endif
#ifdef FUSEBENCH_WITH_CUBLAS
  out.Set("cublas", true);
#else
  out.Set("cublas", false);
#endif
  return out;
}

Napi::Value cuda_probe(const Napi::CallbackInfo& info) {
  auto out = Napi::Object::New(info.Env());
#ifdef FUSEBENCH_WITH_CUDA
  const CudaProbe probe = fusebench::cuda_probe();
  out.Set("deviceCount", probe.device_count);
  out.Set("error", probe.error);
#else
  out.Set("deviceCount", 0);
  out.Set("error", "the addon was built without CUDA");
#endif
  return out;
}

Napi::Value cpu_info(const Napi::CallbackInfo& info) {
  const CpuInfo cpu = read_cpu_info();
  auto out = Napi::Object::New(info.Env());
  out.Set("model", cpu.model);
  out.Set("logicalCores", cpu.logical_cores);
  out.Set("lastLevelCacheBytes", static_cast<double>(cpu.last_level_cache_bytes));
  out.Set("memoryBytes", static_cast<double>(cpu.memory_bytes));
  out.Set("availableMemoryBytes", static_cast<double>(cpu.available_bytes));
  return out;
}

Napi::Value cuda_device_info(const Napi::CallbackInfo& info) {
#ifdef FUSEBENCH_WITH_CUDA
  const CudaDeviceInfo d = read_cuda_device_info();
  auto out = Napi::Object::New(info.Env());
  out.Set("name", d.name);
  out.Set("uuid", d.uuid);
  out.Set("pciBusId", d.pci_bus_id);
  out.Set("computeCapability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor));
  out.Set("smCount", d.sm_count);
  out.Set("l2Bytes", static_cast<double>(d.l2_bytes));
  out.Set("memoryBytes", static_cast<double>(d.memory_bytes));
  out.Set("freeMemoryBytes", static_cast<double>(d.free_memory_bytes));
  out.Set("maxSharedMemoryPerBlock", static_cast<double>(d.shared_memory_per_block_optin));
  out.Set("driverApiVersion", d.driver_api_version);
  out.Set("runtimeVersion", d.runtime_version);
  return out;
#else
  throw Napi::Error::New(info.Env(), "the addon was built without CUDA");
#endif
}

Napi::Value nvml_info(const Napi::CallbackInfo& info) {
  const NvmlInfo n = fusebench::nvml_info(string_arg(info, 0, "pciBusId"));
  auto out = Napi::Object::New(info.Env());
  out.Set("available", n.available);
  out.Set("error", n.error);
  out.Set("driverVersion", n.driver_version);
  out.Set("maxSmClockMHz", n.max_sm_clock_mhz);
  out.Set("maxMemClockMHz", n.max_mem_clock_mhz);
  return out;
}

Napi::Value nvml_sample(const Napi::CallbackInfo& info) {
  const NvmlSample s = fusebench::nvml_sample(string_arg(info, 0, "pciBusId"));
  if (!s.available) return info.Env().Null();
  auto out = Napi::Object::New(info.Env());
  out.Set("smClockMHz", s.sm_clock_mhz);
  out.Set("memClockMHz", s.mem_clock_mhz);
  out.Set("clockEventReasons", static_cast<double>(s.clock_event_reasons));
  return out;
}

namespace {

// The bounds of the probes' counts (TypeScript checks them first; these refuse what a size_t or int cannot hold).
constexpr double kMaxCount = 9007199254740992.0;  // 2^53
constexpr double kMaxSamples = 1 << 20;
constexpr double kMaxMatmulSize = 1 << 16;

bool whole_in(double v, double lo, double hi) { return v >= lo && v <= hi && v == std::floor(v); }

// A JS array of one object per element of `items`, each filled by `fill(object, element)`.
template <class T, class Fill>
Napi::Array objects(Napi::Env env, const std::vector<T>& items, Fill fill) {
  auto a = Napi::Array::New(env, items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    auto o = Napi::Object::New(env);
    fill(o, items[i]);
    a.Set(static_cast<uint32_t>(i), o);
  }
  return a;
}

Napi::Array strings(Napi::Env env, const std::vector<std::string>& v) {
  auto a = Napi::Array::New(env, v.size());
  for (size_t i = 0; i < v.size(); ++i) a.Set(static_cast<uint32_t>(i), v[i]);
  return a;
}

}  // namespace

Napi::Value cases(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  return objects(env, all_cases(), [&](Napi::Object& c, const CaseSpec& s) {
    c.Set("name", s.name);
    c.Set("dims", strings(env, s.dims));
    c.Set("dtype", s.dtype);
    c.Set("params", objects(env, s.params, [](Napi::Object& o, const ParamSpec& p) {
            o.Set("name", p.name);
            o.Set("value", p.value);
          }));
    c.Set("variants", objects(env, s.variants, [](Napi::Object& o, const VariantSpec& v) {
            o.Set("name", v.name);
            o.Set("cpu", v.cpu);
            o.Set("cuda", v.cuda);
            o.Set("needs", v.needs == Needs::Cublas ? "cublas" : "");
            o.Set("sharedMemoryBytes", static_cast<double>(v.shared_memory));
            o.Set("minComputeCapability", v.min_compute_capability);
            o.Set("maxComputeCapability", v.max_compute_capability);
          }));
    c.Set("limits", objects(env, s.limits, [](Napi::Object& o, const LimitSpec& l) {
            o.Set("rule", l.rule);
            o.Set("why", l.why);
          }));
  });
}

Napi::Value check_shape(const Napi::CallbackInfo& info) {
  fusebench::check_shape(find_case(string_arg(info, 0, "caseName"), string_arg(info, 1, "dtype")), dims_arg(info, 2));
  return info.Env().Undefined();
}

Napi::Value case_buffers(const Napi::CallbackInfo& info) {
  const CaseSpec& spec = find_case(string_arg(info, 0, "caseName"), string_arg(info, 1, "dtype"));
  return buffer_list(info.Env(), sized_buffers(spec, dims_arg(info, 2), 0, ""));
}

Napi::Value copy_times(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  const BackendKind backend = backend_arg(info, 0);
  const std::vector<double> n = numbers_arg(info, 1, "countAndSamples");
  const std::string method = string_arg(info, 2, "method");
  if (n.size() != 2 || !whole_in(n[0], 1, kMaxCount) || !whole_in(n[1], 1, kMaxSamples))
    throw Napi::TypeError::New(env, "Expected [count, samples]: count an integer from 1 to 2^53, samples from 1 to "
                                    "1048576, for `countAndSamples`");
  if (method != "runtime" && method != "kernel")
    throw Napi::TypeError::New(env, "Expected 'runtime' or 'kernel' for `method` but received '" + method + "'");
  const auto times = fusebench::copy_times(backend, static_cast<size_t>(n[0]), static_cast<int>(n[1]),
                                           method == "runtime" ? CopyMethod::Runtime : CopyMethod::Kernel);
  auto out = Napi::Array::New(env, times.size());
  for (size_t i = 0; i < times.size(); ++i) out.Set(static_cast<uint32_t>(i), times[i]);
  return out;
}

Napi::Value matmul_times(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  const std::string dtype = string_arg(info, 0, "dtype");
  const std::vector<double> n = numbers_arg(info, 1, "sizeAndSamples");
  if (n.size() != 2 || !whole_in(n[0], 1, kMaxMatmulSize) || !whole_in(n[1], 1, kMaxSamples))
    throw Napi::TypeError::New(env, "Expected [size, samples]: size an integer from 1 to 65536, samples from 1 to "
                                    "1048576, for `sizeAndSamples`");
#ifdef FUSEBENCH_WITH_CUDA
  const auto times = fusebench::matmul_times(dtype, static_cast<size_t>(n[0]), static_cast<int>(n[1]));
  auto out = Napi::Array::New(env, times.size());
  for (size_t i = 0; i < times.size(); ++i) out.Set(static_cast<uint32_t>(i), times[i]);
  return out;
#else
  throw Napi::Error::New(env, "the addon was built without CUDA: no matrix throughput to measure");
#endif
}

Napi::Value constants(const Napi::CallbackInfo& info) {
  auto out = Napi::Object::New(info.Env());
  out.Set("geluSqrt2OverPi", kGeluSqrt2OverPi);
  out.Set("geluCubic", kGeluCubic);
  out.Set("headDim", static_cast<double>(kHeadDim));
  out.Set("attentionScale", kAttentionScale);
  out.Set("maxSeq", static_cast<double>(kMaxSeq));
  return out;
}

}  // namespace fusebench::js
