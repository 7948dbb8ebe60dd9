// fusebench's GEMM kernel (kernels/cuda/gemm_kernel.cuh) run on the CPU through
// cuda_emu.h, against a float64 reference: every epilogue and the LayerNorm fold (the row statistics
// given, as layernorm_row_stats makes them on the GPU), ragged m, n and k,
// a row stride wider than n, and four tile configurations. Compiled three times by
// suites/unit/gemm-emulation.test.ts: with __CUDA_ARCH__=800 (the asynchronous-copy pipeline on
// shared-memory barriers), once with copies landing when their barrier phase completes and once as
// they are issued (FB_EMU_COPIES_LAND_AT_ISSUE), and with 700 (Volta's register-staged copies). Prints one line per check and "<N> checks passed"; exits 1 on
// the first failure.
#include "cuda_emu.h"
// Before the kernel: the emulated shared memory, in the kernel's namespace (cuda_emu.h says why), and
// gelu_fast, which common/gelu.h defines for the GPU only (ex2.approx there, exp2f here).
#include "common/constants.h"
namespace fusebench {
inline float gelu_fast(float x) {
  constexpr float a = static_cast<float>(-2.0 * kGeluSqrt2OverPi * 1.4426950408889634);
  constexpr float b = static_cast<float>(-2.0 * kGeluSqrt2OverPi * 1.4426950408889634 * kGeluCubic);
  return x / (1.0f + exp2f(fminf(x * fmaf(b, x * x, a), 115.0f)));
}
namespace cuda {
namespace {
constexpr size_t kSmemFloats = 1 << 16;
alignas(16) float smem[kSmemFloats];
}  // namespace
}  // namespace cuda
}  // namespace fusebench
#include "cuda/gemm_kernel.cuh"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace fusebench;
using namespace fusebench::cuda;

namespace {

struct Problem {
  int m, n, k, ldy;
};

const char* name_of(Epilogue e) {
  switch (e) {
    case Epilogue::None: return "None";
    case Epilogue::Bias: return "Bias";
    case Epilogue::BiasGelu: return "BiasGelu";
    default: return "BiasResidual";
  }
}

double gelu_ref(double x) { return 0.5 * x * (1.0 + std::tanh(kGeluSqrt2OverPi * (x + kGeluCubic * x * x * x))); }

int checks = 0;

// Compares y with the reference; cells past n in each row (ldy > n) must keep their poison.
bool compare(const std::vector<float>& y, const std::vector<double>& ref, const Problem& p, std::string& why) {
  double num = 0, den = 0, worst = 0;
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < p.ldy; ++j) {
      const float v = y[static_cast<size_t>(i) * p.ldy + j];
      if (j >= p.n) {
        if (!std::isnan(v)) {
          why = "wrote past n at row " + std::to_string(i) + ", column " + std::to_string(j);
          return false;
        }
        continue;
      }
      const double r = ref[static_cast<size_t>(i) * p.n + j], d = v - r;
      if (!(std::fabs(d) <= 1e-4 + 1e-4 * std::fabs(r))) {
        why = "y[" + std::to_string(i) + "][" + std::to_string(j) + "] = " + std::to_string(v) + ", reference " + std::to_string(r);
        return false;
      }
      num += d * d;
      den += r * r;
      worst = std::fmax(worst, std::fabs(d));
    }
  }
  char text[64];
  std::snprintf(text, sizeof text, "rel. L2 %.1e, max |err| %.1e", std::sqrt(num / den), worst);
  why = text;
  return true;
}

template <class Tile, Epilogue E, bool kLn>
void run(const Problem& p, const char* tile_name, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto fill = [&](size_t count, float mean, float sd) {
    std::vector<float> v(count);
    for (auto& e : v) e = mean + sd * normal(rng);
    return v;
  };
  // A LayerNorm input sits off zero (the fold's mean·c term cancels most of x·w'); weights ~ N(0, 1/√k).
  const auto x = fill(static_cast<size_t>(p.m) * p.k, kLn ? 3.0f : 0.0f, 1.0f);
  const auto w = fill(static_cast<size_t>(p.n) * p.k, 0.0f, 1.0f / std::sqrt(static_cast<float>(p.k)));
  const auto b = fill(p.n, 0.0f, 1.0f), r = fill(static_cast<size_t>(p.m) * p.n, 0.0f, 1.0f);
  const auto gamma = fill(p.k, 1.0f, 0.1f), beta = fill(p.k, 0.0f, 0.1f);
  const float eps = 1e-5f;

  // The reference in float64: LayerNorm first where folded.
  std::vector<double> xin(x.begin(), x.end());
  std::vector<float> stats(2 * static_cast<size_t>(p.m));  // each row's μ and ρ, as layernorm_row_stats makes them
  if (kLn) {
    for (int i = 0; i < p.m; ++i) {
      double mu = 0, var = 0;
      for (int c = 0; c < p.k; ++c) mu += xin[static_cast<size_t>(i) * p.k + c];
      mu /= p.k;
      for (int c = 0; c < p.k; ++c) var += std::pow(xin[static_cast<size_t>(i) * p.k + c] - mu, 2);
      const double rho = 1.0 / std::sqrt(var / p.k + eps);
      stats[2 * static_cast<size_t>(i)] = static_cast<float>(mu);
      stats[2 * static_cast<size_t>(i) + 1] = static_cast<float>(rho);
      for (int c = 0; c < p.k; ++c) {
        double& e = xin[static_cast<size_t>(i) * p.k + c];
        e = (e - mu) * rho * gamma[c] + beta[c];
      }
    }
  }
  std::vector<double> ref(static_cast<size_t>(p.m) * p.n);
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < p.n; ++j) {
      double s = 0;
      for (int c = 0; c < p.k; ++c) s += xin[static_cast<size_t>(i) * p.k + c] * w[static_cast<size_t>(j) * p.k + c];
      if (E != Epilogue::None) s += b[j];
      if (E == Epilogue::BiasGelu) s = gelu_ref(s);
      if (E == Epilogue::BiasResidual) s += r[static_cast<size_t>(i) * p.n + j];
      ref[static_cast<size_t>(i) * p.n + j] = s;
    }
  }

  // The fold's operands as layernorm_prologue makes them on the GPU: w' = γ·w, c = Σ w', d = b + Σ β·w.
  std::vector<float> wf(w), colsum(p.n), bias(b);
  if (kLn) {
    for (int j = 0; j < p.n; ++j) {
      double cs = 0, ds = 0;
      for (int c = 0; c < p.k; ++c) {
        const size_t at = static_cast<size_t>(j) * p.k + c;
        wf[at] = w[at] * gamma[c];
        cs += wf[at];
        ds += static_cast<double>(beta[c]) * w[at];
      }
      colsum[j] = static_cast<float>(cs);
      bias[j] = static_cast<float>(b[j] + ds);
    }
  }

  std::vector<float> y(static_cast<size_t>(p.m) * p.ldy, std::nanf(""));
  GemmArgs a{x.data(), wf.data(), bias.data(), r.data(), y.data(), p.m, p.n, p.k, p.ldy};
  a.colsum = colsum.data();
  a.row_stats = stats.data();
  // What the launcher asks for on a GPU of this architecture (compute capability 10·major + minor).
  fb_emu::launch((p.n + Tile::BN - 1) / Tile::BN, (p.m + Tile::BM - 1) / Tile::BM, Tile::kThreads, smem, Tile::smem_bytes(kLn, __CUDA_ARCH__ / 10),
                 [&] { gemm_kernel<Tile, E, kLn>(a); });

  std::string why;
  const bool ok = compare(y, ref, p, why);
  std::printf("%s %s %s%s m=%d n=%d k=%d ldy=%d: %s\n", ok ? "ok" : "FAIL", tile_name, name_of(E), kLn ? "+LayerNorm" : "", p.m,
              p.n, p.k, p.ldy, why.c_str());
  if (!ok) std::exit(1);
  ++checks;
}

template <class Tile>
void run_all(const char* tile_name) {
  // Ragged everything: two row tiles and two column tiles with partial edges, a k tail of 4 (k % 8
  // == 4), a k shorter than one slice and an odd k; n % 4 != 0 takes the element-wise stores; ldy > n;
  // whole slices only (k % BK == 0, the GPT-2 shapes' case: no partial last slice); and ten slices, so
  // that every buffer's barriers go through several phases of both parities.
  const Problem shapes[] = {{200, Tile::BN + 8, 52, Tile::BN + 8}, {130, 70, 36, 76},      {64, 66, 4, 66},
                            {33, 65, 37, 65},                      {70, 72, 2 * Tile::BK, 72}, {130, 72, 9 * Tile::BK + 4, 72}};
  unsigned seed = 1;
  for (const auto& p : shapes) {
    run<Tile, Epilogue::None, false>(p, tile_name, seed++);
    run<Tile, Epilogue::Bias, false>(p, tile_name, seed++);
    run<Tile, Epilogue::BiasGelu, false>(p, tile_name, seed++);
    run<Tile, Epilogue::BiasResidual, false>(p, tile_name, seed++);
    run<Tile, Epilogue::Bias, true>(p, tile_name, seed++);
  }
}

}  // namespace

int main() {
  // The comparison itself must catch an error of 1e-3 on one element.
  {
    const Problem p{1, 2, 1, 2};
    std::string why;
    if (compare({1.0f, 2.001f}, {1.0, 2.0}, p, why) || !compare({1.0f, 2.0f}, {1.0, 2.0}, p, why)) {
      std::printf("FAIL the comparison does not tell a wrong element from a right one\n");
      return 1;
    }
  }
  run_all<GemmTile<128, 128, 16, 3>>("128x128x16/3");  // the launcher's (gemm.cuh)
  run_all<GemmTile<128, 128, 8, 4>>("128x128x8/4");    // the launcher's where 100 KB a multiprocessor
  run_all<GemmTile<128, 64, 16, 4>>("128x64x16/4");    // 128 threads, four buffers
  run_all<GemmTile<128, 256, 16, 3>>("128x256x16/3");  // 512 threads, four warps across
  std::printf("%d checks passed\n", checks);
  return 0;
}
