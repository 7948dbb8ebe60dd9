// A loop over [0, n) split into contiguous chunks on up to 16 threads, for the host-side work of a run
// (making inputs, converting them to and from half precision) that would otherwise wait on one core.
#pragma once
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace fusebench {

// Runs body(begin, end) over [0, n) in chunks whose starts are multiples of `align`, one thread per
// chunk once n is large enough that a thread's start (tens of microseconds) is small beside its chunk.
template <class Body>
void parallel_chunks(size_t n, size_t align, Body body) {
  constexpr size_t kMinPerThread = size_t{1} << 18;
  const size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const size_t threads = std::min<size_t>({hw, 16, std::max<size_t>(1, n / kMinPerThread)});
  if (threads <= 1) return body(0, n);
  size_t chunk = (n + threads - 1) / threads;
  chunk = (chunk + align - 1) / align * align;
  std::vector<std::thread> pool;
  for (size_t begin = chunk; begin < n; begin += chunk) pool.emplace_back(body, begin, std::min(n, begin + chunk));
  body(0, std::min(n, chunk));
  for (auto& t : pool) t.join();
}

}  // namespace fusebench
