// Bench case "histogram_wide" (issue #30, a probe for a counting sort of 16-bit keys): clprim's
// histogram of n uint values in [0, 65536) into 65536 bins (one bin per 16-bit key), random
// values, 16 distinct values and one value, checked on the host. Rows: group histogram_65536,
// names random / few / one_value. The question it answers: what a 16-bit key count costs against
// a one-sweep pass.
#include "bench_framework.hpp"

#include <clprim/histogram.hpp>

#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/fill.hpp>

#include <random>
#include <vector>

CLPRIM_BENCH(histogram_wide)
{
    using namespace clprim_bench;
    auto& q = ctx.queue;
    constexpr std::size_t bins = 65536;
    for (std::size_t n : ctx.sizes) {
        std::vector<cl_uint> host(n);
        std::mt19937 rng{static_cast<unsigned>(n) ^ 0x16u};
        for (const char* name : {"random", "few", "one_value"}) {
            const std::string kind = name;
            for (auto& x : host) x = kind == "random" ? rng() % bins : kind == "few" ? (rng() % 16) * 4099 : 777u;
            std::vector<cl_uint> expect(bins, 0);
            for (cl_uint x : host) ++expect[x];
            bc::vector<cl_uint> in(host.begin(), host.end(), q), counts(bins, ctx.ctx);
            auto run = [&] { clprim::histogram(in.begin(), in.end(), counts.begin(), bins, cl_uint(0), cl_uint(bins), q); };
            bc::fill(counts.begin(), counts.end(), 0u, q);
            run();
            std::vector<cl_uint> got(bins);
            bc::copy(counts.begin(), counts.end(), got.begin(), q);
            ctx.add_bytes_row("histogram_65536", name, "uint", n, median_ms(q, run, ctx.repeat), double(n) * sizeof(cl_uint),
                              got == expect);
        }
    }
}
