// Bench case "reduce": every clprim::reduce variant and boost::compute::reduce (the baseline) for
// a uint sum at each size; effective bandwidth = n * sizeof(uint) / time; results checked
// against the host's sum.
#include "bench_framework.hpp"

#include <boost/compute/algorithm/reduce.hpp>
#include <boost/compute/functional/operator.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace bc = boost::compute;

CLPRIM_BENCH(reduce)
{
    using clprim::reduce_variant;
    struct variant_row {
        const char* name;
        reduce_variant v;
    };
    const variant_row variants[] = {{"reduce0", reduce_variant::reduce0}, {"reduce1", reduce_variant::reduce1},
                                    {"reduce2", reduce_variant::reduce2}, {"reduce3", reduce_variant::reduce3},
                                    {"reduce4", reduce_variant::reduce4}, {"reduce5", reduce_variant::reduce5},
                                    {"reduce6", reduce_variant::reduce6}, {"fast", reduce_variant::fast}};
    for (const std::size_t n : ctx.sizes) {
        std::vector<cl_uint> host(n);
        std::mt19937 rng(static_cast<unsigned>(n));
        cl_uint want = 0;
        for (auto& x : host) {
            x = rng();
            want += x; // wraps, like the device's uint sum
        }
        bc::vector<cl_uint> d(n, ctx.ctx);
        if (n) bc::copy(host.begin(), host.end(), d.begin(), ctx.queue);
        ctx.queue.finish();

        auto add = [&](const char* name, double ms, bool baseline, bool correct) {
            clprim_bench::result r;
            r.group = "reduce";
            r.name = name;
            r.type = "uint";
            r.n = n;
            r.ms = ms;
            r.gbps = ms > 0 ? double(n) * sizeof(cl_uint) / (ms * 1e6) : 0;
            r.baseline = baseline;
            r.correct = correct;
            ctx.add(r);
        };

        cl_uint got = 0;
        const double bc_ms = clprim_bench::median_ms(
            ctx.queue, [&] { bc::reduce(d.begin(), d.end(), &got, bc::plus<cl_uint>(), ctx.queue); }, ctx.repeat);
        add("boost_compute", bc_ms, true, got == want);
        // CLPRIM_BENCH_REDUCE_FAST_ONLY=1: only the fast row beside Boost.Compute (tuning sweeps).
        static const bool fast_only = std::getenv("CLPRIM_BENCH_REDUCE_FAST_ONLY") != nullptr;
        for (const auto& v : variants) {
            if (fast_only && v.v != reduce_variant::fast) continue;
            got = 0;
            const double ms = clprim_bench::median_ms(
                ctx.queue, [&] { got = clprim::reduce(d.begin(), d.end(), ctx.queue, clprim::reduce_op::sum, v.v); },
                ctx.repeat);
            add(v.name, ms, false, got == want);
        }
    }
}

// Bench case "reduce_probe" (diagnostic, prints to stdout, adds no rows): where a reduction's
// wall time goes on this device. On a profiling queue: kernel time alone (events) of a plain
// uint4 grid-stride sum at each size beside its wall time (enqueue + finish), the wall time of an
// empty kernel, of a 4-byte blocking read into pageable and into pinned memory, and of
// clprim::reduce itself.
CLPRIM_BENCH(reduce_probe)
{
    bc::command_queue q(ctx.ctx, ctx.device, CL_QUEUE_PROFILING_ENABLE);
    const char* src = R"CLC(
__kernel void empty_k(__global uint* o) {}
__kernel void sum4(__global const uint4* v, const uint nvec, __global uint* out, __local uint* s) {
    const uint gid = get_global_id(0), gs = get_global_size(0), lid = get_local_id(0);
    uint4 a0 = 0, a1 = 0;
    uint i = gid;
    for (; i + gs < nvec; i += 2 * gs) { a0 += v[i]; a1 += v[i + gs]; }
    if (i < nvec) a0 += v[i];
    a0 += a1;
    s[lid] = a0.s0 + a0.s1 + a0.s2 + a0.s3;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint st = get_local_size(0) / 2; st > 0; st >>= 1) {
        if (lid < st) s[lid] += s[lid + st];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = s[0];
})CLC";
    bc::program prog = bc::program::build_with_source(src, ctx.ctx);
    bc::kernel empty_k = prog.create_kernel("empty_k"), sum4 = prog.create_kernel("sum4");
    const std::size_t cus = ctx.device.compute_units(), wg = 256, groups = cus * 8;
    bc::buffer out(ctx.ctx, groups * sizeof(cl_uint));
    bc::buffer pinned_buf(ctx.ctx, 64, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
    void* pinned = q.enqueue_map_buffer(pinned_buf, CL_MAP_READ | CL_MAP_WRITE, 0, 64);
    empty_k.set_arg(0, out);
    cl_uint host_v = 0;
    const double empty_ms = clprim_bench::median_ms(q, [&] { q.enqueue_1d_range_kernel(empty_k, 0, wg, wg); }, ctx.repeat);
    const double read_ms = clprim_bench::median_ms(q, [&] { q.enqueue_read_buffer(out, 0, 4, &host_v); }, ctx.repeat);
    const double pread_ms = clprim_bench::median_ms(q, [&] { q.enqueue_read_buffer(out, 0, 4, pinned); }, ctx.repeat);
    const double kread_ms = clprim_bench::median_ms(q, [&] {
        q.enqueue_1d_range_kernel(empty_k, 0, wg, wg);
        q.enqueue_read_buffer(out, 0, 4, pinned);
    }, ctx.repeat);
    std::printf("reduce_probe: %zu CUs; wall ms: empty kernel %.4f, 4-byte read pageable %.4f, pinned %.4f, "
                "empty kernel + pinned read %.4f\n", cus, empty_ms, read_ms, pread_ms, kread_ms);
    {
        // A value written by a kernel, brought back by mapping a host-allocated buffer instead of
        // a read command (and whether the driver's host-allocated buffers are zero-copy).
        bc::program p2 = bc::program::build_with_source(
            "__kernel void put(__global uint* o, uint v) { if (get_global_id(0) == 0) o[0] = v; }", ctx.ctx);
        bc::kernel put = p2.create_kernel("put");
        bc::buffer dev_buf(ctx.ctx, 64), host_buf(ctx.ctx, 64, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
        cl_uint v = 1;
        bool all_seen = true;
        const double put_read_ms = clprim_bench::median_ms(q, [&] {
            put.set_arg(0, dev_buf);
            put.set_arg(1, ++v);
            q.enqueue_1d_range_kernel(put, 0, 1, 1);
            q.enqueue_read_buffer_async(dev_buf, 0, 4, pinned);
            q.finish();
            all_seen = all_seen && *static_cast<cl_uint*>(pinned) == v;
        }, ctx.repeat);
        const double put_map_ms = clprim_bench::median_ms(q, [&] {
            put.set_arg(0, host_buf);
            put.set_arg(1, ++v);
            q.enqueue_1d_range_kernel(put, 0, 1, 1);
            void* m = q.enqueue_map_buffer(host_buf, CL_MAP_READ, 0, 4);
            all_seen = all_seen && *static_cast<cl_uint*>(m) == v;
            q.enqueue_unmap_buffer(host_buf, m);
        }, ctx.repeat);
        void* persistent = q.enqueue_map_buffer(host_buf, CL_MAP_READ | CL_MAP_WRITE, 0, 4);
        put.set_arg(0, host_buf);
        put.set_arg(1, cl_uint(0xC0FFEE));
        q.enqueue_1d_range_kernel(put, 0, 1, 1);
        q.finish();
        const bool zero_copy = *static_cast<cl_uint*>(persistent) == 0xC0FFEEu;
        q.enqueue_unmap_buffer(host_buf, persistent);
        q.finish();
        std::printf("reduce_probe: put kernel + pinned read %.4f ms; put into ALLOC_HOST_PTR + map/unmap %.4f ms "
                    "(values %s); kernel writes visible through a standing map: %s\n",
                    put_read_ms, put_map_ms, all_seen ? "right" : "WRONG", zero_copy ? "yes" : "no");
    }
    for (const std::size_t n : ctx.sizes) {
        if (n < 4) continue;
        bc::vector<cl_uint> d(n, 1u, q);
        q.finish();
        sum4.set_arg(0, d.get_buffer());
        sum4.set_arg(1, cl_uint(n / 4));
        sum4.set_arg(2, out);
        sum4.set_arg(3, wg * sizeof(cl_uint), nullptr);
        std::vector<double> kt;
        for (int r = 0; r < ctx.repeat + 2; ++r) {
            bc::event e = q.enqueue_1d_range_kernel(sum4, 0, groups * wg, wg);
            e.wait();
            if (r >= 2) kt.push_back(double(e.duration<std::chrono::nanoseconds>().count()) / 1e6);
        }
        std::sort(kt.begin(), kt.end());
        const double k_ms = kt[kt.size() / 2];
        const double w_ms = clprim_bench::median_ms(q, [&] { q.enqueue_1d_range_kernel(sum4, 0, groups * wg, wg); }, ctx.repeat);
        const double r_ms = clprim_bench::median_ms(q, [&] { (void)clprim::reduce(d.begin(), d.end(), q); }, ctx.repeat);
        std::printf("reduce_probe: n=%zu uint4-sum kernel %.4f ms (%.0f GB/s) wall %.4f ms; clprim::reduce fast %.4f ms (%.0f GB/s)\n",
                    n, k_ms, n * 4.0 / (k_ms * 1e6), w_ms, r_ms, n * 4.0 / (r_ms * 1e6));
    }
}
