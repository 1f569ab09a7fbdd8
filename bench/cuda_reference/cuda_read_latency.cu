// What one step of a split search costs on this GPU (issue #30, the merge's partition): a chain of
// dependent global reads, each step P independent 4-byte reads at random places of a region of R
// keys (all of them issued before the next address is known, as a k-ary search step issues its
// probes), measured through CUDA outside clprim. Regions: R = 8 (one 32-byte sector: L1 hits
// after the first), 32 (one 128-byte line), 2048 (an 8 KiB window, like the partition's last
// search in 1.5 x 1024 keys of each run), 2^19 (one 2 MiB page), 2^27 (the whole 512 MiB array, as
// whole-run probes); each thread its own region, at a random place in a 512 MiB array. Launch
// shapes: one thread (bare latency), 61 x 256 (the partition's shape at 2^26: 15 421 tile starts,
// 256 a work-group), 122 x 128, 241 x 64 and 132 x 256 (every SM). Each case is timed with CUDA
// events (median of 10) at S = 32 steps and at S = 0; the line gives (t(32) - t(0)) / 32 in ns.
// Not built by CMake and not a dependency of clprim: nvcc -O3 -arch=sm_90 -o cuda_read_latency
// cuda_read_latency.cu; run `cuda_read_latency`. Output: CSV lines
// latency,R_keys,P,blocks,threads,ns_per_step,us_at_0_steps.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

__device__ __forceinline__ unsigned mix(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// Thread t walks `steps` steps in its region [base, base + R) (R a power of two; base a random
// multiple of R): each step reads P keys at places drawn from the step's offset, then the next
// offset depends on all P values (the array is zero, which the compiler cannot know).
template <int P>
__global__ void chase(const unsigned* a, unsigned regions, unsigned rmask, int steps, unsigned* out)
{
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const size_t base = size_t(mix(t * 2u + 1u) & (regions - 1)) * (size_t(rmask) + 1);
    unsigned off = mix(t + 0x9e3779b9u) & rmask;
    for (int s = 0; s < steps; ++s) {
        unsigned v[P];
#pragma unroll
        for (int k = 0; k < P; ++k) v[k] = a[base + (mix(off + k * 0x61c88647u) & rmask)];
        unsigned acc = 0;
#pragma unroll
        for (int k = 0; k < P; ++k) acc += v[k];
        off = (mix(off ^ unsigned(s)) + acc) & rmask;
    }
    out[t] = off;
}

template <int P>
static float time_chase(const unsigned* a, size_t n, unsigned R, int blocks, int threads, int steps, unsigned* out)
{
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    const unsigned regions = unsigned(n / R);
    chase<P><<<blocks, threads>>>(a, regions, R - 1, steps, out);
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int i = 0; i < 10; ++i) {
        CHECK(cudaEventRecord(e0));
        chase<P><<<blocks, threads>>>(a, regions, R - 1, steps, out);
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        float t = 0;
        CHECK(cudaEventElapsedTime(&t, e0, e1));
        ms.push_back(t);
    }
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

template <int P>
static void row(const unsigned* a, size_t n, unsigned R, int blocks, int threads, unsigned* out)
{
    const int S = 32;
    const float t0 = time_chase<P>(a, n, R, blocks, threads, 0, out);
    const float t1 = time_chase<P>(a, n, R, blocks, threads, S, out);
    std::printf("latency,%u,%d,%d,%d,%.1f,%.2f\n", R, P, blocks, threads, (t1 - t0) * 1e6 / S, t0 * 1e3);
    std::fflush(stdout);
}

int main()
{
    const size_t n = size_t(1) << 27; // 512 MiB of uint
    unsigned *a = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&a, n * sizeof(unsigned)));
    CHECK(cudaMemset(a, 0, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&out, 1 << 20));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("# %s, %d SMs; latency,R_keys,P,blocks,threads,ns_per_step,us_at_0_steps\n", prop.name, prop.multiProcessorCount);
    const int shapes[][2] = {{1, 1}, {61, 256}, {122, 128}, {241, 64}, {prop.multiProcessorCount, 256}};
    for (unsigned R : {8u, 32u, 2048u, 1u << 19, 1u << 27})
        for (const auto& s : shapes) {
            row<1>(a, n, R, s[0], s[1], out);
            row<2>(a, n, R, s[0], s[1], out);
            if (R < 32) continue;
            row<8>(a, n, R, s[0], s[1], out);
            row<16>(a, n, R, s[0], s[1], out);
            row<30>(a, n, R, s[0], s[1], out);
        }
    CHECK(cudaFree(a));
    CHECK(cudaFree(out));
    return 0;
}
