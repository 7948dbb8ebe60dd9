// The CUDA backend's graphs (cuda_graph.h).
#include "cuda_graph.h"

#include <type_traits>
#include <vector>

#include "cuda/cuda_check.cuh"
#include "cuda/launch_pdl.cuh"

namespace fusebench {
namespace {

#if FB_PDL_GRAPHS
// Never launched: its attributes say which code this build's kernels run from (every .cu file is compiled
// for the same architectures).
__global__ void pdl_probe_kernel() {}
#endif

struct GraphDestroy {
  void operator()(cudaGraph_t g) const noexcept { cudaGraphDestroy(g); }
};
struct GraphExecDestroy {
  void operator()(cudaGraphExec_t g) const noexcept { cudaGraphExecDestroy(g); }
};
using Graph = std::unique_ptr<std::remove_pointer_t<cudaGraph_t>, GraphDestroy>;
using GraphExec = std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, GraphExecDestroy>;

// A CUDA graph of recorded launches, instantiated once, replayed on `stream`.
class CudaReplay final : public Replay {
 public:
  CudaReplay(GraphExec exec, cudaStream_t stream, GraphFacts facts)
      : exec_(std::move(exec)), stream_(stream), facts_(std::move(facts)) {}
  void replay() override { FB_CUDA_CHECK(cudaGraphLaunch(exec_.get(), stream_)); }
  const GraphFacts& facts() const override { return facts_; }

 private:
  GraphExec exec_;
  cudaStream_t stream_;
  GraphFacts facts_;
};

// "12.3" for 12030 (cudaRuntimeGetVersion's and cudaDriverGetVersion's encoding).
std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

#if FB_PDL_GRAPHS
// The graph's edges with their data (cudaGraphGetEdges_v2 from 12.3, renamed cudaGraphGetEdges in 13.0).
cudaError_t graph_edges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to, cudaGraphEdgeData* data,
                        size_t* count) {
#if CUDART_VERSION >= 13000
  return cudaGraphGetEdges(graph, from, to, data, count);
#else
  return cudaGraphGetEdges_v2(graph, from, to, data, count);
#endif
}
#endif

// The kernel nodes and programmatic edges of `graph` recorded with or without PDL.
GraphFacts graph_facts(cudaGraph_t graph, bool pdl, const std::string& no_pdl_reason) {
  GraphFacts f;
  size_t n = 0;
  FB_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &n));
  std::vector<cudaGraphNode_t> nodes(n);
  if (n > 0) FB_CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &n));
  for (size_t i = 0; i < n; ++i) {
    cudaGraphNodeType type{};
    FB_CUDA_CHECK(cudaGraphNodeGetType(nodes[i], &type));
    if (type == cudaGraphNodeTypeKernel) ++f.kernel_nodes;
  }
#if FB_PDL_GRAPHS
  size_t e = 0;
  FB_CUDA_CHECK(graph_edges(graph, nullptr, nullptr, nullptr, &e));
  std::vector<cudaGraphNode_t> from(e), to(e);
  std::vector<cudaGraphEdgeData> data(e);
  if (e > 0) FB_CUDA_CHECK(graph_edges(graph, from.data(), to.data(), data.data(), &e));
  f.programmatic_edges = 0;
  for (size_t i = 0; i < e; ++i)
    if (data[i].type == cudaGraphDependencyTypeProgrammatic) ++f.programmatic_edges;
#endif
  f.pdl = pdl && f.programmatic_edges > 0;
  if (!pdl) f.no_pdl_reason = no_pdl_reason;
  else if (!f.pdl) f.no_pdl_reason = "the recorded graph has no programmatic edge (none of the twin's launches goes with PDL)";
  return f;
}

}  // namespace

// Never throws: a query that fails is a reason not to use PDL, not a reason to refuse the backend.
std::string graph_pdl_unavailable(const cudaDeviceProp& props) {
#if !FB_PDL_GRAPHS
  (void)props;
  return "built with CUDA " + cuda_version(CUDART_VERSION) + ": recording PDL launches into a graph needs 12.3";
#else
  if (props.major < 9)
    return "compute capability " + std::to_string(props.major) + "." + std::to_string(props.minor) + ": PDL needs 9.0";
  int driver = 0;
  cudaError_t err = cudaDriverGetVersion(&driver);
  if (err != cudaSuccess) return std::string("the driver's version could not be read: ") + cudaGetErrorName(err);
  if (driver < 12030)
    return "the driver supports CUDA " + cuda_version(driver) + ": recording PDL launches into a graph needs 12.3";
  cudaFuncAttributes attrs{};
  err = cudaFuncGetAttributes(&attrs, pdl_probe_kernel);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return std::string("the kernels' attributes could not be read: ") + cudaGetErrorName(err);
  }
  if (attrs.ptxVersion < 90)
    return "the kernels run from code compiled for compute_" + std::to_string(attrs.ptxVersion) +
           " (their PDL wait needs sm_90)";
  return "";
#endif
}

std::unique_ptr<Replay> record_graph(cudaStream_t stream, const std::string& no_pdl_reason,
                                     const std::function<void(bool pdl)>& launches) {
  const bool pdl = no_pdl_reason.empty();
  // Thread-local capture mode: a CUDA call of another thread cannot join (or break) this capture.
  FB_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  cudaGraph_t graph = nullptr;
  try {
    launches(pdl);
  } catch (...) {
    cudaStreamEndCapture(stream, &graph);  // ends the capture; the graph, if any, is dropped
    if (graph != nullptr) cudaGraphDestroy(graph);
    cudaGetLastError();
    throw;
  }
  FB_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  const Graph owned(graph);
  GraphFacts facts = graph_facts(owned.get(), pdl, no_pdl_reason);
  cudaGraphExec_t exec = nullptr;
#if CUDART_VERSION >= 12000
  FB_CUDA_CHECK(cudaGraphInstantiate(&exec, owned.get(), 0));
#else
  FB_CUDA_CHECK(cudaGraphInstantiate(&exec, owned.get(), nullptr, nullptr, 0));
#endif
  return std::make_unique<CudaReplay>(GraphExec(exec), stream, std::move(facts));
}

}  // namespace fusebench
