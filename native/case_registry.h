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

struct BufferSpec {
  std::string name;
  size_t count;  // elements
  Role role;
};

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
};

struct LimitSpec {
  std::string rule;  // e.g. "k % 4 == 0"
  std::string why;   // e.g. "the fused GEMM loads 16-byte vectors (4 floats) along k"
};

// One case bound to its dims, params and buffers: runs a variant on a backend. Built once per
// workspace, so a timed call does no argument marshalling before its first launch.
using BoundCase = std::function<void(BackendKind backend, size_t variant, const LaunchContext& ctx)>;

// A registered case, type-erased (case_decl.h builds it from a typed declaration).
struct CaseSpec {
  std::string name;
  std::vector<std::string> dims;
  std::vector<ParamSpec> params;
  std::vector<VariantSpec> variants;
  std::vector<LimitSpec> limits;
  std::vector<std::string> dtypes;
  std::function<std::vector<BufferSpec>(const std::vector<int64_t>& dims)> buffers;
  // Index of the first limit the dims break, or -1 when they break none.
  std::function<int(const std::vector<int64_t>& dims)> broken_limit;
  // Binds the case to dims, params and buffers (in the order of `buffers(dims)`).
  std::function<BoundCase(const std::vector<int64_t>& dims, const std::vector<double>& params,
                          const std::vector<float*>& buffers)>
      bind;
};

// Adds a case to the registry (at static initialization); throws on a duplicate name. Returns true.
bool register_case(CaseSpec spec);
// Every registered case, sorted by name.
const std::vector<CaseSpec>& all_cases();
// Throws naming the valid cases when `name` is unknown.
const CaseSpec& find_case(const std::string& name);
// Throws a clear error when `dims` has the wrong count, a non-positive dimension, or breaks a limit:
// "<case>: shape [5, 7, 6] (m 5, n 7, k 6) breaks the limit k % 4 == 0: <why>".
void check_shape(const CaseSpec& spec, const std::vector<int64_t>& dims);

}  // namespace fusebench
