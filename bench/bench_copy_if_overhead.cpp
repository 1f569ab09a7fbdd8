// Bench case "copy_if_overhead" (diagnostic, prints to stdout, adds no rows): where the wall time
// of a copy_if call goes beyond its kernel, and the variants of the count's read and of the tile
// side by side (issue #27: copy_if 2^26 and 2^10; #28: the by-key family's count-returning calls
// at 2^10). Every entry is timed interleaved with the others: each round runs every entry once,
// in turn (the call, then clFinish; its knobs set before the clock starts), and an entry's figure
// is its median over the rounds (--repeat, at least 30), so that the GPU's clock drift falls on
// all entries alike. Entries, uint keeping the odd values (about half):
//   floor/empty, floor/empty_read_pinned, floor/empty_read_async: one empty kernel (no event)
//       then clFinish; the same with a blocking 8-byte read into pinned memory; a non-blocking
//       read into it then clFinish (what a value-returning call cannot go below);
//   value/<form>: copy_if returning the count, CLPRIM_COPY_IF_READ=<form>;
//   device_count: the count_result overload (no read), device_count_x4: four of them then one
//       clFinish, per call (the GPU's time per call once launch latency is hidden);
//   n <= 4096, value (default read) with a small-tile shape: rows_vec (CLPRIM_COPY_IF_ROWS_VEC=1),
//       in_place (16-byte loads into local memory), tune_<wg>x<items>;
//   n > 4096, device_count with -cl-nv-maxrregcount=<r> (NVIDIA only);
//   n <= 65536, unique (keys in runs of 1..4): value with CLPRIM_BY_KEY_READ=<form>, device_count.
// Then the kernel time of the default call from a profiling queue (copy_if_profile's figure).
#include "bench_framework.hpp"

#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>

#include <boost/compute/function.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace bc = boost::compute;

BOOST_COMPUTE_FUNCTION(bool, overhead_is_odd, (cl_uint x), { return (x & 1u) != 0; });

struct entry {
    std::string name;
    std::vector<std::pair<std::string, std::string>> knobs; // set while the entry runs
    std::function<void()> run;                             // one call, without the finish
    int calls = 1;                                         // calls per run (figures per call)
    std::vector<double> ms;
    bool right = true;
};

double median(std::vector<double> v)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

CLPRIM_BENCH(copy_if_overhead)
{
    bc::command_queue& q = ctx.queue;
    const bool nvidia = clprim::detail::profile_of(ctx.device).nvidia;
    // The floor's kernel and words.
    static const char* empty_src = "__kernel void clprim_bench_overhead_empty(__global ulong* p) { }";
    bc::program empty_program = bc::program::build_with_source(empty_src, ctx.ctx);
    bc::kernel empty = empty_program.create_kernel("clprim_bench_overhead_empty");
    bc::buffer word(ctx.ctx, 64);
    empty.set_arg(0, word);
    bc::buffer pinned_buf(ctx.ctx, 64, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
    void* pinned = q.enqueue_map_buffer(pinned_buf, CL_MAP_READ | CL_MAP_WRITE, 0, 64);
    auto empty_launch = [&] {
        const std::size_t g = 256;
        clEnqueueNDRangeKernel(q.get(), empty.get(), 1, nullptr, &g, &g, 0, nullptr, nullptr);
    };
    const int rounds = std::max(ctx.repeat, 30);

    for (const std::size_t n : ctx.sizes) {
        if (n == 0) continue;
        std::vector<cl_uint> host(n), keys(n);
        std::mt19937 rng(static_cast<unsigned>(n));
        std::size_t kept = 0, runs = 0;
        cl_uint key = 0;
        for (std::size_t i = 0; i < n; ++i) {
            host[i] = rng();
            kept += host[i] & 1u;
            if (i == 0 || rng() % 3 == 0) {
                key += 1 + rng() % 7;
                ++runs;
            }
            keys[i] = key;
        }
        bc::vector<cl_uint> d(host.begin(), host.end(), q), out(n, ctx.ctx), dk(keys.begin(), keys.end(), q);
        bc::vector<cl_ulong> dcount(1, ctx.ctx);
        q.finish();

        std::vector<entry> entries;
        auto add = [&](std::string name, std::vector<std::pair<std::string, std::string>> knobs, std::function<void()> run,
                       int calls = 1) {
            entries.push_back(entry{std::move(name), std::move(knobs), std::move(run), calls, {}, true});
        };
        entries.reserve(32);
        add("floor/empty", {}, empty_launch);
        add("floor/empty_read_pinned", {}, [&] {
            empty_launch();
            q.enqueue_read_buffer(word, 0, 8, pinned);
        });
        add("floor/empty_read_async", {}, [&] {
            empty_launch();
            q.enqueue_read_buffer_async(word, 0, 8, pinned);
            q.finish();
        });
        std::size_t last_count = 0; // the value calls' result, checked after each
        auto value_call = [&] {
            last_count = clprim::copy_if(d.begin(), d.end(), out.begin(), q, overhead_is_odd);
        };
        const std::size_t first_value = entries.size();
        for (const char* form : {"pinned", "async", "plain", "flush_pinned", "flush_async"})
            add(std::string("value/") + form, {{"CLPRIM_COPY_IF_READ", form}}, value_call);
        add("device_count", {}, [&] { clprim::copy_if(d.begin(), d.end(), out.begin(), dcount.begin(), q, overhead_is_odd); });
        add("device_count_x4", {}, [&] {
            for (int i = 0; i < 4; ++i) clprim::copy_if(d.begin(), d.end(), out.begin(), dcount.begin(), q, overhead_is_odd);
        }, 4);
        if (n <= 4096) {
            add("value/rows_vec", {{"CLPRIM_COPY_IF_ROWS_VEC", "1"}}, value_call);
            add("value/in_place", {{"CLPRIM_COPY_IF_COMPACT", "in_place"}}, value_call);
            for (const char* t : {"1024,1", "512,2", "128,8"})
                add(std::string("value/tune_") + t, {{"CLPRIM_COPY_IF_TUNE", t}}, value_call);
        } else if (nvidia) {
            for (const char* r : {"32", "40", "48", "56"})
                add(std::string("device_count/maxrregcount_") + r,
                    {{"CLPRIM_COPY_IF_OPTIONS", std::string("-cl-nv-maxrregcount=") + r}},
                    [&] { clprim::copy_if(d.begin(), d.end(), out.begin(), dcount.begin(), q, overhead_is_odd); });
        }
        const std::size_t first_unique = entries.size();
        if (n <= 65536) {
            auto unique_value = [&] { last_count = clprim::unique(dk.begin(), dk.end(), out.begin(), q); };
            for (const char* form : {"1", "2", "3", "4"})
                add(std::string("unique/value_read") + form, {{"CLPRIM_BY_KEY_READ", form}}, unique_value);
            add("unique/device_count", {}, [&] { clprim::unique(dk.begin(), dk.end(), out.begin(), dcount.begin(), q); });
        }

        // Warm-up (programs built), then the interleaved rounds.
        for (auto& e : entries) {
            std::vector<std::unique_ptr<clprim::detail::scoped_knob>> set;
            for (const auto& kv : e.knobs) set.push_back(std::make_unique<clprim::detail::scoped_knob>(kv.first.c_str(), kv.second));
            for (int i = 0; i < 2; ++i) e.run();
            q.finish();
        }
        for (int r = 0; r < rounds; ++r) {
            for (std::size_t i = 0; i < entries.size(); ++i) {
                entry& e = entries[i];
                std::vector<std::unique_ptr<clprim::detail::scoped_knob>> set;
                for (const auto& kv : e.knobs) set.push_back(std::make_unique<clprim::detail::scoped_knob>(kv.first.c_str(), kv.second));
                last_count = std::size_t(-1);
                const auto t0 = std::chrono::steady_clock::now();
                e.run();
                q.finish();
                e.ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / e.calls);
                if (i >= first_value && e.name.rfind("value/", 0) == 0 && last_count != kept) e.right = false;
                if (i >= first_unique && e.name.rfind("unique/value", 0) == 0 && last_count != runs) e.right = false;
            }
        }
        // The device counts' last value.
        cl_ulong c = 0;
        q.enqueue_read_buffer(dcount.get_buffer(), 0, sizeof c, &c);

        // Kernel time of the default call (profiling queue).
        bc::command_queue pq(ctx.ctx, ctx.device, CL_QUEUE_PROFILING_ENABLE);
        std::size_t pcount = 0;
        const clprim_bench::call_profile prof = clprim_bench::profile_calls(
            pq, [&] { pcount = clprim::copy_if(d.begin(), d.end(), out.begin(), pq, overhead_is_odd); }, rounds);

        std::printf("copy_if_overhead n=%zu (%d rounds, median / min ms per call):\n", n, rounds);
        for (const auto& e : entries) {
            std::printf("  %-34s %9.4f %9.4f%s\n", e.name.c_str(), median(e.ms), *std::min_element(e.ms.begin(), e.ms.end()),
                        e.right ? "" : "  WRONG");
        }
        std::printf("  unique device count last value %s\n",
                    n <= 65536 ? (c == cl_ulong(runs) ? "right" : "WRONG") : (c == cl_ulong(kept) ? "right (copy_if)" : "WRONG"));
        std::printf("  kernel (profiling queue, default call): %.4f ms, wall there %.4f ms, count %s\n", prof.kernel_ms,
                    prof.wall_ms, pcount == kept ? "right" : "WRONG");
        clprim_bench::print_kernel_times(prof.times, rounds);
    }
    q.enqueue_unmap_buffer(pinned_buf, pinned);
    q.finish();
}
