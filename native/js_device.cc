#include <string>

#include "backend.h"
#include "case_registry.h"
#include "cpu_info.h"
#include "js_api.h"
#include "nvml.h"
#ifdef FUSEBENCH_WITH_CUDA
#include <cuda_runtime.h>

#include "cuda_device.h"
#endif

namespace fusebench::js {
namespace {

std::string string_arg(const Napi::CallbackInfo& info, size_t i, const char* what) {
  if (info.Length() <= i || !info[i].IsString())
    throw Napi::TypeError::New(info.Env(), std::string("Expected a string for `") + what + "`");
  return info[i].As<Napi::String>().Utf8Value();
}

}  // namespace

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
  out.Set("memoryBusWidthBits", d.memory_bus_width_bits);
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
  out.Set("temperatureC", s.temperature_c);
  out.Set("powerW", s.power_mw / 1000.0);
  return out;
}

Napi::Value cases(const Napi::CallbackInfo& info) {
  const auto& all = all_cases();
  auto out = Napi::Array::New(info.Env(), all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    auto c = Napi::Object::New(info.Env());
    c.Set("name", all[i].name);
    auto variants = Napi::Array::New(info.Env(), all[i].variants.size());
    for (size_t v = 0; v < all[i].variants.size(); ++v) variants.Set(static_cast<uint32_t>(v), all[i].variants[v]);
    c.Set("variants", variants);
    c.Set("dimCount", static_cast<double>(all[i].dim_count));
    c.Set("paramCount", static_cast<double>(all[i].param_count));
    out.Set(static_cast<uint32_t>(i), c);
  }
  return out;
}

}  // namespace fusebench::js
