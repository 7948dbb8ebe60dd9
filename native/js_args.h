// Argument conversion shared by the JS-facing functions: JS types checked, values copied into plain
// C++ (ranges and meaning are TypeScript's to check), and buffer lists returned as plain objects.
#pragma once
#include <napi.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "case_registry.h"

namespace fusebench::js {

// What info[i] is, for an error message: its JS string (ToString, quotes around a string), or "nothing".
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

// A new typed array of n elements, its memory allocated here: a failed allocation throws a JS error naming
// `what` and the bytes, where V8's own (TypedArray::New) would end the process ("Allocation failed").
template <class T>
Napi::TypedArrayOf<T> new_typed_array(const Napi::Env& env, size_t n, const std::string& what) {
  if (n > SIZE_MAX / sizeof(T))
    throw Napi::RangeError::New(env, what + ": " + std::to_string(n) + " elements are more bytes than this host has");
  const size_t bytes = n * sizeof(T);
  void* data = std::malloc(bytes > 0 ? bytes : 1);
  if (data == nullptr)
    throw Napi::Error::New(env, what + ": allocating " + std::to_string(bytes) + " bytes of host memory failed");
  Napi::ArrayBuffer buffer;
  try {
    buffer = Napi::ArrayBuffer::New(env, data, bytes, [](Napi::Env, void* d) { std::free(d); });
  } catch (...) {
    std::free(data);  // not handed to V8: its finalizer will not run
    throw;
  }
  return Napi::TypedArrayOf<T>::New(env, n, buffer, 0);
}

}  // namespace fusebench::js
