// The cases the addon can run: for each, its variants, the buffers a shape needs, and how to run
// one variant on a backend. Shapes and parameters arrive already validated by TypeScript.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backend.h"

namespace fusebench {

enum class Role { Input, Output, Scratch };

struct BufferSpec {
  std::string name;
  size_t count;  // floats
  Role role;
};

struct CaseCall {
  BackendKind backend;
  int variant;
  const std::vector<float*>& buffers;  // in the order of the case's BufferSpecs
  const std::vector<int64_t>& dims;
  const std::vector<double>& params;
  const LaunchContext& ctx;
};

struct CaseSpec {
  std::string name;
  std::vector<std::string> variants;
  size_t dim_count;
  size_t param_count;
  std::vector<BufferSpec> (*buffers)(const std::vector<int64_t>& dims);
  void (*run)(const CaseCall& call);
};

const std::vector<CaseSpec>& all_cases();
// Throws naming the valid cases when `name` is unknown.
const CaseSpec& find_case(const std::string& name);

}  // namespace fusebench
