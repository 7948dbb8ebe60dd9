// Argument conversion shared by the JS-facing functions: JS types checked, values copied into plain
// C++ (ranges and meaning are TypeScript's to check), and buffer lists returned as plain objects.
#pragma once
#include <napi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "case_registry.h"

namespace fusebench::js {

// What a value is, for an error message, without running any of the caller's code: a number or boolean as
// JS writes it, a string in quotes, a BigInt with its n, else its kind ("an object", "a symbol").
std::string describe(const Napi::Value& v);
// describe(info[i]), or "nothing".
std::string received(const Napi::CallbackInfo& info, size_t i);
// info[i] as a string; throws "Expected a string for `what`".
std::string string_arg(const Napi::CallbackInfo& info, size_t i, const char* what);
// info[i] as an array of finite numbers; throws naming `what[k]` and the value received.
std::vector<double> numbers_arg(const Napi::CallbackInfo& info, size_t i, const char* what);
// info[i] as an array of integers within ±2^53.
std::vector<int64_t> dims_arg(const Napi::CallbackInfo& info, size_t i);
// info[i] as a backend name, 'cpu' or 'cuda'.
BackendKind backend_arg(const Napi::CallbackInfo& info, size_t i);
// [{name, count, role, elem}] of a case's buffers.
Napi::Array buffer_list(Napi::Env env, const std::vector<BufferSpec>& buffers);

}  // namespace fusebench::js
