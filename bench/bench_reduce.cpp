// Bench case "reduce": every clprim::reduce variant and boost::compute::reduce (the baseline) for
// a uint sum at each size; effective bandwidth = n * sizeof(uint) / time; results checked
// against the host's sum.
#include "bench_framework.hpp"

#include <boost/compute/algorithm/reduce.hpp>
#include <boost/compute/functional/operator.hpp>

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
        for (const auto& v : variants) {
            got = 0;
            const double ms = clprim_bench::median_ms(
                ctx.queue, [&] { got = clprim::reduce(d.begin(), d.end(), ctx.queue, clprim::reduce_op::sum, v.v); },
                ctx.repeat);
            add(v.name, ms, false, got == want);
        }
    }
}
