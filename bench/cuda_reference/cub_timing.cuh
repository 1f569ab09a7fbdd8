#pragma once
// Shared by the CUB reference programs (cub_reference.cu, cub_segments.cu, cub_merge_search.cu): CHECK for CUDA calls,
// and time_case: times fn (one call) `repeat` times after one warm-up, restore() before each call
// outside the events; prints one CSV line case,n,best_ms,median_ms,Gkeys_per_s,GB_per_s, then
// the same by the host's clock as clprim's bench times a call (`<case>@wall`, time_wall).
#include <algorithm>
#include <chrono>
#include <string>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

// Times fn the way clprim's bench times a call (bench/bench_framework.hpp): the host's clock
// around fn, fetch (the copy to the host of what clprim's API returns there: a count, a value,
// an index; nothing where the result stays on the device) and the stream's synchronize. CUDA
// events time the GPU's work only; this adds the launch and the wait, as clprim's rows do.
static void time_wall(const std::string& name, size_t n, double bytes, int repeat,
                      const std::function<void()>& restore, const std::function<void()>& fn,
                      const std::function<void()>& fetch)
{
    std::vector<double> ms;
    for (int i = 0; i < repeat; ++i) {
        restore();
        CHECK(cudaDeviceSynchronize());
        const auto t0 = std::chrono::steady_clock::now();
        fn();
        if (fetch) fetch();
        CHECK(cudaStreamSynchronize(0));
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    const double best = ms.front(), median = ms[ms.size() / 2];
    std::printf("%s@wall,%zu,%.4f,%.4f,%.2f,%.1f\n", name.c_str(), n, best, median, n / best / 1e6, bytes / best / 1e6);
    std::fflush(stdout);
}

// Times fn (one call) `repeat` times with CUDA events; restore() runs before each call, outside
// the events. Then the same call by the host's clock (time_wall, one more line `<case>@wall`).
static void time_case(const char* name, size_t n, double bytes, int repeat,
                      const std::function<void()>& restore, const std::function<void()>& fn,
                      const std::function<void()>& fetch = {})
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
    time_wall(name, n, bytes, repeat, restore, fn, fetch);
}
