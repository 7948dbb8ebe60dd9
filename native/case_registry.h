// The cases the addon can run. Each case registers itself once (cases/<name>/<name>_case.cc, through
// case_decl.h) with its dims, params, buffers, variants per backend and shape limits; the workspace,
// the JS description (`cases()`, `caseBuffers()`) and the shape check all read that registration.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backend.h"

namespace fusebench {

enum class Role { Input, Output, Scratch };

/** What a variant's CUDA path needs beyond the CUDA runtime. */
enum class Needs { Nothing, Cublas };

// How a buffer's elements are stored: a float type, or raw 32-bit words (counters, never uploaded).
enum class Elem { F32, BF16, F16, U32 };

struct BufferSpec {
  std::string name;
  size_t count;  // elements
  Role role;
  Elem elem;
  size_t bytes = 0;  // what the backend allocates: count · element bytes, rounded up to whole 4-byte words
};

// Bytes of one element of `e`.
size_t elem_bytes(Elem e);
// "fp32", "bf16", "fp16" or "u32".
const char* elem_name(Elem e);

struct ParamSpec {
  std::string name;
  double value;  // the value every run passes (the registration states it once)
};

struct VariantSpec {
  std::string name;
  bool cpu;   // has a CPU implementation
  bool cuda;  // has a CUDA implementation in this build
  Needs needs;
  size_t shared_memory;  // bytes of dynamic shared memory per block its CUDA kernels need
  int min_compute_capability;  // e.g. 80 when its CUDA kernels need sm_80 instructions; 0: any
  int max_compute_capability;  // e.g. 90 when its CUDA kernels are sm_90a code (no later GPU runs it); 0: no bound
};

struct LimitSpec {
  std::string rule;  // e.g. "m <= 8,388,480"
  std::string why;   // e.g. "fusebench's GEMM grid takes 65,535 tiles of 128 rows"
};

// One case bound to its dims, params and buffers: runs a variant on a backend. Built once per
// workspace, so a timed call does no argument marshalling before its first launch.
using BoundCase = std::function<void(BackendKind backend, size_t variant, const LaunchContext& ctx)>;

// A registered case in one precision, type-erased (case_decl.h builds it from a typed declaration).
struct CaseSpec {
  std::string name;
  std::string dtype;  // "fp32", "bf16" or "fp16": the precision of its tensors (kernels/common/dtype.h)
  std::vector<std::string> dims;
  std::vector<ParamSpec> params;
  std::vector<VariantSpec> variants;
  std::vector<LimitSpec> limits;
  std::function<std::vector<BufferSpec>(const std::vector<int64_t>& dims)> buffers;
  // Index of the first limit the dims break, or -1 when they break none.
  std::function<int(const std::vector<int64_t>& dims)> broken_limit;
  // Binds the case to dims, params and buffers (in the order of `buffers(dims)`).
  std::function<BoundCase(const std::vector<int64_t>& dims, const std::vector<double>& params,
                          const std::vector<void*>& buffers)>
      bind;
};

// Adds a case in one precision to the registry (at static initialization); throws on a duplicate name
// and precision. Returns true.
bool register_case(CaseSpec spec);
// Every registered case in every precision, sorted by name, then in registration order.
const std::vector<CaseSpec>& all_cases();
// Throws naming the valid cases when `name` is unknown, or its precisions when it lacks `dtype`.
const CaseSpec& find_case(const std::string& name, const std::string& dtype);
// Throws a clear error when `dims` has the wrong count, a non-positive dimension, or breaks a limit:
// "<case>: shape [8388481, 1, 4] (m 8388481, n 1, k 4) breaks the limit m <= 8,388,480: <why>".
void check_shape(const CaseSpec& spec, const std::vector<int64_t>& dims);
// The one place buffer sizes are computed: checks the shape, then every element count and byte size in
// checked arithmetic, and their total against `memory_limit` bytes (0: no limit) of `memory_name`
// (e.g. "the CPU backend's memory"). Throws naming the shape and the limit, before anything is allocated.
std::vector<BufferSpec> sized_buffers(const CaseSpec& spec, const std::vector<int64_t>& dims, size_t memory_limit,
                                      const std::string& memory_name);
// `n` with thousands separators: 12,884,901,888.
std::string grouped(size_t n);

}  // namespace fusebench
