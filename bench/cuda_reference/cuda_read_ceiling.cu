// How fast can this GPU read? The ceiling under #29's segmented_reduce of 65536-element segments
// (<= 0.10 ms for 2^26 uint, one waited call): that call reads 256 MiB and writes 4 KiB, so its
// time is a read-only sweep plus the launch and the wait. This program measures both through
// CUDA, outside clprim: many shapes of a plain read-and-sum kernel (grid-stride or one tile per
// block; 16-byte loads, 1-8 of them in flight a thread; plain, read-only (__ldg) or streaming
// (__ldcs) loads; blocks per SM; threads per block), CUDA-event timed, best and median; then an
// empty kernel timed by the host's clock with the stream's synchronize (the floor of one waited
// call), and CUB's DeviceReduce::Sum beside.
// Not built by CMake and not a dependency of clprim: nvcc -O3 -arch=sm_90 -o cuda_read_ceiling
// cuda_read_ceiling.cu; run `cuda_read_ceiling [repeat] [log2 n]` (default 20, 26). Output: CSV
// lines case,n,best_ms,median_ms,Gkeys_per_s,GB_per_s (time_case's format), then one line naming
// the fastest shape.
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cub_timing.cuh"

enum class load_kind { plain, ldg, ldcs };

template <load_kind L>
__device__ __forceinline__ uint4 load16(const uint4* p)
{
    if constexpr (L == load_kind::ldg) return __ldg(p);
    else if constexpr (L == load_kind::ldcs) return __ldcs(p);
    else return *p;
}

// Grid stride: thread t of G reads vectors t, t + G, ... with U loads issued before any is summed
// (U * 16 bytes in flight a thread); one partial per block written at the end.
template <int U, load_kind L>
__global__ void read_stride(const uint4* in, size_t vecs, unsigned* partial)
{
    const size_t G = size_t(gridDim.x) * blockDim.x;
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    unsigned s = 0;
    for (; i + (U - 1) * G < vecs; i += U * G) {
        uint4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = load16<L>(in + i + u * G);
#pragma unroll
        for (int u = 0; u < U; ++u) s += v[u].x + v[u].y + v[u].z + v[u].w;
    }
    for (; i < vecs; i += G) { const uint4 v = load16<L>(in + i); s += v.x + v.y + v.z + v.w; }
    s = __reduce_add_sync(0xffffffffu, s);
    if ((threadIdx.x & 31) == 0) atomicAdd(partial + blockIdx.x, s);
}

// One tile per block: block b reads the contiguous vectors [b * T, (b + 1) * T), T = blockDim * U,
// every load of a thread issued at once (a non-persistent grid, as many blocks as tiles).
template <int U, load_kind L>
__global__ void read_tile(const uint4* in, size_t vecs, unsigned* partial)
{
    const size_t base = size_t(blockIdx.x) * blockDim.x * U + threadIdx.x;
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const size_t i = base + size_t(u) * blockDim.x;
        v[u] = i < vecs ? load16<L>(in + i) : make_uint4(0, 0, 0, 0);
    }
    unsigned s = 0;
#pragma unroll
    for (int u = 0; u < U; ++u) s += v[u].x + v[u].y + v[u].z + v[u].w;
    s = __reduce_add_sync(0xffffffffu, s);
    if ((threadIdx.x & 31) == 0) atomicAdd(partial + (blockIdx.x & 4095), s);
}

__global__ void empty_kernel() {}

struct best_shape {
    double ms = 1e30;
    std::string name;
};

static double median_event_ms(int repeat, const std::function<void()>& fn)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    fn();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int i = 0; i < repeat; ++i) {
        CHECK(cudaEventRecord(a));
        fn();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float t = 0;
        CHECK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    return ms[ms.size() / 2];
}

template <int U, load_kind L>
static void shapes(const uint4* in, size_t n, unsigned* partial, int sms, int repeat, best_shape& best)
{
    const size_t vecs = n / 4;
    const char* lname = L == load_kind::plain ? "plain" : L == load_kind::ldg ? "ldg" : "ldcs";
    for (int threads : {256, 512, 1024}) {
        for (int per_sm : {1, 2, 4, 8, 16, 32}) {
            if (threads * per_sm > 2048) continue;
            const int blocks = sms * per_sm;
            const double ms = median_event_ms(repeat, [&] { read_stride<U, L><<<blocks, threads>>>(in, vecs, partial); });
            const std::string name = "read_stride/u" + std::to_string(U) + "_" + lname + "_t" + std::to_string(threads) +
                                     "_b" + std::to_string(per_sm) + "perSM";
            std::printf("%s,%zu,%.4f,%.4f,%.2f,%.1f\n", name.c_str(), n, ms, ms, n / ms / 1e6, n * 4.0 / ms / 1e6);
            if (ms < best.ms) best = {ms, name};
        }
        const size_t per_block = size_t(threads) * U;
        const unsigned blocks = unsigned((vecs + per_block - 1) / per_block);
        const double ms = median_event_ms(repeat, [&] { read_tile<U, L><<<blocks, threads>>>(in, vecs, partial); });
        const std::string name = "read_tile/u" + std::to_string(U) + "_" + lname + "_t" + std::to_string(threads);
        std::printf("%s,%zu,%.4f,%.4f,%.2f,%.1f\n", name.c_str(), n, ms, ms, n / ms / 1e6, n * 4.0 / ms / 1e6);
        if (ms < best.ms) best = {ms, name};
    }
    std::fflush(stdout);
}

int main(int argc, char** argv)
{
    const int repeat = argc > 1 ? std::atoi(argv[1]) : 20;
    const int lg = argc > 2 ? std::atoi(argv[2]) : 26;
    const size_t n = size_t(1) << lg;
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    unsigned *in, *partial, *sum;
    CHECK(cudaMalloc(&in, n * 4));
    CHECK(cudaMalloc(&partial, 4096 * 4 * 32));
    CHECK(cudaMalloc(&sum, 4));
    CHECK(cudaMemset(in, 1, n * 4));
    CHECK(cudaMemset(partial, 0, 4096 * 4 * 32));
    std::printf("case,n,best_ms,median_ms,Gkeys_per_s,GB_per_s\n");
    best_shape best;
    const uint4* v = reinterpret_cast<const uint4*>(in);
    shapes<1, load_kind::plain>(v, n, partial, sms, repeat, best);
    shapes<2, load_kind::plain>(v, n, partial, sms, repeat, best);
    shapes<4, load_kind::plain>(v, n, partial, sms, repeat, best);
    shapes<8, load_kind::plain>(v, n, partial, sms, repeat, best);
    shapes<4, load_kind::ldg>(v, n, partial, sms, repeat, best);
    shapes<8, load_kind::ldg>(v, n, partial, sms, repeat, best);
    shapes<4, load_kind::ldcs>(v, n, partial, sms, repeat, best);
    shapes<8, load_kind::ldcs>(v, n, partial, sms, repeat, best);
    std::printf("# fastest read of %zu bytes: %s %.4f ms (%.1f GB/s, median of %d)\n", n * 4, best.name.c_str(), best.ms,
                n * 4.0 / best.ms / 1e6, repeat);
    auto nothing = [] {};
    // The floor of one waited call through CUDA: an empty kernel, then the stream's synchronize.
    time_case("empty_kernel", 1, 0, repeat * 5, nothing, [] { empty_kernel<<<1, 32>>>(); });
    void* temp = nullptr;
    size_t temp_bytes = 0;
    CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, sum, int(n)));
    CHECK(cudaMalloc(&temp, temp_bytes));
    time_case("cub_reduce_sum_device", n, n * 4.0, repeat, nothing,
              [&] { CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, sum, int(n))); });
    return 0;
}
