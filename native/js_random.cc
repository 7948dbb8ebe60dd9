// fillNormal(out, seed, sd, mean, round) and roundFloats(data, elem): a case's seeded inputs, made and
// rounded natively (src/case/random.ts checks the values' ranges; this checks only their JS types).
#include <cstdint>
#include <string>

#include "js_api.h"
#include "js_args.h"
#include "random_fill.h"

namespace fusebench::js {
namespace {

Napi::Float32Array float32_arg(const Napi::CallbackInfo& info, size_t i, const char* what) {
  if (info.Length() <= i || !info[i].IsTypedArray() ||
      info[i].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array)
    throw Napi::TypeError::New(info.Env(), std::string("Expected a Float32Array for `") + what + "`");
  return info[i].As<Napi::Float32Array>();
}

Elem float_elem_arg(const Napi::CallbackInfo& info, size_t i) {
  const std::string name = string_arg(info, i, "elem");
  for (Elem e : {Elem::F32, Elem::BF16, Elem::F16})
    if (name == elem_name(e)) return e;
  throw Napi::TypeError::New(info.Env(), "Expected 'fp32', 'bf16' or 'fp16' for `elem` but received '" + name + "'");
}

}  // namespace

Napi::Value fill_normal(const Napi::CallbackInfo& info) {
  // The array's data and length are taken last: reading `args` can run JS (getters), which may detach it.
  const std::vector<double> args = numbers_arg(info, 1, "[seed, sd, mean]");
  if (args.size() != 3 || args[0] < 0 || args[0] > 4294967295.0 || args[0] != static_cast<double>(static_cast<uint32_t>(args[0])))
    throw Napi::TypeError::New(info.Env(), "Expected [seed (a 32-bit unsigned integer), sd, mean] but received " +
                                               std::to_string(args.size()) + " numbers, the first " +
                                               (args.empty() ? "none" : std::to_string(args[0])));
  const Elem elem = float_elem_arg(info, 2);
  auto out = float32_arg(info, 0, "out");
  fusebench::fill_normal(out.Data(), out.ElementLength(), static_cast<uint32_t>(args[0]), args[1], args[2], elem);
  return info.Env().Undefined();
}

Napi::Value round_floats(const Napi::CallbackInfo& info) {
  auto data = float32_arg(info, 0, "data");
  fusebench::round_floats(data.Data(), data.ElementLength(), float_elem_arg(info, 1));
  return info.Env().Undefined();
}

}  // namespace fusebench::js
