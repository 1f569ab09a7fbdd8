// Comparison sorts on random uint keys: bitonic fused and transpose, merge and Boost.Compute's sort
// at every size; the bitonic global and local variants up to 2^24 (the optimisation steps); odd-even
// transposition only up to 2^16 (O(n^2)). The input is restored, untimed, before every repeat.
#include "bench_framework.hpp"

#include <clprim/bitonic_sort.hpp>
#include <clprim/merge_sort.hpp>
#include <clprim/odd_even_sort.hpp>

#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/sort.hpp>

#include <algorithm>
#include <random>

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

        auto row = [&](const char* name, bool baseline, const std::function<void()>& run) {
            const double ms = median_ms(
                ctx.queue, [&] { bc::copy(input.begin(), input.end(), work.begin(), ctx.queue); }, run, ctx.repeat);
            std::vector<cl_uint> got(n);
            bc::copy(work.begin(), work.end(), got.begin(), ctx.queue);
            result r;
            r.group = "sort";
            r.name = name;
            r.type = "uint";
            r.n = n;
            r.ms = ms;
            r.gkeys = ms > 0 ? double(n) / (ms * 1e-3) / 1e9 : 0;
            r.baseline = baseline;
            r.correct = got == want;
            ctx.add(r);
        };
        using clprim::bitonic_variant;
        using clprim::sort_order;
        row("bitonic_fused", false,
            [&] { clprim::bitonic_sort(work.begin(), work.end(), ctx.queue, sort_order::ascending, bitonic_variant::fused); });
        row("bitonic_transpose", false,
            [&] { clprim::bitonic_sort(work.begin(), work.end(), ctx.queue, sort_order::ascending, bitonic_variant::transpose); });
        row("merge", false, [&] { clprim::merge_sort(work.begin(), work.end(), ctx.queue); });
        row("boost_compute", true, [&] { bc::sort(work.begin(), work.end(), ctx.queue); });
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
