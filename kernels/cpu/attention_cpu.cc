// The CPU flash-style causal attention (attention_cpu.h). For a group of up to 4 query rows of one
// head it walks the keys in blocks of 64: the block's scores come from the GEMM's register tile
// (cpu::gemm_block, reading Q and K in place through their strides, so each score is the same float as
// the unfused GEMM's), then each row scales the scores of its keys j ≤ i (in the diagonal block the
// tile also computes the few after i, which are ignored: that is the causal mask) and folds them into
// its running softmax:
//   m' = max(m, max_j s_j);  l' = l·e^{m − m'} + Σ_j e^{s_j − m'};  acc' = acc·e^{m − m'} + Σ_j e^{s_j − m'}·v_j
// and finally writes acc·(1/l). Only keys 0 .. i of row i enter its sums; the scores of a block live
// in a 4×64 local array, so nothing of size seq×seq is ever written.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "cpu/attention_cpu.h"
#include "cpu/gemm_any.h"
#include "cpu/softmax_cpu.h"
#include "cpu/widen.h"

namespace fusebench::kernels::cpu {
namespace {

constexpr size_t kKeyBlock = 64;  // keys per block: 4×64 scores, 64 rows of V (16 KiB)
constexpr size_t kSumLanes = 8;   // partial sums of a block's exponentials

// o[i, :] = Σ_j p[i, j]·v[j, :] for one head: p [seq, seq], v and o [seq, d]. Every key enters, as in a
// dense GEMM; the sum over j runs in order, vectorized across the d outputs.
void probs_times_values(const float* p, const float* v, float* o, size_t seq, size_t d) {
  for (size_t i = 0; i < seq; ++i) {
    float acc[kWideHeadDim] = {};
    const float* pi = p + i * seq;
    for (size_t j = 0; j < seq; ++j) {
      const float w = pi[j];
      const float* vj = v + j * d;
      for (size_t x = 0; x < d; ++x) acc[x] += w * vj[x];
    }
    for (size_t x = 0; x < d; ++x) o[i * d + x] = acc[x];
  }
}

// The same on bf16/fp16 p and v: widened per head, the sum in float, o rounded to T.
template <class T>
void probs_times_values(const T* p, const T* v, T* o, size_t seq, size_t d) {
  const std::vector<float> pf = widen(p, seq * seq), vf = widen(v, seq * d);
  std::vector<float> of(seq * d);
  probs_times_values(pf.data(), vf.data(), of.data(), seq, d);
  narrow(of.data(), o, seq * d);
}

}  // namespace

template <class T>
void attention_unfused(const AttentionTensorsOf<T>& a, size_t d) {
  const size_t n = a.seq;
  const size_t heads = a.batch * a.heads;
  for (size_t bh = 0; bh < heads; ++bh) gemm_any(a.q + bh * n * d, a.k + bh * n * d, a.scores + bh * n * n, n, n, d);
  scale_mask_softmax_passes(a.scores, a.scaled, a.masked, a.p, heads * n, n, n, attention_scale(d));
  for (size_t bh = 0; bh < heads; ++bh) probs_times_values(a.p + bh * n * n, a.v + bh * n * d, a.o + bh * n * d, n, d);
}

template <class T>
void flash_attention_half(const AttentionTensorsOf<T>& a, T* o, const HeadStrides& os, size_t d) {
  const size_t count = a.batch * a.heads * a.seq * d;
  const std::vector<float> q = widen(a.q, count), k = widen(a.k, count), v = widen(a.v, count);
  std::vector<float> wide_o(count);
  const HeadStrides s = contiguous_heads(a.heads, a.seq, d);
  flash_attention({q.data(), s, k.data(), s, v.data(), s, a.batch, a.heads, a.seq, d}, wide_o.data(), os);
  narrow(wide_o.data(), o, count);
}

#define FB_INSTANTIATE(T) template void attention_unfused<T>(const AttentionTensorsOf<T>&, size_t);
FB_FOR_EACH_DTYPE(FB_INSTANTIATE)
#undef FB_INSTANTIATE
template void flash_attention_half<bf16>(const AttentionTensorsOf<bf16>&, bf16*, const HeadStrides&, size_t);
template void flash_attention_half<fp16>(const AttentionTensorsOf<fp16>&, fp16*, const HeadStrides&, size_t);

void flash_attention_rows(const AttentionOperands& a, size_t b, size_t h, size_t i0, size_t rows, float* out,
                          size_t ldo) {
  const size_t d = a.d;
  if (d == 0 || d > kWideHeadDim) throw std::invalid_argument("flash_attention_rows: head dimension above 128");
  const float scale = attention_scale(d);
  const float* q = a.q + a.qs.at(b, h, i0);
  const float* k = a.k + a.ks.at(b, h, 0);
  const float* v = a.v + a.vs.at(b, h, 0);

  float run_max[kFlashQueryRows];
  float run_sum[kFlashQueryRows] = {};
  float acc[kFlashQueryRows][kWideHeadDim] = {};
  for (float& m : run_max) m = kNegInf;
  float s[kFlashQueryRows][kKeyBlock];

  const size_t n_keys = i0 + rows;  // the last row attends to keys 0 .. i0 + rows − 1
  for (size_t j0 = 0; j0 < n_keys; j0 += kKeyBlock) {
    const size_t nb = std::min(kKeyBlock, n_keys - j0);
    gemm_block(q, a.qs.seq, k + j0 * a.ks.seq, a.ks.seq, &s[0][0], kKeyBlock, rows, nb, d);
    for (size_t r = 0; r < rows; ++r) {
      const size_t i = i0 + r;
      if (i < j0) continue;                            // every key of the block is after row i
      const size_t valid = std::min(nb, i + 1 - j0);   // keys j0 .. i, the rest are masked
      float* sr = s[r];
      float block_max = kNegInf;
      for (size_t j = 0; j < valid; ++j) {
        sr[j] *= scale;
        block_max = std::fmax(block_max, sr[j]);
      }
      const float new_max = std::fmax(run_max[r], block_max);
      if (new_max != run_max[r]) {  // rescale what was accumulated under the old max (e^{−∞} = 0 at the start)
        const float corr = std::exp(run_max[r] - new_max);
        run_sum[r] *= corr;
        for (size_t x = 0; x < d; ++x) acc[r][x] *= corr;
        run_max[r] = new_max;
      }
      float part[kSumLanes] = {};
      float* ar = acc[r];
      for (size_t j = 0; j < valid; ++j) {
        const float e = std::exp(sr[j] - new_max);
        part[j % kSumLanes] += e;
        const float* vj = v + (j0 + j) * a.vs.seq;
        for (size_t x = 0; x < d; ++x) ar[x] += e * vj[x];
      }
      float block_sum = 0.0f;
      for (float p : part) block_sum += p;
      run_sum[r] += block_sum;
    }
  }
  for (size_t r = 0; r < rows; ++r) {
    const float inv = 1.0f / run_sum[r];
    for (size_t x = 0; x < d; ++x) out[r * ldo + x] = acc[r][x] * inv;
  }
}

void flash_attention(const AttentionOperands& a, float* o, const HeadStrides& os) {
  for (size_t b = 0; b < a.batch; ++b)
    for (size_t h = 0; h < a.heads; ++h)
      for (size_t i0 = 0; i0 < a.seq; i0 += kFlashQueryRows) {
        const size_t rows = std::min(kFlashQueryRows, a.seq - i0);
        flash_attention_rows(a, b, h, i0, rows, o + os.at(b, h, i0), os.seq);
      }
}

}  // namespace fusebench::kernels::cpu
