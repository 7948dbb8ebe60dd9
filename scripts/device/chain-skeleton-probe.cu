// How short can a GPT-2 small decode step's dependency chain be on this GPU, whatever kernel runs it?
//
// gpt2_decode's ring kernel, with no weight copied past layer 0 and no piece computed, still takes 13.3 µs a
// layer on an H100 (docs/gpt2-decode-tries.md, "The chain with nothing in flight and nothing to compute"). That
// skeleton holds the ring's handshakes and the stages' code as well as the dependencies themselves. This
// probe runs the dependencies alone, in a persistent kernel of 132 blocks (12 heads × 11 chunks, cooperative
// launch; 8 consumer warps and a producer warp a block), with the data each stage really exchanges through
// L2 and no weights:
//   - the residual read from L2 (768 floats) and a LayerNorm of it, before QKV and before the FFN;
//   - q|k|v written, each block ~18 rows of its head's 192;
//   - the attention item: its head's q and new k/v read, a partial (max, sum, 64 values) published on the
//     head's counter; then the head's 11 partials read and combined;
//   - the out-projection's and FFN2's sums added into the residual with ~70 fp32 atomics a block.
// Two dependency structures:
//   grid3  the ring kernel's: grid barriers after QKV, after the out-projection and after FFN2, and the
//          per-head counter between the partials and their combine;
//   grid2  the fewest the model allows: QKV's rows of a head computed by the blocks that attend over it, so
//          a per-head counter replaces the barrier after QKV; grid barriers after the out-projection and FFN2.
// Each structure also runs with its waits only (no reads, no LayerNorm, no atomics: "sync only"), and grid3
// with the residual in 8 copies, as the ring kernels keep it (each block adds into one; a read sums all
// eight). Then grid3 with 8 copies and the weights' stream beside the chain: a producer warp a block copies
// 128 KB a layer into a shared-memory ring with bulk copies, as the ring kernels' producers do, and the
// consumers take each piece at its stage and give it back, computing nothing from it; the ring uses 13, 6
// or 3 of its slots; with 13 slots and the producer gated at the block's arrivals (b.gated: a stage's pieces
// are issued only once the block has arrived at the barrier that ended the stage before); and, as a bound,
// with 13 slots and relaxed arrivals and polls (RelaxedSync: no release to wait for the block's copies, and
// no correct barrier either); with each block's pieces of layer l + n asked of L2 before layer l's first
// piece, n = 1 or 2 (b.l2_ahead: the ring's copies then hit L2); and with the pieces copied as 16-byte
// cp.async by the producer warp's 32 lanes (b.cp_async; 13 or 6 slots, and relaxed), as gpt2_decode's
// 16-bit ring kernels copy them, alone and with L2 asked a layer ahead (the cp.async then hit L2). Then single launches stamp each stage's end (thread 0's clock64) and print the spans
// of the median block. The grid barrier and the counters are the kernels' own (gpt2_decode_sync.cuh, over
// the consumer warps): one release add a block on a count that only grows, and thread 0 polls it with
// acquire loads 100 cycles apart. There is no LM head: a layer's time is the step's, less a launch of the
// same kernel with no layer, divided by 12.
//
// Build and run on the GPU machine (sm_90a for the stream's bulk copies; its 132 blocks must be
// co-resident, which it checks):
//   nvcc -O3 -std=c++17 -arch=sm_90a -I kernels scripts/device/chain-skeleton-probe.cu -o /tmp/csp && /tmp/csp [REPS]
// or through scripts/device/session.sh "probe chain-skeleton-probe 51".
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <vector>

#include "../../cases/gpt2_decode/gpt2_decode_ring.cuh"
#include "probe.cuh"

namespace {

namespace gpt2 = ::fusebench::kernels::gpt2;

constexpr int kConsumers = 256, kThreads = kConsumers + 32;  // 8 consumer warps and a producer warp
constexpr int kLayers = 12, kHidden = 768, kHeads = 12, kChunks = 11, kHeadDim = 64;
constexpr int kBlocks = kHeads * kChunks;               // one attention item a block
constexpr int kPart = 2 + kHeadDim;                     // a partial: max, sum, 64 values

constexpr int kMaxCopies = 8;
// The weight stream (kStream): a producer warp per block copies kPiecesPerLayer pieces of kPieceBytes a layer
// (128 KiB: GPT-2 small's 15.7 MB a layer is ~119 KB a block) into a ring of kSlots slots with bulk copies,
// as the ring kernels' producers do (their Ring and wait_phase, gpt2_decode_ring.cuh); the consumers take
// each piece at its stage and give it back, computing nothing from it: 2 before QKV's rows, 1 in the
// attention item, 1 before the out-projection's sums and 4 after LN2.
constexpr int kSlots = 13, kPieceBytes = 16384, kPiecesPerLayer = 8;
constexpr int kStamps = 11;  // a layer's clock stamps (thread 0 of each block), below

struct Bufs {
  float* x;         // [2 · kLayers + 1][copies][kHidden]: the residual after each half layer; x[0] the input
  float* qkv;       // [kLayers][3 · kHidden]
  float* part;      // [kLayers][kHeads][kChunks][kPart]
  int layers;       // kLayers, or 0: the launch alone
  int ring_slots;   // slots the stream uses (1 .. kSlots): at most that many of its pieces in flight
  int gated;        // 1: the producer issues a stage's pieces only once its block has arrived at the barrier
                    // before the stage before (after its release), so that no copy is in flight at a release
                    // unless it was issued after the previous one
  int l2_ahead;     // n > 0: before a layer's first piece the producer asks L2 for its pieces of layer l + n
                    // (cp.async.bulk.prefetch.L2, 16 KiB a request; at layer 0 for layers 0 .. n too), so that
                    // the ring's own copies are L2 hits
  int cp_async;     // 1: the producer warp's 32 lanes copy each piece with 16-byte cp.async (LDGSTS, the generic
                    // proxy) and complete its slot with cp.async.mbarrier.arrive, instead of one bulk copy
  const char* weights;         // [kLayers][kBlocks][kPiecesPerLayer][kPieceBytes]: the stream's source
  long long* stamps;           // [kBlocks][kLayers][kStamps] clock64 of thread 0, when the kernel stamps
  unsigned long long* clocks;  // block 0's clock64 and %globaltimer at its start and end: the SM clock
};

// The kernels' grid-barrier count and head counters (gpt2_decode_sync.cuh): the head counters are
// [kLayers][kHeads][2], for the q|k|v rows and the partials. The host zeroes both before each launch (the
// kernels clear theirs as they go), through their addresses here.
constexpr int kHeadCounters = kLayers * kHeads * 2;
static_assert(kHeadCounters <= gpt2::kMaxLayers * gpt2::kMaxHeads, "the head counters fit the kernels' array");
struct Counters {
  void* barrier = nullptr;
  void* heads = nullptr;
} g_counters;

// How a block arrives at a count and waits for it: the kernels' way (a release add after the block's
// barrier; acquire polls), or, as a bound, relaxed: the add and the polls without release or acquire, so
// that the arrival waits for nothing (not a correct barrier: its data may not be visible yet).
struct KernelSync;
struct RelaxedSync;

#ifdef FB_SM90A_DEVICE  // the device pass for sm_90a; the host pass and other targets see a stub below
using gpt2::ring::Ring;
using gpt2::ring::wait_phase;
namespace sm90 = ::fusebench::cuda::sm90;

constexpr int kSumRows = (kHidden + kChunks - 1) / kChunks;  // rows a block adds into the residual: 70
constexpr int kQkvRows = (3 * kHeadDim + kChunks - 1) / kChunks;  // a head's q|k|v rows a block computes: 18

// The group that meets at the counters: the consumer warps (the producer warp, the last, never meets them).
struct Block {
  __device__ static void sync() { asm volatile("bar.sync 1, %0;" ::"n"(kConsumers) : "memory"); }
};
struct KernelSync {
  __device__ static void arrive(unsigned* c) { gpt2::count_done<Block>(c); }
  __device__ static void wait(const unsigned* c, unsigned target) { gpt2::wait_count<Block>(c, target); }
};
struct RelaxedSync {
  __device__ static void arrive(unsigned* c) {
    Block::sync();
    if (threadIdx.x == 0) asm volatile("red.relaxed.gpu.global.add.u32 [%0], 1;" ::"l"(c) : "memory");
  }
  __device__ static void wait(const unsigned* c, unsigned target) {
    gpt2::poll_until<Block>(target, [c] {
      unsigned seen;
      asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(c) : "memory");
      return seen;
    });
  }
};

// The residual's value r: the sum of its kCopies copies (kHidden apart), read from L2.
template <int kCopies>
__device__ __forceinline__ float residual(const float* x, int r) {
  float v[kCopies];
#pragma unroll
  for (int k = 0; k < kCopies; ++k) v[k] = __ldcg(x + k * kHidden + r);
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < kCopies; ++k) sum += v[k];
  return sum;
}

// xs ← LayerNorm(src) without γ/β (one pass: sum and sum of squares; three values a thread).
template <int kCopies>
__device__ void layer_norm(const float* src, float* xs, float* red) {
  float v[kHidden / kConsumers], s = 0.f, ss = 0.f;
#pragma unroll
  for (int i = 0; i < kHidden / kConsumers; ++i) {
    v[i] = residual<kCopies>(src, threadIdx.x + i * kConsumers);
    s += v[i];
    ss += v[i] * v[i];
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    s += __shfl_xor_sync(0xFFFFFFFFu, s, o);
    ss += __shfl_xor_sync(0xFFFFFFFFu, ss, o);
  }
  const int warp = threadIdx.x >> 5;
  if ((threadIdx.x & 31) == 0) {
    red[warp] = s;
    red[8 + warp] = ss;
  }
  Block::sync();
  s = ss = 0.f;
#pragma unroll
  for (int w = 0; w < kConsumers / 32; ++w) {
    s += red[w];
    ss += red[8 + w];
  }
  const float mean = s / kHidden, rstd = rsqrtf(fmaxf(ss / kHidden - mean * mean, 0.f) + 1e-5f);
#pragma unroll
  for (int i = 0; i < kHidden / kConsumers; ++i) xs[threadIdx.x + i * kConsumers] = (v[i] - mean) * rstd;
  Block::sync();
}

// The consumers take n pieces: wait until each has landed, give it back (every consumer thread).
template <bool kStream>
__device__ __forceinline__ void take(Ring& ring, int n) {
  if constexpr (kStream) {
    for (int i = 0; i < n; ++i, ring.advance()) {
      wait_phase(ring.full_bar(), ring.phase);
      sm90::mbar_arrive(ring.empty_bar());
    }
  }
}

// After the block's arrival (b.gated): thread 0 lets the producer issue the next stage's pieces.
template <bool kStream>
__device__ __forceinline__ void open_gate(const Bufs& b, uint64_t* gate) {
  if constexpr (kStream) {
    if (b.gated && threadIdx.x == 0) sm90::mbar_arrive(sm90::smem_addr(gate));
  }
}

template <bool kGrid3, bool kWork, int kCopies, bool kStamp, bool kStream, class S>
__global__ void __launch_bounds__(kThreads, 1) skeleton(Bufs b) {
  static_assert(kWork || !kStream, "the consumers take the stream's pieces in the stages' work");
  __shared__ float xs[kHidden], red[16], att[3 * kHeadDim], o[kHeadDim];
  __shared__ uint64_t gate;  // a phase for each of the block's grid-barrier arrivals (b.gated)
  extern __shared__ __align__(128) char ring_smem[];
  const int h = blockIdx.x / kChunks, c = blockIdx.x % kChunks, t = threadIdx.x;
  Ring ring{ring_smem, reinterpret_cast<uint64_t*>(ring_smem + size_t(kSlots) * kPieceBytes), nullptr, b.ring_slots};
  ring.empty = ring.full + kSlots;
  if constexpr (kStream) {
    if (t == 0) {
      for (int i = 0; i < kSlots; ++i) {
        sm90::mbar_init(sm90::smem_addr(ring.full + i), b.cp_async ? 32 : 1);
        sm90::mbar_init(sm90::smem_addr(ring.empty + i), kConsumers);
      }
      sm90::mbar_init(sm90::smem_addr(&gate), 1);
      sm90::mbar_init_fence();
    }
  }
  __syncthreads();
  if (t >= kConsumers) {  // the producer warp: lane 0 streams this block's pieces of every layer (b.cp_async: all 32)
    const int lane = t - kConsumers;
    if (kStream && (lane == 0 || b.cp_async)) {
      uint32_t gate_phase = 0;
      for (int l = 0; l < b.layers; ++l) {
        if (b.l2_ahead > 0 && lane == 0) {
          for (int m = l == 0 ? 0 : l + b.l2_ahead; m <= l + b.l2_ahead && m < b.layers; ++m)
            for (int j = 0; j < kPiecesPerLayer; ++j)
              sm90::bulk_prefetch_l2(
                  b.weights + ((size_t(m) * kBlocks + blockIdx.x) * kPiecesPerLayer + j) * kPieceBytes, kPieceBytes);
        }
        for (int j = 0; j < kPiecesPerLayer; ++j, ring.advance()) {
          // A stage's first piece (the stages take 2, 2 and 4): when gated, only after the block's arrival
          // at the barrier that ended the stage before (none before the first).
          if (b.gated && (j == 0 || j == 2 || j == 4) && (l > 0 || j > 0)) {
            wait_phase(sm90::smem_addr(&gate), gate_phase);
            gate_phase ^= 1;
          }
          wait_phase(ring.empty_bar(), ring.phase ^ 1);
          const char* src = b.weights + ((size_t(l) * kBlocks + blockIdx.x) * kPiecesPerLayer + j) * kPieceBytes;
          const uint32_t dst = sm90::smem_addr(ring.data + size_t(ring.slot) * kPieceBytes);
          if (b.cp_async) {  // as the ring kernels' producer copies a contiguous piece (copy_piece)
            const gpt2::ring::Segment<char> piece{src, nullptr, kPieceBytes, kPieceBytes, 1};
            gpt2::ring::copy_piece(piece, 0, 1, dst, lane);
            ::fusebench::cuda::cp_async_mbarrier_arrive(ring.full_bar());
          } else {
            sm90::mbar_arrive_expect_tx(ring.full_bar(), kPieceBytes);
            sm90::bulk_load(dst, src, kPieceBytes, ring.full_bar());
          }
        }
      }
    }
    return;
  }
  const int copy = blockIdx.x % kCopies;  // the copy of the residual this block adds into
  unsigned barriers = 0;
  if (kStamp && blockIdx.x == 0 && t == 0) {
    b.clocks[0] = clock64();
    b.clocks[1] = gpt2::globaltimer();
  }
  for (int l = 0; l < b.layers; ++l) {
    const auto stamp = [&](int i) {
      if (kStamp && t == 0) b.stamps[(size_t(blockIdx.x) * kLayers + l) * kStamps + i] = clock64();
    };
    stamp(0);
    const float* x_in = b.x + size_t(2 * l) * kCopies * kHidden;
    float* x_mid = b.x + size_t(2 * l + 1) * kCopies * kHidden;
    float* x_out = b.x + size_t(2 * l + 2) * kCopies * kHidden;
    float* qkv = b.qkv + size_t(l) * 3 * kHidden;
    float* part = b.part + size_t(l) * kHeads * kChunks * kPart;
    unsigned* head = gpt2::g_head_done + (l * kHeads + h) * 2;
    // LN1, then this block's rows of its head's q|k|v (row j of 192: section j / 64, column j mod 64).
    if constexpr (kWork) {
      layer_norm<kCopies>(x_in, xs, red);
      stamp(1);
      take<kStream>(ring, 2);
      const int j = c + kChunks * t;
      if (t < kQkvRows && j < 3 * kHeadDim)
        qkv[(j / kHeadDim) * kHidden + h * kHeadDim + j % kHeadDim] = 0.5f * xs[(7 * j + h) % kHidden];
    }
    stamp(2);
    if constexpr (kGrid3) {
      S::arrive(&gpt2::g_barrier_count);
      open_gate<kStream>(b, &gate);
      S::wait(&gpt2::g_barrier_count, ++barriers * gridDim.x);
    } else {
      S::arrive(head);
      open_gate<kStream>(b, &gate);
      S::wait(head, kChunks);
    }
    stamp(3);
    // The attention item: q, the new k and v of head h; a partial published on the head's counter.
    if constexpr (kWork) {
      if (t < 3 * kHeadDim) att[t] = __ldcg(qkv + (t / kHeadDim) * kHidden + h * kHeadDim + t % kHeadDim);
      take<kStream>(ring, 1);
      Block::sync();
      float* mine = part + size_t(h * kChunks + c) * kPart;
      if (t < kHeadDim) mine[2 + t] = att[t] * att[kHeadDim + t] + att[2 * kHeadDim + t];
      if (t == 0) {
        mine[0] = att[0];
        mine[1] = 1.f;
      }
    }
    stamp(4);
    S::arrive(head + 1);
    S::wait(head + 1, kChunks);
    stamp(5);
    // The head's combine, then this block's ~70 rows of the out-projection's sums into the residual.
    if constexpr (kWork) {
      const float* all = part + size_t(h * kChunks) * kPart;
      if (t < kHeadDim) {
        float m = -1e30f, s = 0.f, acc = 0.f;
        for (int k = 0; k < kChunks; ++k) m = fmaxf(m, __ldcg(all + k * kPart));
        for (int k = 0; k < kChunks; ++k) {
          const float e = __expf(__ldcg(all + k * kPart) - m);
          s += e * __ldcg(all + k * kPart + 1);
          acc += e * __ldcg(all + k * kPart + 2 + t);
        }
        o[t] = acc / s;
      }
      take<kStream>(ring, 1);
      Block::sync();
      const int r = c * kSumRows + t;
      if (t < kSumRows && r < kHidden)
        atomicAdd(x_mid + copy * kHidden + r, 0.01f * o[t % kHeadDim] + (h == 0 ? residual<kCopies>(x_in, r) : 0.f));
    }
    stamp(6);
    S::arrive(&gpt2::g_barrier_count);
    open_gate<kStream>(b, &gate);
    S::wait(&gpt2::g_barrier_count, ++barriers * gridDim.x);
    stamp(7);
    // LN2, then this block's ~70 FFN2 sums into the next residual.
    if constexpr (kWork) {
      layer_norm<kCopies>(x_mid, xs, red);
      stamp(8);
      take<kStream>(ring, 4);
      const int r = (blockIdx.x * kSumRows + t) % kHidden;
      if (t < kSumRows)
        atomicAdd(x_out + copy * kHidden + r,
                  0.01f * xs[t] + (blockIdx.x < kChunks ? residual<kCopies>(x_mid, r) : 0.f));
    }
    stamp(9);
    S::arrive(&gpt2::g_barrier_count);
    open_gate<kStream>(b, &gate);
    S::wait(&gpt2::g_barrier_count, ++barriers * gridDim.x);
    stamp(10);
  }
  if (kStamp && blockIdx.x == 0 && t == 0) {
    b.clocks[2] = clock64();
    b.clocks[3] = gpt2::globaltimer();
  }
}
#else
template <bool kGrid3, bool kWork, int kCopies, bool kStamp, bool kStream, class S>
__global__ void __launch_bounds__(kThreads, 1) skeleton(Bufs) {}
#endif

constexpr size_t kRingBytes = size_t(kSlots) * kPieceBytes + 2 * kSlots * sizeof(uint64_t);

template <bool kGrid3, bool kWork, int kCopies = 1, bool kStamp = false, bool kStream = false,
          class S = KernelSync>
float time_step(Bufs b, int layers, size_t x_bytes, int reps) {
  const void* kernel = reinterpret_cast<const void*>(skeleton<kGrid3, kWork, kCopies, kStamp, kStream, S>);
  const size_t smem = kStream ? kRingBytes : 0;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  b.layers = layers;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> ms;
  for (int i = 0; i < reps + 3; ++i) {
    // The half layers' residuals past the input and every counter start at zero, as in the kernels.
    CK(cudaMemsetAsync(b.x + kCopies * kHidden, 0, x_bytes - kCopies * kHidden * sizeof(float)));
    CK(cudaMemsetAsync(g_counters.barrier, 0, sizeof(unsigned)));
    CK(cudaMemsetAsync(g_counters.heads, 0, kHeadCounters * sizeof(unsigned)));
    void* args[] = {&b};
    CK(cudaEventRecord(e0));
    CK(cudaLaunchCooperativeKernel(kernel, dim3(kBlocks), dim3(kThreads), args, smem, nullptr));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float t = 0.f;
    CK(cudaEventElapsedTime(&t, e0, e1));
    if (i >= 3) ms.push_back(t);
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// One stamped launch (after warm-ups): each span's median over the blocks of its mean over layers 1-11, in µs
// at the SM clock that block 0 saw (its clock64 against %globaltimer over the launch).
void spans(const char* name, float (*timed)(Bufs, int, size_t, int), const Bufs& b, size_t x_bytes) {
  timed(b, kLayers, x_bytes, 4);
  std::vector<long long> st(size_t(kBlocks) * kLayers * kStamps);
  unsigned long long clk[4];
  CK(cudaMemcpy(st.data(), b.stamps, st.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(clk, b.clocks, sizeof clk, cudaMemcpyDeviceToHost));
  const double cycles_per_us = 1000.0 * double(clk[2] - clk[0]) / double(clk[3] - clk[1]);
  // The span from stamp i to stamp i + 1, and last the whole layer (stamp 0 to the last).
  static const char* const names[kStamps] = {"LN1 (the residual from L2)", "QKV rows written", "wait 1",
                                             "attention: q|k|v read, partial", "head wait", "combine, Wo atomics",
                                             "barrier 2", "LN2 (the residual from L2)", "FFN2 atomics", "barrier 3",
                                             "a layer"};
  std::printf("spans, %s (median block, mean of layers 1-11; SM clock %.0f MHz):\n", name, cycles_per_us);
  for (int i = 0; i < kStamps; ++i) {
    std::vector<double> per_block(kBlocks);
    for (int blk = 0; blk < kBlocks; ++blk) {
      double total = 0.0;
      for (int l = 1; l < kLayers; ++l) {
        const long long* s = st.data() + (size_t(blk) * kLayers + l) * kStamps;
        total += double(i + 1 < kStamps ? s[i + 1] - s[i] : s[kStamps - 1] - s[0]);
      }
      per_block[blk] = total / (kLayers - 1) / cycles_per_us;
    }
    std::nth_element(per_block.begin(), per_block.begin() + kBlocks / 2, per_block.end());
    std::printf("  %-34s %8.2f us\n", names[i], per_block[kBlocks / 2]);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 31;
  if (reps < 1 || reps > 10000) {
    std::fprintf(stderr, "usage: chain-skeleton-probe [REPS (1..10000, default 31)]\n");
    return 2;
  }
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  int per_sm = 0;
  const auto widest = skeleton<true, true, kMaxCopies, true, true, KernelSync>;
  CK(cudaFuncSetAttribute(widest, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kRingBytes)));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, widest, kThreads, kRingBytes));
  if (per_sm * prop.multiProcessorCount < kBlocks) {
    std::fprintf(stderr, "%s: %d blocks cannot be co-resident (%d an SM × %d SMs)\n", prop.name, kBlocks, per_sm,
                 prop.multiProcessorCount);
    return 1;
  }
  const size_t x_bytes = size_t(2 * kLayers + 1) * kMaxCopies * kHidden * sizeof(float);
  Bufs b{};
  b.ring_slots = kSlots;
  CK(cudaMalloc(&b.x, x_bytes));
  CK(cudaMalloc(&b.qkv, size_t(kLayers) * 3 * kHidden * sizeof(float)));
  CK(cudaMalloc(&b.part, size_t(kLayers) * kHeads * kChunks * kPart * sizeof(float)));
  CK(cudaGetSymbolAddress(&g_counters.barrier, gpt2::g_barrier_count));
  CK(cudaGetSymbolAddress(&g_counters.heads, gpt2::g_head_done));
  const size_t weight_bytes = size_t(kLayers) * kBlocks * kPiecesPerLayer * kPieceBytes;
  CK(cudaMalloc(&b.weights, weight_bytes));
  CK(cudaMemset(const_cast<char*>(b.weights), 0, weight_bytes));
  CK(cudaMalloc(&b.stamps, size_t(kBlocks) * kLayers * kStamps * sizeof(long long)));
  CK(cudaMalloc(&b.clocks, 4 * sizeof(unsigned long long)));
  // The input residual: its values in copy 0, zeros in the others (a copy of the residual holds part sums).
  std::vector<float> x0(size_t(kMaxCopies) * kHidden, 0.f);
  for (int i = 0; i < kHidden; ++i) x0[i] = float((i * 37) % 101) / 101.f - 0.5f;
  CK(cudaMemcpy(b.x, x0.data(), x0.size() * sizeof(float), cudaMemcpyHostToDevice));
  std::printf("%s, %d SMs, %d blocks of %d threads, %d layers; medians of %d launches\n", prop.name,
              prop.multiProcessorCount, kBlocks, kThreads, kLayers, reps);
  std::printf("%-36s %10s %12s\n", "structure", "step us", "a layer us");
  const float launch = time_step<true, true>(b, 0, x_bytes, reps);
  std::printf("%-36s %10.1f %12s\n", "the launch alone (no layer)", 1000.f * launch, "-");
  const auto row = [&](const char* name, float ms) {
    std::printf("%-36s %10.1f %12.2f\n", name, 1000.f * ms, 1000.f * (ms - launch) / kLayers);
  };
  row("grid3 (the ring kernel's), sync only", time_step<true, false>(b, kLayers, x_bytes, reps));
  row("grid3 (the ring kernel's), with data", time_step<true, true>(b, kLayers, x_bytes, reps));
  row("grid3, the residual in 8 copies", time_step<true, true, 8>(b, kLayers, x_bytes, reps));
  // Rows of the stream beside the chain (grid3, 8 copies) as b stands, at each slot count; then, if asked,
  // with 13 slots and relaxed arrivals and polls.
  const auto streams = [&](const char* what, std::initializer_list<int> slot_counts, bool relaxed) {
    char name[64];
    for (const int slots : slot_counts) {
      b.ring_slots = slots;
      std::snprintf(name, sizeof name, "%s, %d slots", what, slots);
      row(name, time_step<true, true, 8, false, true>(b, kLayers, x_bytes, reps));
    }
    b.ring_slots = kSlots;
    if (relaxed) {
      std::snprintf(name, sizeof name, "%s, %d slots, relaxed", what, kSlots);
      row(name, time_step<true, true, 8, false, true, RelaxedSync>(b, kLayers, x_bytes, reps));
    }
  };
  streams("grid3, 8 copies, the stream", {kSlots, 6, 3}, true);
  b.gated = 1;
  streams("... gated at the arrivals", {kSlots}, false);
  b.gated = 0;
  b.l2_ahead = 1;
  streams("... L2 1 layer ahead", {kSlots}, true);
  b.l2_ahead = 2;
  streams("... L2 2 layers ahead", {kSlots}, false);
  b.l2_ahead = 0;
  b.cp_async = 1;
  streams("... cp.async 16 B", {kSlots, 6}, true);
  b.l2_ahead = 1;
  streams("... cp.async, L2 1 layer ahead", {kSlots, 6}, true);
  b.l2_ahead = 0;
  b.cp_async = 0;
  row("grid2 (head-local QKV), sync only", time_step<false, false>(b, kLayers, x_bytes, reps));
  row("grid2 (head-local QKV), with data", time_step<false, true>(b, kLayers, x_bytes, reps));
  // The last residual of that run, so that the data path cannot be optimized away and a broken one shows.
  std::vector<float> last(kHidden);
  CK(cudaMemcpy(last.data(), b.x + size_t(2 * kLayers) * kHidden, kHidden * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0.0;
  for (float v : last) sum += v;
  std::printf("checksum of the last residual: %.6g%s\n", sum, std::isfinite(sum) ? "" : " (NOT FINITE)");
  spans("grid3, with data", time_step<true, true, 1, true>, b, x_bytes);
  spans("grid3, the residual in 8 copies", time_step<true, true, 8, true>, b, x_bytes);
  spans("grid3, 8 copies, the stream in 13 slots", time_step<true, true, 8, true, true>, b, x_bytes);
  spans("grid3, 8 copies, the stream in 13 slots, relaxed", time_step<true, true, 8, true, true, RelaxedSync>, b,
        x_bytes);
  b.gated = 1;
  spans("grid3, 8 copies, the stream in 13 slots, gated", time_step<true, true, 8, true, true>, b, x_bytes);
  b.gated = 0;
  b.l2_ahead = 1;
  spans("grid3, 8 copies, the stream in 13 slots, L2 a layer ahead", time_step<true, true, 8, true, true>, b, x_bytes);
  b.l2_ahead = 0;
  b.cp_async = 1;
  spans("grid3, 8 copies, the stream in 13 slots by cp.async", time_step<true, true, 8, true, true>, b, x_bytes);
  b.l2_ahead = 1;
  spans("grid3, 8 copies, the stream in 13 slots by cp.async, L2 a layer ahead", time_step<true, true, 8, true, true>, b,
        x_bytes);
  b.l2_ahead = 0;
  b.cp_async = 0;
  b.ring_slots = 3;
  spans("grid3, 8 copies, the stream in 3 slots", time_step<true, true, 8, true, true>, b, x_bytes);
  return std::isfinite(sum) ? 0 : 1;
}
