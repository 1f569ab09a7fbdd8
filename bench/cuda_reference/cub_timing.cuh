#pragma once
// Shared by the CUB reference programs (cub_reference.cu, cub_segments.cu, cub_merge_search.cu): CHECK for CUDA calls,
// and time_case: times fn (one call) `repeat` times after one warm-up, restore() before each call
// outside the events; prints one CSV line case,n,best_ms,median_ms,Gkeys_per_s,GB_per_s.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

// Times fn (one call) `repeat` times; restore() runs before each call, outside the events.
static void time_case(const char* name, size_t n, double bytes, int repeat,
                      const std::function<void()>& restore, const std::function<void()>& fn)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    restore(); fn(); CHECK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int i = 0; i < repeat; ++i) {
        restore();
        CHECK(cudaEventRecord(a));
        fn();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float t = 0; CHECK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const double best = ms.front(), median = ms[ms.size() / 2];
    std::printf("%s,%zu,%.4f,%.4f,%.2f,%.1f\n", name, n, best, median, n / best / 1e6, bytes / best / 1e6);
    std::fflush(stdout);
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
}
