// CUDA reference figures for issue #30 (merge, search, top k, comparator sorts): what the same GPU
// does with NVIDIA CUB / Thrust, outside clprim and outside OpenCL. Not built by CMake and not a
// dependency of clprim: compile it by hand on a machine with CUDA
//   nvcc -O3 -arch=sm_90 -o cub_merge_search cub_merge_search.cu
// Random uint keys (int for the comparator sort), n = 2^20, 2^24, 2^26; best and median of
// CUDA-event times over `repeat` calls after one warm-up call; each call restores its input
// first, outside the timing. Cases:
//   cub_merge_uint            cub::DeviceMerge::MergeKeys of two sorted halves of n
//   thrust_lower_bound_uint   thrust::lower_bound (vectorised) of n random queries over n sorted
//   cub_radix_sort_uint       cub::DeviceRadixSort::SortKeys (descending) of n: the top-k anchor
//   cub_merge_sort_abs_int    cub::DeviceMergeSort::SortKeys with abs(a) < abs(b)
// Output: one CSV line per case: case,n,best_ms,median_ms,Gkeys_per_s(best),GB_per_s(best).
#include <cub/cub.cuh>
#include <thrust/binary_search.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>

#include "cub_timing.cuh" // CHECK, time_case

#include <random>

struct abs_less_int {
    __host__ __device__ bool operator()(int a, int b) const { return (a < 0 ? -(long long)a : a) < (b < 0 ? -(long long)b : b); }
};

int main(int argc, char** argv)
{
    const int repeat = argc > 1 ? std::atoi(argv[1]) : 20;
    std::printf("case,n,best_ms,median_ms,Gkeys_per_s,GB_per_s\n");
    for (int lg : {20, 24, 26}) {
        const size_t n = size_t(1) << lg, n1 = n / 2;
        std::vector<unsigned> h(n), queries(n);
        std::mt19937 rng(lg);
        for (auto& x : h) x = rng();
        for (auto& x : queries) x = rng();
        unsigned *k0, *k1, *orig, *q, *res;
        CHECK(cudaMalloc(&k0, n * 4)); CHECK(cudaMalloc(&k1, n * 4));
        CHECK(cudaMalloc(&orig, n * 4)); CHECK(cudaMalloc(&q, n * 4)); CHECK(cudaMalloc(&res, n * 4));
        void* temp = nullptr;
        size_t temp_bytes = 0, need = 0;
        auto grow = [&](size_t b) { if (b > temp_bytes) { if (temp) cudaFree(temp); CHECK(cudaMalloc(&temp, b)); temp_bytes = b; } };
        auto nothing = [] {};

        // merge: two sorted halves
        {
            std::vector<unsigned> halves = h;
            std::sort(halves.begin(), halves.begin() + n1);
            std::sort(halves.begin() + n1, halves.end());
            CHECK(cudaMemcpy(k0, halves.data(), n * 4, cudaMemcpyHostToDevice));
            CHECK(cub::DeviceMerge::MergeKeys(nullptr, need, k0, (long long)n1, k0 + n1, (long long)(n - n1), k1)); grow(need);
            time_case("cub_merge_uint", n, 8.0 * n, repeat, nothing, [&] {
                size_t b = temp_bytes;
                CHECK(cub::DeviceMerge::MergeKeys(temp, b, k0, (long long)n1, k0 + n1, (long long)(n - n1), k1));
            });
            std::vector<unsigned> out(n), want(n);
            CHECK(cudaMemcpy(out.data(), k1, n * 4, cudaMemcpyDeviceToHost));
            std::merge(halves.begin(), halves.begin() + n1, halves.begin() + n1, halves.end(), want.begin());
            if (out != want) { std::fprintf(stderr, "merge result wrong at n = %zu\n", n); return 1; }
        }

        // lower_bound: n random queries over the sorted keys
        {
            std::vector<unsigned> sorted = h;
            std::sort(sorted.begin(), sorted.end());
            CHECK(cudaMemcpy(k0, sorted.data(), n * 4, cudaMemcpyHostToDevice));
            CHECK(cudaMemcpy(q, queries.data(), n * 4, cudaMemcpyHostToDevice));
            thrust::device_ptr<unsigned> s(k0), qs(q), r(res);
            time_case("thrust_lower_bound_uint", n, 8.0 * n, repeat, nothing,
                      [&] { thrust::lower_bound(thrust::device, s, s + n, qs, qs + n, r); });
            std::vector<unsigned> out(n);
            CHECK(cudaMemcpy(out.data(), res, n * 4, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < n; i += 1 + n / 1000)
                if (out[i] != unsigned(std::lower_bound(sorted.begin(), sorted.end(), queries[i]) - sorted.begin())) {
                    std::fprintf(stderr, "lower_bound result wrong at n = %zu\n", n);
                    return 1;
                }
        }

        // top-k anchor: a full descending radix sort
        CHECK(cudaMemcpy(orig, h.data(), n * 4, cudaMemcpyHostToDevice));
        auto restore = [&] { CHECK(cudaMemcpy(k0, orig, n * 4, cudaMemcpyDeviceToDevice)); };
        CHECK(cub::DeviceRadixSort::SortKeysDescending(nullptr, need, k0, k1, (int)n)); grow(need);
        time_case("cub_radix_sort_uint", n, 0, repeat, restore,
                  [&] { size_t b = temp_bytes; CHECK(cub::DeviceRadixSort::SortKeysDescending(temp, b, k0, k1, (int)n)); });

        // comparator sort: ints by absolute value
        int* ik = reinterpret_cast<int*>(k0);
        CHECK(cub::DeviceMergeSort::SortKeys(nullptr, need, ik, (int)n, abs_less_int{})); grow(need);
        time_case("cub_merge_sort_abs_int", n, 0, repeat, restore,
                  [&] { size_t b = temp_bytes; CHECK(cub::DeviceMergeSort::SortKeys(temp, b, ik, (int)n, abs_less_int{})); });
        {
            restore();
            size_t b = temp_bytes;
            CHECK(cub::DeviceMergeSort::SortKeys(temp, b, ik, (int)n, abs_less_int{}));
            std::vector<int> out(n);
            CHECK(cudaMemcpy(out.data(), k0, n * 4, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i + 1 < n; ++i)
                if (abs_less_int{}(out[i + 1], out[i])) { std::fprintf(stderr, "abs sort wrong at n = %zu\n", n); return 1; }
        }

        cudaFree(temp); cudaFree(k0); cudaFree(k1); cudaFree(orig); cudaFree(q); cudaFree(res);
    }
    return 0;
}
