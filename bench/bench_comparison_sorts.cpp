// Comparison sorts on random uint keys: bitonic fused and transpose, merge and Boost.Compute's sort
// at every size; merge sort_by_key uint -> uint beside Boost.Compute's sort_by_key (group
// sort_by_key, type "uint->uint", values = input positions, checked for stability); the bitonic global and local variants up to 2^24 (the optimisation steps); odd-even
// transposition only up to 2^16 (O(n^2)). The input is restored, untimed, before every repeat.
#include "bench_framework.hpp"

#include <clprim/bitonic_sort.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/merge_sort.hpp>
#include <clprim/odd_even_sort.hpp>

#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/algorithm/sort_by_key.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <sstream>
#include <string>

CLPRIM_BENCH(comparison_sorts)
{
    using namespace clprim_bench;
    for (const std::size_t n : ctx.sizes) {
        std::vector<cl_uint> host(n);
        std::mt19937 rng(static_cast<unsigned>(n));
        for (auto& x : host) x = rng();
        std::vector<cl_uint> want = host;
        std::sort(want.begin(), want.end());
        bc::vector<cl_uint> input(n, ctx.ctx), work(n, ctx.ctx);
        bc::copy(host.begin(), host.end(), input.begin(), ctx.queue);

        // One CSV row of n keys sorted in ms (Gkeys/s from n and ms).
        auto add_row = [&](const char* group, const std::string& name, const char* type, double ms, bool baseline,
                           bool correct) {
            result r;
            r.group = group;
            r.name = name;
            r.type = type;
            r.n = n;
            r.ms = ms;
            r.gkeys = ms > 0 ? double(n) / (ms * 1e-3) / 1e9 : 0;
            r.baseline = baseline;
            r.correct = correct;
            ctx.add(r);
            return r;
        };
        auto row = [&](const char* name, bool baseline, const std::function<void()>& run) {
            const double ms = median_ms(
                ctx.queue, [&] { bc::copy(input.begin(), input.end(), work.begin(), ctx.queue); }, run, ctx.repeat);
            std::vector<cl_uint> got(n);
            bc::copy(work.begin(), work.end(), got.begin(), ctx.queue);
            add_row("sort", name, "uint", ms, baseline, got == want);
        };
        using clprim::bitonic_variant;
        using clprim::sort_order;
        row("bitonic_fused", false,
            [&] { clprim::bitonic_sort(work.begin(), work.end(), ctx.queue, sort_order::ascending, bitonic_variant::fused); });
        row("bitonic_transpose", false,
            [&] { clprim::bitonic_sort(work.begin(), work.end(), ctx.queue, sort_order::ascending, bitonic_variant::transpose); });
        row("merge", false, [&] { clprim::merge_sort(work.begin(), work.end(), ctx.queue); });
        row("boost_compute", true, [&] { bc::sort(work.begin(), work.end(), ctx.queue); });

        // sort_by_key uint -> uint: values are the input positions, so the stable result is known
        // exactly; Boost.Compute's sort_by_key need only keep each value beside its key.
        {
            std::vector<cl_uint> iota(n);
            std::iota(iota.begin(), iota.end(), 0u);
            std::vector<std::pair<cl_uint, cl_uint>> ref(n);
            for (std::size_t i = 0; i < n; ++i) ref[i] = {host[i], cl_uint(i)};
            std::sort(ref.begin(), ref.end()); // ties by position: the stable order
            bc::vector<cl_uint> vinput(n, ctx.ctx), vwork(n, ctx.ctx);
            bc::copy(iota.begin(), iota.end(), vinput.begin(), ctx.queue);
            auto pair_row = [&](const std::string& name, bool baseline, bool stable, const std::function<void()>& run) {
                const double ms = median_ms(
                    ctx.queue,
                    [&] {
                        bc::copy(input.begin(), input.end(), work.begin(), ctx.queue);
                        bc::copy(vinput.begin(), vinput.end(), vwork.begin(), ctx.queue);
                    },
                    run, baseline ? std::max(1, ctx.repeat / 2) : ctx.repeat);
                std::vector<cl_uint> k(n), v(n);
                bc::copy(work.begin(), work.end(), k.begin(), ctx.queue);
                bc::copy(vwork.begin(), vwork.end(), v.begin(), ctx.queue);
                bool ok = true;
                for (std::size_t i = 0; i < n && ok; ++i)
                    ok = k[i] == ref[i].first && (stable ? v[i] == ref[i].second : v[i] < n && host[v[i]] == k[i]);
                return add_row("sort_by_key", name, "uint->uint", ms, baseline, ok);
            };
            pair_row("merge_by_key", false, true,
                     [&] { clprim::merge_sort_by_key(work.begin(), work.end(), vwork.begin(), ctx.queue); });
            pair_row("boost_compute", true, false,
                     [&] { bc::sort_by_key(work.begin(), work.end(), vwork.begin(), ctx.queue); });

            // CLPRIM_MERGE_SWEEP="group,elems;...": merge rows (keys, and pairs) per tile shape, for tuning.
            if (const char* sweep = std::getenv("CLPRIM_MERGE_SWEEP")) {
                std::stringstream list(sweep);
                std::string item;
                while (std::getline(list, item, ';')) {
                    setenv("CLPRIM_MERGE_GPU_TUNE", item.c_str(), 1);
                    row(("merge:" + item).c_str(), false, [&] { clprim::merge_sort(work.begin(), work.end(), ctx.queue); });
                    const result& k = ctx.results.back();
                    const result p = pair_row("merge_by_key:" + item, false, true, [&] {
                        clprim::merge_sort_by_key(work.begin(), work.end(), vwork.begin(), ctx.queue);
                    });
                    std::fprintf(stderr, "sweep merge %s n=%zu keys %.4f ms %.3f Gkeys/s%s pairs %.4f ms %.3f Gkeys/s%s\n",
                                 item.c_str(), n, k.ms, k.gkeys, k.correct ? "" : " WRONG", p.ms, p.gkeys,
                                 p.correct ? "" : " WRONG");
                }
                unsetenv("CLPRIM_MERGE_GPU_TUNE");
            }
        }
        if (n <= (std::size_t(1) << 24)) {
            row("bitonic_local", false,
                [&] { clprim::bitonic_sort(work.begin(), work.end(), ctx.queue, sort_order::ascending, bitonic_variant::local); });
            row("bitonic_global", false,
                [&] { clprim::bitonic_sort(work.begin(), work.end(), ctx.queue, sort_order::ascending, bitonic_variant::global); });
        }
        if (n <= (std::size_t(1) << 16))
            row("odd_even", false, [&] { clprim::odd_even_sort(work.begin(), work.end(), ctx.queue); });
    }
}

namespace {

namespace bc = boost::compute;

// Device time per kernel of one comparison sort call (uint keys, or uint -> uint pairs), averaged
// over the repeats, with each launch's effective bandwidth as a sweep (reading and writing every
// key, and value, once). sort(keys, values, pairs) sorts the range.
template <class Sort>
void sort_profile_one(clprim_bench::context& ctx, bc::command_queue& q, std::size_t n, bool pairs, const char* what,
                      Sort sort)
{
    std::mt19937 rng(static_cast<unsigned>(n));
    std::vector<cl_uint> host(n);
    for (auto& x : host) x = rng();
    bc::vector<cl_uint> source(n, ctx.ctx), keys(n, ctx.ctx), values(pairs ? n : 0, ctx.ctx);
    bc::copy(host.begin(), host.end(), source.begin(), q);
    auto run = [&] {
        bc::copy(source.begin(), source.end(), keys.begin(), q);
        sort(keys, values, pairs);
        q.finish();
    };
    run(); // build and warm up
    const int reps = std::max(1, ctx.repeat);
    clprim::detail::kernel_profile(true);
    for (int i = 0; i < reps; ++i) run();
    const auto times = clprim::detail::kernel_profile_report();
    clprim::detail::kernel_profile(false);
    double total = 0;
    for (const auto& t : times) total += t.ms / reps;
    const double sweep_bytes = double(n) * (pairs ? 8 : 4) * 2;
    std::printf("%s uint%s n=%zu: kernels %.4f ms per call\n", what, pairs ? "->uint" : "", n, total);
    for (const auto& t : times) {
        const double each = t.ms / double(t.launches);
        std::printf("  %-24s %3.0f launches %.4f ms  (%.4f ms each, %.0f GB/s per sweep)\n", t.name.c_str(),
                    double(t.launches) / reps, t.ms / reps, each, sweep_bytes / (each * 1e-3) / 1e9);
    }
}

} // namespace

// Bench case "merge_profile" (diagnostic, prints to stdout, adds no rows): where a merge sort's
// time goes, kernel by kernel (tile sort, partitions, merge rounds).
CLPRIM_BENCH(merge_profile)
{
    bc::command_queue q(ctx.ctx, ctx.device, CL_QUEUE_PROFILING_ENABLE);
    auto merge = [&](bc::vector<cl_uint>& keys, bc::vector<cl_uint>& values, bool pairs) {
        if (pairs) clprim::merge_sort_by_key(keys.begin(), keys.end(), values.begin(), q);
        else clprim::merge_sort(keys.begin(), keys.end(), q);
    };
    for (std::size_t n : ctx.sizes) {
        sort_profile_one(ctx, q, n, false, "merge_profile", merge);
        sort_profile_one(ctx, q, n, true, "merge_profile", merge);
    }
}

// Bench case "bitonic_profile" (diagnostic, prints to stdout, adds no rows): where a bitonic
// `fused` sort's time goes, by launch role (the first tile sort, full rows launches, shorter rows
// launches, the stages' tile tails); keys alone, as the rows.
CLPRIM_BENCH(bitonic_profile)
{
    bc::command_queue q(ctx.ctx, ctx.device, CL_QUEUE_PROFILING_ENABLE);
    auto bitonic = [&](bc::vector<cl_uint>& keys, bc::vector<cl_uint>&, bool) {
        clprim::bitonic_sort(keys.begin(), keys.end(), q, clprim::sort_order::ascending, clprim::bitonic_variant::fused);
    };
    for (std::size_t n : ctx.sizes) sort_profile_one(ctx, q, n, false, "bitonic_profile", bitonic);
}
