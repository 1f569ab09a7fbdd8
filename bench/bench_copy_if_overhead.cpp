// Bench case "copy_if_overhead" (diagnostic, prints to stdout, adds no rows): where the wall time
// of a copy_if call goes beyond its kernel, and the variants of the count's read and of the tile
// side by side (issue #27: copy_if 2^26 and 2^10; #28: the by-key family's count-returning calls
// at 2^10). Every entry is timed interleaved with the others: each round runs every entry once,
// in turn (the call, then clFinish; its knobs set before the clock starts), and an entry's figure
// is its median over the rounds (--repeat, at least 30), so that the GPU's clock drift falls on
// all entries alike. Knobs are set in the environment for an entry (not as scoped overrides,
// which make every knob read take a lock). Entries, uint keeping the odd values (about half):
//   floor/empty, floor/empty_read_pinned, floor/empty_read_async: one empty kernel (no event)
//       then clFinish; the same with a blocking 8-byte read into pinned memory; a non-blocking
//       read into it then clFinish (what a value-returning call cannot go below); _no_event: the
//       same reads without an event (Boost.Compute's reads make one);
//   value/<form>: copy_if returning the count, CLPRIM_COPY_IF_READ=<form>;
//   device_count: the count_result overload (no read), device_count_x4: four of them then one
//       clFinish, per call (the GPU's time per call once launch latency is hidden);
//   unique/value_read<k>: unique (keys in runs of about 3) returning the count,
//       CLPRIM_BY_KEY_READ=<k>; unique/device_count: its count_result overload;
//   partition/value, partition/device_count: partition_copy keeping the odd values, both counts;
//   <variant>/copy_if_value, /copy_if_device, /unique_value, /partition_value: the same calls under a variant's
//       knobs: built in, at n <= 4096 the small tiles (rows_vec: CLPRIM_COPY_IF_ROWS_VEC=1;
//       in_place; tune_<wg>x<items> for copy_if and the by-key family; by_key_registers), above
//       it -cl-nv-maxrregcount=32/40/48 for copy_if (NVIDIA); then every variant of
//       CLPRIM_BENCH_OVERHEAD_VARIANTS="KNOB=VALUE KNOB=VALUE;..." (labelled [its text]).
// Then the kernel time of the default call from a profiling queue (copy_if_profile's figure), and
// of copy_if's and unique's count_result calls under each variant.
#include "bench_framework.hpp"

#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>

#include <boost/compute/function.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
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

// An entry's knobs, set in the environment while it lives (not as scoped_knob overrides: while
// an override lives, every knob read takes the override table's lock, which calls without
// overrides do not pay, and the entries must pay what real calls pay).
class env_set {
public:
    explicit env_set(const std::vector<std::pair<std::string, std::string>>& knobs)
    {
        for (const auto& kv : knobs) {
            const char* old = std::getenv(kv.first.c_str());
            saved_.push_back({kv.first, old != nullptr, old ? old : ""});
            ::setenv(kv.first.c_str(), kv.second.c_str(), 1);
        }
    }
    ~env_set()
    {
        for (const auto& s : saved_) {
            if (s.had) ::setenv(s.name.c_str(), s.value.c_str(), 1);
            else ::unsetenv(s.name.c_str());
        }
    }
    env_set(const env_set&) = delete;
    env_set& operator=(const env_set&) = delete;

private:
    struct saved {
        std::string name;
        bool had;
        std::string value;
    };
    std::vector<saved> saved_;
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
    // The variants: built in (small = 1: n <= 4096 only, 2: n > 4096 only), then those of
    // CLPRIM_BENCH_OVERHEAD_VARIANTS="KNOB=VALUE KNOB=VALUE;..." (every size).
    struct variant {
        std::string label;
        std::vector<std::pair<std::string, std::string>> knobs;
        int small = 0;
        bool nvidia_only = false;
    };
    std::vector<variant> variants{
        {"rows_vec", {{"CLPRIM_COPY_IF_ROWS_VEC", "1"}}, 1},
        {"in_place", {{"CLPRIM_COPY_IF_COMPACT", "in_place"}}, 1},
        {"tune_1024x1", {{"CLPRIM_COPY_IF_TUNE", "1024,1"}, {"CLPRIM_BY_KEY_TUNE", "1024,1"}}, 1},
        {"tune_128x8", {{"CLPRIM_COPY_IF_TUNE", "128,8"}, {"CLPRIM_BY_KEY_TUNE", "128,8"}}, 1},
        {"tune_64x16", {{"CLPRIM_COPY_IF_TUNE", "64,16"}, {"CLPRIM_BY_KEY_TUNE", "64,16"}}, 1},
        {"by_key_registers", {{"CLPRIM_BY_KEY_KERNEL", "registers"}}, 1},
    };
    // Session 5: unique and partition through the by-key family, by rows (copy_if's shape), and
    // copy_if in place in 256 x 32 (unique's and partition's shape); the rows' load hints
    // (CLPRIM_COPY_IF_LOAD) and unique's predecessor from registers (CLPRIM_UNIQUE_PREV) are
    // CLPRIM_BENCH_OVERHEAD_VARIANTS away.
    variants.push_back({"by_key_paths", {{"CLPRIM_PARTITION_PATH", "by_key"}, {"CLPRIM_UNIQUE_PATH", "by_key"}}, 0});
    variants.push_back({"rows_256x24", {{"CLPRIM_COPY_IF_COMPACT", "rows"}, {"CLPRIM_COPY_IF_TUNE", "256,24"}}, 2, true});
    variants.push_back({"in_place_256x32", {{"CLPRIM_COPY_IF_TUNE", "256,32"}, {"CLPRIM_COPY_IF_COMPACT", "in_place"}}, 2});
    if (const auto text = clprim::detail::knob_text("CLPRIM_BENCH_OVERHEAD_VARIANTS")) {
        std::stringstream list(*text);
        for (std::string v; std::getline(list, v, ';');) {
            variant x;
            x.label = "[" + v + "]";
            std::stringstream words(v);
            for (std::string w; words >> w;) {
                const auto eq = w.find('=');
                if (eq != std::string::npos) x.knobs.emplace_back(w.substr(0, eq), w.substr(eq + 1));
            }
            if (!x.knobs.empty()) variants.push_back(x);
        }
    }

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
        bc::vector<cl_uint> d(host.begin(), host.end(), q), out(n, ctx.ctx), dk(keys.begin(), keys.end(), q), out2(n, ctx.ctx);
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
        // The same reads without an event (Boost.Compute's reads make one; clprim's do not).
        add("floor/empty_read_pinned_no_event", {}, [&] {
            empty_launch();
            clEnqueueReadBuffer(q.get(), word.get(), CL_TRUE, 0, 8, pinned, 0, nullptr, nullptr);
        });
        add("floor/empty_read_async_no_event", {}, [&] {
            empty_launch();
            clEnqueueReadBuffer(q.get(), word.get(), CL_FALSE, 0, 8, pinned, 0, nullptr, nullptr);
            q.finish();
        });
        std::size_t last_count = 0; // the value calls' result, checked after each
        auto value_call = [&] {
            last_count = clprim::copy_if(d.begin(), d.end(), out.begin(), q, overhead_is_odd);
        };
        for (const char* form : {"pinned", "async", "plain", "flush_pinned", "flush_async", "spin"})
            add(std::string("value/") + form, {{"CLPRIM_COPY_IF_READ", form}}, value_call);
        add("device_count", {}, [&] { clprim::copy_if(d.begin(), d.end(), out.begin(), dcount.begin(), q, overhead_is_odd); });
        add("device_count_x4", {}, [&] {
            for (int i = 0; i < 4; ++i) clprim::copy_if(d.begin(), d.end(), out.begin(), dcount.begin(), q, overhead_is_odd);
        }, 4);
        {
            auto unique_value = [&] { last_count = clprim::unique(dk.begin(), dk.end(), out.begin(), q); };
            for (const char* form : {"1", "2", "3", "4", "5"})
                add(std::string("unique/value_read") + form, {{"CLPRIM_BY_KEY_READ", form}}, unique_value);
            add("unique/device_count", {}, [&] { clprim::unique(dk.begin(), dk.end(), out.begin(), dcount.begin(), q); });
        }
        add("partition/value", {}, [&] {
            last_count = clprim::partition_copy(d.begin(), d.end(), out.begin(), out2.begin(), q, overhead_is_odd);
        });
        add("partition/device_count", {}, [&] {
            clprim::partition_copy(d.begin(), d.end(), out.begin(), out2.begin(), dcount.begin(), q, overhead_is_odd);
        });
        // The variants: copy_if's value call (default read) and count_result call, unique's
        // value call, each under the variant's knobs.
        for (const auto& v : variants) {
            if (v.small != 0 && (v.small == 1) != (n <= 4096)) continue;
            if (v.nvidia_only && !nvidia) continue;
            add(v.label + "/copy_if_value", v.knobs, value_call);
            add(v.label + "/copy_if_device", v.knobs,
                [&] { clprim::copy_if(d.begin(), d.end(), out.begin(), dcount.begin(), q, overhead_is_odd); });
            add(v.label + "/unique_value", v.knobs, [&] { last_count = clprim::unique(dk.begin(), dk.end(), out.begin(), q); });
            add(v.label + "/partition_value", v.knobs, [&] {
                last_count = clprim::partition_copy(d.begin(), d.end(), out.begin(), out2.begin(), q, overhead_is_odd);
            });
        }

        // Warm-up (programs built), then the interleaved rounds.
        // An entry that throws (a variant's build options the device refuses, say) is dropped.
        for (std::size_t i = 0; i < entries.size();) {
            try {
                env_set set(entries[i].knobs);
                for (int k = 0; k < 2; ++k) entries[i].run();
                q.finish();
                ++i;
            } catch (const std::exception& ex) {
                std::printf("  %s dropped: %s\n", entries[i].name.c_str(), ex.what());
                entries.erase(entries.begin() + std::ptrdiff_t(i));
            }
        }
        for (int r = 0; r < rounds; ++r) {
            for (std::size_t i = 0; i < entries.size(); ++i) {
                entry& e = entries[i];
                env_set set(e.knobs);
                last_count = std::size_t(-1);
                const auto t0 = std::chrono::steady_clock::now();
                e.run();
                q.finish();
                e.ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / e.calls);
                const bool unique_call = e.name.find("unique") != std::string::npos;
                if (e.name.find("value") != std::string::npos && last_count != (unique_call ? runs : kept))
                    e.right = false;
            }
        }
        // The device count of the last entry that wrote one.
        cl_ulong c = 0;
        q.enqueue_read_buffer(dcount.get_buffer(), 0, sizeof c, &c);
        std::string last_device;
        for (const auto& e : entries)
            if (e.name.find("device") != std::string::npos) last_device = e.name;
        const bool device_right = c == cl_ulong(last_device.find("unique") != std::string::npos ? runs : kept);

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
        std::printf("  device count of %s: %s\n", last_device.c_str(), device_right ? "right" : "WRONG");
        std::printf("  kernel (profiling queue, default call): %.4f ms, wall there %.4f ms, count %s\n", prof.kernel_ms,
                    prof.wall_ms, pcount == kept ? "right" : "WRONG");
        clprim_bench::print_kernel_times(prof.times, rounds);
        // Kernel time per call of each variant (copy_if and unique, profiling queue).
        for (const auto& v : variants) {
            if (v.small != 0 && (v.small == 1) != (n <= 4096)) continue;
            if (v.nvidia_only && !nvidia) continue;
            env_set set(v.knobs);
            if (std::none_of(entries.begin(), entries.end(), [&](const entry& e) { return e.name.rfind(v.label + "/", 0) == 0; }))
                continue; // dropped above
            const auto pc = clprim_bench::profile_calls(
                pq, [&] { clprim::copy_if(d.begin(), d.end(), out.begin(), dcount.begin(), pq, overhead_is_odd); }, 10);
            const auto pu = clprim_bench::profile_calls(
                pq, [&] { clprim::unique(dk.begin(), dk.end(), out.begin(), dcount.begin(), pq); }, 10);
            const auto pp = clprim_bench::profile_calls(pq, [&] {
                clprim::partition_copy(d.begin(), d.end(), out.begin(), out2.begin(), dcount.begin(), pq, overhead_is_odd);
            }, 10);
            std::printf("  kernels of %-40s copy_if %.4f ms, unique %.4f ms, partition_copy %.4f ms\n", v.label.c_str(),
                        pc.kernel_ms, pu.kernel_ms, pp.kernel_ms);
        }
        {
            const auto pu = clprim_bench::profile_calls(
                pq, [&] { clprim::unique(dk.begin(), dk.end(), out.begin(), dcount.begin(), pq); }, 10);
            std::printf("  kernels of unique (default): %.4f ms\n", pu.kernel_ms);
            clprim_bench::print_kernel_times(pu.times, 10);
            const auto pp = clprim_bench::profile_calls(pq, [&] {
                clprim::partition_copy(d.begin(), d.end(), out.begin(), out2.begin(), dcount.begin(), pq, overhead_is_odd);
            }, 10);
            std::printf("  kernels of partition_copy (default): %.4f ms\n", pp.kernel_ms);
            clprim_bench::print_kernel_times(pp.times, 10);
        }
    }
    q.enqueue_unmap_buffer(pinned_buf, pinned);
    q.finish();
}
