// The three arms of the gpt2_decode case on a GPU machine, outside the harness: the unfused twin (149
// launches), the same launches replayed from a CUDA graph, and the fused persistent kernel; checks that
// fused and unfused agree (logits and the K/V rows written at pos). A measuring tool for the case's
// notes (docs/gpt2-decode.md), not a benchmark of record: the harness measures the case.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -DFUSEBENCH_WITH_CUDA -DFUSEBENCH_WITH_CUBLAS -I kernels -I native \
//     -I cases/gpt2_decode scripts/device/gpt2-decode-bench.cu cases/gpt2_decode/gpt2_decode_{fused,unfused}.cu \
//     kernels/cuda/{cublas_ops,elementwise_blocks,norm_blocks}.cu -lcublas -lcublasLt -o gpt2-decode-bench
//   ./gpt2-decode-bench [bf16|fp16|fp32] [small] [reps] [max_blocks]
//
// Built with -DGPT2_DECODE_STAGE_TIMES as well, it prints what each stage of the fused kernel costs
// (global-timer stamps per block; run-gpt2-decode.sh `stages`); with -DGPT2_DECODE_FUSED_ONLY too, that
// table alone, built from the bench and the fused kernel only (no cuBLAS).
//
// GPT-2 small with 511 tokens cached by default; `small` is the test configuration (2 layers, hidden 128).
// Each timed call follows a pass that writes one 256 MiB buffer (L2 holds no weights), arms interleaved
// call by call; the median of `reps` (default 51). max_blocks caps the fused grid (for compute-sanitizer).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/cuda_check.cuh"
#include "gpt2_decode.h"

using namespace fusebench;
using kernels::Gpt2DecodeArgs;

namespace {

__global__ void fill_kernel(float* tmp, size_t n, unsigned seed, float sd, float mean) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed * 2246822519u ^ static_cast<unsigned>(i >> 32) * 3266489917u;
    h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16;
    unsigned g = h * 668265263u + 374761393u;
    g ^= g >> 15; g *= 2246822519u; g ^= g >> 13;
    const float u1 = (h + 1.f) * 2.3283064e-10f, u2 = g * 2.3283064e-10f;
    tmp[i] = mean + sd * sqrtf(-2.f * logf(u1)) * cospif(2.f * u2);
  }
}
template <class T>
__global__ void to_t_kernel(const float* src, T* dst, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    dst[i] = from_float<T>(src[i]);
}
template <class T>
__global__ void to_float_kernel(const T* src, float* dst, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    dst[i] = to_float(src[i]);
}

struct Config {
  size_t layers, hidden, heads, f, vocab, ctx, pos, token;
};

std::vector<void*> g_allocations;
template <class E>
E* alloc(size_t n) {
  void* p = nullptr;
  FB_CUDA_CHECK(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(E)));
  g_allocations.push_back(p);
  return static_cast<E*>(p);
}

float* g_tmp = nullptr;
template <class T>
T* random_buffer(size_t n, unsigned seed, float sd, float mean = 0.f) {
  T* p = alloc<T>(n);
  fill_kernel<<<1024, 256>>>(g_tmp, n, seed, sd, mean);
  FB_CUDA_CHECK_LAUNCH("fill_kernel");
  to_t_kernel<<<1024, 256>>>(g_tmp, p, n);
  FB_CUDA_CHECK_LAUNCH("to_t_kernel");
  return p;
}

template <class T>
std::vector<float> download(const T* p, size_t n) {
  float* d = alloc<float>(n);
  to_float_kernel<<<256, 256>>>(p, d, n);
  FB_CUDA_CHECK_LAUNCH("to_float_kernel");
  std::vector<float> h(n);
  FB_CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

// Prints how far x is from y and returns the relative L2 distance (NaN if either has a NaN).
double compare(const char* what, const std::vector<float>& x, const std::vector<float>& y) {
  double max_abs = 0, num = 0, den = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = double(x[i]) - y[i];
    max_abs = std::max(max_abs, std::fabs(d));
    num += d * d;
    den += double(y[i]) * y[i];
  }
  const double rel = std::sqrt(num / std::max(den, 1e-300));
  std::printf("check %-10s fused vs unfused: max |diff| %.3g, relative L2 %.3g (%zu elements)\n", what, max_abs, rel,
              x.size());
  return rel;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

#ifdef GPT2_DECODE_STAGE_TIMES
// One fused step after an L2 flush, then per stage (averaged over the layers): the median and slowest
// block's work (release of the previous barrier to arrival), the barrier's release latency after the
// last arrival, and the stage's wall time (median release to median release).
template <class T>
void print_stage_times(const Gpt2DecodeArgs<T>& a, const LaunchContext& ctx, int blocks) {
  const size_t flush_bytes = size_t(256) << 20;
  char* flush = alloc<char>(flush_bytes);
  kernels::gpt2_decode_fused_cuda(a, ctx);  // a first call: module load, TLB, the occupancy query
  FB_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(ctx.stream)));
  (void)kernels::gpt2_decode_stage_times();  // resets the ring-wait totals of the earlier calls
  FB_CUDA_CHECK(cudaMemsetAsync(flush, 1, flush_bytes, static_cast<cudaStream_t>(ctx.stream)));
  kernels::gpt2_decode_fused_cuda(a, ctx);
  FB_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(ctx.stream)));
  const auto stamps = kernels::gpt2_decode_stage_times();
  const size_t S = kernels::gpt2::kStamps;
  auto at = [&](int b, size_t i) { return double(stamps[b * S + i]); };
  auto med = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
  const size_t stages = 4 * a.layers + 1;
  const char* names[5] = {"LN1+QKV", "attention+out-proj", "LN2+FFN1", "FFN2", "LNf+LM head"};
  double sum[5][4] = {};
  int count[5] = {};
  double t0 = 1e300;
  for (int b = 0; b < blocks; ++b) t0 = std::min(t0, at(b, 0));
  for (size_t k = 0; k < stages; ++k) {
    std::vector<double> work, release, prev;
    double last_done = 0;
    for (int b = 0; b < blocks; ++b) {
      const double start = at(b, 2 * k);  // the previous release (stamp 0, the start, for the first stage)
      const double done = at(b, 2 * k + 1);
      work.push_back(done - start);
      last_done = std::max(last_done, done);
      prev.push_back(start);
      if (k + 1 < stages) release.push_back(at(b, 2 * k + 2));
    }
    const int kind = k + 1 == stages ? 4 : int(k % 4);
    const double wall = (k + 1 < stages ? med(release) : last_done) - med(prev);
    const double barrier = k + 1 < stages ? med(release) - last_done : 0;
    const double row[4] = {med(work), *std::max_element(work.begin(), work.end()), barrier, wall};
    for (int i = 0; i < 4; ++i) sum[kind][i] += row[i] / 1e3;
    ++count[kind];
  }
  std::printf("stages (us, mean over layers): work median / slowest block, barrier release after the last arrival, wall\n");
  double total = 0;
  for (int kind = 0; kind < 5; ++kind) {
    const double n = count[kind];
    std::printf("stage %-20s %7.2f %7.2f %7.2f %7.2f  (x%d)\n", names[kind], sum[kind][0] / n, sum[kind][1] / n,
                sum[kind][2] / n, sum[kind][3] / n, count[kind]);
    total += sum[kind][3];
  }
  std::printf("stage sum of walls %.1f us (the instrumented step)\n", total);
  // The ring kernel's points inside a layer (FB_SUB_STAMP): median block, mean over the layers (a point
  // a kernel does not stamp reads as 0 and its rows are meaningless). Spans within a block come from its
  // SM's cycle counts, in ns by that block's own ratio of global time to cycles over the whole step
  // (%globaltimer alone moves in steps of about a microsecond).
  const size_t clk0 = kernels::gpt2::kTimedBlocks * S + kernels::gpt2::kTimedBlocks;  // where the cycle stamps start
  const size_t last = 8 * a.layers + 1;  // the kernel's last stamp
  auto cyc = [&](int b, size_t i) { return double(static_cast<long long>(stamps[clk0 + b * S + i])); };
  std::vector<double> ns_per_cycle(blocks);
  for (int b = 0; b < blocks; ++b) ns_per_cycle[b] = (at(b, last) - at(b, 0)) / (cyc(b, last) - cyc(b, 0));
  struct Span {
    const char* name;
    long from, to;  // ≥ 0: sub-stamp index; < 0: −(stage stamp offset within the layer + 1)
  };
  const Span spans[] = {{"QKV: x from L2", -1, 1},            {"QKV: LN1", 1, 0},
                        {"QKV: GEMV pieces", 0, -2},          {"QKV: barrier wait", -2, -3},
                        {"att: bo, q and new k/v", -3, 2},    {"att: attention pieces", 2, 3},
                        {"att: publish partial", 3, 4},       {"att: wait head counter", 4, 5},
                        {"att: combine head", 5, 6},          {"att: Wo pieces", 6, 7},
                        {"att: to arrival", 7, -4},           {"att: barrier wait", -4, -5},
                        {"FFN: b2, x from L2", -5, 10},       {"FFN: LN2", 10, 8},
                        {"FFN1: GEMV pieces", 8, -6},         {"FFN2: to the W2 slab", -7, 9},
                        {"FFN2: GEMV pieces", 9, -8},         {"FFN2: barrier wait", -8, -9}};
  {
    std::vector<double> waits;
    for (int b = 0; b < blocks; ++b)
      waits.push_back(double(stamps[kernels::gpt2::kTimedBlocks * S + b]) * ns_per_cycle[b] / 1e3);
    std::printf("ring data waits (thread 0, whole step): median block %.1f us, max %.1f us\n", med(waits),
                *std::max_element(waits.begin(), waits.end()));
  }
  std::printf("inside a layer (us from SM cycles, median block, mean over layers; their sum last):\n");
  double layer_sum = 0;
  for (const Span& sp : spans) {
    double sum_us = 0;
    for (size_t l = 0; l < a.layers; ++l) {
      auto point = [&](int b, long i) {
        if (i >= 0) return cyc(b, kernels::gpt2::kSubBase + kernels::gpt2::kSubStamps * l + size_t(i));
        return cyc(b, 8 * l + size_t(-i - 1));  // layer l's stage stamps follow 8·l (the previous release)
      };
      std::vector<double> d;
      for (int b = 0; b < blocks; ++b) d.push_back((point(b, sp.to) - point(b, sp.from)) * ns_per_cycle[b]);
      sum_us += med(d) / 1e3;
    }
    std::printf("  %-26s %7.2f\n", sp.name, sum_us / a.layers);
    layer_sum += sum_us / a.layers;
  }
  std::printf("  %-26s %7.2f\n", "sum (one layer)", layer_sum);
}
#endif

template <class T>
int run(const Config& k, int reps, size_t max_blocks) {
  const size_t c = k.hidden, L = k.layers, f = k.f;
  const size_t weights = k.vocab * c + k.ctx * c + L * (4 * c + 3 * c * c + 3 * c + c * c + c + f * c + f + c * f + c) + 2 * c;
  const size_t biggest = std::max({k.vocab * c, L * 3 * c * c, L * f * c, L * k.ctx * c});
  g_tmp = alloc<float>(biggest);
  Gpt2DecodeArgs<T> a{};
  a.layers = L, a.hidden = c, a.heads = k.heads, a.f = f, a.vocab = k.vocab, a.ctx = k.ctx, a.pos = k.pos;
  a.token = k.token, a.eps = 1e-5f;
  unsigned seed = 1;
  const float sc = 1.f / std::sqrt(float(c)), sf = 1.f / std::sqrt(float(f));
  a.wte = random_buffer<T>(k.vocab * c, seed++, 0.1f);
  a.wpe = random_buffer<T>(k.ctx * c, seed++, 0.1f);
  a.ln1_g = random_buffer<T>(L * c, seed++, 0.1f, 1.f);
  a.ln1_b = random_buffer<T>(L * c, seed++, 0.1f);
  a.w_qkv = random_buffer<T>(L * 3 * c * c, seed++, sc);
  a.b_qkv = random_buffer<T>(L * 3 * c, seed++, 0.1f);
  a.w_o = random_buffer<T>(L * c * c, seed++, sc);
  a.b_o = random_buffer<T>(L * c, seed++, 0.1f);
  a.ln2_g = random_buffer<T>(L * c, seed++, 0.1f, 1.f);
  a.ln2_b = random_buffer<T>(L * c, seed++, 0.1f);
  a.w1 = random_buffer<T>(L * f * c, seed++, sc);
  a.b1 = random_buffer<T>(L * f, seed++, 0.1f);
  a.w2 = random_buffer<T>(L * c * f, seed++, sf);
  a.b2 = random_buffer<T>(L * c, seed++, 0.1f);
  a.lnf_g = random_buffer<T>(c, seed++, 0.1f, 1.f);
  a.lnf_b = random_buffer<T>(c, seed++, 0.1f);
  a.k_cache = random_buffer<T>(L * k.ctx * c, seed++, 1.f);
  a.v_cache = random_buffer<T>(L * k.ctx * c, seed++, 1.f);
  a.logits = alloc<T>(k.vocab);
  a.x = alloc<T>(c), a.h = alloc<T>(c), a.a = alloc<T>(c), a.qkv = alloc<T>(3 * c), a.att = alloc<T>(c);
  a.proj = alloc<T>(c), a.f1 = alloc<T>(f), a.g = alloc<T>(f);
  a.att_part = alloc<float>(k.heads * kernels::gpt2::max_splits(k.ctx) * kernels::gpt2::kPartFloats);
  const size_t residual = c * kernels::gpt2::kResidualCopies;
  a.x_f = alloc<float>(residual), a.qkv_f = alloc<float>(3 * c), a.g_f = alloc<float>(std::max(residual, f));
  FB_CUDA_CHECK(cudaDeviceSynchronize());

  int dev = 0, sms = 0;
  FB_CUDA_CHECK(cudaGetDevice(&dev));
  FB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaStream_t stream;
  FB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  LaunchContext ctx;
  ctx.sm_count = sms, ctx.stream = stream, ctx.max_blocks = max_blocks;
  const size_t row = k.pos * c, cache_bytes = L * k.ctx * c;
  auto kv_rows = [&](T* cache) {
    std::vector<float> all = download(cache, cache_bytes), rows;
    for (size_t l = 0; l < L; ++l) rows.insert(rows.end(), all.begin() + l * k.ctx * c + row, all.begin() + l * k.ctx * c + row + c);
    return rows;
  };

#ifdef GPT2_DECODE_FUSED_ONLY
  // The stage table alone, in a binary without the unfused twin (no cuBLAS to link).
  print_stage_times<T>(a, ctx, int(std::min<size_t>(max_blocks ? max_blocks : sms, kernels::gpt2::kTimedBlocks)));
  (void)row;
  (void)cache_bytes;
  (void)reps;
  (void)weights;
  return 0;
#else
  // Agreement (the unfused first: it also creates cuBLAS's handles before the capture).
  kernels::gpt2_decode_unfused_cuda(a, ctx);
  FB_CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto logits_u = download(a.logits, k.vocab), k_u = kv_rows(a.k_cache), v_u = kv_rows(a.v_cache);
  FB_CUDA_CHECK(cudaMemsetAsync(a.logits, 0xFF, k.vocab * sizeof(T), stream));
  const char* kernel = "";
  ctx.kernel = &kernel;
  kernels::gpt2_decode_fused_cuda(a, ctx);
  ctx.kernel = nullptr;
  FB_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::printf("fused kernel: %s\n", kernel);
  const auto logits_f = download(a.logits, k.vocab), k_f = kv_rows(a.k_cache), v_f = kv_rows(a.v_cache);
  // The two variants round differently (16-bit GEMV inputs, split-K orders): at GPT-2 small they agree to a
  // relative L2 of ~1e-2 in bf16, ~1e-3 in fp16 and ~1e-6 in fp32 (docs/gpt2-decode.md). Far beyond that,
  // or a NaN, is a broken kernel: the program then fails (exit 3) after printing the checks.
  const double limit = sizeof(T) == 4 ? 1e-4 : 0.05;
  bool agree = true;
  for (const double rel : {compare("logits", logits_f, logits_u), compare("K rows", k_f, k_u), compare("V rows", v_f, v_u)})
    agree = agree && rel <= limit;
  double sd = 0;
  for (float v : logits_u) sd += double(v) * v;
  std::printf("logits rms %.3g\n", std::sqrt(sd / logits_u.size()));
  if (!agree) {
    std::printf("check FAILED: a relative L2 distance above %g\n", limit);
    return 3;
  }
#ifdef GPT2_DECODE_STAGE_TIMES
  print_stage_times<T>(a, ctx, int(std::min<size_t>(max_blocks ? max_blocks : sms, kernels::gpt2::kTimedBlocks)));
#endif
  if (reps <= 0) return 0;

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  FB_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  kernels::gpt2_decode_unfused_cuda(a, ctx);
  FB_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  FB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  size_t nodes = 0;
  FB_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));

  const size_t flush_bytes = size_t(256) << 20;
  char* flush = alloc<char>(flush_bytes);
  cudaEvent_t start, stop;
  FB_CUDA_CHECK(cudaEventCreate(&start));
  FB_CUDA_CHECK(cudaEventCreate(&stop));
  const char* names[3] = {"unfused", "graph", "fused"};
  std::vector<double> times[3];
  for (int r = 0; r < reps + 3; ++r) {
    for (int arm = 0; arm < 3; ++arm) {
      FB_CUDA_CHECK(cudaMemsetAsync(flush, r & 0xFF, flush_bytes, stream));
      FB_CUDA_CHECK(cudaEventRecord(start, stream));
      if (arm == 0) kernels::gpt2_decode_unfused_cuda(a, ctx);
      else if (arm == 1) FB_CUDA_CHECK(cudaGraphLaunch(exec, stream));
      else kernels::gpt2_decode_fused_cuda(a, ctx);
      FB_CUDA_CHECK(cudaEventRecord(stop, stream));
      FB_CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      FB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (r >= 3) times[arm].push_back(ms * 1e3);
    }
  }
  const double bytes = double(weights) * sizeof(T) + 2.0 * L * (k.pos + 1) * c * sizeof(T) + k.vocab * sizeof(T);
  std::printf("weights+KV+logits %.1f MB; graph nodes %zu\n", bytes / 1e6, nodes);
  for (int arm = 0; arm < 3; ++arm) {
    auto v = times[arm];
    std::sort(v.begin(), v.end());
    std::printf("time %-8s median %8.1f us  p10 %8.1f  p90 %8.1f  (%.2f TB/s)\n", names[arm], median(v),
                v[v.size() / 10], v[v.size() * 9 / 10], bytes / (median(v) * 1e-6) / 1e12);
  }
  FB_CUDA_CHECK(cudaGraphExecDestroy(exec));
  FB_CUDA_CHECK(cudaGraphDestroy(graph));
  return 0;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string dtype = argc > 1 ? argv[1] : "bf16";
  const bool small = argc > 2 && std::strcmp(argv[2], "small") == 0;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 51;
  const size_t max_blocks = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 0;
  const Config k = small ? Config{2, 128, 2, 512, 1000, 64, 13, 7} : Config{12, 768, 12, 3072, 50257, 1024, 511, 464};
  std::printf("gpt2_decode %s: layers %zu hidden %zu heads %zu f %zu vocab %zu ctx %zu pos %zu\n", dtype.c_str(),
              k.layers, k.hidden, k.heads, k.f, k.vocab, k.ctx, k.pos);
  try {
    if (dtype == "bf16") return run<bf16>(k, reps, max_blocks);
    if (dtype == "fp16") return run<fp16>(k, reps, max_blocks);
    return run<float>(k, reps, max_blocks);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
