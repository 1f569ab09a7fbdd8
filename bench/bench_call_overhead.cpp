// Bench case "call_overhead" (diagnostic, prints to stdout, adds no rows): what a small call's wall
// time is made of on this device and process (issue #27: reduce, scan and radix sort at 2^10 at
// <= 0.020 ms in every run), every entry timed interleaved with the others (each round runs every
// entry once, in turn; an entry's figures are its median, minimum and 10th / 90th percentiles
// over the rounds, --repeat, at least 40), so that floors and clprim's calls come from the same
// process and the same minutes. Knobs for an entry are set in the environment while it runs.
//   floor/finish, floor/flush_finish: an empty kernel (no event), then clFinish (after a clFlush);
//   floor/event_wait, floor/event_spin, floor/event_spin_yield: the kernel with an event, then
//       clWaitForEvents; clFlush and polling the event's status (with sched_yield between polls);
//   floor/read_<form>: a kernel writing a word, then that word's 4 bytes to the host in each
//       form of primitives/reduce_pinned.hpp (plain, pinned, async, flush_async, spin, spin_yield,
//       wait, plain_event, flush_plain, flush_spin): what a value-returning call cannot go below;
//   floor/read_map: the kernel writes into a CL_MEM_ALLOC_HOST_PTR buffer, a blocking map for
//       reading, the value, the unmap; floor/read_only: the blocking pinned read with no kernel;
//   floor/empty_queue_finish: clFinish on an empty queue (what the bench's harness adds);
//   host/empty_launch, host/reduce_device, host/scan, host/radix: the host time of the enqueue
//       alone (no wait; the queue is finished after the clock stops): clprim's own per-call cost;
//       host/args7_launch: the launch with 7 arguments set first (reduce's small kernel's);
//       host/launch_buf3, host/launch_scalars4, host/launch_local8k: launches of empty kernels
//       whose arguments were set once: 3 buffers; a buffer and 4 ulongs; a buffer and 8 KiB of
//       local memory;
//       host/queries: the driver queries of a call's checks (buffer size and context, the queue's
//       properties, context and device), no launch; host/knob_read_x10: ten reads of an unset
//       knob, per read; host/cpu_loop, host/mem_walk: fixed host work without a driver call (a
//       dependent chain of 4000 multiply-adds; 1000 dependent loads in 256 KiB): is a slow
//       process's CPU itself slower?
//   reduce/value_read<k>: clprim::reduce returning the value with CLPRIM_REDUCE_READ=k;
//       reduce/value_default: the policy's form; reduce/device: the result into a device word,
//       then clFinish; reduce/device_x20: 20 such calls, then one clFinish, per call;
//       reduce/reduce6: the reduce6 variant (two launches through scratch);
//   scan/inclusive (the bench row scan_op/sum), sort/radix (sort/radix; the keys restored
//       untimed before each call); sort/radix_<kernel>[_e<items>] and sort/pairs_<kernel>: the
//       small sort's kernels (CLPRIM_SORT_SMALL, CLPRIM_SORT_SMALL_ITEMS); copy_if/value and
//       copy_if/device: copy_if keeping half with the count returned / left on the device (then
//       clFinish), through the one-work-group path and (_single_pass, CLPRIM_COPY_IF_SMALL=0) the
//       single pass; copy_if/value_flush_async: the count read as the single pass's default;
//       copy_if/value_wg<n>: the one-work-group path in groups of n (CLPRIM_COPY_IF_SMALL=4096,n);
//       unique/value, partition/value (_single_pass): unique and partition_copy, the count returned;
//       host/copy_if_device, host/radix_warp, host/merge: the enqueue's host time (merge: the
//       public merge of two sorted halves); merge/finish: that merge, then clFinish.
// Then the kernels' device time per call from a profiling queue (reduce, scan, radix, and an empty
// kernel's START..END) and one
// SUMMARY line (grep it across processes): the CPUs (and NUMA nodes) the thread ran on and the
// medians of the main entries. CLPRIM_BENCH_PIN_CPU=c pins this host thread alone to CPU c
// (sched_setaffinity, after the context and the driver's threads exist; `taskset` pins them all).
#include "bench_framework.hpp"

#include <clprim/detail/knobs.hpp>

#include <boost/compute/function.hpp>

#include <algorithm>
#include <cstdint>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

namespace bc = boost::compute;

BOOST_COMPUTE_FUNCTION(bool, call_overhead_is_odd, (cl_uint x), { return (x & 1u) != 0; });

// The small sort's kernels and shapes measured side by side (sort_small_policy.hpp's knobs).
struct sort_variant {
    const char* name;
    std::vector<std::pair<std::string, std::string>> knobs;
};
const std::vector<sort_variant>& small_sort_variants()
{
    static const std::vector<sort_variant> v{
        {"registers", {{"CLPRIM_SORT_SMALL", "registers"}}},
        {"registers_e16", {{"CLPRIM_SORT_SMALL", "registers"}, {"CLPRIM_SORT_SMALL_ITEMS", "16"}}},
        {"warp", {{"CLPRIM_SORT_SMALL", "warp"}}},
        {"warp_e4", {{"CLPRIM_SORT_SMALL", "warp"}, {"CLPRIM_SORT_SMALL_ITEMS", "4"}}},
        {"warp_e16", {{"CLPRIM_SORT_SMALL", "warp"}, {"CLPRIM_SORT_SMALL_ITEMS", "16"}}},
        {"warp_e32", {{"CLPRIM_SORT_SMALL", "warp"}, {"CLPRIM_SORT_SMALL_ITEMS", "32"}}},
    };
    return v;
}

struct timed_entry {
    std::string name;
    std::vector<std::pair<std::string, std::string>> knobs;
    std::function<void()> prepare; // untimed, before the clock starts (may be empty)
    std::function<void()> run;
    bool host_only = false;        // the clock stops before the clFinish
    int calls = 1;
    std::vector<double> ms;
};

// Sets knobs in the environment for a scope (so knob reads pay what real calls pay: no override
// lock), restoring what was there.
class scoped_env {
public:
    explicit scoped_env(const std::vector<std::pair<std::string, std::string>>& knobs) : knobs_(knobs)
    {
        for (const auto& kv : knobs_) {
            const char* old = std::getenv(kv.first.c_str());
            old_.emplace_back(old != nullptr, old ? old : "");
            ::setenv(kv.first.c_str(), kv.second.c_str(), 1);
        }
    }
    ~scoped_env()
    {
        for (std::size_t i = 0; i < knobs_.size(); ++i) {
            if (old_[i].first) ::setenv(knobs_[i].first.c_str(), old_[i].second.c_str(), 1);
            else ::unsetenv(knobs_[i].first.c_str());
        }
    }
    scoped_env(const scoped_env&) = delete;
    scoped_env& operator=(const scoped_env&) = delete;

private:
    const std::vector<std::pair<std::string, std::string>>& knobs_;
    std::vector<std::pair<bool, std::string>> old_;
};

double quantile(std::vector<double> v, double q)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(q * double(v.size())))];
}

void check(cl_int err, const char* what)
{
    if (err != CL_SUCCESS) throw std::runtime_error(std::string("call_overhead: ") + what + " failed, " + std::to_string(err));
}

// Polls an event until it completes (released here).
void spin_event(cl_event e, bool yield)
{
    cl_int status = CL_QUEUED;
    do {
        check(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr), "clGetEventInfo");
        if (yield && status > CL_COMPLETE) sched_yield();
    } while (status > CL_COMPLETE);
    clReleaseEvent(e);
}

// The CPU and NUMA node this thread runs on now.
std::pair<int, int> where_now()
{
    unsigned cpu = 0, node = 0;
    if (syscall(SYS_getcpu, &cpu, &node, nullptr) != 0) return {-1, -1};
    return {int(cpu), int(node)};
}

} // namespace

CLPRIM_BENCH(call_overhead)
{
    if (const auto pin = clprim::detail::knob_number("CLPRIM_BENCH_PIN_CPU", 0, CPU_SETSIZE - 1)) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(int(*pin), &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0) std::printf("call_overhead: could not pin to CPU %zu\n", *pin);
    }
    bc::command_queue& q = ctx.queue;
    const cl_command_queue cq = q.get();
    static const char* src = R"CLC(
__kernel void clprim_bench_co_empty(__global uint* p) { }
__kernel void clprim_bench_co_write(__global uint* p) { if (get_global_id(0) == 0) p[0] = 12345u; }
__kernel void clprim_bench_co_buf3(__global uint* a, __global uint* b, __global uint* c) { }
__kernel void clprim_bench_co_scalars4(__global uint* a, ulong b, ulong c, ulong d, ulong e) { }
__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void clprim_bench_co_local8k(__global uint* p)
{
    __local uint l[2048];
    l[get_local_id(0)] = (uint)get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0 && l[255] == 12345u) p[0] = 1u;
}
__kernel void clprim_bench_co_args(__global const uint* a, ulong b, ulong c, ulong d, __global uint* e, ulong f,
                                   __local uint* l) { }
)CLC";
    bc::program program = bc::program::build_with_source(src, ctx.ctx);
    bc::kernel empty = program.create_kernel("clprim_bench_co_empty");
    bc::kernel write = program.create_kernel("clprim_bench_co_write");
    bc::buffer word(ctx.ctx, 64);
    bc::buffer host_buf(ctx.ctx, 64, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
    empty.set_arg(0, word);
    bc::kernel write_host = program.create_kernel("clprim_bench_co_write");
    bc::kernel args7 = program.create_kernel("clprim_bench_co_args");
    write.set_arg(0, word);
    write_host.set_arg(0, host_buf);
    bc::buffer pinned_buf(ctx.ctx, 64, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
    // Kernels whose arguments are set once: what a launch's host time owes to its arguments and
    // its local memory.
    bc::kernel buf3 = program.create_kernel("clprim_bench_co_buf3");
    bc::kernel scalars4 = program.create_kernel("clprim_bench_co_scalars4");
    bc::kernel local8k = program.create_kernel("clprim_bench_co_local8k");
    buf3.set_arg(0, word);
    buf3.set_arg(1, host_buf);
    buf3.set_arg(2, pinned_buf);
    scalars4.set_arg(0, word);
    for (cl_uint i = 1; i < 5; ++i) scalars4.set_arg(i, cl_ulong(i));
    local8k.set_arg(0, word);
    auto* pinned = static_cast<cl_uint*>(q.enqueue_map_buffer(pinned_buf, CL_MAP_READ | CL_MAP_WRITE, 0, 64));
    const std::size_t g = 256;
    auto launch = [&](const bc::kernel& k, cl_event* e) {
        check(clEnqueueNDRangeKernel(cq, k.get(), 1, nullptr, &g, &g, 0, nullptr, e), "clEnqueueNDRangeKernel");
    };
    const int rounds = std::max(ctx.repeat, 40);
    // host/mem_walk's order: one cycle through 65536 slots.
    std::vector<std::uint32_t> walk(65536);
    {
        std::vector<std::uint32_t> order(walk.size());
        for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        std::shuffle(order.begin(), order.end(), std::mt19937(7));
        for (std::size_t i = 0; i < order.size(); ++i) walk[order[i]] = order[(i + 1) % order.size()];
    }
    volatile std::uint64_t sink = 0;
    std::set<std::pair<int, int>> cpus; // (cpu, node)
    const std::pair<int, int> first = where_now();

    for (const std::size_t n : ctx.sizes) {
        if (n == 0) continue;
        std::vector<cl_uint> host(n);
        std::mt19937 rng(static_cast<unsigned>(n));
        cl_uint want = 0;
        for (auto& x : host) {
            x = rng();
            want += x;
        }
        std::vector<cl_uint> sorted = host;
        std::sort(sorted.begin(), sorted.end());
        bc::vector<cl_uint> d(host.begin(), host.end(), q), out(n, ctx.ctx), keys(n, ctx.ctx), dres(1, ctx.ctx),
            vals(n, ctx.ctx), cout(n, ctx.ctx);
        bc::vector<cl_ulong> dcount(1, ctx.ctx);
        std::vector<cl_uint> run_host(n);
        for (std::size_t i = 0; i < n; ++i) run_host[i] = cl_uint(host[i] % 3 == 0 ? i : i + 1) / 2;
        bc::vector<cl_uint> runs(run_host.begin(), run_host.end(), q);
        std::vector<cl_uint> halves_host = host;
        std::sort(halves_host.begin(), halves_host.begin() + n / 2);
        std::sort(halves_host.begin() + n / 2, halves_host.end());
        bc::vector<cl_uint> halves(halves_host.begin(), halves_host.end(), q);
        const std::size_t want_odd = std::size_t(std::count_if(host.begin(), host.end(), [](cl_uint x) { return (x & 1u) != 0; }));
        q.finish();
        bool right = true;
        cl_uint got = 0;

        std::vector<timed_entry> entries;
        auto add = [&](std::string name, std::function<void()> run,
                       std::vector<std::pair<std::string, std::string>> knobs = {}, bool host_only = false,
                       std::function<void()> prepare = {}, int calls = 1) {
            entries.push_back(timed_entry{std::move(name), std::move(knobs), std::move(prepare), std::move(run), host_only,
                                          calls, {}});
        };
        // Floors.
        add("floor/finish", [&] { launch(empty, nullptr); q.finish(); });
        add("floor/flush_finish", [&] {
            launch(empty, nullptr);
            clFlush(cq);
            q.finish();
        });
        add("floor/event_wait", [&] {
            cl_event e = nullptr;
            launch(empty, &e);
            check(clWaitForEvents(1, &e), "clWaitForEvents");
            clReleaseEvent(e);
        });
        add("floor/event_spin", [&] {
            cl_event e = nullptr;
            launch(empty, &e);
            clFlush(cq);
            spin_event(e, false);
        });
        add("floor/event_spin_yield", [&] {
            cl_event e = nullptr;
            launch(empty, &e);
            clFlush(cq);
            spin_event(e, true);
        });
        const char* forms[] = {"plain",      "pinned",      "async",       "flush_async", "spin",
                               "spin_yield", "wait",        "plain_event", "flush_plain", "flush_spin"};
        for (int f = 0; f < 10; ++f) {
            add(std::string("floor/read_") + forms[f], [&, f] {
                launch(write, nullptr);
                cl_uint v = 0;
                cl_event e = nullptr;
                switch (f) {
                case 0: check(clEnqueueReadBuffer(cq, word.get(), CL_TRUE, 0, 4, &v, 0, nullptr, nullptr), "read"); break;
                case 1: check(clEnqueueReadBuffer(cq, word.get(), CL_TRUE, 0, 4, pinned, 0, nullptr, nullptr), "read"); break;
                case 3: clFlush(cq); // fall through
                case 2:
                    check(clEnqueueReadBuffer(cq, word.get(), CL_FALSE, 0, 4, pinned, 0, nullptr, nullptr), "read");
                    q.finish();
                    break;
                case 9: clFlush(cq); // fall through
                case 4: case 5: case 6:
                    check(clEnqueueReadBuffer(cq, word.get(), CL_FALSE, 0, 4, pinned, 0, nullptr, &e), "read");
                    clFlush(cq);
                    if (f == 6) {
                        check(clWaitForEvents(1, &e), "clWaitForEvents");
                        clReleaseEvent(e);
                    } else {
                        spin_event(e, f == 5);
                    }
                    break;
                case 7:
                    check(clEnqueueReadBuffer(cq, word.get(), CL_TRUE, 0, 4, &v, 0, nullptr, &e), "read");
                    clReleaseEvent(e);
                    break;
                default:
                    clFlush(cq);
                    check(clEnqueueReadBuffer(cq, word.get(), CL_TRUE, 0, 4, &v, 0, nullptr, nullptr), "read");
                    break;
                }
                if ((f >= 1 && f <= 6) || f == 9) v = pinned[0];
                if (v != 12345u) right = false;
            });
        }
        add("floor/read_map", [&] {
            launch(write_host, nullptr);
            cl_int err = CL_SUCCESS;
            void* p = clEnqueueMapBuffer(cq, host_buf.get(), CL_TRUE, CL_MAP_READ, 0, 4, 0, nullptr, nullptr, &err);
            check(err, "clEnqueueMapBuffer");
            if (*static_cast<cl_uint*>(p) != 12345u) right = false;
            check(clEnqueueUnmapMemObject(cq, host_buf.get(), p, 0, nullptr, nullptr), "unmap");
        });
        add("floor/read_only", [&] {
            check(clEnqueueReadBuffer(cq, word.get(), CL_TRUE, 0, 4, pinned, 0, nullptr, nullptr), "read");
        });
        add("floor/empty_queue_finish", [&] { q.finish(); });
        // Host time of the enqueue alone.
        add("host/empty_launch", [&] { launch(empty, nullptr); }, {}, true);
        // The same with the 7 arguments of reduce's small kernel set first (what setting them costs).
        add("host/args7_launch", [&] {
            const cl_mem in = d.get_buffer().get(), w = word.get();
            const cl_ulong off = 0, size = n, head = 0, woff = 0;
            clSetKernelArg(args7.get(), 0, sizeof in, &in);
            clSetKernelArg(args7.get(), 1, sizeof off, &off);
            clSetKernelArg(args7.get(), 2, sizeof size, &size);
            clSetKernelArg(args7.get(), 3, sizeof head, &head);
            clSetKernelArg(args7.get(), 4, sizeof w, &w);
            clSetKernelArg(args7.get(), 5, sizeof woff, &woff);
            clSetKernelArg(args7.get(), 6, 256 * 4, nullptr);
            launch(args7, nullptr);
        }, {}, true);
        add("host/launch_buf3", [&] { launch(buf3, nullptr); }, {}, true);
        add("host/launch_scalars4", [&] { launch(scalars4, nullptr); }, {}, true);
        add("host/launch_local8k", [&] { launch(local8k, nullptr); }, {}, true);
        // The driver queries a call's checks and scopes make (the range's buffer size and context,
        // the queue's properties, context and device), without a launch.
        add("host/queries", [&] {
            cl_command_queue_properties props = 0;
            clGetCommandQueueInfo(cq, CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr);
            volatile std::size_t bytes = d.get_buffer().size();
            (void)bytes;
            volatile bool same = d.get_buffer().get_context().get() == q.get_context().get();
            (void)same;
            const bc::device dev = q.get_device();
            volatile cl_device_id id = dev.id();
            (void)id;
        }, {}, true);
        // Ten reads of an unset knob (clprim/detail/knobs.hpp: a getenv each while no test override
        // lives), per call: a small call reads a few.
        add("host/knob_read_x10", [&] {
            for (int i = 0; i < 10; ++i) (void)clprim::detail::knob_number("CLPRIM_BENCH_UNSET_KNOB", 0, 1);
        }, {}, true, {}, 10);
        add("host/reduce_device", [&] { clprim::reduce(d.begin(), d.end(), dres.begin(), q); }, {}, true);
        add("host/scan", [&] { clprim::inclusive_scan(d.begin(), d.end(), out.begin(), q); }, {}, true);
        auto restore = [&] { bc::copy(d.begin(), d.end(), keys.begin(), q); };
        add("host/radix", [&] { clprim::radix_sort(keys.begin(), keys.end(), q); }, {}, true, restore);
        // The public merge of two sorted halves (issue #30: its wall time is its kernel plus this
        // enqueue and the wait): the enqueue alone, then the call with clFinish.
        auto merge_halves = [&] { clprim::merge(halves.begin(), halves.begin() + n / 2, halves.begin() + n / 2, halves.end(), cout.begin(), q); };
        add("host/merge", merge_halves, {}, true);
        add("merge/finish", [&] {
            merge_halves();
            q.finish();
        });
        // clprim's calls.
        auto value = [&] {
            got = clprim::reduce(d.begin(), d.end(), q);
            if (got != want) right = false;
        };
        add("reduce/value_default", value);
        for (int f = 0; f < 10; ++f)
            add(std::string("reduce/value_read") + std::to_string(f) + "_" + forms[f], value,
                {{"CLPRIM_REDUCE_READ", std::to_string(f)}});
        add("reduce/device", [&] {
            clprim::reduce(d.begin(), d.end(), dres.begin(), q);
            q.finish();
        });
        add("reduce/device_x20", [&] {
            for (int i = 0; i < 20; ++i) clprim::reduce(d.begin(), d.end(), dres.begin(), q);
            q.finish();
        }, {}, false, {}, 20);
        add("reduce/reduce6", [&] {
            got = clprim::reduce(d.begin(), d.end(), q, clprim::reduce_op::sum, clprim::reduce_variant::reduce6);
            if (got != want) right = false;
        });
        add("scan/inclusive", [&] {
            clprim::inclusive_scan(d.begin(), d.end(), out.begin(), q);
            q.finish();
        });
        add("sort/radix", [&] {
            clprim::radix_sort(keys.begin(), keys.end(), q);
            q.finish();
        }, {}, false, restore);
        // #27 (s6-small): the small sort's kernels side by side (CLPRIM_SORT_SMALL, elements per
        // work-item CLPRIM_SORT_SMALL_ITEMS), keys and pairs; copy_if keeping half, the count
        // returned and on the device, through the one-work-group path (copy_if_small.cl) and
        // through the single pass (CLPRIM_COPY_IF_SMALL=0), and the small path's count read as the
        // single pass's default (flush_async).
        for (const auto& v : small_sort_variants()) {
            add(std::string("sort/radix_") + v.name, [&] {
                clprim::radix_sort(keys.begin(), keys.end(), q);
                q.finish();
            }, v.knobs, false, restore);
        }
        auto restore_pairs = [&] {
            bc::copy(d.begin(), d.end(), keys.begin(), q);
            bc::copy(d.begin(), d.end(), vals.begin(), q);
        };
        for (const char* k : {"registers", "warp"}) {
            add(std::string("sort/pairs_") + k, [&] {
                clprim::radix_sort_by_key(keys.begin(), keys.end(), vals.begin(), q);
                q.finish();
            }, {{"CLPRIM_SORT_SMALL", k}}, false, restore_pairs);
        }
        auto copy_value = [&] {
            if (clprim::copy_if(d.begin(), d.end(), cout.begin(), q, call_overhead_is_odd) != want_odd) right = false;
        };
        auto copy_device = [&] {
            clprim::copy_if(d.begin(), d.end(), cout.begin(), dcount.begin(), q, call_overhead_is_odd);
            q.finish();
        };
        add("copy_if/value", copy_value);
        add("copy_if/value_single_pass", copy_value, {{"CLPRIM_COPY_IF_SMALL", "0"}});
        add("copy_if/value_flush_async", copy_value, {{"CLPRIM_COPY_IF_READ", "flush_async"}});
        for (const char* wg : {"128", "512", "1024"})
            add(std::string("copy_if/value_wg") + wg, copy_value, {{"CLPRIM_COPY_IF_SMALL", std::string("4096,") + wg}});
        add("copy_if/device", copy_device);
        add("copy_if/device_single_pass", copy_device, {{"CLPRIM_COPY_IF_SMALL", "0"}});
        // unique (runs of about 2) and partition_copy keeping half, the count returned, through the
        // one-work-group path and the single pass.
        auto unique_value = [&] { (void)clprim::unique(runs.begin(), runs.end(), cout.begin(), q); };
        auto partition_value = [&] {
            if (clprim::partition_copy(d.begin(), d.end(), cout.begin(), vals.begin(), q, call_overhead_is_odd) != want_odd)
                right = false;
        };
        add("unique/value", unique_value);
        add("unique/value_single_pass", unique_value, {{"CLPRIM_COPY_IF_SMALL", "0"}});
        add("partition/value", partition_value);
        add("partition/value_single_pass", partition_value, {{"CLPRIM_COPY_IF_SMALL", "0"}});
        add("host/copy_if_device", [&] {
            clprim::copy_if(d.begin(), d.end(), cout.begin(), dcount.begin(), q, call_overhead_is_odd);
        }, {}, true);
        add("host/radix_warp", [&] { clprim::radix_sort(keys.begin(), keys.end(), q); }, {{"CLPRIM_SORT_SMALL", "warp"}},
            true, restore);

        // Pure host work of a fixed size (no driver call): is a slow process's CPU itself slower?
        // A dependent integer chain, and 1000 dependent loads in 256 KiB in a fixed random order (last
        // in a round: the walk's cache lines push out others).
        add("host/cpu_loop", [&] {
            std::uint64_t x = 88172645463325252ull;
            for (int i = 0; i < 4000; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
            sink = x;
        }, {}, true);
        add("host/mem_walk", [&] {
            std::uint32_t at = 0;
            for (int i = 0; i < 1000; ++i) at = walk[at];
            sink = at;
        }, {}, true);
        // Warm-up (programs built), then the rounds.
        for (auto& e : entries) {
            scoped_env set(e.knobs);
            for (int k = 0; k < 3; ++k) {
                if (e.prepare) e.prepare();
                e.run();
                q.finish();
            }
        }
        for (int r = 0; r < rounds; ++r) {
            cpus.insert(where_now());
            for (auto& e : entries) {
                scoped_env set(e.knobs);
                if (e.prepare) e.prepare();
                q.finish();
                const auto t0 = std::chrono::steady_clock::now();
                e.run();
                if (!e.host_only) q.finish();
                const auto t1 = std::chrono::steady_clock::now();
                if (e.host_only) q.finish();
                e.ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / e.calls);
            }
        }
        // Results of the last scan and sort.
        std::vector<cl_uint> scanned(n), sorted_got(n);
        bc::copy(out.begin(), out.end(), scanned.begin(), q);
        restore();
        clprim::radix_sort(keys.begin(), keys.end(), q);
        bc::copy(keys.begin(), keys.end(), sorted_got.begin(), q);
        cl_uint run = 0;
        for (std::size_t i = 0; i < n; ++i) {
            run += host[i];
            if (scanned[i] != run) right = false;
        }
        if (sorted_got != sorted) right = false;

        // Kernel time per call (profiling queue).
        bc::command_queue pq(ctx.ctx, ctx.device, CL_QUEUE_PROFILING_ENABLE);
        bc::vector<cl_uint> pkeys(n, ctx.ctx);
        const auto pr = clprim_bench::profile_calls(pq, [&] { (void)clprim::reduce(d.begin(), d.end(), pq); }, rounds);
        const auto ps = clprim_bench::profile_calls(pq, [&] { clprim::inclusive_scan(d.begin(), d.end(), out.begin(), pq); }, rounds);
        const auto pk = clprim_bench::profile_calls(pq, [&] {
            bc::copy(d.begin(), d.end(), pkeys.begin(), pq);
            clprim::radix_sort(pkeys.begin(), pkeys.end(), pq);
        }, rounds);

        // The small sort's variants and copy_if's two small paths, kernels alone (no copy).
        std::vector<std::pair<std::string, double>> variant_kernels;
        for (const auto& v : small_sort_variants()) {
            std::vector<std::unique_ptr<clprim::detail::scoped_knob>> set;
            for (const auto& kv : v.knobs) set.emplace_back(new clprim::detail::scoped_knob(kv.first.c_str(), kv.second));
            const auto p = clprim_bench::profile_calls(pq, [&] { clprim::radix_sort(pkeys.begin(), pkeys.end(), pq); }, rounds);
            variant_kernels.emplace_back(std::string("radix_") + v.name, p.kernel_ms);
        }
        for (const char* most : {"4096", "0", "4096,128", "4096,512", "4096,1024"}) {
            clprim::detail::scoped_knob small("CLPRIM_COPY_IF_SMALL", most);
            const auto p = clprim_bench::profile_calls(pq, [&] {
                clprim::copy_if(d.begin(), d.end(), cout.begin(), dcount.begin(), pq, call_overhead_is_odd);
            }, rounds);
            variant_kernels.emplace_back(std::string("copy_if_") + (most[0] == '0' ? "single_pass" : std::string("small_") + most),
                                         p.kernel_ms);
        }

        // The empty kernel's own "device time" on the profiling queue (what START..END of any
        // kernel cannot go below on this driver).
        double empty_profiled = 0;
        {
            bc::kernel pe = program.create_kernel("clprim_bench_co_empty");
            pe.set_arg(0, word);
            std::vector<double> t;
            for (int i = 0; i < rounds; ++i) {
                bc::event e = pq.enqueue_1d_range_kernel(pe, 0, 256, 256);
                e.wait();
                t.push_back(double(e.get_profiling_info<cl_ulong>(CL_PROFILING_COMMAND_END) -
                                   e.get_profiling_info<cl_ulong>(CL_PROFILING_COMMAND_START)) * 1e-6);
            }
            empty_profiled = quantile(t, 0.5);
        }
        std::printf("call_overhead n=%zu pid=%d (%d rounds; ms per call: median, min, p10, p90)%s\n", n, int(getpid()),
                    rounds, right ? "" : "  RESULTS WRONG");
        auto med = [&](const char* name) {
            for (const auto& e : entries)
                if (e.name == name) return quantile(e.ms, 0.5);
            return 0.0;
        };
        for (const auto& e : entries)
            std::printf("  %-34s %8.4f %8.4f %8.4f %8.4f\n", e.name.c_str(), quantile(e.ms, 0.5),
                        *std::min_element(e.ms.begin(), e.ms.end()), quantile(e.ms, 0.1), quantile(e.ms, 0.9));
        std::printf("  kernels (profiling queue, per call): reduce %.4f ms, scan %.4f ms, radix (with the copy) %.4f ms; "
                    "an empty kernel %.4f ms\n",
                    pr.kernel_ms, ps.kernel_ms, pk.kernel_ms, empty_profiled);
        clprim_bench::print_kernel_times(pr.times, rounds);
        clprim_bench::print_kernel_times(ps.times, rounds);
        clprim_bench::print_kernel_times(pk.times, rounds);
        std::printf("  kernels alone (profiling queue, per call):");
        for (const auto& v : variant_kernels) std::printf(" %s %.4f", v.first.c_str(), v.second);
        std::printf(" ms\n");
        std::string cpu_list;
        for (const auto& c : cpus)
            cpu_list += (cpu_list.empty() ? "" : ",") + std::to_string(c.first) + "/" + std::to_string(c.second);
        std::printf("SUMMARY n=%zu pid=%d cpu_first=%d/%d cpus(cpu/node)=%s", n, int(getpid()), first.first, first.second,
                    cpu_list.c_str());
        for (const char* e : {"floor/finish", "floor/read_flush_spin", "floor/read_plain", "floor/read_pinned", "floor/read_flush_async",
                              "floor/read_spin", "reduce/value_default", "reduce/value_read0_plain",
                              "reduce/value_read3_flush_async", "reduce/value_read4_spin", "reduce/value_read8_flush_plain",
                              "reduce/value_read9_flush_spin",
                              "reduce/device", "scan/inclusive", "sort/radix", "sort/radix_registers", "sort/radix_warp",
                              "sort/radix_warp_e4", "sort/radix_warp_e16", "sort/radix_warp_e32", "sort/pairs_warp",
                              "copy_if/value", "copy_if/value_single_pass", "copy_if/value_flush_async", "copy_if/value_wg128",
                              "copy_if/value_wg512", "copy_if/value_wg1024", "copy_if/device",
                              "copy_if/device_single_pass", "unique/value", "unique/value_single_pass", "partition/value",
                              "partition/value_single_pass", "host/copy_if_device", "host/radix_warp",
                              "host/radix", "host/reduce_device", "host/empty_launch", "host/launch_buf3", "host/launch_scalars4",
                              "host/launch_local8k",
                              "host/cpu_loop", "host/mem_walk"})
            std::printf(" %s=%.4f", std::strchr(e, '/') + 1, med(e));
        std::printf(" %s\n", right ? "right" : "WRONG");
    }
    q.enqueue_unmap_buffer(pinned_buf, pinned);
    q.finish();
}
