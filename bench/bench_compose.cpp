// Bench case "compose": the composing pieces beside Boost.Compute, uint at each size.
//   reduce_device / device_x100: 100 back-to-back clprim::reduce(first, last, result, queue)
//       (result on the device, no wait) then one finish; time per call. Beside it the
//       value-returning fast reduce and Boost.Compute's reduce (the baseline); device_one: one
//       such call, then the finish (launch + wait, no read: the floor without a result to read).
//   reduce_op / bit_xor: clprim::reduce with bc::bit_xor<cl_uint>() and its identity, beside the
//       sum (reduce_op::sum) and Boost.Compute's reduce with bc::bit_xor (the baseline).
//   copy_if / half: clprim::copy_if keeping the odd values (about half), beside
//       boost::compute::copy_if (the baseline); half_count_device: the count_result overload
//       (the count stays on the device: one launch and the finish, no read).
//   scan_op / max: clprim::inclusive_scan with bc::max<cl_uint>() and identity 0, beside the sum
//       scan (clprim::inclusive_scan, fast) and Boost.Compute's inclusive_scan with bc::max (the
//       baseline). Target: max within 10% of sum.
// Effective bandwidth: bytes read (and, for copy_if and the scans, written) / time. Results
// checked on the host.
#include "bench_framework.hpp"

#include <boost/compute/algorithm/copy_if.hpp>
#include <boost/compute/algorithm/inclusive_scan.hpp>
#include <boost/compute/algorithm/reduce.hpp>
#include <boost/compute/function.hpp>
#include <boost/compute/functional.hpp>
#include <boost/compute/lambda.hpp>

#include <chrono>
#include <random>

namespace bc = boost::compute;

namespace {
BOOST_COMPUTE_FUNCTION(bool, bench_is_odd, (cl_uint x), { return (x & 1u) != 0; });
}

CLPRIM_BENCH(compose)
{
    for (const std::size_t n : ctx.sizes) {
        std::vector<cl_uint> host(n);
        std::mt19937 rng(static_cast<unsigned>(n));
        cl_uint sum = 0, x_or = 0;
        std::vector<cl_uint> odd;
        for (auto& x : host) {
            x = rng();
            sum += x;
            x_or ^= x;
            if (x & 1u) odd.push_back(x);
        }
        bc::vector<cl_uint> d(n, ctx.ctx);
        if (n) bc::copy(host.begin(), host.end(), d.begin(), ctx.queue);
        ctx.queue.finish();

        auto add = [&](const char* group, const char* name, double ms, double bytes, bool baseline, bool correct) {
            clprim_bench::result r;
            r.group = group;
            r.name = name;
            r.type = "uint";
            r.n = n;
            r.ms = ms;
            r.gbps = ms > 0 ? bytes / (ms * 1e6) : 0;
            r.baseline = baseline;
            r.correct = correct;
            ctx.add(r);
        };
        const double in_bytes = double(n) * sizeof(cl_uint);

        // Device-side reduce: 100 calls, one finish.
        {
            cl_uint got = 0;
            const double bc_ms = clprim_bench::median_ms(
                ctx.queue, [&] { bc::reduce(d.begin(), d.end(), &got, bc::plus<cl_uint>(), ctx.queue); }, ctx.repeat);
            add("reduce_device", "boost_compute", bc_ms, in_bytes, true, got == sum);
            const double fast_ms = clprim_bench::median_ms(
                ctx.queue, [&] { got = clprim::reduce(d.begin(), d.end(), ctx.queue); }, ctx.repeat);
            add("reduce_device", "value_returning", fast_ms, in_bytes, false, got == sum);
            bc::vector<cl_uint> results(100, ctx.ctx);
            const double x100_ms = clprim_bench::median_ms(
                ctx.queue,
                [&] {
                    for (int i = 0; i < 100; ++i) clprim::reduce(d.begin(), d.end(), results.begin() + i, ctx.queue);
                },
                ctx.repeat);
            std::vector<cl_uint> h(100);
            bc::copy(results.begin(), results.end(), h.begin(), ctx.queue);
            bool ok = true;
            for (cl_uint v : h) ok = ok && v == sum;
            add("reduce_device", "device_x100", x100_ms / 100, in_bytes, false, ok);
            // One call with its result on the device, then the finish: launch + wait, no read.
            const double one_ms = clprim_bench::median_ms(
                ctx.queue, [&] { clprim::reduce(d.begin(), d.end(), results.begin(), ctx.queue); }, ctx.repeat);
            cl_uint one = 0;
            bc::copy(results.begin(), results.begin() + 1, &one, ctx.queue);
            add("reduce_device", "device_one", one_ms, in_bytes, false, one == sum);
        }

        // Reduce with an operator: bit_xor against the sum.
        {
            cl_uint got = 0;
            const double bc_ms = clprim_bench::median_ms(
                ctx.queue, [&] { bc::reduce(d.begin(), d.end(), &got, bc::bit_xor<cl_uint>(), ctx.queue); }, ctx.repeat);
            add("reduce_op", "boost_compute", bc_ms, in_bytes, true, got == x_or);
            const double sum_ms = clprim_bench::median_ms(
                ctx.queue, [&] { got = clprim::reduce(d.begin(), d.end(), ctx.queue); }, ctx.repeat);
            add("reduce_op", "sum", sum_ms, in_bytes, false, got == sum);
            const double xor_ms = clprim_bench::median_ms(
                ctx.queue, [&] { got = clprim::reduce(d.begin(), d.end(), ctx.queue, bc::bit_xor<cl_uint>(), 0u); },
                ctx.repeat);
            add("reduce_op", "bit_xor", xor_ms, in_bytes, false, got == x_or);
        }

        // copy_if keeping about half.
        {
            bc::vector<cl_uint> out(std::max<std::size_t>(n, 1), ctx.ctx);
            std::size_t count = 0;
            const double bc_ms = clprim_bench::median_ms(
                ctx.queue,
                [&] { count = std::size_t(bc::copy_if(d.begin(), d.end(), out.begin(), bench_is_odd, ctx.queue) - out.begin()); },
                ctx.repeat);
            add("copy_if", "boost_compute", bc_ms, in_bytes + double(odd.size()) * sizeof(cl_uint), true, count == odd.size());
            const double ms = clprim_bench::median_ms(
                ctx.queue, [&] { count = clprim::copy_if(d.begin(), d.end(), out.begin(), ctx.queue, bench_is_odd); },
                ctx.repeat);
            std::vector<cl_uint> h(count);
            if (count) bc::copy(out.begin(), out.begin() + count, h.begin(), ctx.queue);
            add("copy_if", "half", ms, in_bytes + double(odd.size()) * sizeof(cl_uint), false, h == odd);
            // The count_result overload: the count stays on the device (no read), then the finish.
            bc::vector<cl_ulong> dcount(1, ctx.ctx);
            const double dev_ms = clprim_bench::median_ms(
                ctx.queue, [&] { clprim::copy_if(d.begin(), d.end(), out.begin(), dcount.begin(), ctx.queue, bench_is_odd); },
                ctx.repeat);
            cl_ulong c = 0;
            bc::copy(dcount.begin(), dcount.end(), &c, ctx.queue);
            std::vector<cl_uint> h2(static_cast<std::size_t>(c));
            if (c) bc::copy(out.begin(), out.begin() + std::ptrdiff_t(c), h2.begin(), ctx.queue);
            add("copy_if", "half_count_device", dev_ms, in_bytes + double(odd.size()) * sizeof(cl_uint), false, h2 == odd);
        }

        // Inclusive scan with bc::max against the sum scan (read n, write n).
        {
            std::vector<cl_uint> run_max(n), run_sum(n);
            cl_uint m = 0, s = 0;
            for (std::size_t i = 0; i < n; ++i) {
                m = std::max(m, host[i]);
                s += host[i];
                run_max[i] = m;
                run_sum[i] = s;
            }
            bc::vector<cl_uint> out(std::max<std::size_t>(n, 1), ctx.ctx);
            auto result_is = [&](const std::vector<cl_uint>& expected) {
                std::vector<cl_uint> h(n);
                if (n) bc::copy(out.begin(), out.begin() + n, h.begin(), ctx.queue);
                return h == expected;
            };
            const double bc_ms = clprim_bench::median_ms(
                ctx.queue, [&] { bc::inclusive_scan(d.begin(), d.end(), out.begin(), bc::max<cl_uint>(), ctx.queue); },
                ctx.repeat);
            add("scan_op", "boost_compute", bc_ms, 2 * in_bytes, true, result_is(run_max));
            const double sum_ms = clprim_bench::median_ms(
                ctx.queue, [&] { clprim::inclusive_scan(d.begin(), d.end(), out.begin(), ctx.queue); }, ctx.repeat);
            add("scan_op", "sum", sum_ms, 2 * in_bytes, false, result_is(run_sum));
            const double max_ms = clprim_bench::median_ms(
                ctx.queue,
                [&] { clprim::inclusive_scan(d.begin(), d.end(), out.begin(), ctx.queue, bc::max<cl_uint>(), 0u); },
                ctx.repeat);
            add("scan_op", "max", max_ms, 2 * in_bytes, false, result_is(run_max));
        }
    }
}

// Bench case "copy_if_profile" (diagnostic, prints to stdout, adds no rows): copy_if keeping about
// half of uint, wall time per call and device time per kernel (profiling queue), under whatever
// CLPRIM_COPY_IF_* knobs are set: for sweeps of the path and the tile.
CLPRIM_BENCH(copy_if_profile)
{
    bc::command_queue q(ctx.ctx, ctx.device, CL_QUEUE_PROFILING_ENABLE);
    for (const std::size_t n : ctx.sizes) {
        if (n == 0) continue;
        std::vector<cl_uint> host(n);
        std::mt19937 rng(static_cast<unsigned>(n));
        std::size_t kept = 0;
        for (auto& x : host) {
            x = rng();
            kept += x & 1u;
        }
        bc::vector<cl_uint> d(host.begin(), host.end(), q), out(n, ctx.ctx);
        q.finish();
        std::size_t count = 0;
        auto run = [&] { count = clprim::copy_if(d.begin(), d.end(), out.begin(), q, bench_is_odd); };
        const int reps = std::max(1, ctx.repeat);
        const clprim_bench::call_profile prof = clprim_bench::profile_calls(q, run, reps);
        std::printf("copy_if_profile n=%zu: wall %.4f ms, kernels %.4f ms per call, count %s\n", n, prof.wall_ms,
                    prof.kernel_ms, count == kept ? "right" : "WRONG");
        clprim_bench::print_kernel_times(prof.times, reps);
    }
}

// Bench case "small_call_host" (diagnostic, prints to stdout, adds no rows): the host's share of a
// small call, timed over 2000 calls that enqueue nothing (empty ranges: the checks and, for
// copy_if, the predicate's source rendered from the function object), beside the same calls at
// 1024 elements with their finish. Where a small call's time goes between the host and the device.
CLPRIM_BENCH(small_call_host)
{
    using clock = std::chrono::steady_clock;
    bc::vector<cl_uint> d(1024, ctx.ctx), out(1024, ctx.ctx), one(1, ctx.ctx);
    bc::vector<cl_ulong> count(1, ctx.ctx);
    std::vector<cl_uint> host(1024);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = cl_uint(i * 2654435761u);
    bc::copy(host.begin(), host.end(), d.begin(), ctx.queue);
    auto per_call_us = [&](const std::function<void()>& f, int reps) {
        f();
        ctx.queue.finish();
        const auto t0 = clock::now();
        for (int i = 0; i < reps; ++i) f();
        ctx.queue.finish();
        return std::chrono::duration<double, std::micro>(clock::now() - t0).count() / reps;
    };
    using bc::lambda::_1;
    std::printf("small_call_host: us per call\n");
    std::printf("  copy_if n=0 (BOOST_COMPUTE_FUNCTION)  %8.2f\n",
                per_call_us([&] { (void)clprim::copy_if(d.begin(), d.begin(), out.begin(), ctx.queue, bench_is_odd); }, 2000));
    std::printf("  copy_if n=0 (lambda)                  %8.2f\n",
                per_call_us([&] { (void)clprim::copy_if(d.begin(), d.begin(), out.begin(), ctx.queue, (_1 & 1u) == 1u); }, 2000));
    std::printf("  reduce n=0                            %8.2f\n",
                per_call_us([&] { (void)clprim::reduce(d.begin(), d.begin(), ctx.queue); }, 2000));
    std::printf("  copy_if n=1024 value (each finished)  %8.2f\n", per_call_us([&] {
        (void)clprim::copy_if(d.begin(), d.end(), out.begin(), ctx.queue, bench_is_odd);
    }, 200));
    std::printf("  copy_if n=1024 count_result x200, one finish %8.2f\n", per_call_us([&] {
        clprim::copy_if(d.begin(), d.end(), out.begin(), count.begin(), ctx.queue, bench_is_odd);
    }, 200));
    std::printf("  reduce n=1024 value                   %8.2f\n",
                per_call_us([&] { (void)clprim::reduce(d.begin(), d.end(), ctx.queue); }, 200));
    std::printf("  reduce n=1024 to device x200, one finish %8.2f\n",
                per_call_us([&] { clprim::reduce(d.begin(), d.end(), one.begin(), ctx.queue); }, 200));
}
