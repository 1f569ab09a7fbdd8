// Bench case "segments_sort_profile" (diagnostic, prints to stdout, adds no rows): where a
// segmented sort's time goes, kernel by kernel, for the layouts one_huge and segments_65536
// (segment_layouts.hpp), segments_65536 with keys of 16 bits, and, beside them, one plain sort
// of the whole range: keys alone and uint -> uint pairs. Per layout: the median wall time of a call (input restored untimed), the
// kernels' device time per call, their difference (launch gaps, host round trips, copies that
// are not kernels) and one line per kernel.
#include "bench_framework.hpp"
#include "segment_layouts.hpp"

#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace bc = boost::compute;

namespace {

void profile_one(bc::command_queue& q, const char* what, bool pairs, int reps, const std::function<void()>& restore,
                 const std::function<void()>& run)
{
    const double wall = clprim_examples::median_ms(q, restore, run, reps);
    clprim::detail::kernel_profile(true);
    for (int i = 0; i < reps; ++i) {
        restore();
        q.finish();
        run();
        q.finish();
    }
    auto times = clprim::detail::kernel_profile_report();
    clprim::detail::kernel_profile(false);
    // The restore's copies are commands, not kernels: they are not in the table.
    const double kernels = clprim_bench::kernel_ms_per_call(times, reps);
    std::printf("segments_sort_profile %s%s: wall %.4f ms, kernels %.4f ms, rest %.4f ms\n", what,
                pairs ? " (pairs)" : "", wall, kernels, wall - kernels);
    clprim_bench::print_kernel_times(times, reps);
}

} // namespace

CLPRIM_BENCH(segments_sort_profile)
{
    bc::command_queue q(ctx.ctx, ctx.device, CL_QUEUE_PROFILING_ENABLE);
    const int reps = std::max(1, ctx.repeat);
    for (const std::size_t n : ctx.sizes) {
        std::vector<cl_uint> host(n);
        std::mt19937 rng{static_cast<unsigned>(n)};
        for (auto& x : host) x = rng();
        bc::vector<cl_uint> src(n, ctx.ctx), keys(n, ctx.ctx), values(n, ctx.ctx);
        if (n) bc::copy(host.begin(), host.end(), src.begin(), q);
        auto restore = [&] {
            if (n) bc::copy_async(src.begin(), src.end(), keys.begin(), q);
        };
        std::printf("segments_sort_profile n=%zu\n", n);
        for (const char* layout : {"one_huge", "segments_65536"}) {
            const auto offs = segment_layout_offsets(layout, n);
            bc::vector<cl_uint> d_off(offs.size(), ctx.ctx);
            bc::copy(offs.begin(), offs.end(), d_off.begin(), q);
            profile_one(q, layout, false, reps, restore,
                        [&] { clprim::segmented_sort(keys.begin(), keys.end(), d_off.begin(), d_off.end(), q); });
            profile_one(q, layout, true, reps, restore, [&] {
                clprim::segmented_sort_by_key(keys.begin(), keys.end(), values.begin(), d_off.begin(), d_off.end(), q);
            });
        }
        {
            // Keys of 16 bits in segments of 65536: the MSD form's digit where the top byte is 0.
            std::vector<cl_uint> narrow(host);
            for (auto& x : narrow) x &= 0xffffu;
            bc::vector<cl_uint> src16(n, ctx.ctx);
            if (n) bc::copy(narrow.begin(), narrow.end(), src16.begin(), q);
            const auto offs = segment_layout_offsets("segments_65536", n);
            bc::vector<cl_uint> d_off(offs.size(), ctx.ctx);
            bc::copy(offs.begin(), offs.end(), d_off.begin(), q);
            profile_one(
                q, "segments_65536, 16-bit keys", false, reps,
                [&] {
                    if (n) bc::copy_async(src16.begin(), src16.end(), keys.begin(), q);
                },
                [&] { clprim::segmented_sort(keys.begin(), keys.end(), d_off.begin(), d_off.end(), q); });
        }
        profile_one(q, "whole_range (plain sort)", false, reps, restore,
                    [&] { clprim::sort(keys.begin(), keys.end(), q); });
        profile_one(q, "whole_range (plain sort)", true, reps, restore,
                    [&] { clprim::sort_by_key(keys.begin(), keys.end(), values.begin(), q); });
    }
}
