#pragma once
// The benchmark's skeleton: each bench_<component>.cpp registers its cases with CLPRIM_BENCH;
// clprim_bench.cpp parses options, runs the selected cases and writes the table, CSV and JSON.
#include "example_support.hpp"

#include <clprim/clprim.hpp>
#include <clprim/detail/kernel_launch.hpp>

#include <cstdio>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace clprim_bench {

namespace bc = boost::compute;
using clprim_examples::median_ms;

// One measured row. Either gbps (bytes-bound primitives) or gkeys (sorts) is meaningful; the
// other is 0. ratio = baseline_ms / ms against the Boost.Compute row of the same group and n.
struct result {
    std::string group;     // "reduce", "scan", "histogram", "sort", "sort_by_key"
    std::string name;      // "reduce6", "blelloch", "boost_compute", ...
    std::string type;      // "uint", ...
    std::size_t n = 0;
    double ms = 0;
    double gbps = 0;       // effective: bytes the operation must move / time
    double gkeys = 0;      // keys / time, for sorts
    bool baseline = false; // a Boost.Compute row
    bool correct = true;   // the result matched the host reference
    std::string bench_case; // the CLPRIM_BENCH case that produced it (set by the driver)
};

struct context {
    bc::device device;
    bc::context ctx;
    bc::command_queue queue;
    std::vector<std::size_t> sizes; // n values to run
    int repeat = 10;
    std::vector<result> results;

    void add(result r) { results.push_back(std::move(r)); }
    // A bytes-bound row: gbps from the bytes the operation must move in ms.
    void add_bytes_row(std::string group, std::string name, std::string type, std::size_t n, double ms, double bytes,
                       bool correct)
    {
        result r;
        r.group = std::move(group);
        r.name = std::move(name);
        r.type = std::move(type);
        r.n = n;
        r.ms = ms;
        r.gbps = ms > 0 ? bytes / (ms * 1e6) : 0;
        r.correct = correct;
        add(std::move(r));
    }
};

using bench_function = void (*)(context&);
struct registration {
    const char* name;
    bench_function fn;
};
std::vector<registration>& registry();
struct registrar {
    registrar(const char* name, bench_function fn) { registry().push_back({name, fn}); }
};

// The *_profile cases: device time per call of the kernels recorded over reps calls
// (clprim::detail::kernel_profile), and one line per kernel under a case's heading.
inline double kernel_ms_per_call(const std::vector<clprim::detail::kernel_time>& times, int reps)
{
    double total = 0;
    for (const auto& t : times) total += t.ms / reps;
    return total;
}
inline void print_kernel_times(const std::vector<clprim::detail::kernel_time>& times, int reps)
{
    for (const auto& t : times)
        std::printf("  %-28s %3.0f launches %.4f ms  (%.4f ms each)\n", t.name.c_str(), double(t.launches) / reps,
                    t.ms / reps, t.ms / double(t.launches));
}

// One warm-up call, then the median wall time of reps calls and the kernels' device time over
// reps more (q must be a profiling queue).
struct call_profile {
    double wall_ms = 0;
    double kernel_ms = 0; // per call
    std::vector<clprim::detail::kernel_time> times;
};
inline call_profile profile_calls(boost::compute::command_queue& q, const std::function<void()>& run, int reps)
{
    call_profile p;
    run();
    q.finish();
    p.wall_ms = median_ms(q, run, reps);
    clprim::detail::kernel_profile(true);
    for (int i = 0; i < reps; ++i) run();
    q.finish();
    p.times = clprim::detail::kernel_profile_report();
    clprim::detail::kernel_profile(false);
    p.kernel_ms = kernel_ms_per_call(p.times, reps);
    return p;
}

} // namespace clprim_bench

// CLPRIM_BENCH(reduce) { ... uses ctx ... } registers a bench case named "reduce".
#define CLPRIM_BENCH(NAME)                                                                   \
    static void clprim_bench_##NAME(::clprim_bench::context& ctx);                          \
    static ::clprim_bench::registrar clprim_bench_reg_##NAME(#NAME, &clprim_bench_##NAME);  \
    static void clprim_bench_##NAME(::clprim_bench::context& ctx)
