// The sm_90 flash-attention kernel (kernels/cuda/flash_attention_sm90.cuh) outside the addon, for issue 30:
// numerics against an fp32 reference kernel at awkward and full shapes (NaN-poisoned output, every element
// compared, each shape run 3 times), the ping-pong and plain variants and the mma.sync kernel timed with
// CUDA events after fusebench's L2 flush (a write then a read of 256 MiB; median), and one launch per
// shape for ncu. On an H100 (CUDA 12+), from the repository root:
//   nvcc -O3 -std=c++17 -lineinfo -gencode=arch=compute_90a,code=sm_90a -DFUSEBENCH_SM90A -Ikernels \
//     scripts/device/flash-attention-sm90.cu -o fa90
//   ./fa90 check          # numerics at every shape, then the timing table
//   ./fa90 time           # the timing table only
//   ./fa90 small          # the small shapes once each (for compute-sanitizer --tool memcheck|racecheck|synccheck)
//   ./fa90 groups short bf16 0 48 200 # per group size (short|batch8|long, bf16|fp16; about g heads a group, 0: the launcher's rule)
//   GROUP=48 ./fa90 vcheck # any mode with the tile order's groups of about 48 heads instead of the launcher's
//   ./fa90tl timeline     # built with -DFB_FLASH90_TIMELINE: per block, when its first S came and when it
//                         # finished, summed over the grid (the start-up and the tail), bf16, both shapes
//   ./fa90 vcheck / vtime # the ping-pong kernel only: numerics / one "T shape dtype us" line per timing
//                         # (scripts/device/attn-variants.sh: this tree's kernel against main's)
//   ncu --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis -k regex:flash90 ./fa90 ncu
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda/flash_attention_sm90.cuh"

using namespace fusebench;
using namespace fusebench::cuda;

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      fprintf(stderr, "CUDA %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(2);                                                                                 \
    }                                                                                          \
  } while (0)

template <class T>
__device__ float tof(T x) {
  if constexpr (std::is_same_v<T, __half>) return __half2float(x);
  else return __bfloat162float(x);
}

// fp32 reference, one warp per query row, online softmax; layouts as FlashMmaArgs.
template <class T>
__global__ void ref_kernel(FlashMmaArgs<T> a, int D, float* out /* [b,h,s,d] contiguous fp32 */) {
  const long long row = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= static_cast<long long>(a.batch) * a.heads * a.seq) return;
  const int s = row % a.seq, bh = row / a.seq, h = bh % a.heads, b = bh / a.heads;
  const int per = D / 32;
  float q[4], o[4] = {0, 0, 0, 0};
  const T* qr = a.q.row(b, h, s);
  for (int i = 0; i < per; ++i) q[i] = tof(qr[lane * per + i]);
  const float scale = 1.0f / sqrtf(static_cast<float>(D));
  float m = -INFINITY, l = 0;
  for (int j = 0; j <= s; ++j) {
    const T* kr = a.k.row(b, h, j);
    float d = 0;
    for (int i = 0; i < per; ++i) d += q[i] * tof(kr[lane * per + i]);
    for (int off = 16; off; off /= 2) d += __shfl_xor_sync(0xffffffffu, d, off);
    d *= scale;
    const float mn = fmaxf(m, d), c = expf(m - mn), pj = expf(d - mn);
    l = l * c + pj;
    const T* vr = a.v.row(b, h, j);
    for (int i = 0; i < per; ++i) o[i] = o[i] * c + pj * tof(vr[lane * per + i]);
    m = mn;
  }
  for (int i = 0; i < per; ++i) out[row * D + lane * per + i] = o[i] / l;
}

template <class T>
__global__ void gather_out(FlashMmaArgs<T> a, int D, float* out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long n = static_cast<long long>(a.batch) * a.heads * a.seq * D;
  if (i >= n) return;
  const int d = i % D;
  const long long row = i / D;
  const int s = row % a.seq, bh = row / a.seq, h = bh % a.heads, b = bh / a.heads;
  out[i] = tof(a.o[b * a.osb + h * a.osh + s * a.oss + d]);
}

template <class T>
__global__ void fill_random(T* p, long long n, unsigned seed) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed * 97u + 12345u;
  x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15; x *= 0x27d4eb2du; x ^= x >> 16;
  unsigned y = x * 1664525u + 1013904223u;
  const float u1 = (x >> 8) * (1.0f / 16777216.0f) + 1e-7f, u2 = (y >> 8) * (1.0f / 16777216.0f);
  const float z = sqrtf(-2.0f * logf(u1)) * cosf(6.2831853f * u2);
  if constexpr (std::is_same_v<T, __half>) p[i] = __float2half(z);
  else p[i] = __float2bfloat16(z);
}

struct Shape {
  int b, h, s, d;
  bool merged;  // Q,K,V read from an interleaved qkv [b·s, 3·h·d], O written merged [b·s, h·d]
};

template <class T>
struct Bufs {
  T *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr, *qkv = nullptr;
  FlashMmaArgs<T> args;
};

template <class T>
Bufs<T> make(const Shape& sh, unsigned seed) {
  Bufs<T> B;
  const long long n = 1ll * sh.b * sh.h * sh.s * sh.d;
  const float sl = flash_mma_scale_log2(sh.d);
  CK(cudaMalloc(&B.o, n * sizeof(T)));
  if (!sh.merged) {
    CK(cudaMalloc(&B.q, n * sizeof(T)));
    CK(cudaMalloc(&B.k, n * sizeof(T)));
    CK(cudaMalloc(&B.v, n * sizeof(T)));
    fill_random<<<(n + 255) / 256, 256>>>(B.q, n, seed);
    fill_random<<<(n + 255) / 256, 256>>>(B.k, n, seed + 1);
    fill_random<<<(n + 255) / 256, 256>>>(B.v, n, seed + 2);
    B.args = contiguous_flash_mma_args<T>(B.q, B.k, B.v, B.o, sh.b, sh.h, sh.s, sh.d);
  } else {
    CK(cudaMalloc(&B.qkv, 3 * n * sizeof(T)));
    fill_random<<<(3 * n + 255) / 256, 256>>>(B.qkv, 3 * n, seed);
    const long long c = 1ll * sh.h * sh.d, ld = 3 * c;
    auto lay = [&](T* base) { return HalfHeadLayout<T>{base, sh.s * ld, sh.d, ld}; };
    B.args.q = lay(B.qkv);
    B.args.k = lay(B.qkv + c);
    B.args.v = lay(B.qkv + 2 * c);
    B.args.o = B.o;
    B.args.osb = sh.s * c;
    B.args.osh = sh.d;
    B.args.oss = c;
    B.args.batch = sh.b;
    B.args.heads = sh.h;
    B.args.seq = sh.s;
    B.args.scale_log2 = sl;
  }
  CK(cudaGetLastError());
  return B;
}

template <class T>
void release(Bufs<T>& B) {
  cudaFree(B.q); cudaFree(B.k); cudaFree(B.v); cudaFree(B.o); cudaFree(B.qkv);
}

static LaunchContext g_ctx;
static int g_group = 0;  // 0: the launcher's choice

template <class T, int D, bool PP>
void launch_var(const FlashMmaArgs<T>& a) {
  constexpr size_t smem = Flash90Config<D>::kSmemBytes;
  static bool once = [] {
    CK(cudaFuncSetAttribute(flash90_kernel<T, D, PP>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    return true;
  }();
  (void)once;
  const int grid = flash90_grid(a, g_ctx);
  Flash90Params p = flash90_params<T, D>(a, grid);
  if (g_group > 0) flash90_set_groups(p, (p.bh + g_group - 1) / g_group);  // groups of about g_group heads
  flash90_kernel<T, D, PP><<<grid, kFlash90Threads, smem>>>(p);
  CK(cudaGetLastError());
}
template <class T>
void run_kernel(int which, const FlashMmaArgs<T>& a, int d, const LaunchContext& ctx) {
  if (which == 0) {
    if (d == 64) launch_var<T, 64, true>(a);
    else launch_var<T, 128, true>(a);
  } else if (which == 2) {
    if (d == 64) launch_var<T, 64, false>(a);
    else launch_var<T, 128, false>(a);
  } else {
    if (d == 64) launch_flash_mma<T, 64>(a, ctx, "mma");
    else launch_flash_mma<T, 128>(a, ctx, "mma");
  }
}

static const char* kNames[3] = {"sm90pp", "mma", "sm90"};

// Returns true when within tolerance.
template <class T>
bool check(const Shape& sh, int which, unsigned seed, int reps) {
  Bufs<T> B = make<T>(sh, seed);
  const long long n = 1ll * sh.b * sh.h * sh.s * sh.d;
  float *ref, *got;
  CK(cudaMalloc(&ref, n * 4));
  CK(cudaMalloc(&got, n * 4));
  ref_kernel<T><<<(sh.b * sh.h * sh.s * 32ll + 255) / 256, 256>>>(B.args, sh.d, ref);
  CK(cudaGetLastError());
  std::vector<float> r(n), gv(n);
  CK(cudaMemcpy(r.data(), ref, n * 4, cudaMemcpyDeviceToHost));
  bool ok = true;
  double worst_rel = 0, worst_abs = 0;
  for (int rep = 0; rep < reps; ++rep) {
    CK(cudaMemset(B.o, 0xFF, n * sizeof(T)));  // NaN poison (merged: O is exactly the n elements too)
    run_kernel<T>(which, B.args, sh.d, g_ctx);
    CK(cudaDeviceSynchronize());
    gather_out<T><<<(n + 255) / 256, 256>>>(B.args, sh.d, got);
    CK(cudaMemcpy(gv.data(), got, n * 4, cudaMemcpyDeviceToHost));
    double num = 0, den = 0, mx = 0;
    long long bad = 0;
    for (long long i = 0; i < n; ++i) {
      const double e = std::fabs(static_cast<double>(gv[i]) - r[i]);
      if (!std::isfinite(gv[i])) ++bad;
      num += e * e;
      den += static_cast<double>(r[i]) * r[i];
      mx = std::max(mx, e);
    }
    const double rel = std::sqrt(num / den);
    worst_rel = std::max(worst_rel, rel);
    worst_abs = std::max(worst_abs, mx);
    const double tol_abs = std::is_same_v<T, __half> ? 6e-3 : 4e-2;
    if (bad || !(rel < (std::is_same_v<T, __half> ? 2e-3 : 1.2e-2)) || !(mx < tol_abs)) ok = false;
    if (bad) printf("    %lld non-finite outputs\n", bad);
  }
  printf("check %-5s %-4s b=%d h=%d s=%d d=%d%s: rel %.2e maxabs %.2e (%d runs) %s\n", kNames[which],
         std::is_same_v<T, __half> ? "fp16" : "bf16", sh.b, sh.h, sh.s, sh.d, sh.merged ? " merged" : "", worst_rel,
         worst_abs, reps, ok ? "OK" : "FAIL");
  cudaFree(ref);
  cudaFree(got);
  release(B);
  return ok;
}

static void* g_flush = nullptr;
static const size_t kFlush = 256ull << 20;
static float* g_clean = nullptr;
static float* g_sink = nullptr;
__global__ void read_pass(const float4* p, long long n, float* sink) {
  float acc = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const float4 v = p[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 1234.5f) *sink = acc;
}
// The buffers of flush_l2.
static void alloc_flush() {
  CK(cudaMalloc(&g_flush, kFlush));
  CK(cudaMalloc(&g_clean, kFlush));
  CK(cudaMemset(g_clean, 0, kFlush));
  CK(cudaMalloc(&g_sink, 4));
}
// fusebench's flush: write a buffer larger than L2, then read another one so no dirty line is left.
static void flush_l2(int i) {
  CK(cudaMemsetAsync(g_flush, i & 1, kFlush));
  read_pass<<<132 * 8, 512>>>(reinterpret_cast<const float4*>(g_clean), kFlush / 16, g_sink);
}

template <class T>
double time_us(const Shape& sh, int which, int iters) {
  Bufs<T> B = make<T>(sh, 7);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int i = 0; i < 3; ++i) run_kernel<T>(which, B.args, sh.d, g_ctx);
  CK(cudaDeviceSynchronize());
  std::vector<float> ts;
  for (int i = 0; i < iters; ++i) {
    flush_l2(i);
    CK(cudaEventRecord(e0));
    run_kernel<T>(which, B.args, sh.d, g_ctx);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    ts.push_back(ms * 1000);
  }
  std::sort(ts.begin(), ts.end());
  release(B);
  return ts[ts.size() / 2];
}

double causal_flops(const Shape& s) { return 4.0 * s.d * (s.s * (s.s + 1.0) / 2) * s.b * s.h; }

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "check";
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  g_ctx.sm_count = prop.multiProcessorCount;
  printf("device %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  {
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, flash90_kernel<__nv_bfloat16, 128, true>));
    printf("flash90<bf16,128>: %d regs, binary %d, ptx %d, local %zu\n", fa.numRegs, fa.binaryVersion, fa.ptxVersion,
           fa.localSizeBytes);
  }
  bool all = true;
  if (getenv("GROUP")) g_group = atoi(getenv("GROUP"));  // groups of about GROUP heads instead of the launcher's
  if (mode == "vcheck") {  // attn-variants.sh: the ping-pong kernel (the launcher's) at every shape, both dtypes
    const std::vector<Shape> shapes = {
        {1, 1, 1, 64, false},    {1, 2, 17, 64, false},   {1, 1, 64, 64, false},   {2, 3, 128, 64, false},
        {1, 1, 129, 64, false},  {1, 2, 191, 64, false},  {1, 2, 192, 64, false},  {1, 2, 193, 64, false},
        {2, 2, 300, 64, false},  {2, 2, 385, 64, false},  {1, 3, 576, 64, false},  {2, 3, 200, 64, true},
        {1, 3, 130, 128, false}, {2, 2, 257, 128, false}, {1, 1, 1, 128, false},   {1, 2, 384, 128, false},
        {32, 12, 512, 64, false}, {4, 12, 1024, 64, true}, {8, 16, 4096, 128, false}, {2, 4, 1000, 128, false}};
    for (const Shape& s : shapes) {
      const int reps = 1ll * s.b * s.h * s.s * s.d > (4ll << 20) ? 1 : 3;
      all &= check<__nv_bfloat16>(s, 0, 11 + s.s, reps);
      all &= check<__half>(s, 0, 23 + s.s, reps);
    }
  }
  if (mode == "vtime") {  // attn-variants.sh: the ping-pong kernel at both shapes, one parseable line each
    alloc_flush();
    const Shape shapes[2] = {{32, 12, 512, 64, false}, {8, 16, 4096, 128, false}};
    for (const Shape& s : shapes) {
      const int iters = s.s > 1024 ? 30 : 100;
      const double tb = time_us<__nv_bfloat16>(s, 0, iters), th = time_us<__half>(s, 0, iters);
      printf("T %dx%dx%dx%d bf16 %.3f\n", s.b, s.h, s.s, s.d, tb);
      printf("T %dx%dx%dx%d fp16 %.3f\n", s.b, s.h, s.s, s.d, th);
    }
  }
  if (mode == "check" || mode == "small") {
    std::vector<Shape> shapes = {{1, 1, 1, 64, false},   {1, 2, 17, 64, false},  {2, 3, 128, 64, false},
                                 {1, 1, 129, 64, false}, {2, 2, 300, 64, false}, {1, 3, 130, 128, false},
                                 {2, 2, 257, 128, false}, {1, 1, 1, 128, false}, {2, 3, 200, 64, true},
                                 {1, 2, 384, 128, false}};
    if (mode == "check") {
      shapes.push_back({32, 12, 512, 64, false});
      shapes.push_back({4, 12, 1024, 64, true});
      shapes.push_back({8, 16, 4096, 128, false});
      shapes.push_back({2, 4, 1000, 128, false});
    }
    const int reps = mode == "check" ? 3 : 1;
    for (const Shape& s : shapes) {
      for (int w : {0, 2}) {
        all &= check<__nv_bfloat16>(s, w, 11 + s.s, reps);
        all &= check<__half>(s, w, 23 + s.s, reps);
      }
    }
    if (mode == "check") {
      all &= check<__nv_bfloat16>({32, 12, 512, 64, false}, 1, 5, 1);
      all &= check<__half>({1, 3, 130, 128, false}, 1, 5, 1);
    }
  }
  if (mode == "time" || mode == "check") {
    alloc_flush();
    const Shape shapes[2] = {{32, 12, 512, 64, false}, {8, 16, 4096, 128, false}};
    printf("\n| kernel | shape | dtype | median us | TFLOP/s |\n|---|---|---|---|---|\n");
    for (const Shape& s : shapes) {
      const int iters = s.s > 1024 ? 30 : 100;
      for (int which : {0, 2, 1}) {
        const double tb = time_us<__nv_bfloat16>(s, which, iters), th = time_us<__half>(s, which, iters);
        const double f = causal_flops(s);
        printf("| %s | %dx%dx%dx%d | bf16 | %.2f | %.1f |\n", kNames[which], s.b, s.h, s.s, s.d, tb,
               f / tb * 1e-6);
        printf("| %s | %dx%dx%dx%d | fp16 | %.2f | %.1f |\n", kNames[which], s.b, s.h, s.s, s.d, th,
               f / th * 1e-6);
      }
    }
  }
  if (mode == "groups") {  // the ping-pong kernel per tile-order group size: ./harness groups short|batch8|long bf16|fp16 g1 g2 ...
    alloc_flush();
    if (argc < 5) {
      fprintf(stderr, "usage: groups short|batch8|long bf16|fp16 <heads a group, 0: the launcher's rule>...\n");
      return 2;
    }
    const std::string which = argv[2];
    const bool lng = which == "long";
    const bool fp16 = std::string(argv[3]) == "fp16";
    // short: the attention case's shape; batch8: gpt2_forward's attention (batch 8); long: 8x16x4096x128.
    const Shape s = lng ? Shape{8, 16, 4096, 128, false}
                        : which == "batch8" ? Shape{8, 12, 512, 64, false} : Shape{32, 12, 512, 64, false};
    for (int i = 4; i < argc; ++i) {
      g_group = atoi(argv[i]);
      const int iters = lng ? 20 : 60;
      const double t = fp16 ? time_us<__half>(s, 0, iters) : time_us<__nv_bfloat16>(s, 0, iters);
      printf("G %dx%dx%dx%d %s %d %.3f\n", s.b, s.h, s.s, s.d, fp16 ? "fp16" : "bf16", g_group, t);
    }
  }
#ifndef FB_FLASH90_TIMELINE
  if (mode == "timeline") {
    fprintf(stderr, "timeline: build this harness with -DFB_FLASH90_TIMELINE\n");
    return 2;
  }
#else
  if (mode == "timeline") {  // built with -DFB_FLASH90_TIMELINE: where a block's time goes, bf16, after a flush
    alloc_flush();
    const Shape shapes[2] = {{32, 12, 512, 64, false}, {8, 16, 4096, 128, false}};
    for (const Shape& s : shapes) {
      Bufs<__nv_bfloat16> B = make<__nv_bfloat16>(s, 3);
      cudaEvent_t e0, e1;
      CK(cudaEventCreate(&e0));
      CK(cudaEventCreate(&e1));
      for (int rep = 0; rep < 5; ++rep) {
        flush_l2(rep);
        CK(cudaEventRecord(e0));
        run_kernel<__nv_bfloat16>(0, B.args, s.d, g_ctx);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        static unsigned long long tl[1024][8];
        CK(cudaMemcpyFromSymbol(tl, flash90_tl, sizeof(tl)));
        const int nb = flash90_grid(B.args, g_ctx);  // launch_var's grid
        std::vector<double> ratio;
        unsigned long long g0 = ~0ull, g1 = 0;
        for (int b = 0; b < nb; ++b) {
          g0 = std::min(g0, tl[b][0]);
          g1 = std::max(g1, tl[b][4]);
          if (tl[b][4] > tl[b][0]) ratio.push_back(double(tl[b][3] - tl[b][1]) / double(tl[b][4] - tl[b][0]));
        }
        std::sort(ratio.begin(), ratio.end());
        const double ghz = ratio[ratio.size() / 2];  // cycles per ns
        double first = 0, first_max = 0, busy = 0, busy_max = 0, start_max = 0, prod = 0;
        int umin = 1 << 30, umax = 0, tmin = 1 << 30, tmax = 0;
        std::vector<double> ends;
        for (int b = 0; b < nb; ++b) {
          const double st = double(tl[b][0] - g0);
          const double f = (tl[b][2] - tl[b][1]) / ghz, bu = (tl[b][3] - tl[b][1]) / ghz;
          first += f / nb;
          first_max = std::max(first_max, f);
          busy += bu / nb;
          busy_max = std::max(busy_max, bu);
          start_max = std::max(start_max, st);
          prod += (tl[b][7] - tl[b][1]) / ghz / nb;
          ends.push_back(st + bu);
          umin = std::min<int>(umin, tl[b][6]);
          umax = std::max<int>(umax, tl[b][6]);
          tmin = std::min<int>(tmin, tl[b][5]);
          tmax = std::max<int>(tmax, tl[b][5]);
        }
        std::sort(ends.begin(), ends.end());
        double idle = 0;
        for (double e : ends) idle += (ends.back() - e) / nb;
        printf("timeline %dx%dx%dx%d bf16 run %d: event %.2f us, globaltimer span %.2f us, clock %.3f GHz; "
               "block start spread %.2f us; first S after %.2f (max %.2f) us; consumer busy mean %.2f max %.2f us; "
               "idle before the last block ends: mean %.2f us, ends p10/p50/p90 %.2f/%.2f/%.2f us; producer done "
               "at %.2f us; tiles %d-%d, key tiles %d-%d a block\n",
               s.b, s.h, s.s, s.d, rep, ms * 1000, (g1 - g0) / 1000.0, ghz, start_max / 1000, first / 1000,
               first_max / 1000, busy / 1000, busy_max / 1000, idle / 1000, ends[nb / 10] / 1000,
               ends[nb / 2] / 1000, ends[nb * 9 / 10] / 1000, prod / 1000, tmin, tmax, umin, umax);
      }
      CK(cudaEventDestroy(e0));
      CK(cudaEventDestroy(e1));
      release(B);
    }
  }
#endif
  if (mode == "ncu") {  // one launch of each shape, bf16
    const Shape shapes[2] = {{32, 12, 512, 64, false}, {8, 16, 4096, 128, false}};
    for (const Shape& s : shapes) {
      Bufs<__nv_bfloat16> B = make<__nv_bfloat16>(s, 3);
      run_kernel<__nv_bfloat16>(argc > 2 ? atoi(argv[2]) : 0, B.args, s.d, g_ctx);
      CK(cudaDeviceSynchronize());
      release(B);
    }
  }
  printf("%s\n", all ? "ALL OK" : "SOME FAILED");
  return all ? 0 : 1;
}
