// CUDA reference figures for docs/RESULTS.md: what the same GPU does with NVIDIA CUB, outside
// clprim and outside OpenCL. Not built by CMake and not a dependency of clprim: compile it by hand
// on a machine with CUDA (nvcc -O3 -arch=sm_90 -o cub_reference cub_reference.cu) to read what
// the hardware allows. Random uint keys (and values), best and median of CUDA-event times over
// `repeat` calls after one warm-up call; each call restores its input first, outside the timing;
// then each case by the host's clock (`<case>@wall`, see cub_timing.cuh).
// Output: one CSV line per case: case,n,best_ms,median_ms,Gkeys_per_s(best),GB_per_s(best).
#include <cub/cub.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include "cub_timing.cuh"

struct less_uint { __device__ bool operator()(unsigned a, unsigned b) const { return a < b; } };
struct max_uint { __device__ unsigned operator()(unsigned a, unsigned b) const { return a > b ? a : b; } };
struct odd_uint { __device__ bool operator()(unsigned x) const { return (x & 1u) != 0; } }; // keeps about half

int main(int argc, char** argv)
{
    const int repeat = argc > 1 ? std::atoi(argv[1]) : 20;
    std::printf("case,n,best_ms,median_ms,Gkeys_per_s,GB_per_s\n");
    for (int lg : {10, 16, 20, 24, 26}) {
        const size_t n = size_t(1) << lg;
        std::vector<unsigned> h(n);
        std::mt19937 rng(lg);
        for (auto& x : h) x = rng();
        unsigned *k0, *k1, *v0, *v1, *orig;
        CHECK(cudaMalloc(&k0, n * 4)); CHECK(cudaMalloc(&k1, n * 4));
        CHECK(cudaMalloc(&v0, n * 4)); CHECK(cudaMalloc(&v1, n * 4));
        CHECK(cudaMalloc(&orig, n * 4));
        CHECK(cudaMemcpy(orig, h.data(), n * 4, cudaMemcpyHostToDevice));
        auto restore = [&] { CHECK(cudaMemcpy(k0, orig, n * 4, cudaMemcpyDeviceToDevice));
                             CHECK(cudaMemcpy(v0, orig, n * 4, cudaMemcpyDeviceToDevice)); };
        void* temp = nullptr;
        size_t temp_bytes = 0, need = 0;
        auto grow = [&](size_t b) { if (b > temp_bytes) { if (temp) cudaFree(temp); CHECK(cudaMalloc(&temp, b)); temp_bytes = b; } };

        // a device-to-device copy of the scan's bytes: the floor for anything that reads and writes them
        time_case("copy_uint", n, 8.0 * n, repeat, [] {}, [&] { CHECK(cudaMemcpyAsync(k1, orig, n * 4, cudaMemcpyDeviceToDevice)); });

        cub::DeviceScan::ExclusiveSum(nullptr, need, k0, k1, (int)n); grow(need);
        time_case("cub_exclusive_scan_uint", n, 8.0 * n, repeat, restore,
                  [&] { size_t b = temp_bytes; CHECK(cub::DeviceScan::ExclusiveSum(temp, b, k0, k1, (int)n)); });

        cub::DeviceScan::InclusiveScan(nullptr, need, k0, k1, max_uint{}, (int)n); grow(need);
        time_case("cub_inclusive_max_scan_uint", n, 8.0 * n, repeat, restore,
                  [&] { size_t b = temp_bytes; CHECK(cub::DeviceScan::InclusiveScan(temp, b, k0, k1, max_uint{}, (int)n)); });

        cub::DeviceReduce::Sum(nullptr, need, k0, k1, (int)n); grow(need);
        time_case("cub_reduce_sum_uint", n, 4.0 * n, repeat, restore,
                  [&] { size_t b = temp_bytes; CHECK(cub::DeviceReduce::Sum(temp, b, k0, k1, (int)n)); },
                  [&] { unsigned v; CHECK(cudaMemcpy(&v, k1, 4, cudaMemcpyDeviceToHost)); }); // clprim::reduce returns the value

        // select-if keeping about half (copy_if's peer): reads n, writes about n/2 and the count
        cub::DeviceSelect::If(nullptr, need, k0, k1, v1, (int)n, odd_uint{}); grow(need);
        time_case("cub_select_if_half_uint", n, 6.0 * n, repeat, restore,
                  [&] { size_t b = temp_bytes; CHECK(cub::DeviceSelect::If(temp, b, k0, k1, v1, (int)n, odd_uint{})); },
                  [&] { unsigned c; CHECK(cudaMemcpy(&c, v1, 4, cudaMemcpyDeviceToHost)); }); // clprim::copy_if returns the count

        cub::DeviceRadixSort::SortKeys(nullptr, need, k0, k1, (int)n); grow(need);
        time_case("cub_radix_sort_uint", n, 0, repeat, restore,
                  [&] { size_t b = temp_bytes; CHECK(cub::DeviceRadixSort::SortKeys(temp, b, k0, k1, (int)n)); });

        cub::DeviceRadixSort::SortPairs(nullptr, need, k0, k1, v0, v1, (int)n); grow(need);
        time_case("cub_radix_sort_pairs_uint", n, 0, repeat, restore,
                  [&] { size_t b = temp_bytes; CHECK(cub::DeviceRadixSort::SortPairs(temp, b, k0, k1, v0, v1, (int)n)); });

        cub::DeviceMergeSort::SortKeys(nullptr, need, k0, (int)n, less_uint{}); grow(need);
        time_case("cub_merge_sort_uint", n, 0, repeat, restore,
                  [&] { size_t b = temp_bytes; CHECK(cub::DeviceMergeSort::SortKeys(temp, b, k0, (int)n, less_uint{})); });

        cub::DeviceMergeSort::SortPairs(nullptr, need, k0, v0, (int)n, less_uint{}); grow(need);
        time_case("cub_merge_sort_pairs_uint", n, 0, repeat, restore,
                  [&] { size_t b = temp_bytes; CHECK(cub::DeviceMergeSort::SortPairs(temp, b, k0, v0, (int)n, less_uint{})); });

        // the merge sort's result, checked once (a reference that sorts wrongly is no reference)
        restore();
        { size_t b = temp_bytes; CHECK(cub::DeviceMergeSort::SortPairs(temp, b, k0, v0, (int)n, less_uint{})); }
        std::vector<unsigned> out(n);
        CHECK(cudaMemcpy(out.data(), k0, n * 4, cudaMemcpyDeviceToHost));
        std::sort(h.begin(), h.end());
        if (out != h) { std::fprintf(stderr, "merge sort result wrong at n = %zu\n", n); return 1; }

        cudaFree(temp); cudaFree(k0); cudaFree(k1); cudaFree(v0); cudaFree(v1); cudaFree(orig);
    }
    return 0;
}
