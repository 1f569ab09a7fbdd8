// CUDA reference figures for the 8/16-bit key types and vector values (issue #30), beside
// cub_reference.cu: NVIDIA CUB's radix sort on the same GPU, outside clprim and outside OpenCL.
// Not built by CMake and not a dependency of clprim: compile it by hand on a machine with CUDA
// (nvcc -O3 -arch=sm_90 -o cub_types cub_types.cu) and run it there (`cub_types [repeat]`).
// Cases: keys alone, uchar and ushort (one and two 8-bit digit passes); pairs uint -> 8, 16 and
// 32-byte values (uint2, float4, uint4 x 2); n = 2^10, 2^20, 2^24, 2^26; random keys over the
// type's range. CUB sorts from one buffer into another (SortKeys / SortPairs with separate in and
// out arrays); each call's input is restored outside the timed events. Best and median of
// CUDA-event times over `repeat` calls after one warm-up call (temporary storage allocated once).
// Output: cub_timing.cuh's CSV line per case: case,n,best_ms,median_ms,Gkeys_per_s,GB_per_s
// (bytes: keys and values read and written once).
#include "cub_timing.cuh"

#include <cub/cub.cuh>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

struct value32 {
    uint4 a, b;
};

template <class K>
static void keys_case(const char* name, size_t n, int repeat, void*& temp, size_t& temp_bytes)
{
    std::mt19937_64 rng(n ^ sizeof(K));
    std::vector<K> h(n);
    for (auto& x : h) x = static_cast<K>(rng());
    K *in, *k0, *k1;
    CHECK(cudaMalloc(&in, n * sizeof(K)));
    CHECK(cudaMalloc(&k0, n * sizeof(K)));
    CHECK(cudaMalloc(&k1, n * sizeof(K)));
    CHECK(cudaMemcpy(in, h.data(), n * sizeof(K), cudaMemcpyHostToDevice));
    size_t need = 0;
    CHECK(cub::DeviceRadixSort::SortKeys(nullptr, need, k0, k1, (int)n));
    if (need > temp_bytes) {
        if (temp) CHECK(cudaFree(temp));
        CHECK(cudaMalloc(&temp, need));
        temp_bytes = need;
    }
    time_case(name, n, 2.0 * n * sizeof(K), repeat,
              [&] { CHECK(cudaMemcpy(k0, in, n * sizeof(K), cudaMemcpyDeviceToDevice)); },
              [&] { size_t b = temp_bytes; CHECK(cub::DeviceRadixSort::SortKeys(temp, b, k0, k1, (int)n)); });
    CHECK(cudaFree(in));
    CHECK(cudaFree(k0));
    CHECK(cudaFree(k1));
}

template <class V>
static void pairs_case(const char* name, size_t n, int repeat, void*& temp, size_t& temp_bytes)
{
    std::mt19937_64 rng(n ^ sizeof(V));
    std::vector<unsigned> h(n);
    for (auto& x : h) x = static_cast<unsigned>(rng());
    std::vector<V> hv(n);
    std::vector<unsigned char> bytes(n * sizeof(V));
    for (auto& b : bytes) b = static_cast<unsigned char>(rng());
    std::memcpy(hv.data(), bytes.data(), bytes.size());
    unsigned *in, *k0, *k1;
    V *vin, *v0, *v1;
    CHECK(cudaMalloc(&in, n * 4));
    CHECK(cudaMalloc(&k0, n * 4));
    CHECK(cudaMalloc(&k1, n * 4));
    CHECK(cudaMalloc(&vin, n * sizeof(V)));
    CHECK(cudaMalloc(&v0, n * sizeof(V)));
    CHECK(cudaMalloc(&v1, n * sizeof(V)));
    CHECK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(vin, hv.data(), n * sizeof(V), cudaMemcpyHostToDevice));
    size_t need = 0;
    CHECK(cub::DeviceRadixSort::SortPairs(nullptr, need, k0, k1, v0, v1, (int)n));
    if (need > temp_bytes) {
        if (temp) CHECK(cudaFree(temp));
        CHECK(cudaMalloc(&temp, need));
        temp_bytes = need;
    }
    time_case(name, n, 2.0 * n * (4 + sizeof(V)), repeat,
              [&] {
                  CHECK(cudaMemcpy(k0, in, n * 4, cudaMemcpyDeviceToDevice));
                  CHECK(cudaMemcpy(v0, vin, n * sizeof(V), cudaMemcpyDeviceToDevice));
              },
              [&] { size_t b = temp_bytes; CHECK(cub::DeviceRadixSort::SortPairs(temp, b, k0, k1, v0, v1, (int)n)); });
    CHECK(cudaFree(in));
    CHECK(cudaFree(k0));
    CHECK(cudaFree(k1));
    CHECK(cudaFree(vin));
    CHECK(cudaFree(v0));
    CHECK(cudaFree(v1));
}

int main(int argc, char** argv)
{
    const int repeat = argc > 1 ? std::atoi(argv[1]) : 20;
    std::printf("case,n,best_ms,median_ms,Gkeys_per_s,GB_per_s\n");
    void* temp = nullptr;
    size_t temp_bytes = 0;
    for (int lg : {10, 20, 24, 26}) {
        const size_t n = size_t(1) << lg;
        keys_case<unsigned char>("cub_radix_sort_uchar", n, repeat, temp, temp_bytes);
        keys_case<unsigned short>("cub_radix_sort_ushort", n, repeat, temp, temp_bytes);
        pairs_case<uint2>("cub_radix_sort_pairs_uint_uint2", n, repeat, temp, temp_bytes);
        pairs_case<float4>("cub_radix_sort_pairs_uint_float4", n, repeat, temp, temp_bytes);
        pairs_case<value32>("cub_radix_sort_pairs_uint_32bytes", n, repeat, temp, temp_bytes);
    }
    if (temp) CHECK(cudaFree(temp));
    return 0;
}
