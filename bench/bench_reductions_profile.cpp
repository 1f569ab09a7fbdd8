// Bench case "reductions_profile" (diagnostic, prints to stdout, adds no rows): where the wall time
// of the read-bound reductions goes (issues #28, #29: segmented_reduce one_huge against a plain
// reduce, segments of 65536, min_element against reduce's value-returning call), every entry timed
// interleaved with the others and with every variant (each round runs every variant's entries
// once, in turn; an entry's figures are its median, 10th and 90th percentiles over the rounds,
// --repeat, at least 20), so that variants compare within one process and the same minutes (the
// driver's floor moves by a few microseconds from one process to the next).
// Variants: CLPRIM_BENCH_VARIANTS="KNOB=value KNOB=value;..." (bench_variants.hpp); their knobs are
// set in the environment while their entries run (so that knob reads cost what real calls pay).
// Entries (uint, n of --sizes):
//   floor/finish: an empty kernel, then clFinish (the driver's floor for one waited call);
//   reduce/device: clprim::reduce into a device word, then clFinish (the segments case's
//       `whole_range` row); reduce/value: reduce returning the value (`reduce_stream` value);
//   seg/<layout>: clprim::segmented_reduce (sum) of layout one_huge, segments_65536,
//       segments_1024 or power_law (segment_layouts.hpp), then clFinish (the `segmented_reduce` rows);
//   min_element, max_element: clprim's (the `min_max` rows);
//   <entry>:host: the host time of the call alone (the clock stops before the clFinish);
//   <entry>:x20: 20 calls, then one clFinish, per call (the launch and wait hidden: the kernel's
//       own time and what the device does between kernels).
// Then, per variant, the kernels' device time per call (START..END from a profiling queue,
// kernel_profile) of reduce, both layouts and min_element, and whether every result was right.
#include "bench_framework.hpp"
#include "bench_variants.hpp"
#include "segment_layouts.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace bc = boost::compute;

// A variant's knobs ("KNOB=value KNOB=value") set in the environment for a scope.
class variant_env {
public:
    explicit variant_env(const std::string& variant)
    {
        std::size_t at = 0;
        while (at < variant.size()) {
            const std::size_t end = std::min(variant.find(' ', at), variant.size());
            const std::string item = variant.substr(at, end - at);
            at = end + 1;
            const std::size_t eq = item.find('=');
            if (eq == std::string::npos) continue;
            names_.push_back(item.substr(0, eq));
            ::setenv(names_.back().c_str(), item.substr(eq + 1).c_str(), 1);
        }
    }
    ~variant_env()
    {
        for (const auto& name : names_) ::unsetenv(name.c_str());
    }
    variant_env(const variant_env&) = delete;
    variant_env& operator=(const variant_env&) = delete;

private:
    std::vector<std::string> names_;
};

struct entry {
    std::string name;
    std::function<void(bc::command_queue&)> call;
    enum { wall, host, x20 } mode;
    std::vector<std::vector<double>> ms; // per variant
};

double pick(std::vector<double> v, double q)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(q * double(v.size())))];
}

} // namespace

CLPRIM_BENCH(reductions_profile)
{
    using clock = std::chrono::steady_clock;
    const std::vector<std::string> variants = clprim_bench::bench_variants();
    bc::command_queue& q = ctx.queue;
    bc::command_queue qp(ctx.ctx, ctx.device, CL_QUEUE_PROFILING_ENABLE);
    const int rounds = std::max(20, ctx.repeat);
    bc::program empty_program =
        bc::program::create_with_source("__kernel void clprim_bench_rp_empty(__global uint* p) { }", ctx.ctx);
    empty_program.build();
    bc::kernel empty = empty_program.create_kernel("clprim_bench_rp_empty");
    for (const std::size_t n : ctx.sizes) {
        if (n == 0) continue;
        std::vector<cl_uint> host(n);
        std::mt19937 rng(static_cast<unsigned>(n) ^ 0x7eu);
        cl_uint want = 0;
        for (auto& x : host) {
            x = rng();
            want += x;
        }
        const std::size_t want_min = std::size_t(std::min_element(host.begin(), host.end()) - host.begin());
        const std::size_t want_max = std::size_t(std::max_element(host.begin(), host.end()) - host.begin());
        bc::vector<cl_uint> d(n, ctx.ctx), one(1, ctx.ctx);
        bc::copy(host.begin(), host.end(), d.begin(), q);
        empty.set_arg(0, one.get_buffer());
        const char* layouts[] = {"one_huge", "segments_65536", "segments_1024", "power_law"};
        constexpr std::size_t layout_count = sizeof layouts / sizeof layouts[0];
        std::vector<std::vector<unsigned>> offs;
        std::vector<bc::vector<cl_uint>> d_offs, results;
        for (const char* layout : layouts) {
            offs.push_back(segment_layout_offsets(layout, n));
            d_offs.emplace_back(offs.back().size(), ctx.ctx);
            bc::copy(offs.back().begin(), offs.back().end(), d_offs.back().begin(), q);
            results.emplace_back(offs.back().size() - 1, ctx.ctx);
        }
        q.finish();

        cl_uint value = 0;
        std::size_t at_min = 0, at_max = 0;
        std::vector<entry> entries;
        auto add = [&](const std::string& name, std::function<void(bc::command_queue&)> call, bool with_host,
                       bool with_x20) {
            entries.push_back({name, call, entry::wall, {}});
            if (with_host) entries.push_back({name + ":host", call, entry::host, {}});
            if (with_x20) entries.push_back({name + ":x20", call, entry::x20, {}});
        };
        add("floor/finish", [&](bc::command_queue& qq) { qq.enqueue_1d_range_kernel(empty, 0, 1, 1); }, true, false);
        add("reduce/device", [&](bc::command_queue& qq) { clprim::reduce(d.begin(), d.end(), one.begin(), qq); }, true,
            true);
        add("reduce/value", [&](bc::command_queue& qq) { value = clprim::reduce(d.begin(), d.end(), qq); }, false,
            false);
        for (std::size_t l = 0; l < layout_count; ++l) {
            add(std::string("seg/") + layouts[l],
                [&, l](bc::command_queue& qq) {
                    clprim::segmented_reduce(d.begin(), d.end(), d_offs[l].begin(), d_offs[l].end(),
                                             results[l].begin(), qq);
                },
                true, true);
        }
        add("min_element", [&](bc::command_queue& qq) { at_min = clprim::min_element(d.begin(), d.end(), qq); }, false,
            false);
        add("max_element", [&](bc::command_queue& qq) { at_max = clprim::max_element(d.begin(), d.end(), qq); }, false,
            false);
        for (auto& e : entries) e.ms.assign(variants.size(), {});

        // Warm-up (program builds) of every variant, then the interleaved rounds.
        for (const auto& v : variants) {
            variant_env env(v);
            for (auto& e : entries) e.call(q);
            q.finish();
        }
        for (int r = 0; r < rounds; ++r) {
            for (std::size_t vi = 0; vi < variants.size(); ++vi) {
                variant_env env(variants[vi]);
                for (auto& e : entries) {
                    const auto t0 = clock::now();
                    const int calls = e.mode == entry::x20 ? 20 : 1;
                    for (int c = 0; c < calls; ++c) e.call(q);
                    auto t1 = clock::now();
                    if (e.mode != entry::host) {
                        q.finish();
                        t1 = clock::now();
                    }
                    e.ms[vi].push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / calls);
                    if (e.mode == entry::host) q.finish();
                }
            }
        }
        for (std::size_t vi = 0; vi < variants.size(); ++vi) {
            std::printf("reductions_profile n=%zu variant [%s]\n", n, variants[vi].c_str());
            for (const auto& e : entries)
                std::printf("  %-26s median %.4f ms  p10 %.4f  p90 %.4f\n", e.name.c_str(), pick(e.ms[vi], 0.5),
                            pick(e.ms[vi], 0.1), pick(e.ms[vi], 0.9));
        }

        // The kernels' device time per call, and the results, per variant.
        const int reps = std::max(10, ctx.repeat);
        for (const auto& v : variants) {
            variant_env env(v);
            std::printf("reductions_profile n=%zu kernels [%s] (ms per call)\n", n, v.c_str());
            for (const auto& e : entries) {
                if (e.mode != entry::wall || e.name == "floor/finish" || e.name == "reduce/value" ||
                    e.name == "max_element")
                    continue;
                e.call(qp);
                qp.finish();
                clprim::detail::kernel_profile(true);
                for (int i = 0; i < reps; ++i) e.call(qp);
                qp.finish();
                const auto times = clprim::detail::kernel_profile_report();
                clprim::detail::kernel_profile(false);
                std::printf("  %-26s kernels %.4f ms\n", e.name.c_str(), clprim_bench::kernel_ms_per_call(times, reps));
                clprim_bench::print_kernel_times(times, reps);
            }
            bool ok = true;
            for (auto& e : entries)
                if (e.mode == entry::wall) e.call(q);
            q.finish();
            cl_uint dev = 0;
            bc::copy(one.begin(), one.end(), &dev, q);
            ok = ok && dev == want && value == want && at_min == want_min && at_max == want_max;
            for (std::size_t l = 0; l < layout_count; ++l) {
                std::vector<cl_uint> got(offs[l].size() - 1);
                bc::copy(results[l].begin(), results[l].end(), got.begin(), q);
                for (std::size_t s = 0; s < got.size() && ok; ++s) {
                    cl_uint sum = 0;
                    for (std::size_t i = offs[l][s]; i < offs[l][s + 1]; ++i) sum += host[i];
                    ok = got[s] == sum;
                }
            }
            std::printf("reductions_profile n=%zu [%s] results %s\n", n, v.c_str(), ok ? "right" : "WRONG");
        }
    }
}
