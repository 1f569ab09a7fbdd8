// CUDA reference figures for issue #29 (segmented sort and reduce): NVIDIA CUB's
// DeviceSegmentedSort::SortKeys / SortPairs and DeviceSegmentedReduce::Sum on the layouts of
// bench/bench_segments.cpp: segments_32, segments_1024, segments_65536 (equal lengths),
// power_law (lengths 1 .. 2^20, P(len > x) ~ 1/x), one_huge (100 000 empty segments + one of n).
// Not built by CMake and not a dependency of clprim: nvcc -O3 -arch=sm_90 -o cub_segments
// cub_segments.cu; run `cub_segments [repeat] [log2 n ...]` (default 20 repeats, n = 2^26).
// Random uint keys (values = keys); best and median of CUDA-event times over `repeat` calls
// after one warm-up; each sort call restores its input first, outside the events. Output: one
// CSV line per case: case,n,best_ms,median_ms,Gkeys_per_s(best),GB_per_s(best), case =
// <group>/<layout>. The sorts write to a second buffer (CUB's segmented sort is not in place).
#include "../segment_layouts.hpp"

#include <cub/cub.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cub_timing.cuh"

int main(int argc, char** argv)
{
    const int repeat = argc > 1 ? std::atoi(argv[1]) : 20;
    std::vector<int> logs;
    for (int i = 2; i < argc; ++i) logs.push_back(std::atoi(argv[i]));
    if (logs.empty()) logs.push_back(26);
    std::printf("case,n,best_ms,median_ms,Gkeys_per_s,GB_per_s\n");
    const char* layouts[] = {"segments_32", "segments_1024", "segments_65536", "power_law", "one_huge"};
    for (int lg : logs) {
        const size_t n = size_t(1) << lg;
        std::vector<unsigned> h(n);
        std::mt19937 rng(lg);
        for (auto& x : h) x = rng();
        unsigned *k0, *k1, *v0, *v1, *orig, *sums;
        CHECK(cudaMalloc(&k0, n * 4)); CHECK(cudaMalloc(&k1, n * 4));
        CHECK(cudaMalloc(&v0, n * 4)); CHECK(cudaMalloc(&v1, n * 4));
        CHECK(cudaMalloc(&orig, n * 4));
        CHECK(cudaMemcpy(orig, h.data(), n * 4, cudaMemcpyHostToDevice));
        auto restore = [&] { CHECK(cudaMemcpy(k0, orig, n * 4, cudaMemcpyDeviceToDevice));
                             CHECK(cudaMemcpy(v0, orig, n * 4, cudaMemcpyDeviceToDevice)); };
        auto nothing = [] {};
        for (const char* layout : layouts) {
            const std::vector<unsigned> ho = segment_layout_offsets(layout, n);
            const int S = int(ho.size() - 1);
            unsigned* d_off;
            CHECK(cudaMalloc(&d_off, ho.size() * 4));
            CHECK(cudaMalloc(&sums, size_t(S) * 4));
            CHECK(cudaMemcpy(d_off, ho.data(), ho.size() * 4, cudaMemcpyHostToDevice));
            void* temp = nullptr;
            size_t temp_bytes = 0, need = 0;
            CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, need, k0, k1, int(n), S, d_off, d_off + 1));
            temp_bytes = std::max(temp_bytes, need);
            CHECK(cub::DeviceSegmentedSort::SortPairs(nullptr, need, k0, k1, v0, v1, int(n), S, d_off, d_off + 1));
            temp_bytes = std::max(temp_bytes, need);
            CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, need, orig, sums, S, d_off, d_off + 1));
            temp_bytes = std::max(temp_bytes, need);
            CHECK(cudaMalloc(&temp, temp_bytes));
            const std::string l(layout);
            time_case(("segmented_sort/" + l).c_str(), n, 8.0 * n, repeat, restore, [&] {
                size_t t = temp_bytes;
                CHECK(cub::DeviceSegmentedSort::SortKeys(temp, t, k0, k1, int(n), S, d_off, d_off + 1));
            });
            // Check the keys: every segment sorted.
            {
                std::vector<unsigned> out(n);
                CHECK(cudaMemcpy(out.data(), k1, n * 4, cudaMemcpyDeviceToHost));
                for (int s = 0; s < S; ++s)
                    if (!std::is_sorted(out.begin() + ho[s], out.begin() + ho[s + 1])) {
                        std::fprintf(stderr, "%s: segment %d not sorted\n", layout, s);
                        return 1;
                    }
            }
            time_case(("segmented_sort_by_key/" + l).c_str(), n, 16.0 * n, repeat, restore, [&] {
                size_t t = temp_bytes;
                CHECK(cub::DeviceSegmentedSort::SortPairs(temp, t, k0, k1, v0, v1, int(n), S, d_off, d_off + 1));
            });
            time_case(("segmented_reduce/" + l).c_str(), n, 4.0 * n, repeat, nothing, [&] {
                size_t t = temp_bytes;
                CHECK(cub::DeviceSegmentedReduce::Sum(temp, t, orig, sums, S, d_off, d_off + 1));
            });
            {
                std::vector<unsigned> got(S);
                CHECK(cudaMemcpy(got.data(), sums, size_t(S) * 4, cudaMemcpyDeviceToHost));
                for (int s = 0; s < S; ++s) {
                    unsigned want = 0;
                    for (unsigned i = ho[s]; i < ho[s + 1]; ++i) want += h[i];
                    if (got[s] != want) {
                        std::fprintf(stderr, "%s: sum of segment %d wrong\n", layout, s);
                        return 1;
                    }
                }
            }
            CHECK(cudaFree(temp));
            CHECK(cudaFree(d_off));
            CHECK(cudaFree(sums));
        }
        time_case("copy", n, 8.0 * n, repeat, nothing, [&] { CHECK(cudaMemcpy(k1, orig, n * 4, cudaMemcpyDeviceToDevice)); });
        CHECK(cudaFree(k0)); CHECK(cudaFree(k1)); CHECK(cudaFree(v0)); CHECK(cudaFree(v1)); CHECK(cudaFree(orig));
    }
    return 0;
}
