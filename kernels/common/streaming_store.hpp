#pragma once

// Stores that bypass the caches, for kernel output too large to be read back from them. A
// plain store first reads its cache line from memory (write-allocate), so writing an array
// moves twice its size; a non-temporal store moves it once.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace shardrun::kernels {

/** The last-level cache's size (L3, else L2), or 32 MiB where the system does not say. */
inline std::size_t last_level_cache_bytes()
{
    static const std::size_t bytes = [] {
        for (const int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
            const long size = sysconf(name);
            if (size > 0) return static_cast<std::size_t>(size);
        }
        return std::size_t{32} << 20;
    }();
    return bytes;
}

/**
 * dst[0, n) = src[0, n), non-temporal where the CPU has such stores (x86-64), plain elsewhere.
 * Call streaming_fence() before another thread reads dst: these stores are weakly ordered.
 */
inline void streaming_copy(double* dst, const double* src, std::size_t n)
{
#if defined(__SSE2__) && defined(__x86_64__)
    std::size_t i = 0;
    const auto one = [](double* to, double value) {
        long long bits;
        std::memcpy(&bits, &value, sizeof bits);
        _mm_stream_si64(reinterpret_cast<long long*>(to), bits);
    };
    if (n > 0 && reinterpret_cast<std::uintptr_t>(dst) % 16 != 0) one(dst + i, src[i]), ++i;
    for (; i + 2 <= n; i += 2) _mm_stream_pd(dst + i, _mm_loadu_pd(src + i));
    if (i < n) one(dst + i, src[i]);
#else
    std::memcpy(dst, src, n * sizeof(double));
#endif
}

/** Orders this thread's earlier streaming stores before its later stores (a barrier's flag). */
inline void streaming_fence()
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

}  // namespace shardrun::kernels
