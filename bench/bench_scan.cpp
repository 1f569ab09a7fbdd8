// Scan bench: exclusive scan of uint with each clprim algorithm beside bc::exclusive_scan, as
// effective GB/s (the n elements read plus the n written), each checked against the host; plus
// `fast` with each GPU path forced (fast:lookback, fast:tiles). Case scan_profile: device time.
#include "bench_framework.hpp"

#include <clprim/detail/kernel_launch.hpp>

#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/exclusive_scan.hpp>
#include <boost/compute/functional.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace {

namespace bc = boost::compute;

// Few distinct small values would hide errors in the carries: full-range values, sums wrap.
std::vector<cl_uint> host_exclusive(const std::vector<cl_uint>& v)
{
    std::vector<cl_uint> r(v.size());
    cl_uint s = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        r[i] = s;
        s += v[i];
    }
    return r;
}

} // namespace

CLPRIM_BENCH(scan)
{
    using namespace clprim_bench;
    auto& q = ctx.queue;
    const std::pair<const char*, clprim::scan_algorithm> algos[] = {
        {"hillis_steele", clprim::scan_algorithm::hillis_steele},
        {"blelloch", clprim::scan_algorithm::blelloch},
        {"fast", clprim::scan_algorithm::fast}};
    for (std::size_t n : ctx.sizes) {
        std::vector<cl_uint> host(n);
        std::mt19937 rng{static_cast<unsigned>(n) ^ 0x5ca9u};
        for (auto& x : host) x = rng();
        const auto expect = host_exclusive(host);
        bc::vector<cl_uint> in(n, ctx.ctx), out(n, ctx.ctx);
        if (n) bc::copy(host.begin(), host.end(), in.begin(), q);
        std::vector<cl_uint> got(n);
        auto measure = [&](const char* name, bool baseline, const std::function<void()>& run) {
            run();
            if (n) bc::copy(out.begin(), out.end(), got.begin(), q);
            q.finish();
            result r;
            r.group = "scan";
            r.name = name;
            r.type = "uint";
            r.n = n;
            r.baseline = baseline;
            r.correct = got == expect;
            r.ms = median_ms(q, run, ctx.repeat);
            r.gbps = r.ms > 0 ? 2.0 * double(n) * sizeof(cl_uint) / (r.ms * 1e6) : 0;
            ctx.add(r);
        };
        for (const auto& [name, algo] : algos)
            measure(name, false, [&, a = algo] { clprim::exclusive_scan(in.begin(), in.end(), out.begin(), q, 0u, a); });
        // `fast` with each of its device-wide paths forced (CLPRIM_SCAN_PATH): the single-pass
        // look-back and the three-pass reduce-then-scan, side by side on this device.
        for (const char* path : {"lookback", "tiles"}) {
            const char* before = std::getenv("CLPRIM_SCAN_PATH");
            const std::string saved = before ? before : "";
            setenv("CLPRIM_SCAN_PATH", path, 1);
            measure((std::string("fast:") + path).c_str(), false, [&] {
                clprim::exclusive_scan(in.begin(), in.end(), out.begin(), q, 0u, clprim::scan_algorithm::fast);
            });
            if (before) setenv("CLPRIM_SCAN_PATH", saved.c_str(), 1);
            else unsetenv("CLPRIM_SCAN_PATH");
        }
        measure("boost_compute", true, [&] { bc::exclusive_scan(in.begin(), in.end(), out.begin(), q); });
    }
}

namespace {

// Device time of `fast` exclusive scans of T (kernels summed, profiling queue), beside the wall
// time of the call, of a fill of the look-back slots' size (the one other command a look-back
// scan enqueues) and the device time of a plain copy of the same bytes (the floor).
template <class T>
void profile_scan(clprim_bench::context& ctx, bc::command_queue& q, std::size_t n, const char* type)
{
    std::vector<T> host(n);
    std::mt19937_64 rng(n);
    for (auto& x : host) x = static_cast<T>(rng());
    bc::vector<T> in(n, ctx.ctx), out(n, ctx.ctx);
    bc::copy(host.begin(), host.end(), in.begin(), q);
    auto run = [&] { clprim::exclusive_scan(in.begin(), in.end(), out.begin(), q, T(0), clprim::scan_algorithm::fast); };
    const int reps = std::max(1, ctx.repeat);
    const clprim_bench::call_profile prof = clprim_bench::profile_calls(q, run, reps);
    const double wall = prof.wall_ms, total = prof.kernel_ms;
    const auto& times = prof.times;
    bc::buffer slots(ctx.ctx, 8 * (1 + 2 * (n / 4096 + 1)));
    const cl_ulong zero = 0;
    const double fill = clprim_bench::median_ms(
        q, [&] { q.enqueue_fill_buffer(slots, &zero, sizeof zero, 0, slots.size()); }, reps);
    // The floor: a plain copy of the same bytes (uint4 per work-item), device time.
    static const char* copy_src =
        "__kernel void copy4(__global const uint4* in, __global uint4* out, ulong n4)"
        "{ const ulong i = get_global_id(0); if (i < n4) out[i] = in[i]; }";
    bc::program copy_program = bc::program::build_with_source(copy_src, ctx.ctx);
    bc::kernel copy4 = copy_program.create_kernel("copy4");
    const std::size_t n4 = n * sizeof(T) / 16;
    copy4.set_arg(0, in.get_buffer());
    copy4.set_arg(1, out.get_buffer());
    copy4.set_arg(2, cl_ulong(n4));
    std::vector<double> copy_ms;
    for (int i = 0; i < reps + 1; ++i) {
        bc::event e = q.enqueue_1d_range_kernel(copy4, 0, (n4 + 255) / 256 * 256, 256);
        e.wait();
        if (i > 0) copy_ms.push_back(e.duration<std::chrono::nanoseconds>().count() / 1e6);
    }
    std::sort(copy_ms.begin(), copy_ms.end());
    const double copy = copy_ms[copy_ms.size() / 2];
    std::printf("scan_profile %s n=%zu: kernels %.4f ms per call (%.0f GB/s), wall %.4f ms; a fill alone %.4f ms "
                "wall; a copy of the bytes %.4f ms device (%.0f GB/s)\n",
                type, n, total, total > 0 ? 2.0 * double(n) * sizeof(T) / (total * 1e6) : 0.0, wall, fill, copy,
                copy > 0 ? 2.0 * double(n) * sizeof(T) / (copy * 1e6) : 0.0);
    clprim_bench::print_kernel_times(times, reps);
}

// Device time of the inclusive max-scan of uint (bc::max, a generated operator) beside the sum
// scan's, same queue: the operator scans take the same look-back kernel. Also each on data whose
// result varies everywhere (max of ascending values) or not at all (sum of zeros), to tell the
// operator's cost from the data's.
void profile_max_scan(clprim_bench::context& ctx, bc::command_queue& q, std::size_t n)
{
    std::vector<cl_uint> random(n), ascending(n), zeros(n, 0u);
    std::mt19937 rng(static_cast<unsigned>(n));
    for (auto& x : random) x = rng();
    for (std::size_t i = 0; i < n; ++i) ascending[i] = cl_uint(i);
    bc::vector<cl_uint> in(n, ctx.ctx), out(n, ctx.ctx);
    const int reps = std::max(1, ctx.repeat);
    struct variant {
        const char* label;
        const std::vector<cl_uint>* data;
        bool max;
    };
    for (const variant v : {variant{"sum random", &random, false}, variant{"max random", &random, true},
                            variant{"max ascending", &ascending, true}, variant{"sum zeros", &zeros, false}}) {
        bc::copy(v.data->begin(), v.data->end(), in.begin(), q);
        auto run = [&] {
            if (!v.max) clprim::inclusive_scan(in.begin(), in.end(), out.begin(), q);
            else clprim::inclusive_scan(in.begin(), in.end(), out.begin(), q, bc::max<cl_uint>(), 0u);
        };
        const clprim_bench::call_profile prof = clprim_bench::profile_calls(q, run, reps);
        std::printf("scan_profile uint inclusive %s n=%zu: kernels %.4f ms per call, wall %.4f ms\n", v.label, n,
                    prof.kernel_ms, prof.wall_ms);
        clprim_bench::print_kernel_times(prof.times, reps);
    }
}

} // namespace

// Bench case "scan_profile" (diagnostic, prints to stdout, adds no rows): device time of the
// `fast` scan's kernels for uint and ulong, with its wall time; the inclusive sum and max-scans of
// uint beside each other.
CLPRIM_BENCH(scan_profile)
{
    bc::command_queue q(ctx.ctx, ctx.device, CL_QUEUE_PROFILING_ENABLE);
    for (std::size_t n : ctx.sizes) {
        if (n == 0) continue;
        profile_scan<cl_uint>(ctx, q, n, "uint");
        profile_scan<cl_ulong>(ctx, q, n, "ulong");
        profile_max_scan(ctx, q, n);
    }
}
