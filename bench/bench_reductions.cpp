// The read-bound reductions' bench cases (reduce's own progression is bench_reduce.cpp).
//
// Bench case "min_max": clprim::min_element and max_element of random uint at each size, beside
// Boost.Compute's min_element (the baseline). Rows: group min_element / max_element, name clprim /
// boost_compute; effective bandwidth n * 4 bytes / time; the index checked against the host's.
// CLPRIM_BENCH_MIN_MAX_SWEEP="OPTIONS;OPTIONS;...": the clprim min_element row once per build
// option set of min/max_element's program (CLPRIM_MIN_MAX_OPTIONS, set in-process), named
// clprim[OPTIONS] (spaces as +), for comparing kernel variants in one run.
//
// Bench case "reduce_stream": the fast uint sum three ways at each size: `value` (the
// value-returning call, median of single calls), `device_one` (the result into a device buffer,
// one call then the finish), `device_x100` (100 such calls back to back, then one finish; time
// per call: the kernel's own time with the launch overhead hidden). Group reduce_stream.
#include "bench_framework.hpp"

#include <clprim/detail/knobs.hpp>

#include <boost/compute/algorithm/min_element.hpp>

#include <algorithm>
#include <memory>
#include <random>
#include <sstream>

namespace bc = boost::compute;

namespace {

// One row of uint input read once: bandwidth n * 4 bytes / time.
void add_read_row(clprim_bench::context& ctx, const char* group, const std::string& name, std::size_t n, double ms,
                  bool correct)
{
    const double gbps = ms > 0 ? double(n) * sizeof(cl_uint) / (ms * 1e6) : 0;
    ctx.add(clprim_bench::result{group, name, "uint", n, ms, gbps, 0, name == "boost_compute", correct, {}});
}

} // namespace

CLPRIM_BENCH(min_max)
{
    std::vector<std::string> sweep;
    if (const auto text = clprim::detail::knob_text("CLPRIM_BENCH_MIN_MAX_SWEEP")) {
        std::stringstream variants(*text);
        for (std::string v; std::getline(variants, v, ';');) sweep.push_back(v);
    }
    for (const std::size_t n : ctx.sizes) {
        if (n == 0) continue;
        std::vector<cl_uint> host(n);
        std::mt19937 rng(static_cast<unsigned>(n) ^ 0x3a3au);
        for (auto& x : host) x = rng();
        const std::size_t want_min = std::size_t(std::min_element(host.begin(), host.end()) - host.begin());
        const std::size_t want_max = std::size_t(std::max_element(host.begin(), host.end()) - host.begin());
        bc::vector<cl_uint> d(n, ctx.ctx);
        bc::copy(host.begin(), host.end(), d.begin(), ctx.queue);
        ctx.queue.finish();
        auto add = [&](const char* group, const std::string& name, double ms, bool correct) {
            add_read_row(ctx, group, name, n, ms, correct);
        };
        std::size_t at = 0;
        const double bc_ms = clprim_bench::median_ms(ctx.queue, [&] {
            at = std::size_t(bc::min_element(d.begin(), d.end(), ctx.queue) - d.begin());
        }, ctx.repeat);
        add("min_element", "boost_compute", bc_ms, at == want_min);
        const double min_ms = clprim_bench::median_ms(ctx.queue, [&] { at = clprim::min_element(d.begin(), d.end(), ctx.queue); },
                                                      ctx.repeat);
        add("min_element", "clprim", min_ms, at == want_min);
        const double max_ms = clprim_bench::median_ms(ctx.queue, [&] { at = clprim::max_element(d.begin(), d.end(), ctx.queue); },
                                                      ctx.repeat);
        add("max_element", "clprim", max_ms, at == want_max);
        for (const auto& options : sweep) {
            clprim::detail::scoped_knob knob("CLPRIM_MIN_MAX_OPTIONS", options);
            const double ms = clprim_bench::median_ms(ctx.queue, [&] { at = clprim::min_element(d.begin(), d.end(), ctx.queue); },
                                                      ctx.repeat);
            std::string label = "clprim[" + options + "]";
            std::replace(label.begin(), label.end(), ' ', '+');
            std::replace(label.begin(), label.end(), ',', 'x');
            add("min_element", label, ms, at == want_min);
        }
    }
}

CLPRIM_BENCH(reduce_stream)
{
    for (const std::size_t n : ctx.sizes) {
        if (n == 0) continue;
        std::vector<cl_uint> host(n);
        std::mt19937 rng(static_cast<unsigned>(n) ^ 0x51u);
        cl_uint want = 0;
        for (auto& x : host) {
            x = rng();
            want += x;
        }
        bc::vector<cl_uint> d(n, ctx.ctx), out(1, ctx.ctx);
        bc::copy(host.begin(), host.end(), d.begin(), ctx.queue);
        ctx.queue.finish();
        auto add = [&](const char* name, double ms, bool correct) { add_read_row(ctx, "reduce_stream", name, n, ms, correct); };
        auto device_value = [&] {
            cl_uint v = 0;
            bc::copy(out.begin(), out.end(), &v, ctx.queue);
            return v;
        };
        cl_uint got = 0;
        const double value_ms = clprim_bench::median_ms(ctx.queue, [&] { got = clprim::reduce(d.begin(), d.end(), ctx.queue); },
                                                        ctx.repeat);
        add("value", value_ms, got == want);
        const double one_ms = clprim_bench::median_ms(ctx.queue, [&] { clprim::reduce(d.begin(), d.end(), out.begin(), ctx.queue); },
                                                      ctx.repeat);
        add("device_one", one_ms, device_value() == want);
        const double x100_ms = clprim_bench::median_ms(ctx.queue, [&] {
            for (int i = 0; i < 100; ++i) clprim::reduce(d.begin(), d.end(), out.begin(), ctx.queue);
        }, std::max(3, ctx.repeat / 3));
        add("device_x100", x100_ms / 100, device_value() == want);
    }
}
