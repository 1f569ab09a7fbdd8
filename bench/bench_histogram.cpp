// Histogram bench: 256 bins over uint, uniform over the whole type ("uniform") and every value in
// one bin ("one_bin"), as effective input GB/s, beside a Boost.Compute-only equivalent (bins by
// bc::transform, bc::sort, bc::reduce_by_key, bc::scatter). Both are checked against the host.
#include "bench_framework.hpp"

#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/fill.hpp>
#include <boost/compute/algorithm/reduce_by_key.hpp>
#include <boost/compute/algorithm/scatter.hpp>
#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/algorithm/transform.hpp>
#include <boost/compute/function.hpp>
#include <boost/compute/iterator/constant_iterator.hpp>

#include <random>

namespace {

namespace bc = boost::compute;
constexpr std::size_t bench_bins = 256;
constexpr cl_uint bench_lower = 0, bench_upper = 0xffffffffu; // the whole type but UINT_MAX

// The bin of x for the range above, 256 for values outside (a spare bin that is not reported).
BOOST_COMPUTE_FUNCTION(cl_uint, bench_bin_of, (cl_uint x), {
    return x == 0xffffffffu ? 256u : (uint)(((ulong)x * 256ul) / 0xfffffffful);
});

std::vector<cl_uint> host_hist(const std::vector<cl_uint>& v)
{
    std::vector<cl_uint> h(bench_bins, 0);
    for (cl_uint x : v)
        if (x != 0xffffffffu) ++h[std::size_t((std::uint64_t(x) * bench_bins) / 0xffffffffull)];
    return h;
}

// Boost.Compute only: bins, sort, run lengths, scatter into a bins + 1 table, add onto counts.
struct bc_histogram {
    bc::vector<cl_uint> bins, keys, runs, table;
    bc_histogram(std::size_t n, bc::command_queue& q)
        : bins(n, q.get_context()), keys(bench_bins + 1, q.get_context()), runs(bench_bins + 1, q.get_context()),
          table(bench_bins + 1, q.get_context())
    {
    }
    void operator()(const bc::vector<cl_uint>& in, bc::vector<cl_uint>& counts, bc::command_queue& q)
    {
        bc::transform(in.begin(), in.end(), bins.begin(), bench_bin_of, q);
        bc::sort(bins.begin(), bins.end(), q);
        bc::fill(table.begin(), table.end(), 0u, q);
        auto ends = bc::reduce_by_key(bins.begin(), bins.end(), bc::make_constant_iterator(cl_uint(1)), keys.begin(),
                                      runs.begin(), q);
        bc::scatter(runs.begin(), ends.second, keys.begin(), table.begin(), q);
        bc::transform(counts.begin(), counts.end(), table.begin(), counts.begin(), bc::plus<cl_uint>(), q);
    }
};

} // namespace

CLPRIM_BENCH(histogram)
{
    using namespace clprim_bench;
    auto& q = ctx.queue;
    for (std::size_t n : ctx.sizes) {
        std::vector<cl_uint> host(n);
        std::mt19937 rng{static_cast<unsigned>(n)};
        for (auto& x : host) x = rng();
        for (int one : {0, 1}) {
            if (one) std::fill(host.begin(), host.end(), 0x9e3779b9u);
            const std::string group = one ? "histogram_one_bin" : "histogram";
            bc::vector<cl_uint> in(n, ctx.ctx);
            bc::copy(host.begin(), host.end(), in.begin(), q);
            const auto expect = host_hist(host);
            bc::vector<cl_uint> counts(bench_bins, ctx.ctx);

            auto run_clprim = [&] { clprim::histogram(in.begin(), in.end(), counts.begin(), bench_bins, bench_lower, bench_upper, q); };
            bc::fill(counts.begin(), counts.end(), 0u, q);
            run_clprim();
            std::vector<cl_uint> got(bench_bins);
            bc::copy(counts.begin(), counts.end(), got.begin(), q);
            ctx.add_bytes_row(group, one ? "one_bin" : "uniform", "uint", n, median_ms(q, run_clprim, ctx.repeat),
                              double(n) * sizeof(cl_uint), got == expect);

            bc_histogram bch(n, q);
            auto run_bc = [&] { bch(in, counts, q); };
            bc::fill(counts.begin(), counts.end(), 0u, q);
            run_bc();
            bc::copy(counts.begin(), counts.end(), got.begin(), q);
            ctx.add_bytes_row(group, "boost_compute", "uint", n, median_ms(q, run_bc, std::max(1, ctx.repeat / 2), 1),
                              double(n) * sizeof(cl_uint), got == expect);
            ctx.results.back().baseline = true;
        }
    }
}
