// The functions addon.cc registers. Each converts JS arguments into plain C++ values (checking
// only their JS types), calls the work, and returns plain data.
#pragma once
#include <napi.h>

namespace fusebench::js {

Napi::Value build_info(const Napi::CallbackInfo& info);
Napi::Value cuda_probe(const Napi::CallbackInfo& info);
Napi::Value cpu_info(const Napi::CallbackInfo& info);
Napi::Value cuda_device_info(const Napi::CallbackInfo& info);
Napi::Value nvml_info(const Napi::CallbackInfo& info);
Napi::Value nvml_sample(const Napi::CallbackInfo& info);
Napi::Value cases(const Napi::CallbackInfo& info);
Napi::Value check_shape(const Napi::CallbackInfo& info);
Napi::Value case_buffers(const Napi::CallbackInfo& info);
Napi::Value copy_times(const Napi::CallbackInfo& info);
Napi::Value matmul_times(const Napi::CallbackInfo& info);
Napi::Value constants(const Napi::CallbackInfo& info);
Napi::Value fill_normal(const Napi::CallbackInfo& info);
Napi::Value round_floats(const Napi::CallbackInfo& info);
Napi::Value linear_row(const Napi::CallbackInfo& info);
Napi::Value first_non_finite(const Napi::CallbackInfo& info);
Napi::Function workspace_class(Napi::Env env);

}  // namespace fusebench::js
