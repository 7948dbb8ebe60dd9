// Registers the addon's functions. Nothing else lives here.
#include <napi.h>

#include "js_api.h"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  using namespace fusebench::js;
  exports.Set("buildInfo", Napi::Function::New(env, build_info, "buildInfo"));
  exports.Set("cudaProbe", Napi::Function::New(env, cuda_probe, "cudaProbe"));
  exports.Set("cpuInfo", Napi::Function::New(env, cpu_info, "cpuInfo"));
  exports.Set("cudaDeviceInfo", Napi::Function::New(env, cuda_device_info, "cudaDeviceInfo"));
  exports.Set("nvmlInfo", Napi::Function::New(env, nvml_info, "nvmlInfo"));
  exports.Set("nvmlSample", Napi::Function::New(env, nvml_sample, "nvmlSample"));
  exports.Set("cases", Napi::Function::New(env, cases, "cases"));
  exports.Set("checkShape", Napi::Function::New(env, check_shape, "checkShape"));
  exports.Set("caseBuffers", Napi::Function::New(env, case_buffers, "caseBuffers"));
  exports.Set("copyTimes", Napi::Function::New(env, copy_times, "copyTimes"));
  exports.Set("matmulTimes", Napi::Function::New(env, matmul_times, "matmulTimes"));
  exports.Set("constants", Napi::Function::New(env, constants, "constants"));
  exports.Set("fillNormal", Napi::Function::New(env, fill_normal, "fillNormal"));
  exports.Set("roundFloats", Napi::Function::New(env, round_floats, "roundFloats"));
  exports.Set("linearRow", Napi::Function::New(env, linear_row, "linearRow"));
  exports.Set("firstNonFinite", Napi::Function::New(env, first_non_finite, "firstNonFinite"));
  exports.Set("Workspace", workspace_class(env));
  return exports;
}

}  // namespace

NODE_API_MODULE(fusebench, Init)
