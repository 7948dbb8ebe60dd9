// A loop over [0, n) split into contiguous chunks on up to 16 threads, for the host-side work of a run
// (making inputs, converting them to and from half precision) that would otherwise wait on one core.
#pragma once
#include <algorithm>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace fusebench {

// Runs body(begin, end) over [0, n) in chunks whose starts are multiples of `align`, one thread per
// chunk once n is large enough that a thread's start (tens of microseconds) is small beside its chunk.
// A thread that cannot be started (a thread or address-space limit) leaves its chunks to the calling
// thread; whatever happens, every started thread is joined before this returns or throws (a joinable
// std::thread destroyed would end the process).
template <class Body>
void parallel_chunks(size_t n, size_t align, Body body) {
  constexpr size_t kMinPerThread = size_t{1} << 18;
  const size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const size_t threads = std::min<size_t>({hw, 16, std::max<size_t>(1, n / kMinPerThread)});
  if (threads <= 1) return body(0, n);
  size_t chunk = (n + threads - 1) / threads;
  chunk = (chunk + align - 1) / align * align;
  std::vector<std::thread> pool;
  pool.reserve(threads);
  struct JoinAll {
    std::vector<std::thread>& pool;
    ~JoinAll() {
      for (auto& t : pool)
        if (t.joinable()) t.join();
    }
  } join_all{pool};
  size_t begin = chunk;
  for (; begin < n; begin += chunk) {
    try {
      pool.emplace_back(body, begin, std::min(n, begin + chunk));
    } catch (const std::system_error&) {
      break;  // no thread for this chunk: the loop below runs it here
    }
  }
  body(0, std::min(n, chunk));
  for (; begin < n; begin += chunk) body(begin, std::min(n, begin + chunk));
}

}  // namespace fusebench
