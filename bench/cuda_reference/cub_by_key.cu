// CUDA reference figures for the by-key and selection family (issue #28), beside
// cub_reference.cu: NVIDIA CUB on the same GPU, outside clprim and outside OpenCL. Not built by
// CMake and not a dependency of clprim: compile it by hand on a machine with CUDA
// (nvcc -O3 -arch=sm_90 -o cub_by_key cub_by_key.cu) and run it there (`cub_by_key [repeat]`).
// Keys: uint in runs of uniformly random length 1..15 (every run a new key), values uint, as
// bench/bench_by_key.cpp makes them; n = 2^10, 2^24, 2^26. Best and median of CUDA-event times
// over `repeat` calls after one warm-up call (temporary storage allocated once, outside); then
// each case by the host's clock with the count or index read back as clprim's API returns it
// (`<case>@wall`, cub_timing.cuh).
// Output: one CSV line per case, the columns of cub_reference.cu:
// case,n,best_ms,median_ms,Gkeys_per_s(best),GB_per_s(best) (bytes: what the operation must
// read and write).
#include <cub/cub.cuh>
#include <cuda/std/functional>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include "cub_timing.cuh" // CHECK, time_case (CUDA events, then `<case>@wall` by the host's clock)

struct is_odd {
    __host__ __device__ bool operator()(unsigned x) const { return (x & 1u) != 0; }
};

int main(int argc, char** argv)
{
    const int repeat = argc > 1 ? std::atoi(argv[1]) : 20;
    const std::function<void()> nothing = [] {};
    std::printf("case,n,best_ms,median_ms,Gkeys_per_s,GB_per_s\n");
    for (int lg : {10, 24, 26}) {
        const size_t n = size_t(1) << lg;
        std::mt19937 rng(lg ^ 0x5eed);
        std::vector<unsigned> keys(n), vals(n);
        unsigned key = 0;
        size_t runs = 0;
        for (size_t i = 0; i < n;) {
            const size_t len = 1 + rng() % 15;
            key += 1 + rng() % 4;
            ++runs;
            for (size_t j = 0; j < len && i < n; ++j) keys[i++] = key;
        }
        for (auto& v : vals) v = rng() % 1000;
        unsigned *dk, *dv, *ok, *ov, *oc;
        int* num;
        CHECK(cudaMalloc(&dk, n * 4));
        CHECK(cudaMalloc(&dv, n * 4));
        CHECK(cudaMalloc(&ok, n * 4));
        CHECK(cudaMalloc(&ov, n * 4));
        CHECK(cudaMalloc(&oc, n * 4));
        CHECK(cudaMalloc(&num, sizeof(int)));
        CHECK(cudaMemcpy(dk, keys.data(), n * 4, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dv, vals.data(), n * 4, cudaMemcpyHostToDevice));
        void* temp = nullptr;
        size_t temp_bytes = 0, need = 0;
        auto grow = [&](size_t b) {
            if (b > temp_bytes) {
                if (temp) CHECK(cudaFree(temp));
                CHECK(cudaMalloc(&temp, b));
                temp_bytes = b;
            }
        };
        const double w = 4.0;

        CHECK(cub::DeviceReduce::ReduceByKey(nullptr, need, dk, ok, dv, ov, num, cuda::std::plus<unsigned>{}, (int)n));
        grow(need);
        time_case("cub_reduce_by_key_uint", n, 2 * w * n + 2 * w * runs, repeat, nothing, [&] {
            size_t b = temp_bytes;
            CHECK(cub::DeviceReduce::ReduceByKey(temp, b, dk, ok, dv, ov, num, cuda::std::plus<unsigned>{}, (int)n));
        }, [&] { int c; CHECK(cudaMemcpy(&c, num, sizeof c, cudaMemcpyDeviceToHost)); });
        int got = 0;
        CHECK(cudaMemcpy(&got, num, sizeof got, cudaMemcpyDeviceToHost));
        if (size_t(got) != runs) { std::fprintf(stderr, "reduce_by_key: %d runs, expected %zu\n", got, runs); return 1; }

        CHECK(cub::DeviceScan::ExclusiveSumByKey(nullptr, need, dk, dv, ov, (int)n));
        grow(need);
        time_case("cub_exclusive_scan_by_key_uint", n, 3 * w * n, repeat, nothing, [&] {
            size_t b = temp_bytes;
            CHECK(cub::DeviceScan::ExclusiveSumByKey(temp, b, dk, dv, ov, (int)n));
        });

        CHECK(cub::DeviceSelect::Unique(nullptr, need, dk, ok, num, (int)n));
        grow(need);
        time_case("cub_unique_uint", n, w * n + w * runs, repeat, nothing, [&] {
            size_t b = temp_bytes;
            CHECK(cub::DeviceSelect::Unique(temp, b, dk, ok, num, (int)n));
        }, [&] { int c; CHECK(cudaMemcpy(&c, num, sizeof c, cudaMemcpyDeviceToHost)); });

        CHECK(cub::DeviceRunLengthEncode::Encode(nullptr, need, dk, ok, oc, num, (int)n));
        grow(need);
        time_case("cub_run_length_encode_uint", n, w * n + 2 * w * runs, repeat, nothing, [&] {
            size_t b = temp_bytes;
            CHECK(cub::DeviceRunLengthEncode::Encode(temp, b, dk, ok, oc, num, (int)n));
        }, [&] { int c; CHECK(cudaMemcpy(&c, num, sizeof c, cudaMemcpyDeviceToHost)); });

        // Keeping the odd values (about half): the selected ones first, the others reversed after.
        CHECK(cub::DevicePartition::If(nullptr, need, dv, ok, num, (int)n, is_odd{}));
        grow(need);
        time_case("cub_partition_if_uint", n, 2 * w * n, repeat, nothing, [&] {
            size_t b = temp_bytes;
            CHECK(cub::DevicePartition::If(temp, b, dv, ok, num, (int)n, is_odd{}));
        }, [&] { int c; CHECK(cudaMemcpy(&c, num, sizeof c, cudaMemcpyDeviceToHost)); });

        // ArgMin over random uint (its value and index).
        std::vector<unsigned> r(n);
        for (auto& x : r) x = rng();
        CHECK(cudaMemcpy(ov, r.data(), n * 4, cudaMemcpyHostToDevice));
        unsigned* min_out;
        long long* index_out;
        CHECK(cudaMalloc(&min_out, sizeof(unsigned)));
        CHECK(cudaMalloc(&index_out, sizeof(long long)));
        CHECK(cub::DeviceReduce::ArgMin(nullptr, need, ov, min_out, index_out, (long long)n));
        grow(need);
        time_case("cub_argmin_uint", n, w * n, repeat, nothing, [&] {
            size_t b = temp_bytes;
            CHECK(cub::DeviceReduce::ArgMin(temp, b, ov, min_out, index_out, (long long)n));
        }, [&] { long long at; CHECK(cudaMemcpy(&at, index_out, sizeof at, cudaMemcpyDeviceToHost)); });
        long long at = -1;
        CHECK(cudaMemcpy(&at, index_out, sizeof at, cudaMemcpyDeviceToHost));
        if (size_t(at) != size_t(std::min_element(r.begin(), r.end()) - r.begin())) {
            std::fprintf(stderr, "argmin wrong at n = %zu\n", n);
            return 1;
        }

        CHECK(cudaFree(min_out));
        CHECK(cudaFree(index_out));
        CHECK(cudaFree(dk));
        CHECK(cudaFree(dv));
        CHECK(cudaFree(ok));
        CHECK(cudaFree(ov));
        CHECK(cudaFree(oc));
        CHECK(cudaFree(num));
        if (temp) CHECK(cudaFree(temp));
    }
    return 0;
}
