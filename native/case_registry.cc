#include "case_registry.h"

#include <algorithm>
#include <stdexcept>

#include "checked_size.h"

#include "common/dtype.h"

namespace fusebench {
namespace {

// Constructed on first use: cases register from static initializers in any order.
std::vector<CaseSpec>& registry() {
  static std::vector<CaseSpec> cases;
  return cases;
}

std::string shape_text(const CaseSpec& spec, const std::vector<int64_t>& dims) {
  std::string list, named;
  for (size_t i = 0; i < dims.size(); ++i) {
    list += (i ? ", " : "") + std::to_string(dims[i]);
    if (i < spec.dims.size()) named += (i ? ", " : "") + spec.dims[i] + " " + std::to_string(dims[i]);
  }
  return "shape [" + list + "]" + (named.empty() ? "" : " (" + named + ")");
}

std::string dim_names(const CaseSpec& spec) {
  std::string out;
  for (const auto& d : spec.dims) out += (out.empty() ? "" : ", ") + d;
  return out;
}

}  // namespace

size_t elem_bytes(Elem e) { return e == Elem::BF16 || e == Elem::F16 ? 2 : 4; }

const char* elem_name(Elem e) {
  switch (e) {
    case Elem::F32: return dtype_name<float>();
    case Elem::BF16: return dtype_name<bf16>();
    case Elem::F16: return dtype_name<fp16>();
    case Elem::U32: return "u32";
  }
  return "?";
}

bool register_case(CaseSpec spec) {
  auto& cases = registry();
  for (const auto& c : cases)
    if (c.name == spec.name && c.dtype == spec.dtype)
      throw std::logic_error("case '" + spec.name + "' is registered twice in " + spec.dtype);
  const auto at = std::upper_bound(cases.begin(), cases.end(), spec.name,
                                   [](const std::string& n, const CaseSpec& c) { return n < c.name; });
  cases.insert(at, std::move(spec));
  return true;
}

const std::vector<CaseSpec>& all_cases() { return registry(); }

const CaseSpec& find_case(const std::string& name, const std::string& dtype) {
  std::string valid, dtypes, last;
  for (const auto& c : all_cases()) {  // sorted by name: a case's precisions are adjacent
    if (c.name == name && c.dtype == dtype) return c;
    if (c.name == name) dtypes += (dtypes.empty() ? "" : ", ") + c.dtype;
    if (c.name != last) valid += (valid.empty() ? "" : ", ") + c.name;
    last = c.name;
  }
  if (!dtypes.empty()) throw std::invalid_argument(name + " has no " + dtype + " registration; it has: " + dtypes);
  throw std::invalid_argument("unknown case '" + name + "'; the addon has: " + valid);
}

void check_shape(const CaseSpec& spec, const std::vector<int64_t>& dims) {
  // The shape is checked, with the messages users see, in TypeScript (src/case/load.ts checkDims); this
  // only guards memory against a caller that skipped it: sizes are computed from positive dims only.
  bool positive = dims.size() == spec.dims.size();
  for (int64_t d : dims) positive = positive && d > 0;
  if (!positive)
    throw std::invalid_argument(spec.name + ": " + shape_text(spec, dims) + " is not " +
                                std::to_string(spec.dims.size()) + " positive dimensions (" + dim_names(spec) + ")");
  const int broken = spec.broken_limit(dims);
  if (broken >= 0) {
    const LimitSpec& l = spec.limits[static_cast<size_t>(broken)];
    throw std::invalid_argument(spec.name + ": " + shape_text(spec, dims) + " breaks the limit " + l.rule + ": " + l.why);
  }
}

std::string grouped(size_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::vector<BufferSpec> sized_buffers(const CaseSpec& spec, const std::vector<int64_t>& dims, size_t memory_limit,
                                      const std::string& memory_name) {
  check_shape(spec, dims);
  const std::string limit_text =
      memory_limit > 0 ? "; the limit is " + grouped(memory_limit) + " bytes, " + memory_name : "";
  std::vector<BufferSpec> buffers;
  try {
    buffers = spec.buffers(dims);  // the counts, in checked arithmetic (case_decl.h, checked_size.h)
  } catch (const std::overflow_error&) {
    throw std::invalid_argument(spec.name + ": " + shape_text(spec, dims) +
                                " needs a buffer of more than 2^64 elements" + limit_text);
  }
  Size total = 0;
  for (auto& b : buffers) {
    try {
      b.bytes = ((Size(b.count) * elem_bytes(b.elem) + 3) / 4 * 4).value();
      total = total + b.bytes;
    } catch (const std::overflow_error&) {
      throw std::invalid_argument(spec.name + ": " + shape_text(spec, dims) + " needs more than 2^64 bytes for buffer '" +
                                  b.name + "'" + limit_text);
    }
  }
  if (memory_limit > 0 && total.value() > memory_limit)
    throw std::invalid_argument(spec.name + ": " + shape_text(spec, dims) + " needs " + grouped(total.value()) +
                                " bytes of buffers" + limit_text);
  return buffers;
}

}  // namespace fusebench
